package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// Create-on-write, KeepLast, History, merge patches, counts and no-op
// commits (issue 14: what a picoclaw-compatible store on top of
// sessiondb needs).

func commitGainsTests() []testCase {
	return []testCase{
		{name: "CreateIfMissing", fn: testCreateIfMissing},
		{name: "CreateIfMissingRace", fn: testCreateIfMissingRace},
		{name: "OrCreateHelpers", fn: testOrCreateHelpers},
		{name: "OrCreateShaped", fn: testOrCreateShaped},
		{name: "KeepLast", fn: testCommitKeepLast},
		{name: "History", fn: testCommitHistory},
		{name: "MergePatch", fn: testMergePatch},
		{name: "Counts", fn: testCounts},
		{name: "NoOp", fn: testNoOpCommit},
	}
}

func testCreateIfMissing(t *testing.T, s sessiondb.Store) {
	create := &sessiondb.Session{Title: "born on write", Aliases: []string{"cow:alias"}, Attrs: raw(`{"a":1}`)}
	// Missing: created in the commit, with the commit's parts; a missing
	// session's sequence is 0.
	got := mustCommit(t, s, "cow", sessiondb.Commit{CreateIfMissing: create, ExpectSequence: sessiondb.Expect(0),
		Append: msgs(1, 2), State: raw(`{"s":1}`)})
	if got.Sequence != 1 || got.LastSeq != 2 || got.Title != "born on write" || got.MessageCount != 2 {
		t.Errorf("first create-on-write returned %+v", got)
	}
	// Present: CreateIfMissing is ignored, the commit applies.
	got = mustCommit(t, s, "cow", sessiondb.Commit{CreateIfMissing: &sessiondb.Session{Title: "ignored"}, Append: msgs(3, 3)})
	if got.Sequence != 2 || got.LastSeq != 3 || got.Title != "born on write" {
		t.Errorf("second create-on-write returned %+v", got)
	}
	wantTranscript(t, s, "cow", bodies(1, 3))
	wantJSON(t, mustState(t, s, "cow"), `{"s":1}`, "state")
	if id, err := s.Resolve(bg(t), "cow:alias"); err != nil || id != "cow" {
		t.Errorf("Resolve(cow:alias) = %q, %v", id, err)
	}
	// ExpectSequence is checked against the created or existing session.
	before := mustGet(t, s, "cow")
	_, err := s.Commit(bg(t), "cow", sessiondb.Commit{CreateIfMissing: create, ExpectSequence: sessiondb.Expect(0), Append: msgs(9, 9)})
	wantErr(t, err, sessiondb.ErrConflict, "create-on-write of an existing session expecting sequence 0")
	wantUnchanged(t, s, before, "conflicting create-on-write")
	_, err = s.Commit(bg(t), "other", sessiondb.Commit{CreateIfMissing: create, ExpectSequence: sessiondb.Expect(5), Append: msgs(1, 1)})
	wantErr(t, err, sessiondb.ErrConflict, "create-on-write of a missing session expecting sequence 5")
	_, err = s.Get(bg(t), "other")
	wantErr(t, err, sessiondb.ErrNotFound, "session of a conflicting create-on-write")
	// A failing part undoes the creation.
	_, err = s.Commit(bg(t), "third", sessiondb.Commit{CreateIfMissing: create,
		Compactions: []sessiondb.Compaction{{KeepFromSeq: 99}}})
	wantErr(t, err, sessiondb.ErrInvalid, "create-on-write with an impossible compaction")
	_, err = s.Get(bg(t), "third")
	wantErr(t, err, sessiondb.ErrNotFound, "session of a failed create-on-write")
	// Create and CreateIfMissing together are invalid.
	_, err = s.Commit(bg(t), "fourth", sessiondb.Commit{Create: create, CreateIfMissing: create})
	wantErr(t, err, sessiondb.ErrInvalid, "Commit with Create and CreateIfMissing")
	// A plain ID another session lists stays refused (it would move the alias).
	mustCommit(t, s, "lister", sessiondb.Commit{CreateIfMissing: &sessiondb.Session{Aliases: []string{"taken"}}})
	_, err = s.Commit(bg(t), "taken", sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, Append: msgs(1, 1)})
	wantErr(t, err, sessiondb.ErrExists, "create-on-write of a plain ID another session lists")
}

// testCreateIfMissingRace: goroutines racing to write a session that does
// not exist yet all succeed; exactly one creates it.
func testCreateIfMissingRace(t *testing.T, s sessiondb.Store) {
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	ready := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-ready
			_, errs[i] = s.Commit(t.Context(), "race", sessiondb.Commit{
				CreateIfMissing: &sessiondb.Session{Title: fmt.Sprint(i)},
				Append:          msgs(i+1, i+1),
			})
		}()
	}
	close(ready)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("create-on-write %d: %v", i, err)
		}
	}
	g := mustGet(t, s, "race")
	if g.Sequence != n || g.LastSeq != n || g.MessageCount != n || g.EntryCount != n {
		t.Errorf("after %d racing create-on-writes: sequence %d, last seq %d, counts %d/%d; want all %d", n, g.Sequence, g.LastSeq, g.MessageCount, g.EntryCount, n)
	}
}

// testOrCreateHelpers: AppendOrCreate, SetHistoryOrCreate and
// SaveStateOrCreate create a missing session on their first write (where
// Append, SetHistory and SaveState return ErrNotFound) and write to an
// existing one.
func testOrCreateHelpers(t *testing.T, s sessiondb.Store) {
	_, err := s.Append(bg(t), "a", msgs(1, 1)...)
	wantErr(t, err, sessiondb.ErrNotFound, "Append to a missing session")
	for i := 1; i <= 2; i++ {
		if got, err := sessiondb.AppendOrCreate(bg(t), s, "a", msgs(i, i)...); err != nil || got.Sequence != int64(i) {
			t.Fatalf("AppendOrCreate %d: %+v, %v", i, got, err)
		}
	}
	wantTranscript(t, s, "a", bodies(1, 2))
	if _, err := sessiondb.SetHistoryOrCreate(bg(t), s, "h", msgs(3, 4)); err != nil {
		t.Fatal(err)
	}
	wantTranscript(t, s, "h", bodies(3, 4))
	if _, err := sessiondb.SetHistoryOrCreate(bg(t), s, "h", msgs(5, 5)); err != nil {
		t.Fatal(err)
	}
	wantTranscript(t, s, "h", bodies(5, 5))
	if _, err := sessiondb.SaveStateOrCreate(bg(t), s, "st", raw(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	wantJSON(t, mustState(t, s, "st"), `{"x":1}`, "state of a session created by SaveStateOrCreate")
	_, err = sessiondb.SaveStateOrCreate(bg(t), s, "st2", nil)
	wantErr(t, err, sessiondb.ErrInvalid, "SaveStateOrCreate with a nil state")
	_, err = s.Get(bg(t), "st2")
	wantErr(t, err, sessiondb.ErrNotFound, "session of a refused SaveStateOrCreate")
}

// testOrCreateShaped: OrCreate gives a session it creates the title,
// scope and aliases it was given in the first write's own commit (one
// Sequence), under the helper's id, and leaves an existing session's
// metadata alone.
func testOrCreateShaped(t *testing.T, s sessiondb.Store) {
	oc := sessiondb.OrCreate{Session: sessiondb.Session{ID: "ignored", Title: "chat", Scope: raw(`{"channel":"telegram"}`), Aliases: []string{"telegram:42"}}}
	got, err := oc.Append(bg(t), s, "sk_new", msgs(1, 1)...)
	if err != nil || got.ID != "sk_new" || got.Sequence != 1 || got.Title != "chat" {
		t.Fatalf("OrCreate.Append of a new session = %+v, %v; want sk_new at sequence 1 titled chat", got, err)
	}
	wantJSON(t, mustGet(t, s, "sk_new").Scope, `{"channel":"telegram"}`, "scope of the created session")
	if id, err := s.Resolve(bg(t), "telegram:42"); err != nil || id != "sk_new" {
		t.Errorf("Resolve(telegram:42) = %q, %v; want sk_new", id, err)
	}
	_, err = s.Get(bg(t), "ignored")
	wantErr(t, err, sessiondb.ErrNotFound, "the ID in OrCreate.Session")
	got, err = sessiondb.OrCreate{Session: sessiondb.Session{Title: "other"}}.Append(bg(t), s, "sk_new", msgs(2, 2)...)
	if err != nil || got.Sequence != 2 || got.Title != "chat" {
		t.Errorf("OrCreate.Append to an existing session = %+v, %v; want sequence 2, title kept", got, err)
	}
	wantTranscript(t, s, "sk_new", bodies(1, 2))
	oc.Session.Aliases = []string{"telegram:43"}
	got, err = oc.SaveState(bg(t), s, "sk_state", raw(`{"x":1}`))
	if err != nil || got.Sequence != 1 || got.Title != "chat" {
		t.Errorf("OrCreate.SaveState of a new session = %+v, %v", got, err)
	}
	got, err = oc.SetHistory(bg(t), s, "sk_hist", msgs(3, 4))
	if err != nil || got.Sequence != 1 || got.Title != "chat" {
		t.Errorf("OrCreate.SetHistory of a new session = %+v, %v", got, err)
	}
	wantTranscript(t, s, "sk_hist", bodies(3, 4))
}

func testCommitKeepLast(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "k", 10)
	// "Set the summary and keep the last N" in one commit, one bump.
	before := mustGet(t, s, "k")
	got := mustCommit(t, s, "k", sessiondb.Commit{Meta: &sessiondb.MetaPatch{Summary: ptr("talked about 1-7")}, KeepLast: sessiondb.Keep(3)})
	if got.Sequence != before.Sequence+1 || got.Summary != "talked about 1-7" || got.MessageCount != 3 {
		t.Errorf("summary+keep-last returned sequence %d (want %d), summary %q, messages %d", got.Sequence, before.Sequence+1, got.Summary, got.MessageCount)
	}
	wantTranscript(t, s, "k", bodies(8, 10))
	// After appends in the same commit: the last N of the result.
	mustCommit(t, s, "k", sessiondb.Commit{Append: msgs(11, 12), KeepLast: sessiondb.Keep(2)})
	wantTranscript(t, s, "k", bodies(11, 12))
	// Summary messages count and are dropped first.
	mustCommit(t, s, "k", sessiondb.Commit{Compactions: []sessiondb.Compaction{{KeepFromSeq: 12, Summary: entriesOf(`{"role":"system","content":"s1"}`, `{"role":"system","content":"s2"}`)}}})
	mustCommit(t, s, "k", sessiondb.Commit{KeepLast: sessiondb.Keep(2)})
	wantTranscript(t, s, "k", []string{`{"role":"system","content":"s2"}`, msgBody(12)})
	// KeepLast 0 empties the transcript; entries stay in the log.
	got = mustCommit(t, s, "k", sessiondb.Commit{KeepLast: sessiondb.Keep(0)})
	wantTranscript(t, s, "k", nil)
	if g := mustGet(t, s, "k"); g.MessageCount != 0 || g.EntryCount != 12 || got.MessageCount != 0 {
		t.Errorf("after KeepLast 0: Get counts %d/%d, commit count %d; want 0/12, 0", g.MessageCount, g.EntryCount, got.MessageCount)
	}
	_, err := s.Commit(bg(t), "k", sessiondb.Commit{KeepLast: sessiondb.Keep(-1)})
	wantErr(t, err, sessiondb.ErrInvalid, "KeepLast -1")
}

func testCommitHistory(t *testing.T, s sessiondb.Store) {
	// picoclaw's SetHistory creates a missing session: History with
	// CreateIfMissing does it in one commit.
	got := mustCommit(t, s, "h", sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, History: msgs(1, 3), State: raw(`{"t":1}`)})
	if got.Sequence != 1 || got.MessageCount != 3 {
		t.Errorf("create with History returned %+v", got)
	}
	wantTranscript(t, s, "h", bodies(1, 3))
	// History replaces, then Append adds after it.
	mustCommit(t, s, "h", sessiondb.Commit{History: msgs(7, 8), Append: msgs(9, 9)})
	wantTranscript(t, s, "h", bodies(7, 9))
	// An empty, non-nil History empties the transcript.
	mustCommit(t, s, "h", sessiondb.Commit{History: []sessiondb.Entry{}})
	wantTranscript(t, s, "h", nil)
}

func testMergePatch(t *testing.T, s sessiondb.Store) {
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "mp", Attrs: raw(`{"model":"a","cwd":"/x","nested":{"k":1,"drop":true},"list":[1,2]}`)}); err != nil {
		t.Fatal(err)
	}
	attrs := func() string { t.Helper(); return string(mustGet(t, s, "mp").Attrs) }
	for _, tc := range []struct{ patch, want string }{
		// null deletes a key, others are set, untouched members keep
		// their bytes (the merged object's members are in key order).
		{`{"model":"b","cwd":null}`, `{"list":[1,2],"model":"b","nested":{"k":1,"drop":true}}`},
		// nested objects merge.
		{`{"nested":{"drop":null,"new":{"deep":1}}}`, `{"list":[1,2],"model":"b","nested":{"k":1,"new":{"deep":1}}}`},
		// an array replaces (no element merge).
		{`{"list":[3]}`, `{"list":[3],"model":"b","nested":{"k":1,"new":{"deep":1}}}`},
		// an empty patch changes nothing.
		{`{}`, `{"list":[3],"model":"b","nested":{"k":1,"new":{"deep":1}}}`},
		// a patch that is not an object replaces the document.
		{`["whole"]`, `["whole"]`},
		// merging an object into a non-object starts from {}.
		{`{"a":{"b":null,"c":2}}`, `{"a":{"c":2}}`},
	} {
		if _, err := s.UpdateMeta(bg(t), "mp", sessiondb.MetaPatch{AttrsMerge: raw(tc.patch)}); err != nil {
			t.Fatalf("AttrsMerge %s: %v", tc.patch, err)
		}
		if got := attrs(); got != tc.want {
			t.Errorf("after AttrsMerge %s: attrs %s, want %s", tc.patch, got, tc.want)
		}
	}
	// null clears the document.
	if _, err := s.UpdateMeta(bg(t), "mp", sessiondb.MetaPatch{AttrsMerge: raw(`null`)}); err != nil {
		t.Fatal(err)
	}
	if g := mustGet(t, s, "mp"); g.Attrs != nil {
		t.Errorf("attrs after a null merge patch: %s, want none", g.Attrs)
	}
	// Scope too, from no document; and after a Scope set in the same patch.
	if _, err := s.UpdateMeta(bg(t), "mp", sessiondb.MetaPatch{ScopeMerge: raw(`{"channel":"telegram","gone":null}`)}); err != nil {
		t.Fatal(err)
	}
	wantJSON(t, mustGet(t, s, "mp").Scope, `{"channel":"telegram"}`, "scope merged into none")
	if _, err := s.UpdateMeta(bg(t), "mp", sessiondb.MetaPatch{Scope: raw(`{"v":1,"x":2}`), ScopeMerge: raw(`{"x":null}`)}); err != nil {
		t.Fatal(err)
	}
	wantJSON(t, mustGet(t, s, "mp").Scope, `{"v":1}`, "scope set then merged")
	// A bad patch is refused and changes nothing.
	before := mustGet(t, s, "mp")
	_, err := s.UpdateMeta(bg(t), "mp", sessiondb.MetaPatch{Title: ptr("x"), AttrsMerge: raw(`{"a":`)})
	wantErr(t, err, sessiondb.ErrInvalid, "AttrsMerge that is not JSON")
	wantUnchanged(t, s, before, "invalid merge patch")
}

func testCounts(t *testing.T, s sessiondb.Store) {
	mustSession(t, s, "c", 6)
	if g := mustGet(t, s, "c"); g.MessageCount != 6 || g.EntryCount != 6 {
		t.Errorf("Get counts %d/%d, want 6/6", g.MessageCount, g.EntryCount)
	}
	got, err := s.Truncate(bg(t), "c", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.MessageCount != 2 || got.EntryCount != 6 {
		t.Errorf("Truncate returned counts %d/%d, want 2/6 (a write returns the kept counts)", got.MessageCount, got.EntryCount)
	}
	if g := mustGet(t, s, "c"); g.MessageCount != 2 || g.EntryCount != 6 {
		t.Errorf("Get counts after Truncate %d/%d, want 2/6", g.MessageCount, g.EntryCount)
	}
	f, err := s.LoadFull(bg(t), "c", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Session.MessageCount != 2 || f.Session.EntryCount != 6 || int64(len(f.Transcript)) != f.Session.MessageCount {
		t.Errorf("LoadFull counts %d/%d with %d transcript entries, want 2/6", f.Session.MessageCount, f.Session.EntryCount, len(f.Transcript))
	}
	got = mustAppend(t, s, "c", msgs(7, 7)...)
	if got.MessageCount != 3 || got.EntryCount != 7 {
		t.Errorf("Append returned counts %d/%d, want 3/7", got.MessageCount, got.EntryCount)
	}
}

// testNoOpCommit: a commit that changes nothing writes nothing.
func testNoOpCommit(t *testing.T, s sessiondb.Store) {
	if _, err := s.Create(bg(t), sessiondb.Session{ID: "n", Title: "t", Summary: "s", Version: 2, Scope: raw(`{"a":1}`), Attrs: raw(`{"b":2}`), Aliases: []string{"n:1", "n:2"}}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "n", msgs(1, 4)...)
	if _, err := s.SaveState(bg(t), "n", raw(`{"st":1}`)); err != nil {
		t.Fatal(err)
	}
	before := mustGet(t, s, "n")
	for name, c := range map[string]sessiondb.Commit{
		"empty":           {},
		"equal meta":      {Meta: &sessiondb.MetaPatch{Title: ptr("t"), Summary: ptr("s"), Version: ptr(2), Scope: raw(`{"a":1}`), Attrs: raw(`{"b":2}`), Aliases: &[]string{"n:1", "n:2", "n:1", "n"}}},
		"equal merge":     {Meta: &sessiondb.MetaPatch{AttrsMerge: raw(`{"b":2,"gone":null}`)}},
		"equal state":     {State: raw(`{"st":1}`)},
		"clear nothing":   {ClearInterrupt: true},
		"keep more":       {KeepLast: sessiondb.Keep(10)},
		"same history":    {History: msgs(1, 4)},
		"expected, equal": {ExpectSequence: sessiondb.Expect(before.Sequence), Meta: &sessiondb.MetaPatch{Title: ptr("t")}},
	} {
		got, err := s.Commit(bg(t), "n", c)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got.Sequence != before.Sequence || !got.UpdatedAt.Equal(before.UpdatedAt) {
			t.Errorf("%s: sequence %d, updated %v; want unchanged %d, %v", name, got.Sequence, got.UpdatedAt, before.Sequence, before.UpdatedAt)
		}
		wantUnchanged(t, s, before, name)
	}
	if _, err := s.UpdateMeta(bg(t), "n", sessiondb.MetaPatch{Title: ptr("t")}); err != nil {
		t.Fatal(err)
	}
	wantUnchanged(t, s, before, "UpdateMeta with an equal title")
	if _, err := s.Truncate(bg(t), "n", 4); err != nil {
		t.Fatal(err)
	}
	wantUnchanged(t, s, before, "Truncate to the current length")
	if _, err := s.SetHistory(bg(t), "n", msgs(1, 4)); err != nil {
		t.Fatal(err)
	}
	wantUnchanged(t, s, before, "SetHistory with the current transcript")
	// A no-op still checks the expected sequence.
	_, err := s.Commit(bg(t), "n", sessiondb.Commit{ExpectSequence: sessiondb.Expect(before.Sequence - 1)})
	var ce *sessiondb.ConflictError
	if !errors.As(err, &ce) || ce.Current != before.Sequence {
		t.Errorf("no-op commit with a stale sequence: %v, want a conflict at %d", err, before.Sequence)
	}
	// A change after no-ops bumps by one.
	if g, err := s.UpdateMeta(bg(t), "n", sessiondb.MetaPatch{Title: ptr("t2")}); err != nil || g.Sequence != before.Sequence+1 {
		t.Errorf("UpdateMeta with a new title: sequence %d, %v; want %d", g.Sequence, err, before.Sequence+1)
	}
}
