package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// fileState is what a read-only open must not change: the bytes and the
// modification time of the file, and the absence of side files.
type fileState struct {
	hash  [32]byte
	mtime time.Time
	side  []string
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	side, _ := filepath.Glob(path + "?*")
	return fileState{hash: fileHash(t, path), mtime: fi.ModTime(), side: side}
}

func wantSameFile(t *testing.T, path string, before fileState) {
	t.Helper()
	after := stateOf(t, path)
	if after.hash != before.hash || !after.mtime.Equal(before.mtime) {
		t.Errorf("read-only open changed %s", path)
	}
	if len(after.side) != len(before.side) {
		t.Errorf("read-only open created side files: %v (before %v)", after.side, before.side)
	}
}

func journalMode(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	return mode
}

// TestReadOnlyMissingFile (issue 13 item 4): a missing database is
// ErrNotFound and is not created.
func TestReadOnlyMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo", "sessions.db")
	_, err := Open(path, &Options{ReadOnly: true})
	if !errors.Is(err, sessiondb.ErrNotFound) {
		t.Fatalf("Open(missing, ReadOnly) = %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only open created the directory (stat: %v)", err)
	}
}

// TestReadOnlyForeignFile (item 4): an SQLite database that is not
// sessiondb's (and an empty file) is refused untouched: no schema
// installed, no WAL switch, same bytes and modification time.
func TestReadOnlyForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "foreign.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := stateOf(t, path)
	_, err = Open(path, &Options{ReadOnly: true})
	if !errors.Is(err, sessiondb.ErrCorrupt) {
		t.Fatalf("Open(foreign, ReadOnly) = %v, want ErrCorrupt", err)
	}
	wantSameFile(t, path, before)
	if m := journalMode(t, path); m != "delete" {
		t.Errorf("journal mode is %q after a refused read-only open, want delete", m)
	}

	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(empty, &Options{ReadOnly: true}); !errors.Is(err, sessiondb.ErrCorrupt) {
		t.Errorf("Open(empty, ReadOnly) = %v, want ErrCorrupt", err)
	}
	if fi, _ := os.Stat(empty); fi.Size() != 0 {
		t.Errorf("read-only open wrote into an empty file")
	}
}

// TestReadOnlyOlderSchema (item 4): a database with pending migrations is
// refused with ErrSchemaTooOld and a message naming sessionctl migrate,
// and is not migrated or backed up.
func TestReadOnlyOlderSchema(t *testing.T) {
	path, db := openAtVersion1(t)
	db.Close()
	before := stateOf(t, path)
	_, err := Open(path, &Options{ReadOnly: true})
	if !errors.Is(err, sessiondb.ErrSchemaTooOld) {
		t.Fatalf("Open(v1, ReadOnly) = %v, want ErrSchemaTooOld", err)
	}
	if !contains(err.Error(), "sessionctl migrate") {
		t.Errorf("error %q does not say how to migrate", err)
	}
	wantSameFile(t, path, before)
}

// TestReadOnlyCurrent (item 4): a current database opens read-only, reads
// work, writes fail with ErrReadOnly, and the file is not changed.
func TestReadOnlyCurrent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "one", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"hi"}`)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, path)
	ro, err := Open(path, &Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("Open(ReadOnly): %v", err)
	}
	if got, err := ro.Load(ctx, "one", sessiondb.LoadOptions{}); err != nil || len(got) != 1 {
		t.Errorf("Load through a read-only store = %v, %v", got, err)
	}
	if _, err := ro.Commit(ctx, "two", sessiondb.Commit{Create: &sessiondb.Session{}}); !errors.Is(err, sessiondb.ErrReadOnly) {
		t.Errorf("Commit through a read-only store = %v, want ErrReadOnly", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after := stateOf(t, path); after.hash != before.hash {
		t.Errorf("read-only use changed the database file")
	}
}

// TestOpenNewerSchemaKeepsJournalMode (item 4): a newer-schema database in
// rollback-journal mode is refused by a writing Open before the journal
// mode is switched to WAL.
func TestOpenNewerSchemaKeepsJournalMode(t *testing.T) {
	path, db := openAtVersion1(t)
	if _, err := db.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if m := journalMode(t, path); m != "delete" {
		t.Fatalf("setup: journal mode %q", m)
	}
	before := stateOf(t, path)
	for _, opts := range []*Options{nil, {ReadOnly: true}} {
		if _, err := Open(path, opts); !errors.Is(err, sessiondb.ErrSchemaTooNew) {
			t.Fatalf("Open(%+v) = %v, want ErrSchemaTooNew", opts, err)
		}
	}
	if m := journalMode(t, path); m != "delete" {
		t.Errorf("journal mode switched to %q by a refused open", m)
	}
	wantSameFile(t, path, before)
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestWriterRefusesForeignFile (issue 23 item 9): an SQLite database that
// holds someone else's tables is refused by the read-write Open as well,
// untouched (no schema installed, no switch to WAL); an SQLite file with no
// schema objects at all holds nothing to lose and becomes a database.
func TestWriterRefusesForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "foreign.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := stateOf(t, path)
	for _, opts := range []*Options{nil, {NoMigrate: true}, {NoSchemaCheck: true}} {
		st, err := Open(path, opts)
		if err == nil {
			st.Close()
		}
		if !errors.Is(err, sessiondb.ErrCorrupt) || !contains(err.Error(), "not a sessiondb database") {
			t.Fatalf("Open(foreign, %+v) = %v, want ErrCorrupt saying it is not a sessiondb database", opts, err)
		}
	}
	wantSameFile(t, path, before)
	if m := journalMode(t, path); m != "delete" {
		t.Errorf("journal mode is %q after a refused open, want delete", m)
	}

	// An SQLite file without any schema object (sqlite3 x.db 'VACUUM').
	blank := filepath.Join(t.TempDir(), "blank.db")
	db, err = sql.Open("sqlite", blank)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE x (y); DROP TABLE x; VACUUM`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err := Open(blank, nil)
	if err != nil {
		t.Fatalf("Open(an SQLite file without tables) = %v, want a new database", err)
	}
	st.Close()
}
