package jsonlimport

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGooseTranslated: a goose session reads, for other formats, as what
// goose sends its model when it resumes it: for the compacted session,
// the summary and what follows it (the messages the compaction hid and
// goose's notice are left out, without a loss); for the other, every
// text, the signed thinking, the image and the two calls answered by
// their results (one an error), named by their calls.
func TestGooseTranslated(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if _, err := Import(ctx, s, []string{filepath.Join("..", "testdata", "corpus", "goose", "constructed-v13")}, Options{Format: FormatGoose}); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"20260301_2": {
			"user: text Summary: the loader was refactored to stream its input; tests pass.",
			"user: text Now add a benchmark for it.",
			"assistant: text Added BenchmarkLoader in loader_test.go.",
		},
		"20260301_1": {
			"user: text List the Go files in the project and tell me which one is largest.",
			"assistant: thinking The user wants the largest Go file; run a shell command. (sig-AAAA) | text I'll look. | toolCall toolu_01 developer__shell {\"command\":\"ls -S *.go | head -1\"}",
			"toolResult toolu_01 developer__shell: text store.go",
			"assistant: toolCall toolu_02 developer__text_editor {\"command\":\"view\",\"path\":\"/work/alpha/store.go\"}",
			"toolResult toolu_02 developer__text_editor error: text permission denied",
			"user: text Here is a screenshot. | image image/png",
			"assistant: text store.go is the largest file; I could not open it (permission denied).",
		},
	}
	for _, sess := range allSessions(t, s) {
		w, ok := want[sess.ID]
		if !ok {
			continue
		}
		msgs, loss, err := readForeign(ctx, s, sess)
		if err != nil {
			t.Fatal(err)
		}
		if !loss.empty() {
			t.Errorf("%s: loss %s", sess.ID, loss)
		}
		var got []string
		for _, m := range msgs {
			var blocks []string
			for _, b := range m.Blocks {
				switch b.Type {
				case xText:
					blocks = append(blocks, "text "+b.Text)
				case xThinking:
					blocks = append(blocks, "thinking "+b.Text+" ("+b.Signature+")")
				case xImage:
					blocks = append(blocks, "image "+b.MIME)
				case xCall:
					blocks = append(blocks, "toolCall "+b.ID+" "+b.Name+" "+string(b.Args))
				}
			}
			head := m.Role
			if m.Role == xToolResult {
				head += " " + m.CallID + " " + m.ToolName
				if m.IsError {
					head += " error"
				}
			}
			got = append(got, head+": "+strings.Join(blocks, " | "))
		}
		if d := cmp.Diff(w, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", sess.ID, d)
		}
		delete(want, sess.ID)
	}
	if len(want) > 0 {
		t.Errorf("sessions not imported: %v", want)
	}
}
