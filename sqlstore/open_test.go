package sqlstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/migrations"
)

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "nested")
	path := filepath.Join(dir, "sessions.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Create(context.Background(), sessiondb.Session{ID: "x"}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s has mode %v, want %v", p, fi.Mode(), want)
		}
	}
	var mode string
	if err := s.writer.Get(&mode, "PRAGMA journal_mode"); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v", mode, err)
	}
	var fk, sync int
	if err := s.writer.Get(&fk, "PRAGMA foreign_keys"); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d, %v", fk, err)
	}
	if err := s.writer.Get(&sync, "PRAGMA synchronous"); err != nil || sync != 2 {
		t.Fatalf("synchronous = %d, %v; want 2 (FULL) by default", sync, err)
	}
}

func TestOpenDurabilityNormal(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "n.db"), &Options{Durability: DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var sync int
	if err := s.writer.Get(&sync, "PRAGMA synchronous"); err != nil || sync != 1 {
		t.Fatalf("synchronous = %d, %v; want 1 (NORMAL)", sync, err)
	}
}

// TestReadersPageCache checks that every reader connection, and the index
// file attached to it, has Options.ReadCacheMiB of page cache when it is
// set, SQLite's default when it is not, and that the writer keeps the
// default.
func TestReadersPageCache(t *testing.T) {
	for _, mib := range []int{0, 16} {
		s := MustOpenStore(t, &Options{ReadCacheMiB: mib})
		want := -2000 // SQLite's default: 2,000 KiB
		if mib > 0 {
			want = -mib << 10
		}
		ctx := context.Background()
		// Two connections held at once: the pool's second one too.
		var conns []*sql.Conn
		for range 2 {
			c, err := s.reader.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			conns = append(conns, c)
		}
		for i, c := range conns {
			for _, schema := range []string{"main", "search"} {
				var kib int
				if err := c.QueryRowContext(ctx, "PRAGMA "+schema+".cache_size").Scan(&kib); err != nil || kib != want {
					t.Errorf("ReadCacheMiB %d, reader %d: %s.cache_size = %d, %v; want %d", mib, i, schema, kib, err, want)
				}
			}
		}
		var kib int
		if err := s.writer.Get(&kib, "PRAGMA cache_size"); err != nil || kib != -2000 {
			t.Errorf("ReadCacheMiB %d, writer: cache_size = %d, %v; want SQLite's default -2000", mib, kib, err)
		}
	}
}

func TestOpenBadPaths(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, nil); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("Open(directory) = %v, want ErrInvalid", err)
	}
	if _, err := Open("", nil); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("Open(\"\") = %v, want ErrInvalid", err)
	}
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("this is not a database\n"), 400), 0o600); err != nil {
		t.Fatal(err)
	}
	before := fileHash(t, notDB)
	if _, err := Open(notDB, nil); !errors.Is(err, sessiondb.ErrCorrupt) {
		t.Errorf("Open(text file) = %v, want ErrCorrupt", err)
	}
	if fileHash(t, notDB) != before {
		t.Error("Open modified a file that is not a database")
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "future.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(context.Background(), sessiondb.Session{ID: "keep"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := fileHash(t, path)
	_, err = Open(path, nil)
	if !errors.Is(err, sessiondb.ErrSchemaTooNew) {
		t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
	}
	if fileHash(t, path) != before {
		t.Fatal("a database with a newer schema was modified")
	}
	if m, _ := filepath.Glob(path + ".bak-*"); len(m) != 0 {
		t.Fatalf("backups were taken of a refused database: %v", m)
	}
}

// openAtVersion1 creates a database migrated to schema version 1 only and
// returns its path and a plain connection to it.
func openAtVersion1(t *testing.T) (string, *sql.DB) {
	t.Helper()
	return openAtVersion(t, 1)
}

// openAtVersion creates a database migrated to schema version v only and
// returns its path and a plain connection to it.
func openAtVersion(t *testing.T, v int64) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := migrations.NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	return path, db
}

// TestOpenMigratesWithBackup builds a database at schema version 1 holding
// a session, then opens it: Open must back it up, migrate it to the latest
// version, and keep the session (now also searchable).
func TestOpenMigratesWithBackup(t *testing.T) {
	ctx := context.Background()
	path, db := openAtVersion1(t)
	_, err := db.Exec(`INSERT INTO sessions (id, title, sequence, last_seq, created_at, updated_at)
		VALUES ('old', 'Old one', 1, 1, '2025-01-01T00:00:00.000000000Z', '2025-01-01T00:00:00.000000000Z');
		INSERT INTO entries (session_id, seq, kind, role, text, body, created_at)
		VALUES ('old', 1, 'message', 'user', 'remember the lighthouse', '{"role":"user","content":"remember the lighthouse"}', '2025-01-01T00:00:00.000000000Z')`)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	backups, _ := filepath.Glob(path + ".bak-v1-*")
	if len(backups) != 1 {
		t.Fatalf("backups = %v, want one .bak-v1-* file", backups)
	}
	if fi, err := os.Stat(backups[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode: %v, %v", fi.Mode(), err)
	}
	bdb, err := sql.Open("sqlite", backups[0])
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	var title string
	if err := bdb.QueryRow(`SELECT title FROM sessions WHERE id = 'old'`).Scan(&title); err != nil || title != "Old one" {
		t.Fatalf("backup holds title %q, %v", title, err)
	}
	hits, err := s.Search(ctx, "lighthouse", sessiondb.SearchOptions{})
	if err != nil || len(hits) != 1 || hits[0].SessionID != "old" {
		t.Fatalf("search after migration = %+v, %v", hits, err)
	}
	latest, _ := migrations.Latest()
	if v, err := s.schemaVersion(ctx); err != nil || v != latest {
		t.Fatalf("schema version %d, %v; want %d", v, err, latest)
	}
}

func TestOpenNoBackupOption(t *testing.T) {
	path, db := openAtVersion1(t)
	db.Close()
	s, err := Open(path, &Options{NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if m, _ := filepath.Glob(path + ".bak-*"); len(m) != 0 {
		t.Fatalf("NoBackup still wrote %v", m)
	}
}

func TestConcurrentOpenOfNewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "race.db")
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			s, err := Open(path, nil)
			if err == nil {
				_, err = s.Create(context.Background(), sessiondb.Session{})
				s.Close()
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent Open: %v", err)
		}
	}
}

// TestQueryCannotWrite: the read pool refuses writes even from a script
// that first tries to switch query_only off.
func TestQueryCannotWrite(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "q.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Create(ctx, sessiondb.Session{ID: "keep"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"DELETE FROM sessions",
		"PRAGMA query_only=0; DELETE FROM sessions",
		"PRAGMA query_only=0",
	} {
		rows, err := s.Query(ctx, q)
		if err == nil {
			rows.Close()
		}
		if _, gerr := s.Get(ctx, "keep"); gerr != nil {
			t.Fatalf("after Query(%q) (err %v) the session is gone: %v", q, err, gerr)
		}
	}
	if _, err := s.Query(ctx, "DELETE FROM sessions"); !errors.Is(err, sessiondb.ErrReadOnly) {
		t.Fatalf("write through Query = %v, want ErrReadOnly", err)
	}
}

// TestWALShrinksAfterALargeCommit commits one transaction larger than the
// WAL's usual size (an import of a long session does), then small ones:
// once a checkpoint has copied the large one into the database, the -wal
// file must not keep its size for the life of the process (a watcher runs
// for weeks), but come back under walSizeLimit.
func TestWALShrinksAfterALargeCommit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	s := MustOpenStoreAt(t, path, &Options{IndexDelay: -1})
	defer s.Close()
	if _, err := s.Create(ctx, sessiondb.Session{ID: "big"}); err != nil {
		t.Fatal(err)
	}
	// 3,000 entries of 10 KB in one commit: about 30 MB of WAL frames.
	body := []byte(`{"role":"user","content":"` + strings.Repeat("x", 10*1024) + `"}`)
	big := make([]sessiondb.Entry, 3000)
	for i := range big {
		big[i] = sessiondb.Entry{Body: body}
	}
	if _, err := s.Commit(ctx, "big", sessiondb.Commit{Append: big}); err != nil {
		t.Fatal(err)
	}
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	grown := walSize()
	if grown <= walSizeLimit {
		t.Fatalf("the large commit left a WAL of %d bytes, not above the limit %d: the test proves nothing", grown, walSizeLimit)
	}
	// The commit's own automatic checkpoint copied it into the database
	// (no reader held it back); the next writes start the WAL over.
	for i := range 3 {
		if _, err := s.Append(ctx, "big", sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"small %d"}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := walSize(); got > walSizeLimit {
		t.Fatalf("WAL is %d bytes after the large commit was checkpointed (it grew to %d), want at most %d", got, grown, walSizeLimit)
	}
	if n, err := s.Get(ctx, "big"); err != nil || n.LastSeq != 3003 {
		t.Fatalf("after the commits: LastSeq %d, %v", n.LastSeq, err)
	}
}
