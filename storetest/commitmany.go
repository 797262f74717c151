package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// CommitMany: atomic commits across sessions (issue 14).

func commitManyTests() []testCase {
	return []testCase{
		{name: "AllApplied", fn: testCommitManyAll},
		{name: "ConflictWritesNothing", fn: testCommitManyConflict},
		{name: "FailureWritesNothing", fn: testCommitManyFailure},
		{name: "SameSessionTwice", fn: testCommitManySameTwice},
		{name: "DeleteWithOthers", fn: testCommitManyDelete},
		{name: "DeleteConflictWritesNothing", fn: testCommitManyDeleteConflict},
		{name: "DeleteHoldsNothingElse", fn: testCommitDeleteAlone},
		{name: "PromoteHistory", fn: testPromoteHistory},
		{name: "PromoteHistoryRace", fn: testPromoteHistoryRace},
		{name: "PromoteHistoryShaped", fn: testPromoteHistoryShaped},
	}
}

func testCommitManyAll(t *testing.T, s sessiondb.Store) {
	a := mustSession(t, s, "a", 2)
	got, err := s.CommitMany(bg(t), []sessiondb.SessionCommit{
		{ID: "a", Commit: sessiondb.Commit{ExpectSequence: sessiondb.Expect(a.Sequence), Append: msgs(3, 3), State: raw(`{"a":1}`)}},
		{ID: "b", Commit: sessiondb.Commit{CreateIfMissing: &sessiondb.Session{Title: "new"}, Append: msgs(1, 2)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "a" || got[0].Sequence != a.Sequence+1 || got[0].LastSeq != 3 ||
		got[1].ID != "b" || got[1].Sequence != 1 || got[1].Title != "new" || got[1].LastSeq != 2 {
		t.Errorf("CommitMany returned %+v", got)
	}
	wantTranscript(t, s, "a", bodies(1, 3))
	wantTranscript(t, s, "b", bodies(1, 2))
	wantJSON(t, mustState(t, s, "a"), `{"a":1}`, "state of a")
	if got, err := s.CommitMany(bg(t), nil); err != nil || len(got) != 0 {
		t.Errorf("CommitMany(nil) = %v, %v; want nothing", got, err)
	}
}

func testCommitManyConflict(t *testing.T, s sessiondb.Store) {
	a := mustSession(t, s, "a", 2)
	b := mustSession(t, s, "b", 2)
	_, err := s.CommitMany(bg(t), []sessiondb.SessionCommit{
		{ID: "a", Commit: sessiondb.Commit{ExpectSequence: sessiondb.Expect(a.Sequence), Append: msgs(3, 3)}},
		{ID: "c", Commit: sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, Append: msgs(1, 1)}},
		{ID: "b", Commit: sessiondb.Commit{ExpectSequence: sessiondb.Expect(b.Sequence - 1), Append: msgs(3, 3)}},
	})
	var ce *sessiondb.ConflictError
	if !errors.As(err, &ce) || ce.SessionID != "b" || ce.Current != b.Sequence {
		t.Fatalf("CommitMany with a stale sequence for b: %v, want a *ConflictError on b at %d", err, b.Sequence)
	}
	wantUnchanged(t, s, a, "a after a failed CommitMany")
	wantUnchanged(t, s, b, "b after a failed CommitMany")
	_, err = s.Get(bg(t), "c")
	wantErr(t, err, sessiondb.ErrNotFound, "session created by a failed CommitMany")
}

func testCommitManyFailure(t *testing.T, s sessiondb.Store) {
	a := mustSession(t, s, "a", 2)
	_, err := s.CommitMany(bg(t), []sessiondb.SessionCommit{
		{ID: "a", Commit: sessiondb.Commit{Append: msgs(3, 3)}},
		{ID: "missing", Commit: sessiondb.Commit{Append: msgs(1, 1)}},
	})
	wantErr(t, err, sessiondb.ErrNotFound, "CommitMany with an unknown session")
	wantUnchanged(t, s, a, "a after CommitMany failing on an unknown session")
	_, err = s.CommitMany(bg(t), []sessiondb.SessionCommit{
		{ID: "a", Commit: sessiondb.Commit{Append: msgs(3, 3)}},
		{ID: "a", Commit: sessiondb.Commit{Append: []sessiondb.Entry{sessiondb.Message(`not json`)}}},
	})
	wantErr(t, err, sessiondb.ErrInvalid, "CommitMany with an invalid body")
	wantUnchanged(t, s, a, "a after an invalid CommitMany")
	_, err = s.CommitMany(bg(t), make([]sessiondb.SessionCommit, sessiondb.MaxCommitMany+1))
	wantErr(t, err, sessiondb.ErrInvalid, "CommitMany over the limit")
}

func testCommitManySameTwice(t *testing.T, s sessiondb.Store) {
	got, err := s.CommitMany(bg(t), []sessiondb.SessionCommit{
		{ID: "t", Commit: sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, Append: msgs(1, 1)}},
		{ID: "t", Commit: sessiondb.Commit{ExpectSequence: sessiondb.Expect(1), Append: msgs(2, 2)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Sequence != 1 || got[1].Sequence != 2 || got[1].LastSeq != 2 {
		t.Errorf("two commits to one session returned %+v", got)
	}
	wantTranscript(t, s, "t", bodies(1, 2))
}

// testCommitManyDelete deletes a fork in the CommitMany that appends to
// its parent (issue 38: an importer drops a branch fork the file no
// longer has): both land; the deleted ID made again continues its
// Sequence, as after Store.Delete.
func testCommitManyDelete(t *testing.T, s sessiondb.Store) {
	a := mustSession(t, s, "a", 2)
	f, err := s.Fork(bg(t), "a", 2, "a@tip")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.CommitMany(bg(t), []sessiondb.SessionCommit{
		{ID: "a", Commit: sessiondb.Commit{ExpectSequence: sessiondb.Expect(a.Sequence), Append: msgs(3, 3)}},
		{ID: "a@tip", Commit: sessiondb.Commit{ExpectSequence: sessiondb.Expect(f.Sequence), Delete: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].LastSeq != 3 || got[1].ID != "a@tip" || got[1].Sequence != f.Sequence {
		t.Errorf("CommitMany with a deletion returned %+v", got)
	}
	wantTranscript(t, s, "a", bodies(1, 3))
	_, err = s.Get(bg(t), "a@tip")
	wantErr(t, err, sessiondb.ErrNotFound, "session deleted by a CommitMany")
	again, err := s.Commit(bg(t), "a@tip", sessiondb.Commit{Create: &sessiondb.Session{}, Append: msgs(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if again.Sequence <= f.Sequence {
		t.Errorf("a@tip made again at Sequence %d, want it to continue after %d", again.Sequence, f.Sequence)
	}
	_, err = s.Commit(bg(t), "gone", sessiondb.Commit{Delete: true})
	wantErr(t, err, sessiondb.ErrNotFound, "deleting an unknown session by a commit")
}

func testCommitManyDeleteConflict(t *testing.T, s sessiondb.Store) {
	a := mustSession(t, s, "a", 2)
	b := mustSession(t, s, "b", 2)
	_, err := s.CommitMany(bg(t), []sessiondb.SessionCommit{
		{ID: "a", Commit: sessiondb.Commit{ExpectSequence: sessiondb.Expect(a.Sequence), Append: msgs(3, 3)}},
		{ID: "b", Commit: sessiondb.Commit{ExpectSequence: sessiondb.Expect(b.Sequence + 1), Delete: true}},
	})
	var ce *sessiondb.ConflictError
	if !errors.As(err, &ce) || ce.SessionID != "b" {
		t.Fatalf("deleting b at a stale sequence: %v, want a *ConflictError on b", err)
	}
	wantUnchanged(t, s, a, "a after a failed CommitMany with a deletion")
	wantUnchanged(t, s, b, "b after its failed deletion")
	// A failure after the deletion undoes it too.
	_, err = s.CommitMany(bg(t), []sessiondb.SessionCommit{
		{ID: "b", Commit: sessiondb.Commit{Delete: true}},
		{ID: "missing", Commit: sessiondb.Commit{Append: msgs(1, 1)}},
	})
	wantErr(t, err, sessiondb.ErrNotFound, "CommitMany deleting b, then failing")
	wantUnchanged(t, s, b, "b after a CommitMany that failed after deleting it")
}

func testCommitDeleteAlone(t *testing.T, s sessiondb.Store) {
	a := mustSession(t, s, "a", 2)
	for name, c := range map[string]sessiondb.Commit{
		"entries":  {Delete: true, Append: msgs(3, 3)},
		"meta":     {Delete: true, Meta: &sessiondb.MetaPatch{}},
		"a create": {Delete: true, CreateIfMissing: &sessiondb.Session{}},
	} {
		_, err := s.Commit(bg(t), "a", c)
		wantErr(t, err, sessiondb.ErrInvalid, "a deletion with "+name)
	}
	wantUnchanged(t, s, a, "a after invalid deletions")
}

func testPromoteHistory(t *testing.T, s sessiondb.Store) {
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "legacy:key", Summary: "old talk"}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "legacy:key", msgs(1, 3)...)
	ok, err := sessiondb.PromoteHistory(bg(t), s, "legacy:key", "sk_canonical")
	if err != nil || !ok {
		t.Fatalf("PromoteHistory = %v, %v; want true", ok, err)
	}
	wantTranscript(t, s, "sk_canonical", bodies(1, 3))
	wantTranscript(t, s, "legacy:key", bodies(1, 3)) // left in place, as picoclaw does
	if g := mustGet(t, s, "sk_canonical"); g.Summary != "old talk" {
		t.Errorf("summary %q, want the source's", g.Summary)
	}
	// A target with a conversation is left alone.
	mustAppend(t, s, "legacy:key", msgs(4, 4)...)
	if ok, err := sessiondb.PromoteHistory(bg(t), s, "legacy:key", "sk_canonical"); err != nil || ok {
		t.Errorf("second PromoteHistory = %v, %v; want false", ok, err)
	}
	wantTranscript(t, s, "sk_canonical", bodies(1, 3))
	_, err = sessiondb.PromoteHistory(bg(t), s, "nope", "sk_canonical")
	wantErr(t, err, sessiondb.ErrNotFound, "PromoteHistory from an unknown session")
}

// interleaving is a Store whose first CommitMany is preceded by an append
// to session id: another writer getting in between PromoteHistory's read
// and its write.
type interleaving struct {
	sessiondb.Store
	t    *testing.T
	id   string
	once sync.Once
}

func (w *interleaving) CommitMany(ctx context.Context, commits []sessiondb.SessionCommit) ([]sessiondb.Session, error) {
	w.once.Do(func() { mustAppend(w.t, w.Store, w.id, msgs(99, 99)...) })
	return w.Store.CommitMany(ctx, commits)
}

// testPromoteHistoryRace: a message appended to the source between the
// promotion's read and its write is not lost: the move fails on the
// source's sequence and is retried, so the target gets it too.
func testPromoteHistoryRace(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "src:k", 3)
	w := &interleaving{Store: s, t: t, id: "src:k"}
	ok, err := sessiondb.PromoteHistory(bg(t), w, "src:k", "dst")
	if err != nil || !ok {
		t.Fatalf("PromoteHistory = %v, %v", ok, err)
	}
	want := append(bodies(1, 3), msgBody(99))
	wantTranscript(t, s, "src:k", want)
	wantTranscript(t, s, "dst", want)
}

// testPromoteHistoryShaped: a missing target is created with OrCreate's
// scope and aliases by the commit that moves the history (one Sequence);
// an empty source creates nothing; a target whose transcript holds an
// entry that is not a message (MessageCount 0) still has a transcript and
// is left alone.
func testPromoteHistoryShaped(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "legacy:a", 2)
	oc := sessiondb.OrCreate{Session: sessiondb.Session{Scope: raw(`{"agent":"main"}`), Aliases: []string{"agent:main:a"}}, ShadowAliases: true}
	if ok, err := oc.PromoteHistory(bg(t), s, "legacy:a", "sk_a"); err != nil || !ok {
		t.Fatalf("OrCreate.PromoteHistory = %v, %v; want true", ok, err)
	}
	g := mustGet(t, s, "sk_a")
	if g.Sequence != 1 || g.MessageCount != 2 {
		t.Errorf("created target: sequence %d, %d messages; want 1 (created and filled by one commit), 2", g.Sequence, g.MessageCount)
	}
	wantJSON(t, g.Scope, `{"agent":"main"}`, "scope of the created target")
	if id, err := s.Resolve(bg(t), "agent:main:a"); err != nil || id != "sk_a" {
		t.Errorf("Resolve(agent:main:a) = %q, %v; want sk_a", id, err)
	}
	wantTranscript(t, s, "sk_a", bodies(1, 2))

	if _, err := s.Create(bg(t), sessiondb.Session{ID: "empty:src"}); err != nil {
		t.Fatal(err)
	}
	if ok, err := oc.PromoteHistory(bg(t), s, "empty:src", "sk_none"); err != nil || ok {
		t.Errorf("PromoteHistory from an empty session = %v, %v; want false", ok, err)
	}
	_, err := s.Get(bg(t), "sk_none")
	wantErr(t, err, sessiondb.ErrNotFound, "target of a promotion with nothing to move")

	if _, err := s.Create(bg(t), sessiondb.Session{ID: "sk_b"}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "sk_b", sessiondb.Entry{Kind: "model_change", Body: raw(`{"model":"m2"}`)})
	if g := mustGet(t, s, "sk_b"); g.MessageCount != 0 {
		t.Fatalf("a model change counted as a message: %d", g.MessageCount)
	}
	if ok, err := sessiondb.PromoteHistory(bg(t), s, "legacy:a", "sk_b"); err != nil || ok {
		t.Errorf("PromoteHistory to a target holding a model change = %v, %v; want false", ok, err)
	}
	wantTranscript(t, s, "sk_b", []string{`{"model":"m2"}`})
}
