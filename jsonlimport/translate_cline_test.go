package jsonlimport

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClineSDKNeutral: a Cline SDK session reads into the neutral
// conversation as the CLI sends it: the prompt without its <user_input>
// envelope, a structured tool result as its JSON text (paired with its
// call), the SDK's image block as an image, a display-only message left
// out (it was never sent: no loss), the compaction's summary first.
func TestClineSDKNeutral(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if _, err := Import(ctx, s, []string{filepath.Join("..", "testdata", "cline", "sdk-crafted"), filepath.Join("..", "testdata", "cline", "sdk", "home")}, Options{}); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Get(ctx, "1700000400000_cmpct")
	if err != nil {
		t.Fatal(err)
	}
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		var parts []string
		for _, b := range m.Blocks {
			parts = append(parts, b.Type+":"+b.Text+b.MIME)
		}
		got = append(got, m.Role+" "+strings.Join(parts, " "))
	}
	want := []string{
		"user text:Summary: the notes say the bug is on line 3; the assistant found it.",
		"user text:Now look at this ✓ image:image/png",
		"assistant text:It is a screenshot of the fix. 完成",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("neutral conversation\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !loss.empty() {
		t.Errorf("loss %q; want none", loss.String())
	}
	// The CLI's session B: four calls, each answered by its result.
	var runs struct{ B string }
	data, err := os.ReadFile(filepath.Join("..", "testdata", "cline", "sdk", "runs.json"))
	if err != nil || json.Unmarshal(data, &runs) != nil || runs.B == "" {
		t.Fatalf("runs.json: %v %s", err, data)
	}
	for _, sess := range allSessions(t, s) {
		if sess.ID != runs.B {
			continue
		}
		msgs, _, err := readForeign(ctx, s, sess)
		if err != nil {
			t.Fatal(err)
		}
		calls, results := map[string]bool{}, 0
		for _, m := range msgs {
			for _, b := range m.Blocks {
				if b.Type == xCall {
					calls[b.ID] = true
				}
			}
			if m.Role == xToolResult {
				if !calls[m.CallID] || len(m.Blocks) != 1 || !strings.HasPrefix(m.Blocks[0].Text, `[{"query":`) {
					t.Errorf("result %s: %+v", m.CallID, m.Blocks)
				}
				results++
			}
			if m.Role == xUser && len(m.Blocks) > 0 && strings.Contains(m.Blocks[0].Text, "<user_input") {
				t.Errorf("a prompt keeps its envelope: %q", m.Blocks[0].Text)
			}
		}
		if len(calls) != 4 || results != 4 {
			t.Errorf("%d calls, %d results; want 4 and 4", len(calls), results)
		}
		return
	}
	t.Fatal("session B not imported")
}
