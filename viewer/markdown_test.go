package viewer

import (
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
		{"| a | b |\n|---|---|\n| 1 | 2 |", "<table class=\"md\"><thead><tr><th>a</th><th>b</th></tr></thead><tbody>\n<tr><td>1</td><td>2</td></tr>\n</tbody></table>\n"},
		{"[docs](https://example.com/a?b=1&c=2)", `<p><a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">docs</a></p>` + "\n"},
		{"see https://example.com/x.", `<p>see <a href="https://example.com/x" rel="noopener noreferrer nofollow">https://example.com/x</a>.</p>` + "\n"},
		{"[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>\n"},
		{"[x](JaVaScRiPt:alert(1))", "<p>[x](JaVaScRiPt:alert(1))</p>\n"},
		{"[x](data:text/html,<script>)", "<p>[x](data:text/html,&lt;script&gt;)</p>\n"},
		{"[x](//evil.example/)", "<p>[x](//evil.example/)</p>\n"},
		{"<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"},
		{"<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n"},
		{"a\u202Eb", "<p>a\\u202eb</p>\n"},
		{"# Title <b>", "<h3>Title &lt;b&gt;</h3>\n"},
		{"> quoted", "<blockquote>quoted</blockquote>\n"},
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
	for _, in := range []string{strings.Repeat("*", 200000), strings.Repeat("[a](", 50000), strings.Repeat("`", 100001), strings.Repeat("**x", 60000)} {
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
