package jsonlimport

import (
	"context"
	"strings"
	"testing"
)

// TestTranslateCursorToolBubbles: Cursor's tool bubbles (real ones, in
// testdata/cursor/tools whose headers name them) translate into a call
// followed by its result, each result after its call; exported into
// Claude Code, Codex and pi and read back, the conversation is the same
// (texts, calls, results) and every call is still paired with its
// result.
func TestTranslateCursorToolBubbles(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if _, err := Import(ctx, s, []string{"../testdata/cursor/tools"}, Options{}); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Get(ctx, "21bcf92c-5808-47db-8faa-d847cfad6512")
	if err != nil {
		t.Fatal(err)
	}
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil || !loss.empty() {
		t.Fatalf("read: %v, loss %s", err, loss)
	}
	calls, results := 0, 0
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Blocks {
			if b.Type == xCall {
				calls++
				seen[b.ID] = true
			}
		}
		if m.Role == xToolResult {
			results++
			if !seen[m.CallID] {
				t.Errorf("result %s before its call", m.CallID)
			}
		}
	}
	if calls != 8 || results != 8 {
		t.Errorf("%d calls, %d results; the fixture holds 8 tool bubbles", calls, results)
	}
	for _, target := range []string{FormatClaudeCode, FormatCodex, FormatPi} {
		out := t.TempDir()
		if _, err := Export(ctx, s, []string{sess.ID}, target, out); err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		s2 := openStore(t)
		if _, err := Import(ctx, s2, []string{out}, Options{Format: target}); err != nil {
			t.Fatal(err)
		}
		back := allSessions(t, s2)
		if len(back) != 1 {
			t.Fatalf("%s: %d sessions", target, len(back))
		}
		got, gl, err := readForeign(ctx, s2, back[0])
		if err != nil || !gl.empty() {
			t.Fatalf("%s: read back: %v, loss %s", target, err, gl)
		}
		if w, g := strings.Join(xDigest(msgs), "\n"), strings.Join(xDigest(got), "\n"); w != g {
			t.Errorf("%s: the export does not carry the conversation:\n%s", target, firstDiff(xDigest(msgs), xDigest(got)))
		}
		if c, r := unpaired(got); c != 0 || r != 0 {
			t.Errorf("%s: %d unpaired calls, %d unpaired results", target, c, r)
		}
	}
}
