package cursor_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/cursor"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
)

// label describes an entry by its bubble: role, bubble id, its tool call
// (name, call id, status) and its token counts.
func label(e sessiondb.Entry) string {
	var b struct {
		ID     string `json:"bubbleId"`
		ChatID string `json:"id"` // the chat pane's bubbles
		Tool   *struct {
			Name   string `json:"name"`
			CallID string `json:"toolCallId"`
			Status string `json:"status"`
		} `json:"toolFormerData"`
		Tokens struct {
			In  int64 `json:"inputTokens"`
			Out int64 `json:"outputTokens"`
		} `json:"tokenCount"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if err := json.Unmarshal(e.Body, &b); err != nil {
		return "unreadable: " + err.Error()
	}
	l := fmt.Sprintf("%s %s [%s]", e.Kind, e.Role, b.ID+b.ChatID)
	if b.Tool != nil && b.Tool.Name != "" {
		l += fmt.Sprintf(" call %s %s %s", b.Tool.Name, b.Tool.CallID, b.Tool.Status)
	}
	if b.Tokens.In > 0 || b.Tokens.Out > 0 {
		l += fmt.Sprintf(" tokens %d/%d", b.Tokens.In, b.Tokens.Out)
	}
	return l + " @" + e.CreatedAt.Format("2006-01-02T15:04:05.000Z")
}

// TestCursorGolden: every composer of the corpus as imported (its
// transcript, usage, problems and notes) equals its golden file
// (testdata/expected; -wild.update rewrites them).
//
// The quick run checks the goldens of a copy of the corpus keeping every
// fourth inline composer (15 sessions); the long run all 34.
func TestCursorGolden(t *testing.T) {
	dir, want := corpus, 34
	if !longtest.Enabled() {
		dir, want = copyCorpus(t), 15
		exec(t, filepath.Join(dir, "cursor-history", "state.vscdb"), trimInline)
	}
	got := wildtest.Snapshot(t, cursor.Name, dir, label)
	wildtest.CheckGoldens(t, filepath.Join("testdata", "expected"), got, want)
}
