package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
)

func forkTests() []testCase {
	return []testCase{
		{name: "Positions", fn: testForkPositions},
		{name: "AcrossCompaction", fn: testForkAcrossCompaction},
		{name: "Independent", fn: testForkIndependent},
		{name: "ForkOfFork", fn: testForkOfFork},
		{name: "GeneratedID", fn: testForkGeneratedID},
		{name: "Errors", fn: testForkErrors},
		{name: "PatchForkSeq", fn: testPatchForkSeq},
	}
}

// testPatchForkSeq: MetaPatch.ForkSeq moves a fork's branch point within
// its parent's log (up to a LastSeq reached earlier in the same
// CommitMany); a negative one, one beyond the parent's log, or one for a
// session that is not a fork fails with ErrInvalid and changes nothing
// (the rest of the patch included); once the parent is gone, any value
// >= 0 is accepted.
func testPatchForkSeq(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustSession(t, s, "p", 5)
	mustFork(t, s, "p", 2, "pf")
	mustCreate(t, s, "n")
	patch := func(id string, seq int64) (sessiondb.Session, error) {
		title := "patched"
		return s.Commit(ctx, id, sessiondb.Commit{Meta: &sessiondb.MetaPatch{Title: &title, ForkSeq: &seq}})
	}
	before, _ := s.Get(ctx, "pf")
	got, err := patch("pf", 4)
	if err != nil || got.ForkSeq != 4 || got.ParentID != "p" || got.Sequence != before.Sequence+1 {
		t.Fatalf("patch fork seq 4 = %+v, %v; want ForkSeq 4, the next sequence", got, err)
	}
	if g, _ := s.Get(ctx, "pf"); g.ForkSeq != 4 || g.Title != "patched" {
		t.Errorf("Get after the patch: ForkSeq %d, title %q", g.ForkSeq, g.Title)
	}
	if got, err = patch("pf", 5); err != nil || got.ForkSeq != 5 {
		t.Errorf("patch to the parent's last seq = %+v, %v", got, err)
	}
	if got, err = patch("pf", 0); err != nil || got.ForkSeq != 0 {
		t.Errorf("patch to 0 = %+v, %v", got, err)
	}
	same, _ := s.Get(ctx, "pf")
	if got, err = patch("pf", 0); err != nil || got.Sequence != same.Sequence {
		t.Errorf("patch that changes nothing = %+v, %v; want sequence %d", got, err, same.Sequence)
	}
	for _, bad := range []struct {
		id  string
		seq int64
	}{{"pf", 6}, {"pf", -1}, {"n", 1}} {
		was, _ := s.Get(ctx, bad.id)
		if _, err := s.Commit(ctx, bad.id, sessiondb.Commit{Meta: &sessiondb.MetaPatch{Title: ptr("bad"), ForkSeq: &bad.seq}, Append: msgs(9, 9)}); !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("patch %s fork seq %d: %v; want ErrInvalid", bad.id, bad.seq, err)
		}
		wantUnchanged(t, s, was, fmt.Sprintf("%s after fork seq %d", bad.id, bad.seq))
	}
	// The parent's appends earlier in the same CommitMany count.
	if _, err := s.CommitMany(ctx, []sessiondb.SessionCommit{
		{ID: "p", Commit: sessiondb.Commit{Append: msgs(6, 8)}},
		{ID: "pf", Commit: sessiondb.Commit{Meta: &sessiondb.MetaPatch{ForkSeq: ptr(int64(7))}}},
	}); err != nil {
		t.Fatalf("CommitMany with the parent grown first: %v", err)
	}
	if g, _ := s.Get(ctx, "pf"); g.ForkSeq != 7 {
		t.Errorf("fork seq after CommitMany = %d, want 7", g.ForkSeq)
	}
	if err := s.Delete(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if got, err = patch("pf", 100); err != nil || got.ForkSeq != 100 || got.ParentID != "p" {
		t.Errorf("patch once the parent is gone = %+v, %v; want ForkSeq 100", got, err)
	}
}

func mustFork(t *testing.T, s sessiondb.Store, src string, at int64, newID string) sessiondb.Session {
	t.Helper()
	f, err := s.Fork(bg(t), src, at, newID)
	if err != nil {
		t.Fatalf("Fork(%q, %d, %q): %v", src, at, newID, err)
	}
	return f
}

// wantSameEntries compares transcripts on what a caller sees: body, kind,
// role, summary flag and time (Seq may be renumbered in a fork).
func wantSameEntries(t *testing.T, want, got []sessiondb.Entry, what string) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(sessiondb.Entry{}, "Seq"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func testForkPositions(t *testing.T, s sessiondb.Store) {
	src := mustSession(t, s, "src", 6)
	mustSaveState(t, s, "src", `{"agent":"state"}`)
	srcTr := mustLoad(t, s, "src", sessiondb.LoadOptions{})
	for _, tc := range []struct {
		at      int64
		wantSeq int64
		want    []sessiondb.Entry
	}{
		{1, 1, srcTr[:1]}, // start
		{3, 3, srcTr[:3]}, // middle
		{6, 6, srcTr},     // end
		{0, 6, srcTr},     // now
	} {
		id := fmt.Sprintf("fork-at-%d", tc.at)
		f := mustFork(t, s, "src", tc.at, id)
		if f.ID != id || f.ParentID != "src" || f.ForkSeq != tc.wantSeq || f.Sequence < 1 {
			t.Errorf("Fork at %d returned ID %q ParentID %q ForkSeq %d Sequence %d; want %q, src, %d, >= 1", tc.at, f.ID, f.ParentID, f.ForkSeq, f.Sequence, id, tc.wantSeq)
		}
		g := mustGet(t, s, id)
		if g.ParentID != "src" || g.ForkSeq != tc.wantSeq {
			t.Errorf("Get(fork at %d): ParentID %q ForkSeq %d", tc.at, g.ParentID, g.ForkSeq)
		}
		wantSameEntries(t, tc.want, mustLoad(t, s, id, sessiondb.LoadOptions{}), fmt.Sprintf("transcript of fork at %d", tc.at))
		wantJSON(t, mustState(t, s, id), `{"agent":"state"}`, fmt.Sprintf("state of fork at %d", tc.at))
	}
	// The source is untouched.
	if g := mustGet(t, s, "src"); g.LastSeq != src.LastSeq || g.ParentID != "" {
		t.Errorf("source after forks: %+v", g)
	}
	wantSameEntries(t, srcTr, mustLoad(t, s, "src", sessiondb.LoadOptions{}), "source transcript after forks")
}

func testForkAcrossCompaction(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "fc", 4)
	if _, err := s.Compact(bg(t), "fc", sessiondb.Compaction{KeepFromSeq: 3, Summary: entriesOf(sumA)}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "fc", msgs(5, 6)...)
	for _, tc := range []struct {
		at   int64
		want []string
	}{
		{2, bodies(1, 2)}, // before the compaction was made
		{3, bodies(1, 3)}, // ditto
		{5, append([]string{sumA}, bodies(3, 5)...)}, // after it
		{6, append([]string{sumA}, bodies(3, 6)...)}, // end
		{0, append([]string{sumA}, bodies(3, 6)...)}, // now
	} {
		id := fmt.Sprintf("fc-%d", tc.at)
		mustFork(t, s, "fc", tc.at, id)
		tr := wantTranscript(t, s, id, tc.want)
		if len(tr) > 0 && tc.want[0] == sumA && !tr[0].Summary {
			t.Errorf("fork at %d: summary message lost its Summary flag", tc.at)
		}
	}
	// A fork of a compacted session behaves like one: appends go after it.
	mustAppend(t, s, "fc-5", msgs(50, 50)...)
	wantTranscript(t, s, "fc-5", append([]string{sumA}, append(bodies(3, 5), msgBody(50))...))
}

func testForkIndependent(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "base", 4)
	mustSaveState(t, s, "base", `{"who":"base"}`)
	mustFork(t, s, "base", 2, "branch")
	mustAppend(t, s, "branch", sessiondb.Message(`{"role":"user","content":"branch only"}`))
	mustAppend(t, s, "base", sessiondb.Message(`{"role":"user","content":"base only"}`))
	wantTranscript(t, s, "branch", append(bodies(1, 2), `{"role":"user","content":"branch only"}`))
	wantTranscript(t, s, "base", append(bodies(1, 4), `{"role":"user","content":"base only"}`))
	mustSaveState(t, s, "branch", `{"who":"branch"}`)
	wantJSON(t, mustState(t, s, "base"), `{"who":"base"}`, "base state after fork's SaveState")
	mustTruncate(t, s, "base", 1)
	wantTranscript(t, s, "branch", append(bodies(1, 2), `{"role":"user","content":"branch only"}`))
	mustTruncate(t, s, "branch", 0)
	wantTranscript(t, s, "base", []string{`{"role":"user","content":"base only"}`})
	if err := s.Delete(bg(t), "branch"); err != nil {
		t.Fatal(err)
	}
	wantTranscript(t, s, "base", []string{`{"role":"user","content":"base only"}`})
	wantLogSeqs(t, s, "base", seqRange(1, 5))
}

func testForkOfFork(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "g0", 3)
	mustFork(t, s, "g0", 2, "g1")
	r := mustAppend(t, s, "g1", msgs(20, 21)...)
	f2 := mustFork(t, s, "g1", 0, "g2")
	if f2.ParentID != "g1" || f2.ForkSeq != r.LastSeq {
		t.Errorf("fork of fork: ParentID %q ForkSeq %d, want g1 and %d", f2.ParentID, f2.ForkSeq, r.LastSeq)
	}
	want := append(bodies(1, 2), bodies(20, 21)...)
	wantTranscript(t, s, "g2", want)
	// Forking the fork in the middle of its own log.
	g1Tr := mustLoad(t, s, "g1", sessiondb.LoadOptions{})
	mid := g1Tr[2].Seq // the first entry appended to g1
	mustFork(t, s, "g1", mid, "g3")
	wantTranscript(t, s, "g3", want[:3])
	mustAppend(t, s, "g2", msgs(30, 30)...)
	wantTranscript(t, s, "g1", want)
	wantTranscript(t, s, "g2", append(want, msgBody(30)))
}

func testForkGeneratedID(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "gs", 2)
	before := time.Now()
	f := mustFork(t, s, "gs", 0, "")
	wantGeneratedID(t, f.ID, before, time.Now(), "fork ID")
	wantTranscript(t, s, f.ID, bodies(1, 2))
	if st := mustState(t, s, f.ID); st != nil {
		t.Errorf("fork of a session without state has state %q", st)
	}
}

func testForkErrors(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "fe", 3)
	mustCreate(t, s, "taken")
	_, err := s.Fork(bg(t), "fe", 0, "taken")
	wantErr(t, err, sessiondb.ErrExists, "Fork to a taken ID")
	_, err = s.Fork(bg(t), "unknown", 0, "f1")
	wantErr(t, err, sessiondb.ErrNotFound, "Fork of an unknown session")
	for _, at := range []int64{4, 100, -1} {
		_, err = s.Fork(bg(t), "fe", at, "f2")
		wantErr(t, err, sessiondb.ErrInvalid, fmt.Sprintf("Fork at %d of a 3-entry log", at))
	}
	_, err = s.Fork(bg(t), "fe", 0, "bad\x00id")
	wantErr(t, err, sessiondb.ErrInvalid, "Fork to an invalid ID")
	ids := idsOf(listAll(t, s, sessiondb.ListOptions{}))
	if len(ids) != 2 {
		t.Errorf("failed Forks left sessions behind: %v", ids)
	}
}
