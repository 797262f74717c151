package handoff

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/qwen"
)

// TestHandoffQwenNewID: a Codex session (a UUIDv7, which qwen --resume
// does not take) handed to Qwen Code is written under a UUIDv4, which
// the result names, resumes by and files under.
func TestHandoffQwenNewID(t *testing.T) {
	st := corpusStore(t)
	home := t.TempDir()
	r, err := Handoff(t.Context(), st, codexSession, Options{To: "qwen", Env: Env{Home: home}, Cwd: "/p", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	want := qwen.SessionID(codexSession)
	if want == codexSession || !r.NewID || r.Session != want || !r.Translated {
		t.Fatalf("session %s new=%v translated=%v, want %s", r.Session, r.NewID, r.Translated, want)
	}
	if len(r.Files) != 1 || r.Files[0] != filepath.Join(home, ".qwen/projects/-p/chats", want+".jsonl") {
		t.Errorf("files %v", r.Files)
	}
	if !slices.Contains(r.Resume, want) {
		t.Errorf("resume %v does not name %s", r.Resume, want)
	}
}
