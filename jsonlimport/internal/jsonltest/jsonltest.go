// Package jsonltest holds the helpers that the tests of package jsonlimport
// and of its format packages share.
package jsonltest

import (
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// OpenStore opens a file-backed SQLite store under tb.TempDir and closes
// it when the test ends.
func OpenStore(tb testing.TB) *sqlstore.Store {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "s.db")
	s, err := sqlstore.Open(path, nil)
	if err != nil {
		tb.Fatalf("open store %s: %v", path, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close store %s: %v", path, err)
		}
	})
	return s
}

// Bodies returns the bodies of es, in order.
func Bodies(es []sessiondb.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, string(e.Body))
	}
	return out
}
