package viewer

import (
	"os"
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hello *world*", "<p>hello <em>world</em></p>\n"},
		{"**bold** and `a<b`", "<p><strong>bold</strong> and <code>a&lt;b</code></p>\n"},
		{"```go\nif a < b {}\n```", "<pre class=\"code\"><span class=\"lang\">go</span><code>if a &lt; b {}</code></pre>\n"},
		{"- one\n- two", "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"},
		{"1. one\n2. two", "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"},
		{"| a | b |\n|---|---|\n| 1 | 2 |", "<table class=\"md\">\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n"},
		{"[docs](https://example.com/a?b=1&c=2)", `<p><a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">docs</a></p>` + "\n"},
		{"see https://example.com/x.", `<p>see <a href="https://example.com/x" rel="noopener noreferrer nofollow">https://example.com/x</a>.</p>` + "\n"},
		// A link to anything but an absolute http(s) URL is its text and
		// its target, as text (the old renderer left the whole source).
		{"[x](javascript:alert(1))", "<p>x (javascript:alert(1))</p>\n"},
		{"[x](JaVaScRiPt:alert(1))", "<p>x (JaVaScRiPt:alert(1))</p>\n"},
		{"[x](vbscript:msgbox(1))", "<p>x (vbscript:msgbox(1))</p>\n"},
		{"[x](data:text/html,<script>)", "<p>x (data:text/html,&lt;script&gt;)</p>\n"},
		{"[x](//evil.example/)", "<p>x (//evil.example/)</p>\n"},
		{"<javascript:alert(1)>", "<p>javascript:alert(1)</p>\n"},
		{"![logo](https://example.com/l.png) ![x](data:image/png;base64,AAAA)", `<p><a href="https://example.com/l.png" rel="noopener noreferrer nofollow">[image: logo]</a> [image: x]</p>` + "\n"},
		// Reference links render as links (the old renderer made one link
		// with the brackets in its text).
		{"see [the docs][d] and [d].\n\n[d]: https://example.com/docs", `<p>see <a href="https://example.com/docs" rel="noopener noreferrer nofollow">the docs</a> and <a href="https://example.com/docs" rel="noopener noreferrer nofollow">d</a>.</p>` + "\n"},
		{"visit www.example.com now", `<p>visit <a href="http://www.example.com" rel="noopener noreferrer nofollow">www.example.com</a> now</p>` + "\n"},
		{"~~old~~ new", "<p><del>old</del> new</p>\n"},
		{"- a\n  - b\n\n    ```\n    x < y\n    ```", "<ul>\n<li>a\n<ul>\n<li>\n<p>b</p>\n<pre class=\"code\"><code>x &lt; y</code></pre>\n</li>\n</ul>\n</li>\n</ul>\n"},
		{"<div onclick=\"x()\">\nhi\n</div>", "<p>&lt;div onclick=&quot;x()&quot;&gt;<br>\nhi<br>\n&lt;/div&gt;</p>\n"},
		{"## Sub", "<h4>Sub</h4>\n"},
		{"[Go](https://en.wikipedia.org/wiki/Go_(language)) and `a](`", `<p><a href="https://en.wikipedia.org/wiki/Go_(language)" rel="noopener noreferrer nofollow">Go</a> and <code>a](</code></p>` + "\n"},
		{"<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"},
		{"<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n"},
		{"a\u202Eb", "<p>a\\u202eb</p>\n"},
		{"# Title <b>", "<h3>Title &lt;b&gt;</h3>\n"},
		{"> quoted", "<blockquote>\n<p>quoted</p>\n</blockquote>\n"},
		{"line one\nline two", "<p>line one<br>\nline two</p>\n"},
	}
	for _, tt := range tests {
		if got := string(renderMarkdown(tt.in)); got != tt.want {
			t.Errorf("renderMarkdown(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownHostile(t *testing.T) {
	for _, h := range hostile {
		out := string(renderMarkdown(h))
		if err := checkHTML(out); err != nil {
			t.Errorf("renderMarkdown(%q): %v\n%s", h, err, out)
		}
		if strings.Contains(out, "javascript:") && strings.Contains(out, `href="javascript`) {
			t.Errorf("renderMarkdown(%q) links to javascript:", h)
		}
	}
}

// TestMarkdownLinear renders inputs built to make a naive renderer
// quadratic; the fuzz-style check is that it finishes and stays safe (the
// speed is in BenchmarkMarkdownHostile).
func TestMarkdownLinear(t *testing.T) {
	for _, in := range []string{strings.Repeat("*", 200000), strings.Repeat("[a](", 50000), strings.Repeat("`", 100001), strings.Repeat("**x", 60000), strings.Repeat("![a](", 13000), strings.Repeat("[a](<", 13000)} {
		out := string(renderMarkdown(in))
		if err := checkHTML(out); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Add("| a | b |\n|---|---|\n| [x](https://a.b/\"x) | `y` |")
	f.Fuzz(func(t *testing.T, in string) {
		out := string(renderMarkdown(in))
		if err := checkHTML(out); err != nil {
			t.Fatalf("renderMarkdown(%q): %v\n%s", in, err, out)
		}
	})
}

func BenchmarkMarkdownHostile(b *testing.B) {
	in := strings.Repeat("*a `b` [c](https://d.e) **", 20000)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		renderMarkdown(in)
	}
}

// BenchmarkMarkdownLarge renders a large message of real assistant
// markdown: every assistant text of the corpus in file order, cut at
// maxShown (testdata/large-message.md; the corpus's reduced messages are
// short, so one real message of that size does not exist there).
func BenchmarkMarkdownLarge(b *testing.B) {
	in, err := os.ReadFile("testdata/large-message.md")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		renderMarkdown(string(in))
	}
}
