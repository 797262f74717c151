package torture

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestExpectSequenceAcrossRecreate is the regression test for an ABA
// hazard the crash workload found (seed 1795960410833613230): a writer
// reads session X at Sequence 1, another deletes X and a third recreates
// it (SaveFull creates a missing session; importers recreate sessions
// under their source IDs), which starts again at Sequence 1. The first
// writer's Commit with ExpectSequence(1) then succeeds against a session
// it never saw: in the workload, a state describing the old transcript
// was committed next to the new one. A sequence must never name two
// different revisions of one session ID: the expected outcome is
// ErrConflict.
func TestExpectSequenceAcrossRecreate(t *testing.T) {
	store, err := sqlstore.Open(filepath.Join(t.TempDir(), "aba.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	msg := func(s string) []sessiondb.Entry {
		return []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"` + s + `"}`)}
	}
	first, err := store.SaveFull(ctx, sessiondb.Session{ID: "x"}, msg("old"), json.RawMessage(`{"about":"old"}`))
	if err != nil {
		t.Fatal(err)
	}
	seen := first.Sequence // writer A reads the session here
	if err := store.Delete(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	again, err := store.SaveFull(ctx, sessiondb.Session{ID: "x"}, msg("new"), json.RawMessage(`{"about":"new"}`))
	if err != nil {
		t.Fatal(err)
	}
	// Writer A commits what it derived from the old session.
	after, err := store.Commit(ctx, "x", sessiondb.Commit{ExpectSequence: sessiondb.Expect(seen),
		Append: msg("reply to old"), State: json.RawMessage(`{"about":"old"}`)})
	if !errors.Is(err, sessiondb.ErrConflict) {
		t.Fatalf("session x read at sequence %d, deleted, recreated (now sequence %d): Commit(ExpectSequence %d) = (sequence %d, %v), want ErrConflict — the write landed on a session the writer never saw",
			seen, again.Sequence, seen, after.Sequence, err)
	}
}
