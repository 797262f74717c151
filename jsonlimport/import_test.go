package jsonlimport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
)

func TestImportOptionsErrors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if _, err := Import(ctx, s, []string{picoDir}, Options{Format: "bogus"}); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("Import with format bogus: %v", err)
	}
	if _, err := Export(ctx, s, nil, "bogus", t.TempDir()); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("Export with format bogus: %v, want ErrInvalid", err)
	}
	if _, err := Export(ctx, s, []string{"nope"}, FormatPicoclaw, t.TempDir()); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("Export of a missing session: %v, want ErrNotFound", err)
	}
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Import(ctx2, s, []string{picoDir}, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Import with a cancelled context: %v", err)
	}
	if got := picoSequences(t, s); len(got) != 0 {
		t.Errorf("cancelled import wrote %d sessions", len(got))
	}
	names := []string{}
	for _, f := range Formats() {
		names = append(names, f.Name())
	}
	if d := cmp.Diff([]string{FormatPicoclaw, FormatZot, FormatSwink, FormatQwen, FormatClaudeCode, FormatCodex, FormatPi, FormatGemini, FormatCopilot, FormatGoose, FormatOpencodeGo, FormatCrush, FormatOpencode, FormatCursor, FormatCursorAgent, FormatCline, FormatAider, FormatEntire}, names); d != "" {
		t.Errorf("Formats (-want +got):\n%s", d)
	}
}

// TestImportMixedTree imports one tree holding picoclaw, zot and swink
// archives plus stray files: every format finds its sessions, stray files
// are reported and skipped, a missing path is reported, and the batch goes on.
func TestImportMixedTree(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	copyTree(t, picoDir, filepath.Join(root, "pico", "sessions"))
	copyTree(t, picoLegacyDir, filepath.Join(root, "pico", "legacy"))
	copyTree(t, "../testdata/zot/zot_home", filepath.Join(root, "zot_home"))
	copyTree(t, "../testdata/swink/sessions", filepath.Join(root, "swink", "sessions"))
	stray := filepath.Join(root, "notes", "todo.txt")
	writeFile(t, stray, "buy milk\n")
	strayJSONL := filepath.Join(root, "notes", "events.jsonl")
	writeFile(t, strayJSONL, `{"event":"x"}`+"\n")
	missing := filepath.Join(root, "does-not-exist")

	s := openStore(t)
	rep := picoImport(t, s, Options{Jobs: 3}, root, missing)
	byFormat := map[string]int{}
	cursor := ""
	for {
		page, next, err := s.List(ctx, sessiondb.ListOptions{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, si := range page {
			byFormat[si.SourceFormat]++
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if byFormat[FormatPicoclaw] != 19 || byFormat[FormatZot] == 0 || byFormat[FormatSwink] == 0 {
		t.Errorf("sessions by format %v, want 19 picoclaw and some zot and swink", byFormat)
	}
	if rep.Sessions != byFormat[FormatPicoclaw]+byFormat[FormatZot]+byFormat[FormatSwink] {
		t.Errorf("report says %d sessions, store holds %v", rep.Sessions, byFormat)
	}
	// A stray text file is skipped with a note; a stray JSONL file may be
	// a session damaged beyond recognition: a problem.
	if !picoHasProblem(rep.Notes, stray, 0, "not a session file") || rep.Skipped < 1 {
		t.Errorf("%s not noted as skipped (skipped %d): %v", stray, rep.Skipped, rep.Notes)
	}
	if !picoHasProblem(rep.Problems, strayJSONL, 0, "JSONL file of unknown format") {
		t.Errorf("%s not reported as unknown: %v", strayJSONL, rep.Problems)
	}
	if !picoHasProblem(rep.Problems, missing, 0, "cannot read") {
		t.Errorf("missing path not reported: %v", rep.Problems)
	}
	for _, p := range rep.Problems {
		// swink's sample set holds one session of a newer schema, which is
		// refused by design; nothing else may fail.
		if (strings.Contains(p.Reason, "cannot import") || strings.Contains(p.Reason, "not imported")) &&
			!strings.Contains(p.Reason, "schema version too new") && p.Path != strayJSONL {
			t.Errorf("unit failed: %v", p)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies a directory tree.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestImportProgressAndDryRun(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	var calls []Progress
	rep := picoImport(t, s, Options{DryRun: true, Progress: func(p Progress) { calls = append(calls, p) }}, picoDir)
	if rep.Sessions != 17 || rep.Entries == 0 || rep.Bytes == 0 {
		t.Errorf("dry run report: %+v", rep)
	}
	if got := picoSequences(t, s); len(got) != 0 {
		t.Errorf("dry run wrote %d sessions", len(got))
	}
	if _, err := s.SourceFile(ctx, mustAbs(t, filepath.Join(picoDir, "discord_555.jsonl"))); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("dry run recorded a source file: %v", err)
	}
	if len(calls) != 17+1 {
		t.Fatalf("%d progress calls, want one before and one per unit (18)", len(calls))
	}
	for i := 1; i < len(calls); i++ {
		a, b := calls[i-1], calls[i]
		if b.FilesDone < a.FilesDone || b.BytesDone < a.BytesDone || b.Sessions < a.Sessions || b.FilesTotal != a.FilesTotal || b.BytesTotal != a.BytesTotal {
			t.Errorf("progress went backwards: %+v then %+v", a, b)
		}
	}
	last := calls[len(calls)-1]
	if last.FilesDone != last.FilesTotal || last.BytesDone != last.BytesTotal || last.Sessions != 17 || last.FilesTotal != 33 {
		t.Errorf("final progress %+v, want all 33 files and 17 sessions done", last)
	}

	// The real import reports the same numbers as the dry run.
	real := picoImport(t, s, Options{}, picoDir)
	if real.Sessions != rep.Sessions || real.Entries != rep.Entries || real.Bytes != rep.Bytes {
		t.Errorf("real import %+v differs from dry run %+v", real, rep)
	}
	// A dry run over imported, unchanged files finds nothing to do.
	again := picoImport(t, s, Options{DryRun: true}, picoDir)
	if again.Unchanged != 17 || again.Sessions != 0 {
		t.Errorf("dry run after import: %+v", again)
	}
}

func mustAbs(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestImportForcedFormat: with a named format, only that format claims.
func TestImportForcedFormat(t *testing.T) {
	s := openStore(t)
	rep := picoImport(t, s, Options{Format: FormatZot}, picoLegacyDir)
	if rep.Sessions != 0 || !picoHasProblem(rep.Notes, "telegram_123456.json", 0, "not a session file") || rep.Skipped != 3 {
		t.Errorf("zot-only import of picoclaw files: %+v", rep)
	}
	rep = picoImport(t, s, Options{Format: FormatPicoclaw}, picoLegacyDir)
	if rep.Sessions != 2 {
		t.Errorf("picoclaw import: %+v", rep)
	}
}

// TestImportDeterministic: the number of parser goroutines does not change
// the result (the writer commits in path order).
func TestImportDeterministic(t *testing.T) {
	ctx := context.Background()
	snapshot := func(jobs int) map[string]any {
		s := openStore(t)
		picoImport(t, s, Options{Jobs: jobs}, picoDir, picoLegacyDir)
		out := map[string]any{}
		for id, seq := range picoSequences(t, s) {
			sess, err := s.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := s.Load(ctx, id, sessiondb.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var bodies []string
			for _, e := range tr {
				bodies = append(bodies, string(e.Body))
			}
			out[id] = []any{seq, sess.Aliases, string(sess.Attrs), bodies}
		}
		return out
	}
	one, many := snapshot(1), snapshot(8)
	if d := cmp.Diff(one, many); d != "" {
		t.Errorf("Jobs 1 vs 8 (-1 +8):\n%s", d)
	}
}

// countingStore counts commits per session and can inject failures or a
// concurrent writer.
type countingStore struct {
	sessiondb.Store
	mu      sync.Mutex
	commits map[string]int // commits attempted, alone or in a CommitMany
	written map[string]int // commits that succeeded
	// before runs before the commit is passed on; a non-nil error fails it.
	before func(id string, c sessiondb.Commit) error
}

func (s *countingStore) Commit(ctx context.Context, id string, c sessiondb.Commit) (sessiondb.Session, error) {
	s.mu.Lock()
	s.commits[id]++
	before := s.before
	s.mu.Unlock()
	if before != nil {
		if err := before(id, c); err != nil {
			return sessiondb.Session{}, err
		}
	}
	out, err := s.Store.Commit(ctx, id, c)
	if err == nil {
		s.mu.Lock()
		s.written[id]++
		s.mu.Unlock()
	}
	return out, err
}

// CommitMany counts and checks each commit as Commit does; one failure
// fails the whole call, as a store's does.
func (s *countingStore) CommitMany(ctx context.Context, commits []sessiondb.SessionCommit) ([]sessiondb.Session, error) {
	s.mu.Lock()
	before := s.before
	for _, sc := range commits {
		s.commits[sc.ID]++
	}
	s.mu.Unlock()
	if before != nil {
		for _, sc := range commits {
			if err := before(sc.ID, sc.Commit); err != nil {
				return nil, fmt.Errorf("commit many: session %q: %w", sc.ID, err)
			}
		}
	}
	out, err := s.Store.CommitMany(ctx, commits)
	if err == nil {
		s.mu.Lock()
		for _, sc := range commits {
			s.written[sc.ID]++
		}
		s.mu.Unlock()
	}
	return out, err
}

// TestImportOneCommitPerSession: each session is written with exactly one
// commit holding everything (entries, compaction, source record), alone or
// in a batch's CommitMany; a failed commit leaves no trace of its session
// (its batch is written again one by one) and the import goes on.
func TestImportOneCommitPerSession(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: openStore(t), commits: map[string]int{}, written: map[string]int{}}
	const failing = "agent:main:discord:channel:998877"
	cs.before = func(id string, c sessiondb.Commit) error {
		if c.Source == nil || c.Create == nil {
			t.Errorf("commit for %s without create or source record", id)
		}
		if id == failing {
			return sessiondb.ErrInvalid
		}
		return nil
	}
	rep, err := Import(ctx, cs, []string{picoDir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 16 || !picoHasProblem(rep.Problems, "agent_main_discord_channel_998877.jsonl", 0, "not imported") {
		t.Errorf("report %d sessions; problems %v", rep.Sessions, rep.Problems)
	}
	for id, n := range cs.written {
		if n != 1 {
			t.Errorf("session %s written with %d commits", id, n)
		}
	}
	if len(cs.commits) != 17 || len(cs.written) != 16 || cs.written[failing] != 0 {
		t.Errorf("%d sessions committed, %d written (the failing one %d times), want 17, 16, 0", len(cs.commits), len(cs.written), cs.written[failing])
	}
	if _, err := cs.Get(ctx, failing); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("failed session exists: %v", err)
	}
	if _, err := cs.SourceFile(ctx, mustAbs(t, filepath.Join(picoDir, "agent_main_discord_channel_998877.jsonl"))); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("failed session has a source record: %v", err)
	}
	// A store failure that is not about the input stops the import.
	cs.before = func(id string, c sessiondb.Commit) error { return sessiondb.ErrFull }
	if _, err := Import(ctx, cs, []string{picoDir}, Options{}); !errors.Is(err, sessiondb.ErrFull) {
		t.Errorf("import on a full disk: %v, want ErrFull", err)
	}
}

// TestImportConflictRetry: another writer appends to the session between
// the importer's read and its commit; the commit fails with a conflict, the
// importer retries, and the file's entries keep their mapping (a later
// skip lands on the right row, not on the foreign one).
func TestImportConflictRetry(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: openStore(t), commits: map[string]int{}, written: map[string]int{}}
	dir := picoCopyDir(t, picoDir)
	picoImport(t, cs, Options{}, dir)
	const key = "agent:main:cli:direct:alice"
	jsonl := filepath.Join(dir, "agent_main_cli_direct_alice.jsonl")
	added := `{"role":"user","content":"from the file"}`
	picoAppend(t, jsonl, added+"\n")
	foreign := `{"role":"user","content":"written by an agent"}`
	var once sync.Once
	cs.before = func(id string, c sessiondb.Commit) error {
		if id == key && c.ExpectSequence != nil {
			once.Do(func() {
				if _, err := cs.Store.Append(ctx, key, sessiondb.Message(foreign)); err != nil {
					t.Error(err)
				}
			})
		}
		return nil
	}
	cs.commits = map[string]int{}
	rep := picoImport(t, cs, Options{}, dir)
	if rep.Entries != 1 || cs.commits[key] != 2 {
		t.Fatalf("entries %d, commits %d (want 1 entry, 2 attempts); problems %v", rep.Entries, cs.commits[key], rep.Problems)
	}
	rows, err := cs.Entries(ctx, key, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || string(rows[0].Body) != foreign || string(rows[1].Body) != added {
		t.Fatalf("rows after 6: %v", rows)
	}
	cs.before = nil
	// skip 6 hides the six original lines: the transcript starts at the
	// file's 7th entry (log seq 8), so the foreign row (seq 7) is hidden.
	picoSetMeta(t, filepath.Join(dir, "agent_main_cli_direct_alice.meta.json"), func(m map[string]any) { m["skip"] = 6 })
	picoImport(t, cs, Options{}, dir)
	got, err := cs.Load(ctx, key, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || string(got[0].Body) != added {
		t.Fatalf("transcript after skip 6: %v", got)
	}
}

// TestImportMetaOnlyThenJSONL: a meta-only picoclaw session that later gets
// its .jsonl continues as the same session.
func TestImportMetaOnlyThenJSONL(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := t.TempDir()
	meta := filepath.Join(dir, "k.meta.json")
	writeFile(t, meta, `{"key":"agent:k","summary":"s","skip":0,"count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","aliases":["k-alias"]}`)
	rep := picoImport(t, s, Options{}, dir)
	if rep.Sessions != 1 {
		t.Fatalf("meta-only: %+v", rep)
	}
	writeFile(t, filepath.Join(dir, "k.jsonl"), `{"role":"user","content":"hi"}`+"\n")
	picoSetMeta(t, meta, func(m map[string]any) { m["count"] = 1 })
	rep = picoImport(t, s, Options{}, dir)
	if rep.Sessions != 1 || rep.Entries != 1 {
		t.Fatalf("after the first message: %+v", rep)
	}
	got, err := s.Load(ctx, "agent:k", sessiondb.LoadOptions{})
	if err != nil || len(got) != 1 {
		t.Fatalf("transcript %v, %v", got, err)
	}
	if id, err := s.Resolve(ctx, "k-alias"); err != nil || id != "agent:k" {
		t.Errorf("alias resolves to %q, %v", id, err)
	}
}

// TestImportLegacyMigrated: picoclaw migrates a legacy {key}.json into
// {key}.jsonl and renames the old file; the import continues the same
// session instead of creating a second one.
func TestImportLegacyMigrated(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := picoCopyDir(t, picoLegacyDir)
	picoImport(t, s, Options{}, dir)
	const key = "telegram:123456"
	before, err := s.Load(ctx, key, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// What MigrateFromJSON leaves behind.
	var lines []string
	for _, e := range before {
		lines = append(lines, string(e.Body))
	}
	writeFile(t, filepath.Join(dir, "telegram_123456.jsonl"), strings.Join(lines, "\n")+"\n")
	writeFile(t, filepath.Join(dir, "telegram_123456.meta.json"), `{"key":"telegram:123456","summary":"User asked for the time.","skip":0,"count":4,"created_at":"2026-11-29T12:40:00Z","updated_at":"2026-11-29T12:40:00Z"}`)
	if err := os.Rename(filepath.Join(dir, "telegram_123456.json"), filepath.Join(dir, "telegram_123456.json.migrated")); err != nil {
		t.Fatal(err)
	}
	rep := picoImport(t, s, Options{}, dir)
	if rep.Sessions != 1 {
		t.Fatalf("after migration: %+v", rep)
	}
	if got := picoSequences(t, s); len(got) != 2 {
		t.Fatalf("%d sessions after migration, want 2: %v", len(got), got)
	}
	after, err := s.Load(ctx, key, sessiondb.LoadOptions{})
	if err != nil || len(after) != len(before) {
		t.Fatalf("transcript %d messages (%v), want %d", len(after), err, len(before))
	}
	for i := range after {
		if string(after[i].Body) != lines[i] {
			t.Errorf("message %d differs", i)
		}
	}
	if !picoHasProblem(rep.Notes, "telegram_123456.json.migrated", 0, "not a session file") {
		t.Errorf("the .migrated file is not noted: %v", rep.Notes)
	}
}

// TestImportKeepsNativeCompaction: a session compacted natively after its
// import keeps that compaction when the importer appends new lines; the
// reader's repeated meta skip is not recorded again.
func TestImportKeepsNativeCompaction(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := picoCopyDir(t, picoDir)
	picoImport(t, s, Options{}, dir)
	const key = "agent:main:discord:channel:998877"
	summary := `{"role":"user","content":"summary of steps 1-10"}`
	if _, err := s.Compact(ctx, key, sessiondb.Compaction{KeepFromSeq: 21, Summary: []sessiondb.Entry{sessiondb.Message(summary)}}); err != nil {
		t.Fatal(err)
	}
	added := `{"role":"user","content":"Question 13"}`
	picoAppend(t, filepath.Join(dir, "agent_main_discord_channel_998877.jsonl"), added+"\n")
	rep := picoImport(t, s, Options{}, dir)
	if rep.Entries != 1 {
		t.Fatalf("entries %d; problems %v", rep.Entries, rep.Problems)
	}
	cs, err := s.Compactions(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[1].KeepFromSeq != 21 {
		t.Fatalf("compactions %+v, want the import's skip then the native one", cs)
	}
	got, err := s.Load(ctx, key, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || string(got[0].Body) != summary || string(got[5].Body) != added {
		t.Fatalf("transcript %d messages: first %s last %s", len(got), got[0].Body, got[len(got)-1].Body)
	}
}

// TestImportCancelMidway: cancelling during an import stops it with
// context.Canceled; every session written until then is complete.
func TestImportCancelMidway(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := openStore(t)
	calls := 0
	_, err := Import(ctx, s, []string{picoDir}, Options{Jobs: 2, Progress: func(Progress) {
		calls++
		if calls == 4 { // the initial report plus three units
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Import: %v, want context.Canceled", err)
	}
	seqs := picoSequences(t, s)
	if len(seqs) == 0 || len(seqs) >= 17 {
		t.Fatalf("%d sessions written before the cancel", len(seqs))
	}
	for id := range seqs {
		sess, err := s.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		lines := picoLines(t, filepath.Join(picoDir, sanitizePicoclawKey(id)+".jsonl"))
		if sess.LastSeq != int64(len(lines)) {
			t.Errorf("%s: %d rows, file has %d lines", id, sess.LastSeq, len(lines))
		}
	}
	// Importing again completes the rest.
	rep := picoImport(t, s, Options{}, picoDir)
	if rep.Sessions+rep.Unchanged != 17 || rep.Unchanged != len(seqs) {
		t.Errorf("second run: %+v", rep)
	}
}

// TestImportBadUnit: a unit that cannot be read (an invalid session key)
// is reported and the rest of the batch is imported.
func TestImportBadUnit(t *testing.T) {
	s := openStore(t)
	dir := picoCopyDir(t, picoLegacyDir)
	writeFile(t, filepath.Join(dir, "bad.jsonl"), `{"role":"user","content":"x"}`+"\n")
	writeFile(t, filepath.Join(dir, "bad.meta.json"), `{"key":"bad\u0001key"}`)
	rep := picoImport(t, s, Options{}, dir)
	if rep.Sessions != 2 || rep.Files != 3 {
		t.Errorf("report %+v, want 2 sessions of 3 units", rep)
	}
	if !picoHasProblem(rep.Problems, "bad.jsonl", 0, "cannot import") {
		t.Errorf("bad unit not reported: %v", rep.Problems)
	}
}

// racingStore runs race once, the first time Get is called: the importer
// calls Get between deciding that a file is new (prepare) and writing it
// (commitUnit), which is where a second importer process can slip in.
type racingStore struct {
	sessiondb.Store
	once sync.Once
	race func()
}

func (s *racingStore) Get(ctx context.Context, id string) (sessiondb.Session, error) {
	s.once.Do(s.race)
	return s.Store.Get(ctx, id)
}

// TestImportRacingImporter (issue 13 item 2): another importer that
// imports the same archive between this importer's "already imported?"
// check and its write leaves exactly what one import leaves: no session
// imported twice, no spurious "rewritten" compaction.
func TestImportRacingImporter(t *testing.T) {
	ctx := context.Background()
	want := openStore(t)
	picoImport(t, want, Options{}, picoDir)

	inner := openStore(t)
	rs := &racingStore{Store: inner}
	rs.race = func() {
		if _, err := Import(ctx, inner, []string{picoDir}, Options{}); err != nil {
			t.Errorf("racing import: %v", err)
		}
	}
	picoImport(t, rs, Options{Jobs: 1}, picoDir)

	wantIDs, gotIDs := storeIDs(t, want), storeIDs(t, inner)
	if fmt.Sprint(wantIDs) != fmt.Sprint(gotIDs) {
		t.Fatalf("sessions after racing imports: %v, want %v", gotIDs, wantIDs)
	}
	for _, id := range wantIDs {
		w, _ := want.Get(ctx, id)
		g, _ := inner.Get(ctx, id)
		wc, _ := want.Compactions(ctx, id)
		gc, _ := inner.Compactions(ctx, id)
		if g.LastSeq != w.LastSeq || len(gc) != len(wc) {
			t.Errorf("session %s: %d entries and %d compactions, want %d and %d", id, g.LastSeq, len(gc), w.LastSeq, len(wc))
		}
	}
}

func storeIDs(t *testing.T, s sessiondb.Store) []string {
	t.Helper()
	infos, _, err := s.List(context.Background(), sessiondb.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range infos {
		ids = append(ids, in.ID)
	}
	sort.Strings(ids)
	return ids
}

// TestImportUnreadableFile (item 12): a file that cannot be read is
// reported as such, not as "unknown format".
func TestImportUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads mode-000 files")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(f, []byte(`{"role":"user","content":"x"}`+"\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	rep, err := Import(context.Background(), openStore(t), []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Reason, "cannot read") {
		t.Errorf("problems %v, want one 'cannot read'", rep.Problems)
	}
}

// TestPicoclawKeyCollision: the discord:555 / discord_555 files hold one
// session under the meta key. The same archive imported from a second
// place is a copy and adds nothing (copies.go); a second archive whose
// session of that key differs gets a distinct, stable ID instead of
// failing.
func TestPicoclawKeyCollision(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	picoImport(t, s, Options{}, picoDir)
	got, err := s.Load(ctx, "discord:555", sessiondb.LoadOptions{})
	if err != nil || len(got) != 2 {
		t.Fatalf("discord:555: %d messages, %v", len(got), err)
	}
	if _, err := s.Get(ctx, "discord_555"); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("Get(discord_555) = %v, want ErrNotFound (one session)", err)
	}
	copied := picoImport(t, s, Options{}, picoCopyDir(t, picoDir))
	if copied.Sessions != 0 || copied.Unchanged != 17 {
		t.Fatalf("a copy: %d sessions, %d unchanged, want 0 and 17; problems %v", copied.Sessions, copied.Unchanged, copied.Problems)
	}
	second := picoCopyDir(t, picoDir)
	path := filepath.Join(second, "discord_555.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte("written with key discord:555"), []byte("written on another machine"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := picoImport(t, s, Options{}, second)
	if rep.Sessions != 1 {
		t.Fatalf("second archive: %d sessions, want the one that differs; problems %v", rep.Sessions, rep.Problems)
	}
	alt := disambiguate("discord:555", "", path)
	got2, err := s.Load(ctx, alt, sessiondb.LoadOptions{})
	if err != nil || len(got2) != 2 {
		t.Fatalf("%s: %d messages, %v", alt, len(got2), err)
	}
	if !picoHasProblem(rep.Problems, "discord_555.jsonl", 0, "already exists") {
		t.Errorf("collision not reported: %v", rep.Problems)
	}
	rep = picoImport(t, s, Options{}, second)
	if rep.Unchanged != 17 {
		t.Errorf("re-import of the second archive: unchanged %d, want 17", rep.Unchanged)
	}
}
