package entire_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// label describes an entry by what identifies it in its agent's file:
// Claude Code's type and uuid, Codex's line type and payload type,
// Gemini CLI's record type and id.
func label(e sessiondb.Entry) string {
	var m struct {
		Type    string `json:"type"`
		UUID    string `json:"uuid"`
		ID      string `json:"id"`
		Payload struct {
			Type string `json:"type"`
			Role string `json:"role"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(e.Body, &m); err != nil {
		return "unreadable: " + err.Error()
	}
	id := m.UUID
	if id == "" {
		id = m.ID
	}
	if m.Payload.Type != "" {
		id = m.Payload.Type + " " + m.Payload.Role
	}
	return fmt.Sprintf("%s %s %s [%s]", e.Kind, e.Role, m.Type, id)
}

// TestEntireGolden: every session of the fixture's branch as imported
// (transcript, usage, problems, attrs with Entire's metadata) equals its
// golden file (testdata/expected; -wild.update rewrites them).
func TestEntireGolden(t *testing.T) {
	dir := buildRepo(t, 3)
	got := map[string]wildtest.Golden{}
	for rel, g := range wildtest.Snapshot(t, "", dir, label) {
		// Named by the session: every source path is .git/HEAD#<id>.
		_, id, ok := jsonl.SplitSessionPath(rel)
		if !ok {
			t.Fatalf("session %s read from %s, not from the branch", g.ID, rel)
		}
		got[id] = g
	}
	wildtest.CheckGoldens(t, filepath.Join("testdata", "expected"), got, 5)
}
