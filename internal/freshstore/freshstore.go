// Package freshstore opens, for a test, a new SQLite store copied from one
// that the real sqlstore.Open created once per test process (package
// internal/freshdb says why and what a copy is). Tests of a first open
// itself call sqlstore.Open on a path of their own.
package freshstore

import (
	"errors"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/freshdb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

var template = freshdb.New(func(path string) error {
	s, err := sqlstore.Open(path, nil)
	if err != nil {
		return err
	}
	return s.Close()
})

// Path returns the path of a new database file named name under
// tb.TempDir: sessiondb's current schema, no sessions, with its search
// index file beside it.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	return template.Path(tb, name)
}

// Open opens a new store (Path's file, "s.db") with opts and closes it
// when the test ends; a Close error other than sessiondb.ErrClosed (the
// test closed it) fails the test. opts may not ask for a store Open would
// not create (ReadOnly, NoMigrate): those need a file of their own.
func Open(tb testing.TB, opts *sqlstore.Options) *sqlstore.Store {
	tb.Helper()
	if opts != nil && (opts.ReadOnly || opts.NoMigrate) {
		tb.Fatalf("freshstore: a read-only or unmigrated open needs a database of its own")
	}
	path := Path(tb, "s.db")
	s, err := sqlstore.Open(path, opts)
	if err != nil {
		tb.Fatalf("open store %s: %v", path, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, sessiondb.ErrClosed) {
			tb.Errorf("close store %s: %v", path, err)
		}
	})
	return s
}
