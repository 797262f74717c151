package storetest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
)

func stateTests() []testCase {
	return []testCase{
		{name: "SaveLoad", fn: testState},
		{name: "Interrupt", fn: testInterrupt},
	}
}

func testState(t *testing.T, s sessiondb.Store) {
	s0 := mustCreate(t, s, "st")
	if st := mustState(t, s, "st"); st != nil {
		t.Errorf("LoadState of a new session = %q, want nil", st)
	}
	r, err := s.SaveState(bg(t), "st", raw(`{"step": 1, "plan":["a","b"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Sequence != s0.Sequence+1 || r.LastSeq != 0 {
		t.Errorf("SaveState returned Sequence %d LastSeq %d, want %d and 0", r.Sequence, r.LastSeq, s0.Sequence+1)
	}
	wantJSON(t, mustState(t, s, "st"), `{"step": 1, "plan":["a","b"]}`, "state")
	if _, err := s.SaveState(bg(t), "st", raw(`[2]`)); err != nil {
		t.Fatal(err)
	}
	wantJSON(t, mustState(t, s, "st"), `[2]`, "replaced state")
	// State is independent of the transcript.
	mustAppend(t, s, "st", msgs(1, 2)...)
	mustTruncate(t, s, "st", 0)
	wantJSON(t, mustState(t, s, "st"), `[2]`, "state after append and truncate")
	before := mustGet(t, s, "st")
	_, err = s.SaveState(bg(t), "st", raw(`{"step":`))
	wantErr(t, err, sessiondb.ErrInvalid, "SaveState(non-JSON)")
	wantUnchanged(t, s, before, "SaveState(non-JSON)")
	wantJSON(t, mustState(t, s, "st"), `[2]`, "state after a failed save")
	mustCreate(t, s, "other")
	if st := mustState(t, s, "other"); st != nil {
		t.Errorf("state leaked to another session: %q", st)
	}
}

func testInterrupt(t *testing.T, s sessiondb.Store) {
	s0 := mustCreate(t, s, "in")
	if in := mustInterrupt(t, s, "in"); in != nil {
		t.Errorf("LoadInterrupt of a new session = %q, want nil", in)
	}
	// Clearing when nothing is pending is fine.
	if _, err := s.ClearInterrupt(bg(t), "in"); err != nil {
		t.Errorf("ClearInterrupt with nothing pending: %v", err)
	}
	before := mustGet(t, s, "in")
	r, err := s.SaveInterrupt(bg(t), "in", raw(`{"tool_calls":[{"id":"c1","name":"sh"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Sequence != before.Sequence+1 || r.Sequence <= s0.Sequence {
		t.Errorf("SaveInterrupt returned Sequence %d, want %d", r.Sequence, before.Sequence+1)
	}
	wantJSON(t, mustInterrupt(t, s, "in"), `{"tool_calls":[{"id":"c1","name":"sh"}]}`, "interrupt")
	if _, err := s.SaveInterrupt(bg(t), "in", raw(`{"tool_calls":[]}`)); err != nil {
		t.Fatal(err)
	}
	wantJSON(t, mustInterrupt(t, s, "in"), `{"tool_calls":[]}`, "replaced interrupt")
	if st := mustState(t, s, "in"); st != nil {
		t.Errorf("interrupt leaked into state: %q", st)
	}
	before = mustGet(t, s, "in")
	_, err = s.SaveInterrupt(bg(t), "in", raw(`nope`))
	wantErr(t, err, sessiondb.ErrInvalid, "SaveInterrupt(non-JSON)")
	wantUnchanged(t, s, before, "SaveInterrupt(non-JSON)")
	r, err = s.ClearInterrupt(bg(t), "in")
	if err != nil {
		t.Fatal(err)
	}
	if r.Sequence < before.Sequence+1 {
		t.Errorf("ClearInterrupt of a pending interrupt returned Sequence %d, want %d", r.Sequence, before.Sequence+1)
	}
	if in := mustInterrupt(t, s, "in"); in != nil {
		t.Errorf("LoadInterrupt after ClearInterrupt = %q", in)
	}
	for range 2 {
		if _, err := s.ClearInterrupt(bg(t), "in"); err != nil {
			t.Errorf("repeated ClearInterrupt: %v", err)
		}
	}
	if in := mustInterrupt(t, s, "in"); in != nil {
		t.Errorf("LoadInterrupt after repeated ClearInterrupt = %q", in)
	}
}

// ---- Commit ----------------------------------------------------------------

func commitTests() []testCase {
	return []testCase{
		{name: "AllParts", fn: testCommitAllParts},
		{name: "ExpectSequence", fn: testCommitExpect},
		{name: "ConflictWritesNothing", fn: testCommitConflict},
		{name: "Create", fn: testCommitCreate},
		{name: "UnknownWithoutCreate", fn: testCommitUnknown},
		{name: "InvalidWritesNothing", fn: testCommitInvalid},
		{name: "ClearState", fn: testCommitClearState},
		{name: "SeveralCompactions", fn: testCommitSeveralCompactions},
		{name: "LoadFull", fn: testLoadFull},
		{name: "ExpectSource", fn: testCommitExpectSource},
	}
}

// testCommitExpectSource: Commit.ExpectSource is checked inside the
// commit's transaction; a mismatch is ErrConflict and writes nothing (not
// even the Create of the same commit), and ExpectSource without Source is
// ErrInvalid.
func testCommitExpectSource(t *testing.T, s sessiondb.Store) {
	src := func(sha string, off int64) *sessiondb.SourceFile {
		return &sessiondb.SourceFile{Path: "/archive/a.jsonl", Format: "zot", Size: off, ModTime: time.Unix(1700000000, 0).UTC(), SHA256: sha, Offset: off}
	}
	absent := &sessiondb.SourceExpectation{Absent: true}
	first := mustCommit(t, s, "es", sessiondb.Commit{Create: &sessiondb.Session{}, Append: msgs(1, 2), Source: src("h1", 10), ExpectSource: absent})

	// A second "first import" of the same file loses, whether it creates
	// a session or appends to one.
	_, err := s.Commit(bg(t), "es2", sessiondb.Commit{Create: &sessiondb.Session{}, Append: msgs(1, 1), Source: src("h1", 10), ExpectSource: absent})
	wantErr(t, err, sessiondb.ErrConflict, "Commit(ExpectSource absent, record exists)")
	if _, err := s.Get(bg(t), "es2"); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("a refused commit created its session: Get = %v", err)
	}
	_, err = s.Commit(bg(t), "es", sessiondb.Commit{Append: msgs(3, 3), Source: src("h1", 10), ExpectSource: absent})
	wantErr(t, err, sessiondb.ErrConflict, "Commit(ExpectSource absent, append)")
	wantUnchanged(t, s, first, "after refused commits")

	// A continuation based on another record loses; one based on the
	// stored record wins.
	_, err = s.Commit(bg(t), "es", sessiondb.Commit{Append: msgs(3, 3), Source: src("h2", 20), ExpectSource: &sessiondb.SourceExpectation{SHA256: "other", Offset: 10}})
	wantErr(t, err, sessiondb.ErrConflict, "Commit(ExpectSource hash differs)")
	_, err = s.Commit(bg(t), "es", sessiondb.Commit{Append: msgs(3, 3), Source: src("h2", 20), ExpectSource: &sessiondb.SourceExpectation{SHA256: "h1", Offset: 9}})
	wantErr(t, err, sessiondb.ErrConflict, "Commit(ExpectSource offset differs)")
	wantUnchanged(t, s, first, "after refused continuations")
	mustCommit(t, s, "es", sessiondb.Commit{Append: msgs(3, 3), Source: src("h2", 20), ExpectSource: &sessiondb.SourceExpectation{SHA256: "h1", Offset: 10}})
	wantTranscript(t, s, "es", bodies(1, 3))
	sf, err := s.SourceFile(bg(t), "/archive/a.jsonl")
	if err != nil || sf.SHA256 != "h2" || sf.Offset != 20 {
		t.Errorf("SourceFile after the continuation = %+v, %v", sf, err)
	}

	// An expectation on a file never imported.
	_, err = s.Commit(bg(t), "es", sessiondb.Commit{Append: msgs(4, 4), Source: &sessiondb.SourceFile{Path: "/archive/new.jsonl", Format: "zot"}, ExpectSource: &sessiondb.SourceExpectation{SHA256: "h1", Offset: 10}})
	wantErr(t, err, sessiondb.ErrConflict, "Commit(ExpectSource on a missing record)")

	_, err = s.Commit(bg(t), "es", sessiondb.Commit{Append: msgs(4, 4), ExpectSource: absent})
	wantErr(t, err, sessiondb.ErrInvalid, "Commit(ExpectSource without Source)")
	wantTranscript(t, s, "es", bodies(1, 3))
}

func mustCommit(t *testing.T, s sessiondb.Store, id string, c sessiondb.Commit) sessiondb.Session {
	t.Helper()
	got, err := s.Commit(bg(t), id, c)
	if err != nil {
		t.Fatalf("Commit(%q): %v", id, err)
	}
	return got
}

func testCommitAllParts(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "all", 2)
	now := time.Date(2025, 9, 1, 12, 0, 0, 0, time.UTC)
	src := sessiondb.SourceFile{
		Path: "/archives/all.jsonl", Format: "zot", SessionID: "all", Size: 4096,
		ModTime: time.Date(2025, 8, 31, 1, 2, 3, 4000, time.UTC), SHA256: strings.Repeat("0f", 32), Offset: 4000,
		State: raw(`{"line": 17}`),
	}
	r := mustCommit(t, s, "all", sessiondb.Commit{
		Meta:        &sessiondb.MetaPatch{Title: ptr("committed"), Attrs: raw(`{"model":"m"}`)},
		Append:      msgs(3, 5),
		Compactions: []sessiondb.Compaction{{KeepFromSeq: 3, Summary: entriesOf(sumA)}},
		State:       raw(`{"rev": 1}`),
		Interrupt:   raw(`{"pending": true}`),
		Usage: []sessiondb.Usage{
			{Seq: 4, Provider: "p", Model: "m", InputTokens: 100, OutputTokens: 20, CacheReadTokens: 7, CacheWriteTokens: 3, ReasoningTokens: 5, Cost: 0.25},
			{Seq: 5, Provider: "p", Model: "m", InputTokens: 50, OutputTokens: 10, Cost: 0.125},
		},
		Source: &src,
		Now:    now,
	})
	if r.Sequence != before.Sequence+1 {
		t.Errorf("Commit Sequence = %d, want %d (one bump for the whole commit)", r.Sequence, before.Sequence+1)
	}
	if r.LastSeq != 5 || r.Title != "committed" || !r.UpdatedAt.Equal(now) {
		t.Errorf("Commit returned LastSeq %d Title %q UpdatedAt %v; want 5, committed, %v", r.LastSeq, r.Title, r.UpdatedAt, now)
	}
	g := mustGet(t, s, "all")
	if diff := metaDiff(r, g); diff != "" {
		t.Errorf("Get differs from Commit's result (-commit +get):\n%s", diff)
	}
	wantJSON(t, g.Attrs, `{"model":"m"}`, "attrs")
	wantTranscript(t, s, "all", append([]string{sumA}, bodies(3, 5)...))
	cs := mustCompactions(t, s, "all")
	if len(cs) != 1 || cs[0].AtSeq != 5 || cs[0].KeepFromSeq != 3 {
		t.Errorf("compactions = %+v, want one with AtSeq 5 (after the appends), KeepFromSeq 3", cs)
	}
	wantJSON(t, mustState(t, s, "all"), `{"rev": 1}`, "state")
	wantJSON(t, mustInterrupt(t, s, "all"), `{"pending": true}`, "interrupt")
	u, err := s.UsageTotals(bg(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	wantU := sessiondb.UsageTotals{Calls: 2, InputTokens: 150, OutputTokens: 30, CacheReadTokens: 7, CacheWriteTokens: 3, ReasoningTokens: 5, Cost: 0.375}
	if u != wantU {
		t.Errorf("UsageTotals = %+v, want %+v", u, wantU)
	}
	sf, err := s.SourceFile(bg(t), src.Path)
	if err != nil {
		t.Fatalf("SourceFile: %v", err)
	}
	if sf.Path != src.Path || sf.Format != src.Format || sf.SessionID != "all" || sf.Size != src.Size ||
		!sf.ModTime.Equal(src.ModTime) || sf.SHA256 != src.SHA256 || sf.Offset != src.Offset || string(sf.State) != string(src.State) {
		t.Errorf("SourceFile = %+v, want %+v", sf, src)
	}
	if sf.ImportedAt.IsZero() {
		t.Errorf("SourceFile ImportedAt is zero")
	}
	// A later commit replaces the source record.
	src.Offset, src.Size = 5000, 5000
	mustCommit(t, s, "all", sessiondb.Commit{Append: msgs(6, 6), Source: &src})
	if sf, err := s.SourceFile(bg(t), src.Path); err != nil || sf.Offset != 5000 || sf.Size != 5000 {
		t.Errorf("SourceFile after second commit = %+v, %v; want Offset/Size 5000", sf, err)
	}
	_, err = s.SourceFile(bg(t), "/archives/other.jsonl")
	wantErr(t, err, sessiondb.ErrNotFound, "SourceFile(unrecorded path)")
}

func testCommitExpect(t *testing.T, s sessiondb.Store) {
	cur := mustSession(t, s, "ex", 1)
	for i := 2; i <= 4; i++ {
		r, err := s.Commit(bg(t), "ex", sessiondb.Commit{ExpectSequence: sessiondb.Expect(cur.Sequence), Append: msgs(i, i)})
		if err != nil {
			t.Fatalf("Commit with the current sequence %d: %v", cur.Sequence, err)
		}
		if r.Sequence != cur.Sequence+1 || r.LastSeq != int64(i) {
			t.Errorf("Commit returned Sequence %d LastSeq %d, want %d %d", r.Sequence, r.LastSeq, cur.Sequence+1, i)
		}
		cur = r
	}
	// Without ExpectSequence, writes always succeed.
	mustCommit(t, s, "ex", sessiondb.Commit{Append: msgs(5, 5)})
	wantTranscript(t, s, "ex", bodies(1, 5))
}

func wantConflict(t *testing.T, err error, id string, expected, current int64, what string) {
	t.Helper()
	if !errors.Is(err, sessiondb.ErrConflict) {
		t.Errorf("%s: got %v, want ErrConflict", what, err)
		return
	}
	var ce *sessiondb.ConflictError
	if !errors.As(err, &ce) {
		t.Errorf("%s: error %v is not a *ConflictError", what, err)
		return
	}
	if ce.Current != current || ce.Expected != expected || ce.SessionID != id {
		t.Errorf("%s: ConflictError = %+v, want SessionID %q Expected %d Current %d", what, *ce, id, expected, current)
	}
}

func testCommitConflict(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "cf", 3)
	mustSaveState(t, s, "cf", `{"v":1}`)
	before := mustGet(t, s, "cf")
	for _, stale := range []int64{before.Sequence - 1, before.Sequence + 1, 0} {
		_, err := s.Commit(bg(t), "cf", sessiondb.Commit{
			ExpectSequence: sessiondb.Expect(stale),
			Meta:           &sessiondb.MetaPatch{Title: ptr("lost")},
			Append:         msgs(4, 6),
			Compactions:    []sessiondb.Compaction{{KeepFromSeq: 5}},
			State:          raw(`{"v":2}`),
			Interrupt:      raw(`{"i":1}`),
			Usage:          []sessiondb.Usage{{InputTokens: 1}},
			Source:         &sessiondb.SourceFile{Path: "/lost", Format: "zot", SessionID: "cf"},
		})
		wantConflict(t, err, "cf", stale, before.Sequence, "Commit with a stale sequence")
	}
	after := mustGet(t, s, "cf")
	if diff := metaDiff(before, after); diff != "" {
		t.Errorf("conflicting Commit changed the session (-before +after):\n%s", diff)
	}
	wantTranscript(t, s, "cf", bodies(1, 3))
	wantLogSeqs(t, s, "cf", seqRange(1, 3))
	wantJSON(t, mustState(t, s, "cf"), `{"v":1}`, "state after conflict")
	if in := mustInterrupt(t, s, "cf"); in != nil {
		t.Errorf("interrupt after conflict = %q", in)
	}
	if cs := mustCompactions(t, s, "cf"); len(cs) != 0 {
		t.Errorf("compactions after conflict = %+v", cs)
	}
	if u, err := s.UsageTotals(bg(t), "cf"); err != nil || u.Calls != 0 {
		t.Errorf("usage after conflict = %+v, %v", u, err)
	}
	_, err := s.SourceFile(bg(t), "/lost")
	wantErr(t, err, sessiondb.ErrNotFound, "source record after conflict")
}

func mustSaveState(t *testing.T, s sessiondb.Store, id, state string) sessiondb.Session {
	t.Helper()
	r, err := s.SaveState(bg(t), id, raw(state))
	if err != nil {
		t.Fatalf("SaveState(%q): %v", id, err)
	}
	return r
}

func testCommitCreate(t *testing.T, s sessiondb.Store) {
	r, err := s.Commit(bg(t), "born", sessiondb.Commit{
		Create: &sessiondb.Session{Title: "born in a commit", Aliases: []string{"born-alias"}, Attrs: raw(`{"a":1}`)},
		Append: msgs(1, 2),
		State:  raw(`{"s":1}`),
	})
	if err != nil {
		t.Fatalf("Commit with Create: %v", err)
	}
	if r.ID != "born" || r.LastSeq != 2 || r.Sequence < 1 || r.Title != "born in a commit" {
		t.Errorf("Commit with Create returned %+v", r)
	}
	wantTranscript(t, s, "born", bodies(1, 2))
	wantJSON(t, mustState(t, s, "born"), `{"s":1}`, "state")
	if id, err := s.Resolve(bg(t), "born-alias"); err != nil || id != "born" {
		t.Errorf("Resolve(born-alias) = %q, %v", id, err)
	}
	wantJSON(t, mustGet(t, s, "born").Attrs, `{"a":1}`, "attrs")
	// Create on an existing session fails and writes nothing.
	before := mustGet(t, s, "born")
	_, err = s.Commit(bg(t), "born", sessiondb.Commit{Create: &sessiondb.Session{Title: "again"}, Append: msgs(3, 3), State: raw(`{"s":2}`)})
	wantErr(t, err, sessiondb.ErrExists, "Commit with Create of an existing session")
	wantUnchanged(t, s, before, "Commit with Create of an existing session")
	wantJSON(t, mustState(t, s, "born"), `{"s":1}`, "state after failed create")
	if g := mustGet(t, s, "born"); g.Title != "born in a commit" {
		t.Errorf("title after failed create = %q", g.Title)
	}
	// A Create listing another session's alias shares it; the first
	// holder keeps winning in Resolve.
	if _, err = s.Commit(bg(t), "twin", sessiondb.Commit{Create: &sessiondb.Session{Aliases: []string{"born-alias"}}, Append: msgs(1, 1)}); err != nil {
		t.Fatalf("Commit with Create and a shared alias: %v", err)
	}
	if id, err := s.Resolve(bg(t), "born-alias"); err != nil || id != "born" {
		t.Errorf("Resolve(born-alias) after twin shared it = %q, %v; want born", id, err)
	}
}

func testCommitUnknown(t *testing.T, s sessiondb.Store) {
	_, err := s.Commit(bg(t), "ghost", sessiondb.Commit{Append: msgs(1, 1), State: raw(`{}`)})
	wantErr(t, err, sessiondb.ErrNotFound, "Commit to an unknown session without Create")
	_, err = s.Get(bg(t), "ghost")
	wantErr(t, err, sessiondb.ErrNotFound, "Get after failed Commit")
	_, err = s.Commit(bg(t), "ghost", sessiondb.Commit{ExpectSequence: sessiondb.Expect(0), Append: msgs(1, 1)})
	if !errors.Is(err, sessiondb.ErrNotFound) && !errors.Is(err, sessiondb.ErrConflict) {
		t.Errorf("Commit with ExpectSequence to an unknown session: %v, want ErrNotFound or ErrConflict", err)
	}
	if ids := idsOf(listAll(t, s, sessiondb.ListOptions{})); len(ids) != 0 {
		t.Errorf("failed Commits created sessions %v", ids)
	}
}

func testCommitInvalid(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "ci", 3)
	mustSaveState(t, s, "ci", `{"ok":1}`)
	before := mustGet(t, s, "ci")
	bad := []struct {
		name string
		c    sessiondb.Commit
	}{
		{"BadEntryAmongGood", sessiondb.Commit{Append: []sessiondb.Entry{sessiondb.Message(msgBody(4)), sessiondb.Message(`{"role":`), sessiondb.Message(msgBody(6))}, State: raw(`{"ok":2}`)}},
		{"KeepFromBeyondAppends", sessiondb.Commit{Append: msgs(4, 5), Compactions: []sessiondb.Compaction{{KeepFromSeq: 7}}, State: raw(`{"ok":2}`)}},
		{"BadState", sessiondb.Commit{Append: msgs(4, 5), State: raw(`{"ok":`)}},
		{"BadInterrupt", sessiondb.Commit{Append: msgs(4, 5), Interrupt: raw(`}`)}},
		{"SetAndClearState", sessiondb.Commit{Append: msgs(4, 5), State: raw(`{}`), ClearState: true}},
		{"SetAndClearInterrupt", sessiondb.Commit{Append: msgs(4, 5), Interrupt: raw(`{}`), ClearInterrupt: true}},
		{"BadMetaScope", sessiondb.Commit{Append: msgs(4, 5), Meta: &sessiondb.MetaPatch{Scope: raw(`x`)}}},
		{"BadSummary", sessiondb.Commit{Append: msgs(4, 5), Compactions: []sessiondb.Compaction{{KeepFromSeq: 4, Summary: entriesOf(`[`)}}}},
		{"SourceWithoutPath", sessiondb.Commit{Append: msgs(4, 5), Source: &sessiondb.SourceFile{Format: "zot"}}},
		{"BadAlias", sessiondb.Commit{Append: msgs(4, 5), Meta: &sessiondb.MetaPatch{Aliases: &[]string{"a\x00b"}}}},
	}
	for _, tc := range bad {
		_, err := s.Commit(bg(t), "ci", tc.c)
		wantErr(t, err, sessiondb.ErrInvalid, "Commit "+tc.name)
	}
	wantUnchanged(t, s, before, "invalid Commits")
	wantTranscript(t, s, "ci", bodies(1, 3))
	wantLogSeqs(t, s, "ci", seqRange(1, 3))
	wantJSON(t, mustState(t, s, "ci"), `{"ok":1}`, "state after invalid commits")
	if in := mustInterrupt(t, s, "ci"); in != nil {
		t.Errorf("interrupt after invalid commits = %q", in)
	}
	// An invalid Create-commit creates nothing.
	_, err := s.Commit(bg(t), "nc", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entriesOf(`nope`)})
	wantErr(t, err, sessiondb.ErrInvalid, "Commit with Create and a bad body")
	_, err = s.Get(bg(t), "nc")
	wantErr(t, err, sessiondb.ErrNotFound, "session of an invalid Commit-Create")
}

func testCommitClearState(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "cs")
	mustCommit(t, s, "cs", sessiondb.Commit{State: raw(`{"x":1}`), Interrupt: raw(`{"y":1}`)})
	mustCommit(t, s, "cs", sessiondb.Commit{ClearState: true})
	if st := mustState(t, s, "cs"); st != nil {
		t.Errorf("state after ClearState = %q", st)
	}
	wantJSON(t, mustInterrupt(t, s, "cs"), `{"y":1}`, "interrupt untouched by ClearState")
	mustCommit(t, s, "cs", sessiondb.Commit{ClearInterrupt: true, State: raw(`{"x":2}`)})
	if in := mustInterrupt(t, s, "cs"); in != nil {
		t.Errorf("interrupt after ClearInterrupt = %q", in)
	}
	wantJSON(t, mustState(t, s, "cs"), `{"x":2}`, "state")
	// Nil state leaves it alone.
	mustCommit(t, s, "cs", sessiondb.Commit{Append: msgs(1, 1)})
	wantJSON(t, mustState(t, s, "cs"), `{"x":2}`, "state after a commit without state")
}

func testCommitSeveralCompactions(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "sc", 2)
	r := mustCommit(t, s, "sc", sessiondb.Commit{
		Append: msgs(3, 6),
		Compactions: []sessiondb.Compaction{
			{KeepFromSeq: 2, Summary: entriesOf(sumA)},
			{KeepFromSeq: 5, Summary: entriesOf(sumB)},
		},
	})
	if r.Sequence != before.Sequence+1 {
		t.Errorf("Sequence = %d, want %d", r.Sequence, before.Sequence+1)
	}
	cs := mustCompactions(t, s, "sc")
	if len(cs) != 2 || cs[0].KeepFromSeq != 2 || cs[1].KeepFromSeq != 5 {
		t.Errorf("compactions = %+v", cs)
	}
	wantTranscript(t, s, "sc", append([]string{sumB}, bodies(5, 6)...))
}

func testLoadFull(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "lf", 4)
	mustCommit(t, s, "lf", sessiondb.Commit{
		Append:      msgs(5, 6),
		Compactions: []sessiondb.Compaction{{KeepFromSeq: 3, Summary: entriesOf(sumA)}},
		State:       raw(`{"s": "full"}`),
		Interrupt:   raw(`{"i": "full"}`),
	})
	full, err := s.LoadFull(bg(t), "lf", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := metaDiff(mustGet(t, s, "lf"), full.Session); diff != "" {
		t.Errorf("LoadFull Session differs from Get (-get +full):\n%s", diff)
	}
	if diff := cmp.Diff(mustLoad(t, s, "lf", sessiondb.LoadOptions{}), full.Transcript); diff != "" {
		t.Errorf("LoadFull Transcript differs from Load (-load +full):\n%s", diff)
	}
	wantJSON(t, full.State, `{"s": "full"}`, "LoadFull State")
	wantJSON(t, full.Interrupt, `{"i": "full"}`, "LoadFull Interrupt")
	full, err = s.LoadFull(bg(t), "lf", sessiondb.LoadOptions{LastN: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(bodies(5, 6), bodiesOf(full.Transcript)); diff != "" {
		t.Errorf("LoadFull(LastN 2) (-want +got):\n%s", diff)
	}
	if full.Session.LastSeq != 6 {
		t.Errorf("LoadFull(LastN 2) Session.LastSeq = %d", full.Session.LastSeq)
	}
}

// ---- SaveFull --------------------------------------------------------------

func saveFullTests() []testCase {
	return []testCase{
		{name: "CreatesWhenMissing", fn: testSaveFullCreate},
		{name: "Replaces", fn: testSaveFullReplace},
		{name: "StaleSequence", fn: testSaveFullStale},
		{name: "UncheckedSequence", fn: testSaveFullUnchecked},
	}
}

func mustSaveFull(t *testing.T, s sessiondb.Store, sess sessiondb.Session, es []sessiondb.Entry, state string) sessiondb.Session {
	t.Helper()
	var st json.RawMessage
	if state != "" {
		st = raw(state)
	}
	r, err := s.SaveFull(bg(t), sess, es, st)
	if err != nil {
		t.Fatalf("SaveFull(%q): %v", sess.ID, err)
	}
	return r
}

func testSaveFullCreate(t *testing.T, s sessiondb.Store) {
	in := sessiondb.Session{ID: "sf", Title: "saved", Summary: "sum", Version: 2, Scope: raw(`{"p":1}`), Attrs: raw(`{ "model" : "m" }`), Aliases: []string{"sf-alias"}}
	r := mustSaveFull(t, s, in, msgs(1, 3), `{"rev":1}`)
	if r.ID != "sf" || r.Sequence < 1 || r.LastSeq != 3 {
		t.Errorf("SaveFull returned ID %q Sequence %d LastSeq %d", r.ID, r.Sequence, r.LastSeq)
	}
	g := mustGet(t, s, "sf")
	if diff := metaDiff(r, g); diff != "" {
		t.Errorf("SaveFull result differs from Get (-result +get):\n%s", diff)
	}
	want := in
	want.Sequence, want.LastSeq, want.CreatedAt, want.UpdatedAt = g.Sequence, g.LastSeq, g.CreatedAt, g.UpdatedAt
	if diff := metaDiff(want, g); diff != "" {
		t.Errorf("SaveFull metadata (-want +got):\n%s", diff)
	}
	wantJSON(t, g.Attrs, `{ "model" : "m" }`, "attrs")
	wantTranscript(t, s, "sf", bodies(1, 3))
	wantJSON(t, mustState(t, s, "sf"), `{"rev":1}`, "state")
	if id, err := s.Resolve(bg(t), "sf-alias"); err != nil || id != "sf" {
		t.Errorf("Resolve(sf-alias) = %q, %v", id, err)
	}
}

func testSaveFullReplace(t *testing.T, s sessiondb.Store) {
	r1 := mustSaveFull(t, s, sessiondb.Session{ID: "sr", Title: "v1", Aliases: []string{"sr-1"}, Attrs: raw(`{"v":1}`), Scope: raw(`{"s":1}`)}, msgs(1, 4), `{"rev":1}`)
	r2 := mustSaveFull(t, s, sessiondb.Session{ID: "sr", Sequence: r1.Sequence, Title: "v2", Summary: "s2", Version: 5, Aliases: []string{"sr-2"}, Attrs: raw(`{"v":2}`)}, msgs(10, 11), `{"rev":2}`)
	if r2.Sequence != r1.Sequence+1 {
		t.Errorf("SaveFull replace: Sequence %d, want %d (one commit)", r2.Sequence, r1.Sequence+1)
	}
	wantTranscript(t, s, "sr", bodies(10, 11))
	wantJSON(t, mustState(t, s, "sr"), `{"rev":2}`, "state")
	g := mustGet(t, s, "sr")
	if g.Title != "v2" || g.Summary != "s2" || g.Version != 5 || string(g.Attrs) != `{"v":2}` || !cmp.Equal(g.Aliases, []string{"sr-2"}) {
		t.Errorf("metadata after SaveFull = %+v", g)
	}
	_, err := s.Resolve(bg(t), "sr-1")
	wantErr(t, err, sessiondb.ErrNotFound, "alias replaced by SaveFull")
	// The old rows stay for audit.
	log := mustEntries(t, s, "sr", 0, 0)
	if len(log) < 6 {
		t.Errorf("log after SaveFull has %d rows, want the 4 old ones kept too", len(log))
	}
	// Extending the transcript keeps it whole.
	r3 := mustSaveFull(t, s, sessiondb.Session{ID: "sr", Sequence: r2.Sequence, Title: "v3"}, msgs(10, 13), `{"rev":3}`)
	if r3.Sequence != r2.Sequence+1 {
		t.Errorf("Sequence %d, want %d", r3.Sequence, r2.Sequence+1)
	}
	wantTranscript(t, s, "sr", bodies(10, 13))
	// SaveFull replaces the metadata: what v3 leaves unset is unset now.
	g = mustGet(t, s, "sr")
	if g.Title != "v3" || g.Summary != "" || g.Version != 0 || len(g.Aliases) != 0 {
		t.Errorf("after SaveFull v3: title %q summary %q version %d aliases %v; want v3 and the rest cleared", g.Title, g.Summary, g.Version, g.Aliases)
	}
	if g.Attrs != nil || g.Scope != nil {
		t.Errorf("after SaveFull v3 without Attrs/Scope: Attrs %q Scope %q, want nil (SaveFull replaces the metadata)", g.Attrs, g.Scope)
	}
	full, err := s.LoadFull(bg(t), "sr", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if full.Session.Sequence != r3.Sequence || full.Session.Title != "v3" || string(full.State) != `{"rev":3}` || len(full.Transcript) != 4 {
		t.Errorf("LoadFull after SaveFull = seq %d title %q state %s len %d", full.Session.Sequence, full.Session.Title, full.State, len(full.Transcript))
	}
}

func testSaveFullStale(t *testing.T, s sessiondb.Store) {
	r1 := mustSaveFull(t, s, sessiondb.Session{ID: "ss", Title: "one"}, msgs(1, 2), `{"rev":1}`)
	r2 := mustSaveFull(t, s, sessiondb.Session{ID: "ss", Sequence: r1.Sequence, Title: "two"}, msgs(3, 4), `{"rev":2}`)
	_, err := s.SaveFull(bg(t), sessiondb.Session{ID: "ss", Sequence: r1.Sequence, Title: "stale"}, msgs(5, 6), raw(`{"rev":"stale"}`))
	wantConflict(t, err, "ss", r1.Sequence, r2.Sequence, "SaveFull with a stale sequence")
	g := mustGet(t, s, "ss")
	if diff := metaDiff(r2, g); diff != "" {
		t.Errorf("stale SaveFull changed the session (-before +after):\n%s", diff)
	}
	wantTranscript(t, s, "ss", bodies(3, 4))
	wantJSON(t, mustState(t, s, "ss"), `{"rev":2}`, "state after stale SaveFull")
}

func testSaveFullUnchecked(t *testing.T, s sessiondb.Store) {
	mustSaveFull(t, s, sessiondb.Session{ID: "su"}, msgs(1, 2), `{"rev":1}`)
	mustAppend(t, s, "su", msgs(3, 3)...) // someone else moved the sequence
	r := mustSaveFull(t, s, sessiondb.Session{ID: "su", Sequence: 0, Title: "blind"}, msgs(7, 8), `{"rev":2}`)
	if r.Title != "blind" {
		t.Errorf("SaveFull returned title %q", r.Title)
	}
	wantTranscript(t, s, "su", bodies(7, 8))
	wantJSON(t, mustState(t, s, "su"), `{"rev":2}`, "state")
}

// ---- Usage -----------------------------------------------------------------

func usageTests() []testCase {
	return []testCase{
		{name: "Totals", fn: testUsageTotals},
		{name: "CallIDReplaces", fn: testUsageCallID},
		{name: "CacheWrite1h", fn: testUsageCacheWrite1h},
		{name: "Replace", fn: testUsageReplace},
	}
}

// testUsageReplace: ReplaceUsage makes the commit's rows the session's
// whole ledger (calls, models and days included), leaves other sessions'
// rows alone, empties the ledger without rows, and is a no-op (no
// Sequence bump) on an empty ledger without rows; a failing commit keeps
// the old ledger.
func testUsageReplace(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustCreate(t, s, "u")
	mustCreate(t, s, "v")
	day2 := base.Add(48 * time.Hour)
	mustCommit(t, s, "v", sessiondb.Commit{Usage: []sessiondb.Usage{{CallID: "m1", Model: "a", OutputTokens: 7}}})
	mustCommit(t, s, "u", sessiondb.Commit{Append: msgs(1, 2), Usage: []sessiondb.Usage{
		{CallID: "m1", Model: "a", InputTokens: 5, CreatedAt: base},
		{CallID: "m2", Model: "a", InputTokens: 6, CreatedAt: base},
		{Model: "old", InputTokens: 1000, Cost: 3, CreatedAt: base},
	}})
	sess := mustCommit(t, s, "u", sessiondb.Commit{ReplaceUsage: true, Usage: []sessiondb.Usage{
		{CallID: "m2", Model: "b", InputTokens: 1, Seq: 2, CreatedAt: day2},
		{Model: "c", OutputTokens: 2, Cost: 0.5, CreatedAt: day2},
	}})
	want := sessiondb.UsageTotals{Calls: 2, InputTokens: 1, OutputTokens: 2, Cost: 0.5}
	if got, err := s.UsageTotals(ctx, "u"); err != nil || got != want {
		t.Fatalf("UsageTotals after the replacement = %+v, %v; want %+v", got, err, want)
	}
	rows, err := s.UsageReport(ctx, sessiondb.UsageQuery{SessionID: "u", ByModel: true, ByDay: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Model != "b" && r.Model != "c" || r.Calls != 1 || r.Day != day2.Format(time.DateOnly) {
			t.Errorf("report row after the replacement: %+v; want one call of b or c on %s", r, day2.Format(time.DateOnly))
		}
	}
	if len(rows) != 2 {
		t.Errorf("report has %d rows after the replacement, want 2: %+v", len(rows), rows)
	}
	if got, err := s.UsageTotals(ctx, "v"); err != nil || got.Calls != 1 || got.OutputTokens != 7 {
		t.Errorf("other session's ledger = %+v, %v; want its one row", got, err)
	}
	// A commit that fails (a row naming an entry past the log) keeps the
	// ledger as it was.
	if _, err := s.Commit(ctx, "u", sessiondb.Commit{ReplaceUsage: true, Usage: []sessiondb.Usage{{Seq: 99, Model: "z"}}}); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("ReplaceUsage with a row past the log: %v; want ErrInvalid", err)
	}
	if got, err := s.UsageTotals(ctx, "u"); err != nil || got != want {
		t.Errorf("UsageTotals after a failed replacement = %+v, %v; want %+v", got, err, want)
	}
	empty := mustCommit(t, s, "u", sessiondb.Commit{ReplaceUsage: true})
	if empty.Sequence != sess.Sequence+1 {
		t.Errorf("emptying the ledger: sequence %d, want %d", empty.Sequence, sess.Sequence+1)
	}
	if got, err := s.UsageTotals(ctx, "u"); err != nil || got != (sessiondb.UsageTotals{}) {
		t.Errorf("UsageTotals after emptying = %+v, %v; want zero", got, err)
	}
	again := mustCommit(t, s, "u", sessiondb.Commit{ReplaceUsage: true})
	if again.Sequence != empty.Sequence {
		t.Errorf("emptying an empty ledger bumped the sequence %d -> %d; want a no-op", empty.Sequence, again.Sequence)
	}
}

// testUsageCacheWrite1h: a row's 1-hour cache writes are stored and read
// back as given (a later report of the call replacing them too); a row
// whose 1-hour writes are negative or exceed its cache writes fails the
// commit with ErrInvalid and changes nothing.
func testUsageCacheWrite1h(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "u")
	rows := []sessiondb.Usage{
		{CallID: "msg_1", Model: "a", CacheWriteTokens: 1000, CacheWrite1hTokens: 1, CreatedAt: base},
		{CallID: "msg_2", Model: "a", CacheWriteTokens: 1000, CacheWrite1hTokens: 1000, CreatedAt: base},
		{Model: "a", CacheWriteTokens: 1 << 40, CacheWrite1hTokens: 1<<40 - 1, CreatedAt: base},
		{CallID: "msg_1", Model: "a", CacheWriteTokens: 2000, CacheWrite1hTokens: 1500, CreatedAt: base},
	}
	sess := mustCommit(t, s, "u", sessiondb.Commit{Usage: rows})
	for _, bad := range []sessiondb.Usage{
		{Model: "a", CacheWriteTokens: 10, CacheWrite1hTokens: 11},
		{Model: "a", CacheWriteTokens: 10, CacheWrite1hTokens: -1},
		{Model: "a", CacheWrite1hTokens: 1},
	} {
		_, err := s.Commit(bg(t), "u", sessiondb.Commit{Usage: []sessiondb.Usage{{Model: "ok", InputTokens: 1}, bad}})
		if !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("Commit of %+v: %v; want ErrInvalid", bad, err)
		}
	}
	if got, err := s.Get(bg(t), "u"); err != nil || got.Sequence != sess.Sequence {
		t.Errorf("after refused commits: %+v, %v; want sequence %d", got, err, sess.Sequence)
	}
	c, ok := s.(sessiondb.Copier)
	if !ok {
		return
	}
	want := []sessiondb.Usage{rows[1], rows[2], rows[3]}
	got := mustDump(t, c, "u").Usage
	if len(got) != len(want) {
		t.Fatalf("ledger = %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i].CallID != want[i].CallID || got[i].CacheWriteTokens != want[i].CacheWriteTokens || got[i].CacheWrite1hTokens != want[i].CacheWrite1hTokens {
			t.Errorf("row %d = %+v; want %+v", i, got[i], want[i])
		}
	}
}

func testUsageTotals(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "u")
	mustCreate(t, s, "v")
	if u, err := s.UsageTotals(bg(t), "u"); err != nil || u != (sessiondb.UsageTotals{}) {
		t.Errorf("UsageTotals of a new session = %+v, %v; want zero", u, err)
	}
	var want sessiondb.UsageTotals
	rows := [][]sessiondb.Usage{
		{{Model: "a", InputTokens: 1000, OutputTokens: 200, Cost: 1.5}},
		{{Model: "a", InputTokens: 10, CacheReadTokens: 900, CacheWriteTokens: 100, Cost: 0.25}, {Model: "b", OutputTokens: 5, ReasoningTokens: 40, Cost: 0.0625}},
		{{Provider: "p", Model: "c", Seq: 1, InputTokens: 1, OutputTokens: 1, CreatedAt: base}},
	}
	for i, us := range rows {
		c := sessiondb.Commit{Usage: us}
		if i == 2 {
			c.Append = msgs(1, 1)
		}
		mustCommit(t, s, "u", c)
		for _, u := range us {
			want.Add(u)
		}
	}
	mustCommit(t, s, "v", sessiondb.Commit{Usage: []sessiondb.Usage{{InputTokens: 99999, Cost: 100}}})
	got, err := s.UsageTotals(bg(t), "u")
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("UsageTotals = %+v, want %+v", got, want)
	}
}

// testUsageCallID: a row with a CallID replaces the session's row of that
// CallID (the last report of a call counts), in later commits and within
// one commit; other sessions' rows with the same CallID, and rows without
// one, are untouched; CostEstimated is kept.
func testUsageCallID(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "u")
	mustCreate(t, s, "v")
	mustCommit(t, s, "v", sessiondb.Commit{Usage: []sessiondb.Usage{{CallID: "msg_1", Model: "a", OutputTokens: 7}}})
	mustCommit(t, s, "u", sessiondb.Commit{Append: msgs(1, 2), Usage: []sessiondb.Usage{
		{Seq: 1, CallID: "msg_1", Model: "a", InputTokens: 3, OutputTokens: 1},
		{Model: "a", InputTokens: 100},
		{Seq: 2, CallID: "msg_1", Model: "a", InputTokens: 3, OutputTokens: 20, Cost: 0.5, CostEstimated: true},
		{CallID: "msg_2", Model: "b", OutputTokens: 4},
	}})
	want := sessiondb.UsageTotals{Calls: 3, InputTokens: 103, OutputTokens: 24, Cost: 0.5}
	if got, err := s.UsageTotals(bg(t), "u"); err != nil || got != want {
		t.Fatalf("UsageTotals after one commit = %+v, %v; want %+v", got, err, want)
	}
	// A later report of msg_2 replaces it, even with another model and day.
	mustCommit(t, s, "u", sessiondb.Commit{Usage: []sessiondb.Usage{{CallID: "msg_2", Model: "c", OutputTokens: 9, CreatedAt: base}}})
	want = sessiondb.UsageTotals{Calls: 3, InputTokens: 103, OutputTokens: 29, Cost: 0.5}
	if got, err := s.UsageTotals(bg(t), "u"); err != nil || got != want {
		t.Fatalf("UsageTotals after a later report = %+v, %v; want %+v", got, err, want)
	}
	rows, err := s.UsageReport(bg(t), sessiondb.UsageQuery{SessionID: "u", ByModel: true})
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]int64{}
	for _, r := range rows {
		models[r.Model] = r.Calls
	}
	if models["a"] != 2 || models["b"] != 0 || models["c"] != 1 {
		t.Errorf("calls by model = %v; want a:2 c:1 and no b", models)
	}
	if got, err := s.UsageTotals(bg(t), "v"); err != nil || got.OutputTokens != 7 || got.Calls != 1 {
		t.Errorf("other session's row with the same call id = %+v, %v; want untouched", got, err)
	}
	if c, ok := s.(sessiondb.Copier); ok {
		d := mustDump(t, c, "u")
		var estimated int
		for _, u := range d.Usage {
			if u.CostEstimated {
				estimated++
				if u.CallID != "msg_1" || u.Seq != 2 || u.OutputTokens != 20 {
					t.Errorf("estimated row = %+v; want msg_1's last report", u)
				}
			}
		}
		if estimated != 1 {
			t.Errorf("dump has %d estimated rows, want 1", estimated)
		}
	}
	for _, bad := range []string{"a\x00b", string([]byte{0xff}), strings.Repeat("x", sessiondb.MaxCallIDLen+1)} {
		if _, err := s.Commit(bg(t), "u", sessiondb.Commit{Usage: []sessiondb.Usage{{CallID: bad}}}); !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("Commit with call id %q: %v; want ErrInvalid", bad, err)
		}
	}
}
