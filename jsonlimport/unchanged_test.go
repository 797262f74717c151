package jsonlimport

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// reclaimTree copies archives of the formats that reclaim (Claude Code with
// tool results and sub-agents, Codex with its session index, pi, Gemini
// CLI with a whole-JSON chat, Qwen Code with a sub-agent and its meta,
// Copilot CLI with its workspace.yaml, the Cursor agent with a sub-agent)
// into one tree.
func reclaimTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for src, dst := range map[string]string{
		"../testdata/claudecode/projects":             "claude",
		"../testdata/codex/codex-home":                "codex",
		"../testdata/pi/sessions":                     "pi",
		"../testdata/gemini/gemini-home":              "gemini",
		"../testdata/qwen/qwen-home":                  "qwen",
		"../testdata/agents/qwen/subagent/home/.qwen": "qwen-sub",
		"../testdata/copilot/session-state":           "copilot",
		"../testdata/cursor-agent/crafted/projects":   "cursor",
	} {
		copyTree(t, src, filepath.Join(root, dst))
	}
	return root
}

// listSessions returns every session of s, by ID.
func listSessions(t *testing.T, s sessiondb.Store) []sessiondb.SessionInfo {
	t.Helper()
	out, _, err := s.List(context.Background(), sessiondb.ListOptions{Order: sessiondb.ByID, Ascending: true, Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// listAll renders every session's identity and counters.
func listAll(t *testing.T, s sessiondb.Store) string {
	var b strings.Builder
	for _, x := range listSessions(t, s) {
		fmt.Fprintf(&b, "%s %s %d %d %d|", x.ID, x.SourceFormat, x.MessageCount, x.Sequence, x.LastSeq)
	}
	return b.String()
}

// garble overwrites path in place with bytes of the same size that no
// format claims, and gives it back its modification time: the stat an
// import compares is unchanged, the bytes are not.
func garble(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte("x"), int(fi.Size())), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestNoOpImportReadsNoFile: an import of an archive imported before
// takes every unchanged file of a reclaiming format from its import record
// and a stat, reading none of them. The files are garbled in place with
// their stat restored: had the second import opened one (to claim it, or
// to parse it), it would report a JSONL file of unknown format or a
// damaged session instead of "unchanged".
func TestNoOpImportReadsNoFile(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	root := reclaimTree(t)
	opts := Options{Machine: "m1"}
	first, err := Import(ctx, s, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Sessions < 15 {
		t.Fatalf("first import: %d sessions, want the tree's (%+v)", first.Sessions, first.Problems)
	}
	before := listAll(t, s)

	recs, err := s.SourcesWithPrefix(ctx, "m1", root+string(filepath.Separator))
	if err != nil {
		t.Fatal(err)
	}
	reclaimed := map[string]bool{}
	for _, r := range recs {
		if f, ok := lookupFormat(r.Format).(interface {
			Reclaim(string) (Unit, bool)
		}); ok {
			if _, ok := f.Reclaim(r.Path); ok {
				reclaimed[r.Format] = true
				garble(t, r.Path)
			}
		}
	}
	for _, want := range []string{"claude-code", "codex", "pi", "gemini-cli", "qwen-code", "copilot-cli", "cursor-agent"} {
		if !reclaimed[want] {
			t.Errorf("no %s file in the tree was reclaimed", want)
		}
	}

	again, err := Import(ctx, s, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Sessions != 0 || again.Entries != 0 {
		t.Errorf("second import: %d sessions, %d entries; want nothing read", again.Sessions, again.Entries)
	}
	for _, p := range again.Problems {
		// An unchanged file's torn last line is reported again (from
		// its record); anything else means a file was read.
		if !strings.Contains(p.Reason, "torn last line") {
			t.Errorf("second import: problem %v", p)
		}
	}
	if again.Files != first.Files || again.Unchanged != first.Sessions {
		t.Errorf("second import: %d files, %d unchanged; want %d files, the %d that made sessions unchanged", again.Files, again.Unchanged, first.Files, first.Sessions)
	}
	if after := listAll(t, s); after != before {
		t.Errorf("the sessions changed:\nbefore %s\nafter  %s", before, after)
	}
}

// TestReclaimFallsBack: a file that changed, a file replaced by another
// inode with the same bytes and times, a side file that appeared beside a
// reclaimed transcript, and a tool-results file added to an unchanged
// Claude Code transcript: an import that reclaims ends with the sessions
// of one that offers every file to the formats (Discover, ImportUnits).
func TestReclaimFallsBack(t *testing.T) {
	ctx := context.Background()
	var got [2]string
	base := t.TempDir()
	for i := range got {
		// The same path both times: a conflict's renamed ID hashes it.
		root := filepath.Join(base, "tree")
		os.RemoveAll(root)
		copyTree(t, reclaimTree(t), root)
		s := openStore(t)
		run := func() Report {
			t.Helper()
			opts := Options{Machine: "m1"}
			var rep Report
			var err error
			if i == 0 {
				rep, err = Import(ctx, s, []string{root}, opts)
			} else {
				var d Discovery
				if d, err = Discover([]string{root}, ""); err == nil {
					rep, err = ImportUnits(ctx, s, d.Units, opts)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		run()
		mutateReclaimTree(t, root)
		rep := run()
		if rep.Sessions < 3 {
			t.Errorf("import %d after the changes: %d sessions, want the changed ones (%v)", i, rep.Sessions, rep.Problems)
		}
		got[i] = listAll(t, s)
	}
	if got[0] != got[1] {
		t.Errorf("reclaiming import:\n%s\nclaiming every file:\n%s", got[0], got[1])
	}
}

// TestClaimDirFallsBack: when a format claims a file that reclaim took (a
// picoclaw meta that appeared beside a pi transcript makes picoclaw claim
// the transcript), the directory is claimed as if reclaim had taken
// nothing.
func TestClaimDirFallsBack(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "s.jsonl")
	meta := filepath.Join(dir, "s.meta.json")
	os.WriteFile(tr, []byte(`{"type":"session","version":3,"id":"p1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`+"\n"), 0o644)
	os.WriteFile(meta, []byte(`{"key":"k","summary":"","created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`), 0o644)
	files := []string{tr, meta}
	pi := lookupFormat("pi")
	reclaim := func(p string) (planned, bool) {
		return planned{unit: Unit{Format: "pi", Path: tr}, format: pi}, p == tr
	}
	render := func(us []planned, rest []string) string {
		return fmt.Sprint(func() (out []Unit) {
			for _, u := range us {
				out = append(out, u.unit)
			}
			return out
		}(), rest)
	}
	want := render(claimDir(files, Formats(), nil))
	if !strings.Contains(want, "picoclaw") {
		t.Fatalf("setup: the formats claim %s, want a picoclaw unit", want)
	}
	if got := render(claimDir(files, Formats(), reclaim)); got != want {
		t.Errorf("with reclaim: %s\nwithout: %s", got, want)
	}
	// Without the meta, reclaim's unit stands and pi is not asked.
	if got := render(claimDir([]string{tr}, Formats(), reclaim)); got != render([]planned{{unit: Unit{Format: "pi", Path: tr}}}, nil) {
		t.Errorf("reclaimed alone: %s", got)
	}
}

// mutateReclaimTree makes TestReclaimFallsBack's changes under root.
func mutateReclaimTree(t *testing.T, root string) {
	t.Helper()
	files := func(dir, suffix string) []string {
		var out []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	pi := files(filepath.Join(root, "pi"), ".jsonl")
	if len(pi) < 2 {
		t.Fatalf("pi files: %v", pi)
	}
	// A copy from a backup: a new inode, the same bytes, size and time.
	b, err := os.ReadFile(pi[0])
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(pi[0])
	os.Remove(pi[0])
	if err := os.WriteFile(pi[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(pi[0], fi.ModTime(), fi.ModTime())
	// picoclaw's meta beside a transcript another format claimed.
	meta := strings.TrimSuffix(pi[1], ".jsonl") + ".meta.json"
	if err := os.WriteFile(meta, []byte(`{"key":"k","summary":"","created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A Codex rollout that grew by a line.
	rollout := files(filepath.Join(root, "codex", "sessions"), ".jsonl")[0]
	f, err := os.OpenFile(rollout, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"timestamp":"2026-02-01T00:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"one more"}]}}` + "\n")
	f.Close()
	// A tool-results file for a Claude Code transcript that did not change.
	cc := files(filepath.Join(root, "claude"), "-000000000002.jsonl")[0]
	dir := filepath.Join(strings.TrimSuffix(cc, ".jsonl"), "tool-results")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "toolu_new.txt"), []byte("output kept aside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNoOpImportWritesNothing: a second import of an unchanged archive
// commits no change to the database (PRAGMA data_version, read on a
// connection of its own, moves with every commit of another connection
// that changed a page): every file is unchanged and every seen mark is
// already current (sessiondb.SourceSeenResolution), so not one row is
// written. Each seen mark used to be written again, one UPDATE a session.
func TestNoOpImportWritesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := sqlstore.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	root := reclaimTree(t)
	opts := Options{Machine: "m1"}
	if first, err := Import(ctx, s, []string{root}, opts); err != nil || first.Sessions < 15 {
		t.Fatalf("first import: %d sessions, %v", first.Sessions, err)
	}
	// The store's background work after the first import (the search
	// index, then the secret scan of what it imported, which writes its
	// progress to the database) is done before the second import, so
	// that a change seen is the import's.
	if err := s.CatchUpIndex(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		more, err := s.ScanSecrets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	version := func() int64 {
		t.Helper()
		var v int64
		if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := version()
	again, err := Import(ctx, s, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Sessions != 0 || again.Unchanged == 0 {
		t.Fatalf("second import: %d sessions, %d unchanged; want all unchanged", again.Sessions, again.Unchanged)
	}
	if after := version(); after != before {
		t.Errorf("the no-op import changed the database (data_version %d -> %d)", before, after)
	}
}
