package jsonlimport

import (
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb/sqlstore"
)

// openStore opens a file-backed SQLite store under tb.TempDir and closes
// it when the test ends.
func openStore(tb testing.TB) *sqlstore.Store {
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
