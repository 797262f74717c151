package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
)

func logTests() []testCase {
	return []testCase{
		{name: "AppendSeqs", fn: testAppendSeqs},
		{name: "AppendDefaults", fn: testAppendDefaults},
		{name: "BodiesByteExact", fn: testBodiesByteExact},
		{name: "Body10MB", fn: testBody10MB},
		{name: "InvalidUTF8InString", fn: testInvalidUTF8Body},
		{name: "AnyBytesInText", fn: testAnyBytesInText},
		{name: "EmptyTranscript", fn: testEmptyTranscript},
		{name: "LoadOptions", fn: testLoadOptions},
		{name: "LoadOptionsWithSummary", fn: testLoadOptionsWithSummary},
		{name: "EntriesRanges", fn: testEntriesRanges},
	}
}

func testAppendSeqs(t *testing.T, s sessiondb.Store) {
	s0 := mustCreate(t, s, "a")
	r1 := mustAppend(t, s, "a", msgs(1, 3)...)
	if r1.LastSeq != 3 || r1.Sequence != s0.Sequence+1 {
		t.Errorf("first Append: LastSeq %d Sequence %d, want 3 and %d", r1.LastSeq, r1.Sequence, s0.Sequence+1)
	}
	r2 := mustAppend(t, s, "a", msgs(4, 5)...)
	if r2.LastSeq != 5 || r2.Sequence != r1.Sequence+1 {
		t.Errorf("second Append: LastSeq %d Sequence %d, want 5 and %d", r2.LastSeq, r2.Sequence, r1.Sequence+1)
	}
	r3 := mustAppend(t, s, "a", msgs(6, 6)...)
	if r3.LastSeq != 6 || r3.Sequence != r2.Sequence+1 {
		t.Errorf("third Append: LastSeq %d Sequence %d, want 6 and %d", r3.LastSeq, r3.Sequence, r2.Sequence+1)
	}
	g := mustGet(t, s, "a")
	if g.LastSeq != 6 || g.Sequence != r3.Sequence {
		t.Errorf("Get: LastSeq %d Sequence %d, want 6 and %d", g.LastSeq, g.Sequence, r3.Sequence)
	}
	es := wantLogSeqs(t, s, "a", seqRange(1, 6))
	if diff := cmp.Diff(bodies(1, 6), bodiesOf(es)); diff != "" {
		t.Errorf("Entries bodies (-want +got):\n%s", diff)
	}
	tr := wantTranscript(t, s, "a", bodies(1, 6))
	if diff := cmp.Diff(seqRange(1, 6), seqsOf(tr)); diff != "" {
		t.Errorf("Load seqs (-want +got):\n%s", diff)
	}
	for _, e := range tr {
		if e.Summary {
			t.Errorf("log entry %d marked Summary", e.Seq)
		}
	}
	// Appends to one session do not touch another.
	mustSession(t, s, "b", 2)
	if g := mustGet(t, s, "a"); g.LastSeq != 6 {
		t.Errorf("LastSeq of a after appends to b = %d", g.LastSeq)
	}
	wantLogSeqs(t, s, "b", seqRange(1, 2))
}

func testAppendDefaults(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "d")
	at := time.Date(2024, 5, 6, 7, 8, 9, 123_456_789, time.UTC)
	before := time.Now()
	mustAppend(t, s, "d",
		sessiondb.Entry{Body: raw(`{"role":"assistant","content":"hi"}`)},
		sessiondb.Entry{Kind: sessiondb.KindCustom, Role: "tool", CreatedAt: at, Body: raw(`{"role":"user","content":"x"}`)},
		sessiondb.Entry{Kind: "model_change", Body: raw(`{"model":"gpt"}`)},
		sessiondb.Entry{Kind: sessiondb.KindMessage, Seq: 999, Body: raw(`{"role":"user","content":[{"type":"text","text":"hello"}]}`)},
	)
	after := time.Now()
	for name, es := range map[string][]sessiondb.Entry{
		"Entries": mustEntries(t, s, "d", 0, 0),
		"Load":    mustLoad(t, s, "d", sessiondb.LoadOptions{}),
	} {
		if len(es) != 4 {
			t.Fatalf("%s returned %d entries, want 4", name, len(es))
		}
		want := []struct {
			seq        int64
			kind, role string
		}{
			{1, sessiondb.KindMessage, "assistant"},
			{2, sessiondb.KindCustom, "tool"},
			{3, "model_change", ""},
			{4, sessiondb.KindMessage, "user"},
		}
		for i, w := range want {
			e := es[i]
			if e.Seq != w.seq || e.Kind != w.kind || e.Role != w.role || e.Summary {
				t.Errorf("%s[%d] = seq %d kind %q role %q summary %v; want seq %d kind %q role %q", name, i, e.Seq, e.Kind, e.Role, e.Summary, w.seq, w.kind, w.role)
			}
		}
		wantNear(t, es[0].CreatedAt, before, after, name+" default CreatedAt")
		if !es[1].CreatedAt.Equal(at) {
			t.Errorf("%s explicit CreatedAt = %v, want %v", name, es[1].CreatedAt, at)
		}
	}
}

// tricky bodies that must survive byte for byte.
var trickyBodies = []string{
	`{"role":"user","content":"héllo wörld — ✓ 日本語 עברית Ελληνικά"}`,
	`{"role":"user","content":"emoji 👩‍👩‍👧‍👦🚀🏳️‍🌈 and a lone surrogate escape \ud83d\ude80"}`,
	`{"content":"line\u2028sep\u2029para"}`,
	"{\"content\":\"raw\u2028separator\u2029chars\"}",
	`{"content":"nul\u0000inside","ctl":"\u0001\u001f"}`,
	"{ \"z\" : 1 ,\n\t\"a\" : [ 1, 2 ,3 ] ,\"m\":{ } }",
	`{"a":1,"a":2}`,
	`{"n":1.50,"big":123456789012345678901234567890,"e":1E+2,"neg":-0,"f":0.1000}`,
	`{"esc":"\"\\\/\b\f\n\r\t","u":"\u00e9\u00E9"}`,
	`{"html":"<script>&amp;</script>","q":"it's"}`,
	"{\"bom\":\"\ufeff\",\"nbsp\":\"\u00a0\",\"combining\":\"e\u0301\"}",
	`"just a string"`,
	`[1,"two",null,true,{"x":[]}]`,
	`null`,
	`42`,
	"  {\"padded\":true}\n",
	`{"content":"` + strings.Repeat("long ", 2000) + `"}`,
}

func testBodiesByteExact(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "bytes")
	// One append with all bodies, then one append per body.
	var es []sessiondb.Entry
	for _, b := range trickyBodies {
		es = append(es, sessiondb.Entry{Kind: sessiondb.KindCustom, Body: raw(b)})
	}
	mustAppend(t, s, "bytes", es...)
	for _, b := range trickyBodies {
		mustAppend(t, s, "bytes", sessiondb.Entry{Body: raw(b)})
	}
	want := append(slices.Clone(trickyBodies), trickyBodies...)
	wantTranscript(t, s, "bytes", want)
	if diff := cmp.Diff(want, bodiesOf(mustEntries(t, s, "bytes", 0, 0))); diff != "" {
		t.Errorf("Entries bodies (-want +got):\n%s", diff)
	}
	full, err := s.LoadFull(bg(t), "bytes", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, bodiesOf(full.Transcript)); diff != "" {
		t.Errorf("LoadFull bodies (-want +got):\n%s", diff)
	}
	// The same holds for state, interrupt, summary messages and checkpoints.
	for i, b := range trickyBodies {
		if _, err := s.SaveState(bg(t), "bytes", raw(b)); err != nil {
			t.Fatalf("SaveState(body %d): %v", i, err)
		}
		wantJSON(t, mustState(t, s, "bytes"), b, fmt.Sprintf("state %d", i))
		if _, err := s.SaveInterrupt(bg(t), "bytes", raw(b)); err != nil {
			t.Fatalf("SaveInterrupt(body %d): %v", i, err)
		}
		wantJSON(t, mustInterrupt(t, s, "bytes"), b, fmt.Sprintf("interrupt %d", i))
	}
	if _, err := s.Compact(bg(t), "bytes", sessiondb.Compaction{KeepFromSeq: int64(len(want)) + 1, Summary: entriesOf(trickyBodies...)}); err != nil {
		t.Fatal(err)
	}
	wantTranscript(t, s, "bytes", trickyBodies)
	cs := mustCompactions(t, s, "bytes")
	if len(cs) != 1 {
		t.Fatalf("%d compactions, want 1", len(cs))
	}
	if diff := cmp.Diff(trickyBodies, bodiesOf(cs[0].Summary)); diff != "" {
		t.Errorf("Compactions summary bodies (-want +got):\n%s", diff)
	}
	cp, err := s.SaveCheckpoint(bg(t), sessiondb.Checkpoint{SessionID: "bytes", State: raw(trickyBodies[5]), Metadata: raw(trickyBodies[4])})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadCheckpoint(bg(t), cp.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, got.State, trickyBodies[5], "checkpoint state")
	wantJSON(t, got.Metadata, trickyBodies[4], "checkpoint metadata")
}

func testBody10MB(t *testing.T, s sessiondb.Store) {
	var b bytes.Buffer
	b.WriteString(`{"role":"tool","content":"`)
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 é✓\\n"
	for b.Len() < 10<<20 {
		b.WriteString(alphabet)
	}
	b.WriteString(`"}`)
	body := b.Bytes()
	mustCreate(t, s, "big")
	mustAppend(t, s, "big", msgs(1, 1)...)
	r := mustAppend(t, s, "big", sessiondb.Entry{Body: raw(string(body))})
	mustAppend(t, s, "big", msgs(3, 3)...)
	if r.LastSeq != 2 {
		t.Errorf("LastSeq after big append = %d, want 2", r.LastSeq)
	}
	es := mustEntries(t, s, "big", 2, 2)
	if len(es) != 1 || !bytes.Equal(es[0].Body, body) {
		n := -1
		if len(es) == 1 {
			n = len(es[0].Body)
		}
		t.Fatalf("Entries(2,2): %d entries, body %d bytes; want the %d-byte body back unchanged", len(es), n, len(body))
	}
	if es[0].Role != "tool" {
		t.Errorf("role of big body = %q, want tool", es[0].Role)
	}
	tr := mustLoad(t, s, "big", sessiondb.LoadOptions{})
	if len(tr) != 3 || !bytes.Equal(tr[1].Body, body) || string(tr[2].Body) != msgBody(3) {
		t.Errorf("Load: %d entries, big body intact %v", len(tr), len(tr) == 3 && bytes.Equal(tr[1].Body, body))
	}
}

func testEmptyTranscript(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "e")
	if got := mustLoad(t, s, "e", sessiondb.LoadOptions{}); len(got) != 0 {
		t.Errorf("Load of a new session = %v", bodiesOf(got))
	}
	if got := mustLoad(t, s, "e", sessiondb.LoadOptions{LastN: 5, Kinds: []string{"message"}}); len(got) != 0 {
		t.Errorf("Load(LastN 5) of a new session = %v", bodiesOf(got))
	}
	if got := mustEntries(t, s, "e", 0, 0); len(got) != 0 {
		t.Errorf("Entries of a new session = %v", bodiesOf(got))
	}
	full, err := s.LoadFull(bg(t), "e", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Transcript) != 0 || full.State != nil || full.Interrupt != nil || full.Session.ID != "e" || full.Session.LastSeq != 0 {
		t.Errorf("LoadFull of a new session = %+v", full)
	}
	if cs := mustCompactions(t, s, "e"); len(cs) != 0 {
		t.Errorf("Compactions of a new session = %v", cs)
	}
}

// loadFixture appends 10 entries with known kinds and times t0+i s.
func loadFixture(t *testing.T, s sessiondb.Store, id string) []sessiondb.Entry {
	kinds := []string{"message", "custom", "label", "message", "message", "custom", "message", "label", "message", "custom"}
	var es []sessiondb.Entry
	for i, k := range kinds {
		es = append(es, sessiondb.Entry{Kind: k, CreatedAt: base.Add(time.Duration(i+1) * time.Second), Body: raw(msgBody(i + 1))})
	}
	mustCreate(t, s, id)
	mustAppend(t, s, id, es...)
	return es
}

// filterRef is the reference implementation of LoadOptions.
func filterRef(es []sessiondb.Entry, o sessiondb.LoadOptions) []string {
	var out []sessiondb.Entry
	for _, e := range es {
		if len(o.Kinds) > 0 && !slices.Contains(o.Kinds, e.Kind) {
			continue
		}
		if !o.After.IsZero() && !e.CreatedAt.After(o.After) {
			continue
		}
		out = append(out, e)
	}
	if o.LastN > 0 && len(out) > o.LastN {
		out = out[len(out)-o.LastN:]
	}
	return bodiesOf(out)
}

func testLoadOptions(t *testing.T, s sessiondb.Store) {
	es := loadFixture(t, s, "o")
	at := func(sec float64) time.Time { return base.Add(time.Duration(sec * float64(time.Second))) }
	cases := []struct {
		name string
		o    sessiondb.LoadOptions
		want []int // message numbers
	}{
		{"Zero", sessiondb.LoadOptions{}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"KindsMessage", sessiondb.LoadOptions{Kinds: []string{"message"}}, []int{1, 4, 5, 7, 9}},
		{"KindsTwo", sessiondb.LoadOptions{Kinds: []string{"custom", "label"}}, []int{2, 3, 6, 8, 10}},
		{"KindsNone", sessiondb.LoadOptions{Kinds: []string{"nonexistent"}}, nil},
		{"AfterStrict", sessiondb.LoadOptions{After: at(5)}, []int{6, 7, 8, 9, 10}},
		{"AfterPlus1ns", sessiondb.LoadOptions{After: at(5).Add(time.Nanosecond)}, []int{6, 7, 8, 9, 10}},
		{"AfterMinus1ns", sessiondb.LoadOptions{After: at(5).Add(-time.Nanosecond)}, []int{5, 6, 7, 8, 9, 10}},
		{"AfterOtherZone", sessiondb.LoadOptions{After: at(8).In(time.FixedZone("X", -7*3600))}, []int{9, 10}},
		{"AfterAll", sessiondb.LoadOptions{After: at(10)}, nil},
		{"LastN", sessiondb.LoadOptions{LastN: 3}, []int{8, 9, 10}},
		{"LastNMore", sessiondb.LoadOptions{LastN: 100}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		// Kinds before LastN: the last 2 messages, not the messages among the last 2.
		{"KindsThenLastN", sessiondb.LoadOptions{Kinds: []string{"message"}, LastN: 2}, []int{7, 9}},
		{"AfterThenLastN", sessiondb.LoadOptions{After: at(2), LastN: 3}, []int{8, 9, 10}},
		{"AfterThenLastNFew", sessiondb.LoadOptions{After: at(8), LastN: 5}, []int{9, 10}},
		{"AllThree", sessiondb.LoadOptions{Kinds: []string{"message"}, After: at(3), LastN: 2}, []int{7, 9}},
		{"AllThreeLabel", sessiondb.LoadOptions{Kinds: []string{"label"}, After: at(2.5), LastN: 5}, []int{3, 8}},
	}
	for _, tc := range cases {
		var want []string
		for _, n := range tc.want {
			want = append(want, msgBody(n))
		}
		if diff := cmp.Diff(filterRef(es, tc.o), want, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("test bug in case %s: %s", tc.name, diff)
		}
		got := mustLoad(t, s, "o", tc.o)
		if diff := cmp.Diff(want, bodiesOf(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Load %s (-want +got):\n%s", tc.name, diff)
		}
		full, err := s.LoadFull(bg(t), "o", tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, bodiesOf(full.Transcript), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("LoadFull %s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func testLoadOptionsWithSummary(t *testing.T, s sessiondb.Store) {
	loadFixture(t, s, "os")
	s1 := sessiondb.Entry{Kind: sessiondb.KindCustom, CreatedAt: base.Add(100 * time.Second), Body: raw(`{"summary":"one"}`)}
	s2 := sessiondb.Entry{CreatedAt: base.Add(101 * time.Second), Body: raw(`{"role":"user","content":"summary two"}`)}
	if _, err := s.Compact(bg(t), "os", sessiondb.Compaction{KeepFromSeq: 8, Summary: []sessiondb.Entry{s1, s2}}); err != nil {
		t.Fatal(err)
	}
	all := mustLoad(t, s, "os", sessiondb.LoadOptions{})
	wantAll := []string{string(s1.Body), string(s2.Body), msgBody(8), msgBody(9), msgBody(10)}
	if diff := cmp.Diff(wantAll, bodiesOf(all)); diff != "" {
		t.Fatalf("Load (-want +got):\n%s", diff)
	}
	for i, e := range all {
		wantSummary := i < 2
		if e.Summary != wantSummary {
			t.Errorf("transcript[%d].Summary = %v, want %v", i, e.Summary, wantSummary)
		}
		if wantSummary && e.Seq != 0 {
			t.Errorf("summary message has Seq %d, want 0", e.Seq)
		}
	}
	if all[0].Kind != sessiondb.KindCustom || all[1].Kind != sessiondb.KindMessage || all[1].Role != "user" {
		t.Errorf("summary kinds/roles = %q/%q, %q/%q; want custom/\"\", message/user", all[0].Kind, all[0].Role, all[1].Kind, all[1].Role)
	}
	if !all[0].CreatedAt.Equal(s1.CreatedAt) {
		t.Errorf("summary CreatedAt = %v, want %v", all[0].CreatedAt, s1.CreatedAt)
	}
	for _, tc := range []struct {
		name string
		o    sessiondb.LoadOptions
		want []string
	}{
		{"KindsCustom", sessiondb.LoadOptions{Kinds: []string{"custom"}}, []string{string(s1.Body), msgBody(10)}},
		{"KindsMessage", sessiondb.LoadOptions{Kinds: []string{"message"}}, []string{string(s2.Body), msgBody(9)}},
		{"LastN1", sessiondb.LoadOptions{LastN: 1}, []string{msgBody(10)}},
		{"LastN4", sessiondb.LoadOptions{LastN: 4}, []string{string(s2.Body), msgBody(8), msgBody(9), msgBody(10)}},
		{"After", sessiondb.LoadOptions{After: base.Add(9 * time.Second)}, []string{string(s1.Body), string(s2.Body), msgBody(10)}},
		{"AfterSummary", sessiondb.LoadOptions{After: base.Add(100 * time.Second)}, []string{string(s2.Body)}},
	} {
		got := mustLoad(t, s, "os", tc.o)
		if diff := cmp.Diff(tc.want, bodiesOf(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Load %s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func testEntriesRanges(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "r", 10)
	for _, tc := range []struct {
		from, to int64
		want     []int64
	}{
		{0, 0, seqRange(1, 10)},
		{1, 0, seqRange(1, 10)},
		{3, 5, seqRange(3, 5)},
		{4, 4, []int64{4}},
		{8, 0, seqRange(8, 10)},
		{5, 100, seqRange(5, 10)},
		{10, 10, []int64{10}},
		{11, 0, nil},
		{11, 20, nil},
	} {
		got := mustEntries(t, s, "r", tc.from, tc.to)
		if diff := cmp.Diff(tc.want, seqsOf(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Entries(%d, %d) seqs (-want +got):\n%s", tc.from, tc.to, diff)
		}
		for _, e := range got {
			if string(e.Body) != msgBody(int(e.Seq)) || e.Summary || e.Kind != sessiondb.KindMessage || e.Role != "user" {
				t.Errorf("Entries(%d, %d): row %d = %+v", tc.from, tc.to, e.Seq, e)
			}
		}
	}
	_, err := s.Entries(bg(t), "r", 5, 3)
	wantErr(t, err, sessiondb.ErrInvalid, "Entries(5, 3)")

	// Superseded rows stay visible to Entries.
	if _, err := s.Truncate(bg(t), "r", 2); err != nil {
		t.Fatal(err)
	}
	wantTranscript(t, s, "r", bodies(9, 10))
	wantLogSeqs(t, s, "r", seqRange(1, 10))
	if got := mustEntries(t, s, "r", 2, 4); !slices.Equal(seqsOf(got), []int64{2, 3, 4}) {
		t.Errorf("Entries(2, 4) after truncate = %v", seqsOf(got))
	}
}

// testInvalidUTF8Body appends bodies that encoding/json accepts although a
// string holds bytes that are not UTF-8. They must come back byte for
// byte, not "repaired" and not refused: an importer carries such lines,
// and a copy between backends must not lose them (issue 23).
func testInvalidUTF8Body(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "utf8")
	for i, b := range []string{
		"{\"content\":\"\xff\xfe latin1: caf\xe9\"}",
		"{\"content\":\"surrogate \xed\xa0\x80 half\"}",
	} {
		before := mustGet(t, s, "utf8")
		r, err := s.Append(bg(t), "utf8", sessiondb.Entry{Body: raw(b)})
		if err != nil {
			t.Errorf("Append of body %d with invalid UTF-8: %v; want it kept", i, err)
			wantUnchanged(t, s, before, "refused Append")
			continue
		}
		es := mustEntries(t, s, "utf8", r.LastSeq, r.LastSeq)
		if len(es) != 1 || string(es[0].Body) != b {
			t.Errorf("body %d with invalid UTF-8 was accepted but altered: stored %q, got back %q", i, b, bodiesOf(es))
		}
	}
}
