package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sessiondb/sessiondb/jsonlimport/codex"
)

// TestHandoffOpencodeToCodex: an opencode session (its ID ses_…, no
// UUID) handed to Codex is written as a rollout of a UUIDv7 thread id
// (Result.Session, NewID), in Codex's date folders, recording the
// working directory; its thinking and error flags, which a rollout
// cannot hold, are named in Lost as left out (not as kept history). A
// second handoff into the same home gets another id. The real Codex
// resuming it: TestLiveHandoffMatrix/opencode_to_codex.
func TestHandoffOpencodeToCodex(t *testing.T) {
	st, id := importCorpus(t, "opencode")
	home := t.TempDir()
	res, err := Handoff(t.Context(), st, id, Options{To: "codex", Env: Env{Home: home}, Cwd: "/work/p"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := uuid.Parse(res.Session)
	if err != nil || u.Version() != 7 || !res.NewID || !res.Translated {
		t.Fatalf("session %q (%v), new id %v, translated %v", res.Session, err, res.NewID, res.Translated)
	}
	if len(res.Files) != 1 {
		t.Fatalf("files %v", res.Files)
	}
	rel, _ := filepath.Rel(filepath.Join(home, ".codex"), res.Files[0])
	if parts := strings.Split(filepath.ToSlash(rel), "/"); len(parts) != 5 || parts[0] != "sessions" ||
		!codex.RolloutName(parts[4]) || !strings.HasSuffix(parts[4], res.Session+".jsonl") {
		t.Errorf("written at %s", rel)
	}
	data, err := os.ReadFile(res.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	if codex.ThreadID(data) != res.Session || !strings.Contains(strings.SplitN(string(data), "\n", 2)[0], `"cwd":"/work/p"`) {
		t.Errorf("session_meta: %.300s", data)
	}
	lost := strings.Join(res.Lost, "\n")
	if !strings.Contains(lost, "thinking block") || !strings.Contains(lost, "left out") || strings.Contains(lost, "stays in the history") {
		t.Errorf("lost: %q", res.Lost)
	}
	if got := strings.Join(res.ResumeHeadless, " "); got != "codex exec resume "+res.Session+" PROMPT" {
		t.Errorf("resume: %s", got)
	}
	again, err := Handoff(t.Context(), st, id, Options{To: "codex", Env: Env{Home: home}, Cwd: "/work/p"})
	if err != nil || again.Session == res.Session || !again.NewID {
		t.Fatalf("second handoff: %v %+v", err, again)
	}
}
