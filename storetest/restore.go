package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/sessiondb/sessiondb"
)

func restoreTests() []testCase {
	return []testCase{
		{name: "ForkAndRewind", fn: restoreForkAndRewind},
		{name: "Errors", fn: restoreErrors},
	}
}

func transcriptBodies(t *testing.T, s sessiondb.Store, id string) []string {
	t.Helper()
	tr, err := s.Load(bg(t), id, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(tr))
	for i, e := range tr {
		out[i] = string(e.Body)
	}
	return out
}

func restoreMsg(i int) sessiondb.Entry {
	return sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"turn %d"}`, i))
}

func isConflict(err error) bool {
	var ce *sessiondb.ConflictError
	return errors.As(err, &ce) && errors.Is(err, sessiondb.ErrConflict)
}

// restoreForkAndRewind: checkpoint → 100 appends → restore as fork and as
// rewind; the rewind keeps the abandoned turns in the log until pruned,
// and Prune keeps what the checkpoint needs.
func restoreForkAndRewind(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	if _, err := s.Create(ctx, sessiondb.Session{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 10; i++ {
		if _, err := s.Append(ctx, "a", restoreMsg(i)); err != nil {
			t.Fatal(err)
		}
	}
	// A summary makes the checkpoint's transcript start with a summary message.
	if _, err := s.Compact(ctx, "a", sessiondb.Compaction{KeepFromSeq: 6,
		Summary: []sessiondb.Entry{sessiondb.Message(`{"role":"system","content":"summary of 1-5"}`)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveState(ctx, "a", json.RawMessage(`{"at":"checkpoint"}`)); err != nil {
		t.Fatal(err)
	}
	want := transcriptBodies(t, s, "a")
	cp, err := s.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: "a", Label: "before tools"})
	if err != nil {
		t.Fatal(err)
	}
	if cp.AtSeq != 10 || cp.CompactionID == 0 || string(cp.State) != `{"at":"checkpoint"}` {
		t.Fatalf("checkpoint = %+v", cp)
	}
	for i := 11; i <= 110; i++ {
		if _, err := s.Append(ctx, "a", restoreMsg(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SaveState(ctx, "a", json.RawMessage(`{"at":"later"}`)); err != nil {
		t.Fatal(err)
	}

	fork, err := s.Restore(ctx, cp.ID, sessiondb.RestoreOptions{AsFork: true, NewID: "a-fork"})
	if err != nil {
		t.Fatal(err)
	}
	if fork.ParentID != "a" || fork.ForkSeq != 10 {
		t.Fatalf("fork link = %q@%d", fork.ParentID, fork.ForkSeq)
	}
	if got := transcriptBodies(t, s, "a-fork"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("fork transcript\n got %q\nwant %q", got, want)
	}
	if st, _ := s.LoadState(ctx, "a-fork"); string(st) != `{"at":"checkpoint"}` {
		t.Fatalf("fork state %s", st)
	}

	before, _ := s.Get(ctx, "a")
	if _, err := s.Restore(ctx, cp.ID, sessiondb.RestoreOptions{ExpectSequence: sessiondb.Expect(before.Sequence - 1)}); !isConflict(err) {
		t.Fatalf("stale rewind = %v, want conflict", err)
	}
	rew, err := s.Restore(ctx, cp.ID, sessiondb.RestoreOptions{ExpectSequence: sessiondb.Expect(before.Sequence)})
	if err != nil {
		t.Fatal(err)
	}
	if rew.Sequence != before.Sequence+1 {
		t.Fatalf("rewind bumped sequence %d -> %d", before.Sequence, rew.Sequence)
	}
	if got := transcriptBodies(t, s, "a"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rewound transcript\n got %q\nwant %q", got, want)
	}
	if st, _ := s.LoadState(ctx, "a"); string(st) != `{"at":"checkpoint"}` {
		t.Fatalf("rewound state %s", st)
	}
	// The abandoned turns are still in the log, and appends continue.
	if old, _ := s.Entries(ctx, "a", 110, 110); len(old) != 1 || string(old[0].Body) != string(restoreMsg(110).Body) {
		t.Fatalf("abandoned turn 110 not kept: %+v", old)
	}
	if _, err := s.Append(ctx, "a", restoreMsg(999)); err != nil {
		t.Fatal(err)
	}
	if got := transcriptBodies(t, s, "a"); got[len(got)-1] != string(restoreMsg(999).Body) || len(got) != len(want)+1 {
		t.Fatalf("append after rewind: %q", got)
	}
	// Prune keeps what the checkpoint needs: restoring it again still works.
	if _, err := s.Prune(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, cp.ID, sessiondb.RestoreOptions{AsFork: true, NewID: "a-fork2"}); err != nil {
		t.Fatalf("restore after prune: %v", err)
	}
	if got := transcriptBodies(t, s, "a-fork2"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("fork after prune\n got %q\nwant %q", got, want)
	}
}

func restoreErrors(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	if _, err := s.Restore(ctx, "no-such-checkpoint", sessiondb.RestoreOptions{}); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Fatalf("unknown checkpoint: %v", err)
	}
	if _, err := s.Restore(ctx, "", sessiondb.RestoreOptions{}); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Fatalf("empty id: %v", err)
	}
	if _, err := s.Create(ctx, sessiondb.Session{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, sessiondb.Session{ID: "taken"}); err != nil {
		t.Fatal(err)
	}
	cp, err := s.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, cp.ID, sessiondb.RestoreOptions{AsFork: true, NewID: "taken"}); !errors.Is(err, sessiondb.ErrExists) {
		t.Fatalf("fork onto an existing ID: %v", err)
	}
	if err := s.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, cp.ID, sessiondb.RestoreOptions{}); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Fatalf("checkpoint of a deleted session: %v", err)
	}
}
