package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/freshdb"
)

// MustOpenStore opens a store on a new file database under tb.TempDir (not
// :memory:, so that WAL, locking and fsync behave as in production). A
// cleanup closes it, reopens the file and runs PRAGMA integrity_check and
// PRAGMA foreign_key_check; when either finds a problem, the test fails and
// the database is copied out of the temporary directory, to a path the
// failure message names, so that it can be inspected.
//
// The file is a copy of one that Open created once in this test process
// (internal/freshdb): a first open costs every migration's fsync, and the
// package's tests open hundreds of stores. Tests of what a first open does
// call Open or MustOpenStoreAt on a path of their own.
func MustOpenStore(tb testing.TB, opts *Options) *Store {
	tb.Helper()
	if opts != nil && (opts.ReadOnly || opts.NoMigrate) {
		return MustOpenStoreAt(tb, filepath.Join(tb.TempDir(), "sessions.db"), opts)
	}
	return MustOpenStoreAt(tb, newDatabase.Path(tb, "sessions.db"), opts)
}

// newDatabase is the database MustOpenStore copies.
var newDatabase = freshdb.New(func(path string) error {
	s, err := Open(path, nil)
	if err != nil {
		return err
	}
	return s.Close()
})

// checkDatabaseFile opens the database file at path directly and returns
// what PRAGMA integrity_check and PRAGMA foreign_key_check report (nothing
// when the database is sound).
func checkDatabaseFile(path string) (problems []string, err error) {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		return nil, fmt.Errorf("integrity_check: %w", err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return nil, err
		}
		if line != "ok" {
			problems = append(problems, "integrity_check: "+line)
		}
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	fk, err := db.Query("PRAGMA foreign_key_check")
	if err != nil {
		return nil, fmt.Errorf("foreign_key_check: %w", err)
	}
	defer fk.Close()
	for fk.Next() {
		var table, parent string
		var rowid, fkid sql.NullInt64
		if err := fk.Scan(&table, &rowid, &parent, &fkid); err != nil {
			return nil, err
		}
		problems = append(problems, fmt.Sprintf("foreign_key_check: %s row %v references missing %s", table, rowid.Int64, parent))
	}
	return problems, fk.Err()
}

// keepDatabaseFile copies the database (and its WAL, if any) out of the
// test's temporary directory and returns where it went.
func keepDatabaseFile(tb testing.TB, path string) string {
	dir, err := os.MkdirTemp("", "sessiondb-failed-*")
	if err != nil {
		return fmt.Sprintf("%s (could not be kept: %v)", path, err)
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-search", "-search-wal", "-search-shm"} {
		if err := copyFileTo(path+suffix, filepath.Join(dir, filepath.Base(path)+suffix)); err != nil && !errors.Is(err, os.ErrNotExist) {
			tb.Logf("keeping %s: %v", path+suffix, err)
		}
	}
	return filepath.Join(dir, filepath.Base(path))
}

func copyFileTo(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// MustOpenStoreAt is MustOpenStore on an existing database file.
func MustOpenStoreAt(tb testing.TB, path string, opts *Options) *Store {
	tb.Helper()
	s, err := Open(path, opts)
	if err != nil {
		tb.Fatalf("open store %s: %v", path, err)
	}
	tb.Cleanup(func() {
		// A test may have closed the store itself (to check ErrClosed).
		if err := s.Close(); err != nil && !errors.Is(err, sessiondb.ErrClosed) {
			tb.Errorf("close store %s: %v", path, err)
		}
		if problems, err := checkDatabaseFile(path); err != nil || len(problems) > 0 {
			tb.Errorf("database %s failed its integrity check (error %v): %s\nthe database was left at %s",
				path, err, strings.Join(problems, "; "), keepDatabaseFile(tb, path))
		}
		if _, err := os.Stat(IndexPath(path)); err != nil {
			return
		}
		if problems, err := checkDatabaseFile(IndexPath(path)); err != nil || len(problems) > 0 {
			tb.Errorf("index file %s failed its integrity check (error %v): %s\nthe database was left at %s",
				IndexPath(path), err, strings.Join(problems, "; "), keepDatabaseFile(tb, path))
		}
	})
	return s
}

// rawExec runs queries, in order, on one plain connection to the database
// at path, behind any store's back: the way a user with sqlite3, or
// damage, changes a file. The connection is closed before it returns.
func rawExec(tb testing.TB, path string, queries ...string) {
	tb.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // PRAGMAs hold for the one connection
	for _, q := range queries {
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}
