package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// ---- SourceMarks: a session whose source vanished, and its machine -------

func sourceMarkTests() []testCase {
	return []testCase{
		{name: "GoneAndSeen", fn: testSourceGoneAndSeen},
		{name: "Machine", fn: testSourceMachine},
		{name: "SeenResolution", fn: testSourceSeenResolution},
		{name: "WithPrefix", fn: testSourcesWithPrefix},
		{name: "RecordsByMachine", fn: testSourceRecordsByMachine},
	}
}

// tracker returns s as a SourceTracker, or skips a store without one.
func tracker(t *testing.T, s sessiondb.Store) sessiondb.SourceTracker {
	tr, ok := s.(sessiondb.SourceTracker)
	if !ok {
		t.Skip("the store keeps no source marks (sessiondb.SourceTracker)")
	}
	return tr
}

// testSourceGoneAndSeen: MarkSources sets the marks of every session of a
// path (a file's session and a fork an importer made of it), keeps the first gone time, clears
// it when the path is seen again, never bumps Sequence or UpdatedAt, and
// counts only the sessions it newly marked.
func testSourceGoneAndSeen(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	tr := tracker(t, s)
	const src = "/home/me/.claude/projects/p/one.jsonl"
	a := mustCommit(t, s, "a", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code", SourcePath: src}, Append: msgs(1, 2),
		Source: &sessiondb.SourceFile{Path: src, Format: "claude-code", Size: 10, SHA256: "x", Offset: 10}})
	mustCommit(t, s, "b", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code", SourcePath: src + ".other"}, Append: msgs(1, 1)})
	// A second session of the same file (an importer's branch fork).
	mustCommit(t, s, "a-fork", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code", SourcePath: src, ParentID: "a", ForkSeq: 1}, Append: msgs(3, 3)})
	seen := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if n, err := tr.MarkSources(ctx, sessiondb.SourceMarks{Seen: []string{src, src + ".other"}, At: seen}); err != nil || n != 0 {
		t.Fatalf("MarkSources(seen) = %d, %v", n, err)
	}
	gone := seen.Add(24 * time.Hour)
	if n, err := tr.MarkSources(ctx, sessiondb.SourceMarks{Gone: []string{src, src}, At: gone}); err != nil || n != 2 {
		t.Fatalf("MarkSources(gone) = %d, %v; want the session and its fork", n, err)
	}
	if n, err := tr.MarkSources(ctx, sessiondb.SourceMarks{Gone: []string{src}, At: gone.Add(time.Hour)}); err != nil || n != 0 {
		t.Fatalf("MarkSources(gone again) = %d, %v; want 0", n, err)
	}
	for _, id := range []string{"a", "a-fork"} {
		g := mustGet(t, s, id)
		if !g.Archived() || !g.SourceGoneAt.Equal(gone) || !g.SourceSeenAt.Equal(seen) {
			t.Errorf("%s: gone %v seen %v, want gone %v (the first time) seen %v", id, g.SourceGoneAt, g.SourceSeenAt, gone, seen)
		}
	}
	if g := mustGet(t, s, "a"); g.Sequence != a.Sequence || !g.UpdatedAt.Equal(a.UpdatedAt) {
		t.Errorf("marks changed the session: sequence %d→%d, updated %v→%v", a.Sequence, g.Sequence, a.UpdatedAt, g.UpdatedAt)
	}
	if g := mustGet(t, s, "b"); g.Archived() {
		t.Error("b, of another path, is marked gone")
	}
	if l := listAll(t, s, sessiondb.ListOptions{Archived: true}); len(l) != 2 {
		t.Errorf("List(Archived) = %d sessions, want 2", len(l))
	}
	back := gone.Add(48 * time.Hour)
	if _, err := tr.MarkSources(ctx, sessiondb.SourceMarks{Seen: []string{src}, At: back}); err != nil {
		t.Fatal(err)
	}
	if g := mustGet(t, s, "a"); g.Archived() || !g.SourceSeenAt.Equal(back) {
		t.Errorf("a file seen again: gone %v seen %v", g.SourceGoneAt, g.SourceSeenAt)
	}
	if n, err := tr.MarkSources(ctx, sessiondb.SourceMarks{}); err != nil || n != 0 {
		t.Errorf("MarkSources(nothing) = %d, %v", n, err)
	}
}

// testSourceMachine: Machine is kept on create, read back, filtered by
// List, Search and UsageReport, grouped by UsageReport, changed by
// MetaPatch.Machine and inherited by a fork.
func testSourceMachine(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for id, m := range map[string]string{"a": "box-a", "b": "box-b"} {
		mustCommit(t, s, id, sessiondb.Commit{Create: &sessiondb.Session{Machine: m}, Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"deploy the web tier"}`)},
			Usage: []sessiondb.Usage{{Model: "m", InputTokens: 10, Cost: 1, CreatedAt: at}}})
	}
	if g := mustGet(t, s, "a"); g.Machine != "box-a" {
		t.Fatalf("Get: machine %q", g.Machine)
	}
	if l := listAll(t, s, sessiondb.ListOptions{Machine: "box-b"}); len(l) != 1 || l[0].ID != "b" {
		t.Errorf("List(Machine box-b) = %+v", l)
	}
	hits, err := s.Search(ctx, "deploy", sessiondb.SearchOptions{Machine: "box-a"})
	if err != nil || len(hits) != 1 || hits[0].SessionID != "a" {
		t.Errorf("Search(Machine box-a) = %+v, %v", hits, err)
	}
	rows, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByMachine: true})
	if err != nil || len(rows) != 2 || rows[0].Machine != "box-a" || rows[1].Machine != "box-b" || rows[0].Calls != 1 {
		t.Errorf("UsageReport(ByMachine) = %+v, %v", rows, err)
	}
	rows, err = s.UsageReport(ctx, sessiondb.UsageQuery{Machine: "box-b"})
	if err != nil || len(rows) != 1 || rows[0].Calls != 1 || rows[0].Cost != 1 {
		t.Errorf("UsageReport(Machine box-b) = %+v, %v", rows, err)
	}
	// A path missing on one machine says nothing of another's file.
	if tr, ok := s.(sessiondb.SourceTracker); ok {
		mustCommit(t, s, "c", sessiondb.Commit{Create: &sessiondb.Session{Machine: "box-a", SourcePath: "/home/me/x.jsonl"}, Append: msgs(1, 1)})
		mustCommit(t, s, "d", sessiondb.Commit{Create: &sessiondb.Session{Machine: "box-b", SourcePath: "/home/me/x.jsonl"}, Append: msgs(1, 1)})
		if n, err := tr.MarkSources(ctx, sessiondb.SourceMarks{Gone: []string{"/home/me/x.jsonl"}, Machine: "box-b"}); err != nil || n != 1 {
			t.Errorf("MarkSources(gone, box-b) = %d, %v; want only box-b's session", n, err)
		}
		if mustGet(t, s, "c").Archived() || !mustGet(t, s, "d").Archived() {
			t.Errorf("gone on box-b: box-a's session archived %v, box-b's %v", mustGet(t, s, "c").Archived(), mustGet(t, s, "d").Archived())
		}
	}
	m := "laptop"
	if _, err := s.UpdateMeta(ctx, "a", sessiondb.MetaPatch{Machine: &m}); err != nil {
		t.Fatal(err)
	}
	f, err := s.Fork(ctx, "a", 0, "a-fork")
	if err != nil {
		t.Fatal(err)
	}
	if f.Machine != "laptop" || mustGet(t, s, "a").Machine != "laptop" {
		t.Errorf("after MetaPatch.Machine and Fork: %q, fork %q", mustGet(t, s, "a").Machine, f.Machine)
	}
}

// testSourceSeenResolution: a source seen again within
// SourceSeenResolution of its mark keeps the mark (a re-import writes no
// row for it), one seen later, or gone meanwhile, is marked again, and an
// earlier time never replaces a later mark.
func testSourceSeenResolution(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	tr := tracker(t, s)
	const src = "/home/me/.claude/projects/p/res.jsonl"
	mustCommit(t, s, "r", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code", SourcePath: src}, Append: msgs(1, 1)})
	first := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		seen, gone bool
		at, want   time.Time
	}{
		{seen: true, at: first, want: first},
		{seen: true, at: first.Add(sessiondb.SourceSeenResolution - time.Second), want: first},
		{seen: true, at: first.Add(-time.Hour), want: first},
		{seen: true, at: first.Add(sessiondb.SourceSeenResolution), want: first.Add(sessiondb.SourceSeenResolution)},
		{gone: true, at: first.Add(sessiondb.SourceSeenResolution + time.Minute), want: first.Add(sessiondb.SourceSeenResolution)},
		{seen: true, at: first.Add(sessiondb.SourceSeenResolution + 2*time.Minute), want: first.Add(sessiondb.SourceSeenResolution + 2*time.Minute)},
	}
	for i, st := range steps {
		m := sessiondb.SourceMarks{At: st.at}
		if st.seen {
			m.Seen = []string{src}
		}
		if st.gone {
			m.Gone = []string{src}
		}
		if _, err := tr.MarkSources(ctx, m); err != nil {
			t.Fatal(err)
		}
		g := mustGet(t, s, "r")
		if !g.SourceSeenAt.Equal(st.want) || g.Archived() != st.gone {
			t.Errorf("step %d: seen %v archived %v, want seen %v archived %v", i, g.SourceSeenAt, g.Archived(), st.want, st.gone)
		}
	}
}

// testSourcesWithPrefix: the records under a directory or a database,
// byte for byte, in path order; an empty prefix is refused.
func testSourcesWithPrefix(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	tr := tracker(t, s)
	paths := []string{"/h/p/a.jsonl", "/h/p/sub/b.jsonl", "/h/p0/c.jsonl", "/h/pq.jsonl", "/h/oc.db#ses_1", "/h/oc.db#ses_2", "/h/oc.dbx"}
	for i, p := range paths {
		id := string(rune('a' + i))
		mustCommit(t, s, id, sessiondb.Commit{Create: &sessiondb.Session{SourcePath: p, SourceFormat: "x"}, Append: msgs(1, 1),
			Source: &sessiondb.SourceFile{Path: p, Format: "x", Size: 1, SHA256: "h", Offset: 1}})
	}
	for prefix, want := range map[string][]string{
		"/h/p/":     {"/h/p/a.jsonl", "/h/p/sub/b.jsonl"},
		"/h/oc.db#": {"/h/oc.db#ses_1", "/h/oc.db#ses_2"},
		"/nowhere/": nil,
	} {
		got, err := tr.SourcesWithPrefix(ctx, "", prefix)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range got {
			names = append(names, f.Path)
		}
		if len(names) != len(want) || (len(want) > 0 && (names[0] != want[0] || names[1] != want[1])) {
			t.Errorf("SourcesWithPrefix(%q) = %v, want %v", prefix, names, want)
		}
	}
	if _, err := tr.SourcesWithPrefix(ctx, "", ""); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("SourcesWithPrefix(\"\") = %v, want ErrInvalid", err)
	}
}

// testSourceRecordsByMachine: import records are keyed by (machine,
// path). Two machines record one path each for itself (the second's
// first import is not a conflict with the first's record); a lookup finds
// the machine's own record, else the one of "" (a record from before
// machines), never another machine's; a machine's first record of a path
// replaces the record of "" it was based on; SourcesWithPrefix lists a
// machine's records.
func testSourceRecordsByMachine(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	tr := tracker(t, s)
	const p, q = "/home/me/.claude/projects/x/s.jsonl", "/home/me/.claude/projects/x/old.jsonl"
	rec := func(machine, path, sha string, off int64) *sessiondb.SourceFile {
		return &sessiondb.SourceFile{Machine: machine, Path: path, Format: "claude-code", Size: off, SHA256: sha, Offset: off}
	}
	absent := &sessiondb.SourceExpectation{Absent: true}
	mustCommit(t, s, "a", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code", SourcePath: p, Machine: "m-a"},
		Append: msgs(1, 2), Source: rec("m-a", p, "ha", 10), ExpectSource: absent})
	mustCommit(t, s, "b", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code", SourcePath: p, Machine: "m-b"},
		Append: msgs(1, 3), Source: rec("m-b", p, "hb", 20), ExpectSource: absent})
	for machine, want := range map[string]string{"m-a": "a", "m-b": "b"} {
		f, err := tr.SourceFileOn(ctx, machine, p)
		if err != nil || f.SessionID != want || f.Machine != machine {
			t.Errorf("SourceFileOn(%s) = %+v, %v; want session %s's record", machine, f, err, want)
		}
	}
	if f, err := tr.SourceFileOn(ctx, "m-c", p); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("SourceFileOn(m-c) = %+v, %v; want ErrNotFound (another machine's record is not m-c's)", f, err)
	}
	if f, err := s.SourceFile(ctx, p); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("SourceFile (no machine) = %+v, %v; want ErrNotFound", f, err)
	}
	// m-b's commit based on m-a's record is a conflict and changes nothing.
	before := mustGet(t, s, "b")
	_, err := s.Commit(ctx, "b", sessiondb.Commit{Append: msgs(4, 4), Source: rec("m-b", p, "hb2", 30),
		ExpectSource: &sessiondb.SourceExpectation{SHA256: "ha", Offset: 10}})
	if !errors.Is(err, sessiondb.ErrConflict) {
		t.Errorf("m-b's commit expecting m-a's record: %v, want ErrConflict", err)
	}
	if g := mustGet(t, s, "b"); g.Sequence != before.Sequence || g.LastSeq != before.LastSeq {
		t.Errorf("the refused commit changed session b: %d/%d, was %d/%d", g.Sequence, g.LastSeq, before.Sequence, before.LastSeq)
	}

	// A record of "" (made before machines) is every machine's until one
	// records the path; then it is that machine's alone.
	mustCommit(t, s, "old", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code", SourcePath: q},
		Append: msgs(1, 1), Source: rec("", q, "h0", 5), ExpectSource: absent})
	for _, machine := range []string{"m-a", "m-b"} {
		if f, err := tr.SourceFileOn(ctx, machine, q); err != nil || f.SessionID != "old" || f.Machine != "" {
			t.Errorf("SourceFileOn(%s, legacy) = %+v, %v; want the record of \"\"", machine, f, err)
		}
	}
	mustCommit(t, s, "old", sessiondb.Commit{Append: msgs(2, 2), Source: rec("m-a", q, "h1", 9),
		ExpectSource: &sessiondb.SourceExpectation{SHA256: "h0", Offset: 5}})
	if f, err := tr.SourceFileOn(ctx, "m-a", q); err != nil || f.Machine != "m-a" || f.SHA256 != "h1" {
		t.Errorf("SourceFileOn(m-a) after its import = %+v, %v", f, err)
	}
	if f, err := tr.SourceFileOn(ctx, "m-b", q); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("SourceFileOn(m-b) after m-a adopted the record = %+v, %v; want ErrNotFound", f, err)
	}

	for machine, want := range map[string][]string{"m-a": {"old", "a"}, "m-b": {"b"}, "m-c": nil} {
		got, err := tr.SourcesWithPrefix(ctx, machine, "/home/me/.claude/")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range got {
			ids = append(ids, f.SessionID)
		}
		if len(ids) != len(want) || (len(want) > 0 && ids[0] != want[0]) || (len(want) > 1 && ids[1] != want[1]) {
			t.Errorf("SourcesWithPrefix(%s) = sessions %v, want %v", machine, ids, want)
		}
	}
}
