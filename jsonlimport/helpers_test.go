package jsonlimport

import (
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// openStore opens a file-backed SQLite store under tb.TempDir and closes
// it when the test ends.
func openStore(tb testing.TB) *sqlstore.Store { return jsonltest.OpenStore(tb) }
