package storetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
)

func historyTests() []testCase {
	return []testCase{
		{name: "SetHistoryReplace", fn: testSetHistoryReplace},
		{name: "SetHistoryPrefixAppendsTail", fn: testSetHistoryPrefix},
		{name: "SetHistoryPrefixAfterSummary", fn: testSetHistoryPrefixAfterSummary},
		{name: "SetHistoryNotPrefix", fn: testSetHistoryNotPrefix},
		{name: "SetHistoryEmpty", fn: testSetHistoryEmpty},
		{name: "SetHistoryKeepsKinds", fn: testSetHistoryKinds},
		{name: "Truncate", fn: testTruncate},
		{name: "TruncateMoreThanLength", fn: testTruncateMore},
		{name: "TruncateWithSummary", fn: testTruncateWithSummary},
		{name: "TruncateNegative", fn: testTruncateNegative},
	}
}

func mustSetHistory(t *testing.T, s sessiondb.Store, id string, es []sessiondb.Entry) sessiondb.Session {
	t.Helper()
	got, err := s.SetHistory(bg(t), id, es)
	if err != nil {
		t.Fatalf("SetHistory(%q, %d messages): %v", id, len(es), err)
	}
	return got
}

func testSetHistoryReplace(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "h", 5)
	r := mustSetHistory(t, s, "h", msgs(100, 101))
	if r.LastSeq != 7 || r.Sequence != before.Sequence+1 {
		t.Errorf("SetHistory returned LastSeq %d Sequence %d, want 7 and %d", r.LastSeq, r.Sequence, before.Sequence+1)
	}
	tr := wantTranscript(t, s, "h", bodies(100, 101))
	if diff := cmp.Diff([]int64{6, 7}, seqsOf(tr)); diff != "" {
		t.Errorf("transcript seqs (-want +got):\n%s", diff)
	}
	log := wantLogSeqs(t, s, "h", seqRange(1, 7))
	if diff := cmp.Diff(append(bodies(1, 5), bodies(100, 101)...), bodiesOf(log)); diff != "" {
		t.Errorf("old rows not kept for audit (-want +got):\n%s", diff)
	}
	cs := mustCompactions(t, s, "h")
	if len(cs) == 0 || cs[len(cs)-1].KeepFromSeq != 6 || len(cs[len(cs)-1].Summary) != 0 {
		t.Errorf("current compaction after SetHistory = %+v, want KeepFromSeq 6 without summary", cs)
	}
	// Extending the replaced transcript appends only the tail.
	r = mustSetHistory(t, s, "h", msgs(100, 102))
	if r.LastSeq != 8 {
		t.Errorf("SetHistory extending the transcript: LastSeq %d, want 8", r.LastSeq)
	}
	tr = wantTranscript(t, s, "h", bodies(100, 102))
	if diff := cmp.Diff([]int64{6, 7, 8}, seqsOf(tr)); diff != "" {
		t.Errorf("transcript seqs (-want +got):\n%s", diff)
	}
}

func testSetHistoryPrefix(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "p", 3)
	r := mustSetHistory(t, s, "p", msgs(1, 5))
	if r.LastSeq != 5 {
		t.Errorf("SetHistory with the transcript as prefix: LastSeq %d, want 5 (only the tail appended)", r.LastSeq)
	}
	if r.Sequence != before.Sequence+1 {
		t.Errorf("Sequence %d, want %d", r.Sequence, before.Sequence+1)
	}
	tr := wantTranscript(t, s, "p", bodies(1, 5))
	if diff := cmp.Diff(seqRange(1, 5), seqsOf(tr)); diff != "" {
		t.Errorf("transcript seqs (-want +got):\n%s", diff)
	}
	wantLogSeqs(t, s, "p", seqRange(1, 5))
	// The same transcript again appends nothing.
	r = mustSetHistory(t, s, "p", msgs(1, 5))
	if r.LastSeq != 5 {
		t.Errorf("SetHistory with the same transcript: LastSeq %d, want 5", r.LastSeq)
	}
	wantTranscript(t, s, "p", bodies(1, 5))
}

func testSetHistoryPrefixAfterSummary(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "ps", 4)
	if _, err := s.Compact(bg(t), "ps", sessiondb.Compaction{KeepFromSeq: 3, Summary: entriesOf(`{"role":"user","content":"S"}`)}); err != nil {
		t.Fatal(err)
	}
	wantTranscript(t, s, "ps", []string{`{"role":"user","content":"S"}`, msgBody(3), msgBody(4)})
	// The transcript without its summary is [3, 4], a prefix of [3, 4, 5].
	// Whether "(without summary)" allows appending only message 5 here is
	// open to reading, so the suite checks only the outcome: the transcript
	// is exactly the messages, and the summary is gone.
	r := mustSetHistory(t, s, "ps", msgs(3, 5))
	if r.LastSeq != 5 && r.LastSeq != 7 {
		t.Errorf("SetHistory: LastSeq %d, want 5 (tail appended) or 7 (all appended)", r.LastSeq)
	}
	tr := wantTranscript(t, s, "ps", bodies(3, 5))
	for _, e := range tr {
		if e.Summary {
			t.Errorf("summary message survived SetHistory: %s", e.Body)
		}
	}
}

func testSetHistoryNotPrefix(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "np", 3)
	changed := []sessiondb.Entry{sessiondb.Message(msgBody(1)), sessiondb.Message(`{"role":"user","content":"edited"}`), sessiondb.Message(msgBody(3)), sessiondb.Message(msgBody(4))}
	r := mustSetHistory(t, s, "np", changed)
	if r.LastSeq != 7 {
		t.Errorf("SetHistory with an edited middle: LastSeq %d, want 7 (all 4 appended)", r.LastSeq)
	}
	wantTranscript(t, s, "np", bodiesOf(changed))
	// Bytes, not meaning, decide: re-spaced JSON is a different message.
	respaced := []sessiondb.Entry{sessiondb.Message(`{"role": "user", "content": "message 1"}`)}
	r = mustSetHistory(t, s, "np", append(respaced, changed[1:]...))
	if r.LastSeq != 11 {
		t.Errorf("SetHistory with a re-spaced first message: LastSeq %d, want 11", r.LastSeq)
	}
	wantTranscript(t, s, "np", append([]string{string(respaced[0].Body)}, bodiesOf(changed[1:])...))
}

func testSetHistoryEmpty(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "he", 3)
	r := mustSetHistory(t, s, "he", nil)
	if r.LastSeq != 3 {
		t.Errorf("SetHistory(nil): LastSeq %d, want 3", r.LastSeq)
	}
	wantTranscript(t, s, "he", nil)
	wantLogSeqs(t, s, "he", seqRange(1, 3))
	mustAppend(t, s, "he", msgs(4, 4)...)
	wantTranscript(t, s, "he", bodies(4, 4))
}

func testSetHistoryKinds(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "hk", 1)
	in := []sessiondb.Entry{
		{Kind: sessiondb.KindCustom, Role: "app", Body: raw(`{"x":1}`)},
		{Kind: "label", Body: raw(`{"label":"l"}`)},
		{Body: raw(`{"role":"assistant","content":"a"}`)},
	}
	mustSetHistory(t, s, "hk", in)
	tr := mustLoad(t, s, "hk", sessiondb.LoadOptions{})
	if len(tr) != 3 {
		t.Fatalf("transcript has %d entries, want 3", len(tr))
	}
	want := [][2]string{{sessiondb.KindCustom, "app"}, {"label", ""}, {sessiondb.KindMessage, "assistant"}}
	for i, w := range want {
		if tr[i].Kind != w[0] || tr[i].Role != w[1] || string(tr[i].Body) != string(in[i].Body) {
			t.Errorf("transcript[%d] = kind %q role %q body %s; want %q %q %s", i, tr[i].Kind, tr[i].Role, tr[i].Body, w[0], w[1], in[i].Body)
		}
	}
	if got := mustLoad(t, s, "hk", sessiondb.LoadOptions{Kinds: []string{"label"}}); len(got) != 1 {
		t.Errorf("Load(Kinds label) = %v", bodiesOf(got))
	}
}

func mustTruncate(t *testing.T, s sessiondb.Store, id string, keep int) sessiondb.Session {
	t.Helper()
	got, err := s.Truncate(bg(t), id, keep)
	if err != nil {
		t.Fatalf("Truncate(%q, %d): %v", id, keep, err)
	}
	return got
}

func testTruncate(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "t", 10)
	r := mustTruncate(t, s, "t", 3)
	if r.LastSeq != 10 || r.Sequence != before.Sequence+1 {
		t.Errorf("Truncate returned LastSeq %d Sequence %d, want 10 and %d", r.LastSeq, r.Sequence, before.Sequence+1)
	}
	tr := wantTranscript(t, s, "t", bodies(8, 10))
	if diff := cmp.Diff(seqRange(8, 10), seqsOf(tr)); diff != "" {
		t.Errorf("seqs (-want +got):\n%s", diff)
	}
	wantLogSeqs(t, s, "t", seqRange(1, 10))
	cs := mustCompactions(t, s, "t")
	if len(cs) != 1 || cs[0].KeepFromSeq != 8 || len(cs[0].Summary) != 0 || cs[0].AtSeq != 10 {
		t.Errorf("compactions after Truncate(3) = %+v, want one with KeepFromSeq 8, AtSeq 10, no summary", cs)
	}
	mustTruncate(t, s, "t", 0)
	wantTranscript(t, s, "t", nil)
	cs = mustCompactions(t, s, "t")
	if len(cs) != 2 || cs[1].KeepFromSeq != 11 {
		t.Errorf("compactions after Truncate(0) = %+v, want a second one with KeepFromSeq 11", cs)
	}
	r = mustAppend(t, s, "t", msgs(11, 12)...)
	if r.LastSeq != 12 {
		t.Errorf("LastSeq after append = %d, want 12", r.LastSeq)
	}
	wantTranscript(t, s, "t", bodies(11, 12))
	mustTruncate(t, s, "t", 1)
	wantTranscript(t, s, "t", bodies(12, 12))
}

func testTruncateMore(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "tm", 5)
	mustTruncate(t, s, "tm", 100)
	wantTranscript(t, s, "tm", bodies(1, 5))
	mustTruncate(t, s, "tm", 5)
	wantTranscript(t, s, "tm", bodies(1, 5))
	mustTruncate(t, s, "tm", 4)
	wantTranscript(t, s, "tm", bodies(2, 5))
	mustTruncate(t, s, "tm", 100)
	wantTranscript(t, s, "tm", bodies(2, 5))
	mustCreate(t, s, "empty")
	mustTruncate(t, s, "empty", 0)
	mustTruncate(t, s, "empty", 3)
	wantTranscript(t, s, "empty", nil)
}

func testTruncateWithSummary(t *testing.T, s sessiondb.Store) {
	summary := []string{`{"role":"user","content":"S1"}`, `{"role":"assistant","content":"S2"}`}
	setup := func(id string) {
		mustSession(t, s, id, 10)
		if _, err := s.Compact(bg(t), id, sessiondb.Compaction{KeepFromSeq: 6, Summary: entriesOf(summary...)}); err != nil {
			t.Fatal(err)
		}
		wantTranscript(t, s, id, append(summary, bodies(6, 10)...))
	}
	// Keeping exactly the log part drops both summary messages.
	setup("ts1")
	mustTruncate(t, s, "ts1", 5)
	tr := wantTranscript(t, s, "ts1", bodies(6, 10))
	for _, e := range tr {
		if e.Summary {
			t.Errorf("summary message %s survived Truncate(5)", e.Body)
		}
	}
	cs := mustCompactions(t, s, "ts1")
	if last := cs[len(cs)-1]; last.KeepFromSeq != 6 || len(last.Summary) != 0 {
		t.Errorf("current compaction = %+v, want KeepFromSeq 6 without summary", last)
	}
	// Fewer than the log part.
	setup("ts2")
	mustTruncate(t, s, "ts2", 2)
	wantTranscript(t, s, "ts2", bodies(9, 10))
	// Zero.
	setup("ts3")
	mustTruncate(t, s, "ts3", 0)
	wantTranscript(t, s, "ts3", nil)
	// Between the two: the last summary message stays, before every entry.
	setup("ts5")
	mustTruncate(t, s, "ts5", 6)
	tr = wantTranscript(t, s, "ts5", append([]string{summary[1]}, bodies(6, 10)...))
	if len(tr) == 6 && !tr[0].Summary {
		t.Errorf("Truncate(6): the kept summary message lost its Summary flag")
	}
	// More than the whole transcript keeps all of it, summary included.
	setup("ts4")
	mustTruncate(t, s, "ts4", 100)
	tr = wantTranscript(t, s, "ts4", append(summary, bodies(6, 10)...))
	if len(tr) == 7 && (!tr[0].Summary || !tr[1].Summary) {
		t.Errorf("Truncate(100) lost the Summary flag of the summary messages")
	}
}

func testTruncateNegative(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "tn", 3)
	_, err := s.Truncate(bg(t), "tn", -1)
	wantErr(t, err, sessiondb.ErrInvalid, "Truncate(-1)")
	wantUnchanged(t, s, before, "Truncate(-1)")
	wantTranscript(t, s, "tn", bodies(1, 3))
}
