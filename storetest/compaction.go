package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
)

func compactionTests() []testCase {
	return []testCase{
		{name: "Compact", fn: testCompact},
		{name: "KeepNothing", fn: testCompactKeepNothing},
		{name: "EmptySession", fn: testCompactEmptySession},
		{name: "InvalidKeepFromSeq", fn: testCompactInvalid},
		{name: "ListOldestFirst", fn: testCompactionsList},
	}
}

var sumA = `{"role":"user","content":"summary A"}`
var sumB = `{"role":"assistant","content":[{"type":"text","text":"summary B"}]}`

func testCompact(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "c", 6)
	beforeT := time.Now()
	r, err := s.Compact(bg(t), "c", sessiondb.Compaction{
		KeepFromSeq:  4,
		Summary:      entriesOf(sumA, sumB),
		TokensBefore: 1000,
		TokensAfter:  120,
		Details:      raw(`{"model": "m", "reason":"budget"}`),
	})
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if r.Sequence != before.Sequence+1 || r.LastSeq != 6 {
		t.Errorf("Compact returned Sequence %d LastSeq %d, want %d and 6", r.Sequence, r.LastSeq, before.Sequence+1)
	}
	tr := wantTranscript(t, s, "c", append([]string{sumA, sumB}, bodies(4, 6)...))
	if len(tr) == 5 {
		for i, e := range tr {
			if (i < 2) != e.Summary {
				t.Errorf("transcript[%d].Summary = %v", i, e.Summary)
			}
		}
		if tr[0].Seq != 0 || tr[1].Seq != 0 || tr[2].Seq != 4 || tr[4].Seq != 6 {
			t.Errorf("transcript seqs = %v, want [0 0 4 5 6]", seqsOf(tr))
		}
		if tr[0].Kind != sessiondb.KindMessage || tr[0].Role != "user" || tr[1].Role != "assistant" {
			t.Errorf("summary kinds/roles not defaulted: %q/%q, %q/%q", tr[0].Kind, tr[0].Role, tr[1].Kind, tr[1].Role)
		}
	}
	wantLogSeqs(t, s, "c", seqRange(1, 6))
	cs := mustCompactions(t, s, "c")
	if len(cs) != 1 {
		t.Fatalf("Compactions = %d, want 1", len(cs))
	}
	c := cs[0]
	if c.ID <= 0 || c.AtSeq != 6 || c.KeepFromSeq != 4 || c.TokensBefore != 1000 || c.TokensAfter != 120 {
		t.Errorf("compaction = %+v; want ID > 0, AtSeq 6 (defaulted to LastSeq), KeepFromSeq 4, tokens 1000/120", c)
	}
	wantJSON(t, c.Details, `{"model": "m", "reason":"budget"}`, "compaction Details")
	if diff := cmp.Diff([]string{sumA, sumB}, bodiesOf(c.Summary)); diff != "" {
		t.Errorf("compaction Summary (-want +got):\n%s", diff)
	}
	wantNear(t, c.CreatedAt, beforeT, time.Now(), "compaction CreatedAt")

	// Appends after a compaction land after the kept entries.
	mustAppend(t, s, "c", msgs(7, 7)...)
	wantTranscript(t, s, "c", append([]string{sumA, sumB}, bodies(4, 7)...))

	// An explicit AtSeq is kept.
	if _, err := s.Compact(bg(t), "c", sessiondb.Compaction{AtSeq: 5, KeepFromSeq: 6}); err != nil {
		t.Fatal(err)
	}
	cs = mustCompactions(t, s, "c")
	if len(cs) != 2 || cs[1].AtSeq != 5 || cs[1].KeepFromSeq != 6 || cs[1].ID <= cs[0].ID || cs[1].Details != nil {
		t.Errorf("second compaction = %+v", cs)
	}
	wantTranscript(t, s, "c", bodies(6, 7))
}

func testCompactKeepNothing(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "kn", 4)
	if _, err := s.Compact(bg(t), "kn", sessiondb.Compaction{KeepFromSeq: 5, Summary: entriesOf(sumA)}); err != nil {
		t.Fatalf("Compact with KeepFromSeq LastSeq+1: %v", err)
	}
	wantTranscript(t, s, "kn", []string{sumA})
	mustAppend(t, s, "kn", msgs(5, 5)...)
	wantTranscript(t, s, "kn", []string{sumA, msgBody(5)})
}

func testCompactEmptySession(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "ce")
	if _, err := s.Compact(bg(t), "ce", sessiondb.Compaction{KeepFromSeq: 1, Summary: entriesOf(sumA)}); err != nil {
		t.Fatalf("Compact of an empty session with KeepFromSeq 1: %v", err)
	}
	wantTranscript(t, s, "ce", []string{sumA})
	mustAppend(t, s, "ce", msgs(1, 1)...)
	wantTranscript(t, s, "ce", []string{sumA, msgBody(1)})
}

func testCompactInvalid(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "ci", 4)
	for _, c := range []sessiondb.Compaction{
		{KeepFromSeq: 6, Summary: entriesOf(sumA)}, // LastSeq+2
		{KeepFromSeq: 100},
		{KeepFromSeq: 0},
		{KeepFromSeq: -1},
		{KeepFromSeq: 2, Summary: entriesOf(`{"unterminated":`)},
		{KeepFromSeq: 2, Details: raw(`{bad}`)},
	} {
		_, err := s.Compact(bg(t), "ci", c)
		wantErr(t, err, sessiondb.ErrInvalid, fmt.Sprintf("Compact(%+v)", c))
	}
	wantUnchanged(t, s, before, "invalid Compact")
	if cs := mustCompactions(t, s, "ci"); len(cs) != 0 {
		t.Errorf("invalid Compact recorded %d compactions", len(cs))
	}
	wantTranscript(t, s, "ci", bodies(1, 4))
}

func testCompactionsList(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "cl", 9)
	for _, keep := range []int64{2, 5, 3, 9} {
		if _, err := s.Compact(bg(t), "cl", sessiondb.Compaction{KeepFromSeq: keep, TokensBefore: keep}); err != nil {
			t.Fatal(err)
		}
	}
	cs := mustCompactions(t, s, "cl")
	var keeps []int64
	for i, c := range cs {
		keeps = append(keeps, c.KeepFromSeq)
		if i > 0 && c.ID <= cs[i-1].ID {
			t.Errorf("compaction IDs not increasing: %d after %d", c.ID, cs[i-1].ID)
		}
		if c.TokensBefore != c.KeepFromSeq {
			t.Errorf("compaction %d: TokensBefore %d, want %d", i, c.TokensBefore, c.KeepFromSeq)
		}
	}
	if !slices.Equal(keeps, []int64{2, 5, 3, 9}) {
		t.Errorf("Compactions KeepFromSeqs = %v, want oldest first [2 5 3 9]", keeps)
	}
	// The last one is current, even though an earlier one kept less.
	wantTranscript(t, s, "cl", bodies(9, 9))
}

// ---- Prune -----------------------------------------------------------------

func pruneTests() []testCase {
	return []testCase{
		{name: "Basic", fn: testPrune},
		{name: "NothingToPrune", fn: testPruneNothing},
		{name: "KeepsCheckpointEntries", fn: testPruneCheckpoint},
		{name: "RemovesWhatNothingNeeds", fn: testPruneUnneeded},
	}
}

func mustPrune(t *testing.T, s sessiondb.Store, id string) int64 {
	t.Helper()
	n, err := s.Prune(bg(t), id)
	if err != nil {
		t.Fatalf("Prune(%q): %v", id, err)
	}
	return n
}

func testPrune(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "p", 10)
	mustTruncate(t, s, "p", 6)
	if _, err := s.Compact(bg(t), "p", sessiondb.Compaction{KeepFromSeq: 8, Summary: entriesOf(sumA)}); err != nil {
		t.Fatal(err)
	}
	want := append([]string{sumA}, bodies(8, 10)...)
	wantTranscript(t, s, "p", want)
	if n := mustPrune(t, s, "p"); n != 7 {
		t.Errorf("Prune returned %d, want 7", n)
	}
	wantLogSeqs(t, s, "p", seqRange(8, 10))
	if got := mustEntries(t, s, "p", 1, 7); len(got) != 0 {
		t.Errorf("Entries(1, 7) after Prune = %v", seqsOf(got))
	}
	wantTranscript(t, s, "p", want)
	cs := mustCompactions(t, s, "p")
	if len(cs) != 1 || cs[0].KeepFromSeq != 8 {
		t.Errorf("compactions after Prune = %+v, want only the current one (KeepFromSeq 8)", cs)
	}
	g := mustGet(t, s, "p")
	if g.LastSeq != 10 {
		t.Errorf("LastSeq after Prune = %d, want 10 (never decreases)", g.LastSeq)
	}
	if n := mustPrune(t, s, "p"); n != 0 {
		t.Errorf("second Prune returned %d, want 0", n)
	}
	// Seqs are never reused.
	r := mustAppend(t, s, "p", msgs(11, 11)...)
	if r.LastSeq != 11 {
		t.Errorf("append after Prune got LastSeq %d, want 11", r.LastSeq)
	}
	wantTranscript(t, s, "p", append(want, msgBody(11)))
	var n int64
	for _, in := range listAll(t, s, sessiondb.ListOptions{}) {
		n = in.EntryCount
	}
	if n != 4 {
		t.Errorf("EntryCount after Prune = %d, want 4", n)
	}
}

func testPruneNothing(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "pn", 5)
	if n := mustPrune(t, s, "pn"); n != 0 {
		t.Errorf("Prune without compaction returned %d, want 0", n)
	}
	wantLogSeqs(t, s, "pn", seqRange(1, 5))
	mustCreate(t, s, "pe")
	if n := mustPrune(t, s, "pe"); n != 0 {
		t.Errorf("Prune of an empty session returned %d", n)
	}
}

func testPruneCheckpoint(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "pc", 6)
	cp, err := s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{SessionID: "pc", Label: "at 6"})
	if err != nil {
		t.Fatal(err)
	}
	if cp.AtSeq != 6 {
		t.Fatalf("checkpoint AtSeq = %d, want 6", cp.AtSeq)
	}
	mustAppend(t, s, "pc", msgs(7, 10)...)
	mustTruncate(t, s, "pc", 2)
	// The checkpoint's transcript is entries 1..6; 7 and 8 are reachable
	// from nothing.
	n := mustPrune(t, s, "pc")
	log := mustEntries(t, s, "pc", 0, 0)
	seqs := seqsOf(log)
	for _, need := range []int64{1, 2, 3, 4, 5, 6, 9, 10} {
		if !slices.Contains(seqs, need) {
			t.Errorf("Prune deleted entry %d, which the checkpoint or the transcript needs (left %v)", need, seqs)
		}
	}
	if n != 10-int64(len(log)) {
		t.Errorf("Prune returned %d but %d of 10 entries are left", n, len(log))
	}
	wantTranscript(t, s, "pc", bodies(9, 10))
	// The checkpoint still restores: a fork at its position has its transcript.
	f, err := s.Fork(bg(t), "pc", cp.AtSeq, "pc-fork")
	if err != nil {
		t.Fatalf("Fork at the checkpoint after Prune: %v", err)
	}
	wantTranscript(t, s, f.ID, bodies(1, 6))

	// Once the checkpoint is gone, everything before the transcript can go.
	if err := s.DeleteCheckpoint(bg(t), cp.ID); err != nil {
		t.Fatal(err)
	}
	left := int64(len(log))
	if n := mustPrune(t, s, "pc"); n != left-2 {
		t.Errorf("Prune after deleting the checkpoint returned %d, want %d", n, left-2)
	}
	wantLogSeqs(t, s, "pc", []int64{9, 10})
	wantTranscript(t, s, "pc", bodies(9, 10))
	wantTranscript(t, s, f.ID, bodies(1, 6))
}

// testPruneUnneeded checks that Prune deletes what neither the current
// compaction nor any checkpoint needs, even between the two.
func testPruneUnneeded(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "pu", 6)
	if _, err := s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{SessionID: "pu", Label: "at 6"}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "pu", msgs(7, 10)...)
	mustTruncate(t, s, "pu", 2)
	// The checkpoint needs 1..6 and the transcript 9..10; 7 and 8 are
	// reachable from nothing.
	n := mustPrune(t, s, "pu")
	if diff := cmp.Diff([]int64{1, 2, 3, 4, 5, 6, 9, 10}, seqsOf(mustEntries(t, s, "pu", 0, 0))); diff != "" {
		t.Errorf("log after Prune (-want +got):\n%s", diff)
	}
	if n != 2 {
		t.Errorf("Prune returned %d, want 2 (entries 7 and 8)", n)
	}
}
