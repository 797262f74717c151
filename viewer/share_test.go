package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

var updateShare = flag.Bool("update-share", false, "rewrite testdata/share/*")

// shareStore is a small store of its own (the shared fixture holds a
// 10 MB body): one hostile session with tool calls, thinking, backtick
// runs longer than a fence and an unclosed fence, and one compacted one.
func shareStore(t *testing.T) sessiondb.Store {
	t.Helper()
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "share.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	day := time.Date(2026, 3, 20, 14, 30, 0, 0, time.UTC)
	msg := func(role string, content any) sessiondb.Entry {
		b, err := json.Marshal(map[string]any{"role": role, "content": content})
		if err != nil {
			t.Fatal(err)
		}
		return sessiondb.Entry{Kind: sessiondb.KindMessage, Body: b}
	}
	all := strings.Join(hostile, "\n\n")
	ticks := "``````` seven ticks, then a fence that tries to close: \n```\n# not a heading\n````\n"
	_, err = st.Commit(ctx, "hostile", sessiondb.Commit{
		Create: &sessiondb.Session{ID: "hostile", Title: "deploy <script>" + pwn + "</script> [x](javascript:alert(1)) `tick` \u202Etxt.exe\n# second line",
			Project: "/srv/`web`", CreatedAt: day, UpdatedAt: day},
		Append: []sessiondb.Entry{
			msg("user", "Please deploy.\n\n"+all),
			msg("assistant", []any{
				map[string]any{"type": "thinking", "thinking": "Think " + ticks + hostile[0]},
				map[string]any{"type": "text", "text": "Unclosed fence below\n\n```sh\nmake deploy " + hostile[1]},
				map[string]any{"type": "tool_use", "id": "call`1`", "name": "bash", "input": map[string]any{"cmd": "echo '" + ticks + "' " + hostile[3]}},
			}),
			msg("user", []any{
				map[string]any{"type": "tool_result", "tool_use_id": "call`1`", "content": ticks + hostile[0] + "\n</pre></details><script>" + pwn + "</script>"},
			}),
			msg("assistant", "## After the fence\n\nDone, with the key sk-ant-api03-"+strings.Repeat("Ab9x", 23)+"AA and "+hostile[2]),
		},
		Now: day,
	})
	if err != nil {
		t.Fatal(err)
	}
	var long []sessiondb.Entry
	for i := 1; i <= 6; i++ {
		long = append(long, msg([]string{"user", "assistant"}[i%2], "turn "+string(rune('0'+i))))
	}
	if _, err := st.Commit(ctx, "compacted", sessiondb.Commit{
		Create: &sessiondb.Session{ID: "compacted", Title: "compacted", CreatedAt: day, UpdatedAt: day},
		Append: long, Now: day,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Compact(ctx, "compacted", sessiondb.Compaction{AtSeq: 6, KeepFromSeq: 5,
		Summary: []sessiondb.Entry{msg("user", "Summary of turns 1-4")}}); err != nil {
		t.Fatal(err)
	}
	return st
}

func shareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "share", name)
	if *updateShare {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestShare ./viewer/ -update-share writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (-update-share rewrites it); got:\n%s", name, got)
	}
}

// TestShareHTMLGolden: the HTML export of the hostile session is its
// golden file, and holds no markup of the transcript's: no script, no
// element or attribute a payload tries to add, no raw bidi override;
// tool calls are folded with their results, and the file loads nothing.
func TestShareHTMLGolden(t *testing.T) {
	st := shareStore(t)
	var b bytes.Buffer
	if err := WriteHTML(t.Context(), st, "hostile", &b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	shareGolden(t, "hostile.html", b.Bytes())
	// The payloads are in the page as text; no tag of the page carries
	// one of them.
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(page, -1) {
		low := strings.ToLower(tag)
		for _, bad := range []string{"<script", "<iframe", "<svg", "<img", "<link", "<a ", " on", "javascript:", "src=", "srcdoc"} {
			if strings.Contains(low, bad) && !strings.HasPrefix(low, "<a href=\"https://") {
				t.Errorf("a tag of the page holds %q: %s", bad, tag)
			}
		}
	}
	for _, bad := range []string{"\u202E", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if !strings.Contains(page, "script-src 'none'") || !strings.Contains(page, "default-src 'none'") {
		t.Error("no Content-Security-Policy forbidding scripts and loads")
	}
	// One call, folded, its result inside it; the result entry is not
	// shown a second time.
	if n := strings.Count(page, `<details class="tool call">`); n != 1 {
		t.Errorf("%d folded tool calls, want 1", n)
	}
	call := page[strings.Index(page, `<details class="tool call">`):]
	call = call[:strings.Index(call, "</details>")]
	if !strings.Contains(call, `class="result-text"`) || !strings.Contains(call, "&lt;/pre&gt;&lt;/details&gt;&lt;script&gt;") {
		t.Errorf("the call does not hold its escaped result:\n%s", call)
	}
	if strings.Contains(page, `class="tool result"`) {
		t.Error("the paired result is shown again on its own")
	}
	if strings.Count(page, "<details") != strings.Count(page, "</details>") {
		t.Error("unbalanced <details>")
	}
}

// TestShareMarkdownGolden: the Markdown export is its golden file, and no
// transcript text gets out of its fence: every fence is longer than any
// backtick run inside, the unclosed fence of a message is closed after
// it, and the heading of the message after it is a heading.
func TestShareMarkdownGolden(t *testing.T) {
	st := shareStore(t)
	var b bytes.Buffer
	if err := WriteMarkdown(t.Context(), st, "hostile", &b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	shareGolden(t, "hostile.md", b.Bytes())
	if strings.Contains(md, "\u202E") {
		t.Error("raw bidi override")
	}
	// Walk the document as CommonMark reads fences: outside a fence,
	// every "## " line must be one of ours (a message header).
	headers := 0
	for _, line := range strings.Split(closeFencesTrace(md), "\n") {
		if strings.HasPrefix(line, "OUT:## ") && line != "OUT:## After the fence" {
			headers++
			if !regexp.MustCompile(`^OUT:## (user|assistant)( \(summary\))? · #\d+`).MatchString(line) {
				t.Errorf("a heading outside any fence that is not a message header: %q", line)
			}
		}
	}
	if headers != 3 {
		t.Errorf("%d message headings outside fences, want 3 (user, assistant, assistant; the result is shown with its call)", headers)
	}
	if !strings.Contains(closeFencesTrace(md), "OUT:## After the fence") {
		t.Error("the unclosed fence swallowed the next message")
	}
	if lines := strings.SplitN(md, "\n", 3); !strings.HasPrefix(md, "# deploy \\<script\\>") || lines[1] != "" ||
		!strings.Contains(lines[0], "\\[x\\](javascript:alert(1)) \\`tick\\`") {
		t.Errorf("the title is not one escaped heading line: %q", lines[0])
	}
}

// closeFencesTrace marks each line of markdown s IN: (inside a fenced
// block) or OUT:, reading fences as CommonMark does (a closing fence is
// at least as long as the opening one and has no info string).
func closeFencesTrace(s string) string {
	var out []string
	open := ""
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 {
			t = ""
		}
		if open == "" {
			n := leadingRun(t, '`')
			c := byte('`')
			if n < 3 {
				n, c = leadingRun(t, '~'), '~'
			}
			if n >= 3 && (c == '~' || !strings.Contains(t[n:], "`")) {
				open = t[:n]
				out = append(out, "FENCE:"+line)
				continue
			}
			out = append(out, "OUT:"+line)
			continue
		}
		if n := leadingRun(t, open[0]); n >= len(open) && strings.TrimSpace(t[n:]) == "" {
			open = ""
			out = append(out, "FENCE:"+line)
			continue
		}
		out = append(out, "IN:"+line)
	}
	return strings.Join(out, "\n")
}

// TestShareFences: fences and code spans are longer than any backtick
// run in what they hold, and an unclosed fence is closed.
func TestShareFences(t *testing.T) {
	for _, s := range []string{"", "a", "```", "x ```` y", strings.Repeat("`", 40)} {
		f := mdFence("text", s)
		fence := f[:strings.Index(f, "text")]
		if len(fence) <= longestRun(s, '`') || len(fence) < 3 || !strings.HasSuffix(f, "\n"+fence) {
			t.Errorf("mdFence(%q) = %q", s, f)
		}
		c := mdCode(s)
		if d := leadingRun(c, '`'); d <= longestRun(s, '`') {
			t.Errorf("mdCode(%q) = %q", s, c)
		}
	}
	for in, want := range map[string]string{
		"a\n```go\nx":       "a\n```go\nx\n```",
		"a\n```go\nx\n```":  "a\n```go\nx\n```",
		"~~~~\n~~~\n":       "~~~~\n~~~\n~~~~",
		"``` a ` b\nc":      "``` a ` b\nc", // not a fence: a backtick in the info string
		"    ```\nindented": "    ```\nindented",
		"`````\n```\nstill": "`````\n```\nstill\n`````",
	} {
		if got := closeFences(in); got != want {
			t.Errorf("closeFences(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestShareCompacted: an export is the effective transcript: the
// compaction's summary, then the entries kept after it.
func TestShareCompacted(t *testing.T) {
	st := shareStore(t)
	var b bytes.Buffer
	if err := WriteMarkdown(t.Context(), st, "compacted", &b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, "(summary)") || !strings.Contains(md, "Summary of turns 1-4") || strings.Contains(md, "turn 1\n") ||
		!strings.Contains(md, "turn 5") || !strings.Contains(md, "turn 6") {
		t.Errorf("not the effective transcript:\n%s", md)
	}
}

// FuzzShareFences: whatever a tool result holds, its fenced block keeps
// every line of it inside the fence, and text after it is outside; a
// message's text with closeFences leaves the next line outside any fence.
func FuzzShareFences(f *testing.F) {
	for _, s := range []string{"", "```", "a\n````\nb", "~~~\n```go\n", "``` x\n", strings.Repeat("`", 9) + "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := mdFence("text", s) + "\n## after\n"
		lines := strings.Split(closeFencesTrace(doc), "\n")
		if !strings.HasPrefix(lines[0], "FENCE:") {
			t.Fatalf("no opening fence: %q", lines[0])
		}
		body := strings.Count(visible(strings.TrimSuffix(s, "\n")), "\n") + 1
		for i := 1; i <= body && i < len(lines); i++ {
			if !strings.HasPrefix(lines[i], "IN:") {
				t.Fatalf("line %d of the content is outside the fence: %q in %q", i, lines[i], doc)
			}
		}
		if last := lines[len(lines)-2]; last != "OUT:## after" {
			t.Fatalf("the heading after the fence is %q", last)
		}
		text := closeFences(s) + "\n\n## next\n"
		tr := strings.Split(closeFencesTrace(text), "\n")
		if tr[len(tr)-2] != "OUT:## next" {
			t.Fatalf("closeFences(%q) leaves the next heading as %q", s, tr[len(tr)-2])
		}
	})
}
