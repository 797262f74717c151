package main

import (
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for the tests that open the server themselves

	"github.com/sessiondb/sessiondb/internal/pgtest"
)

// pgURL returns the URL of a new, empty PostgreSQL database for one test,
// dropped at its end. The server is $SESSIONDB_TEST_POSTGRES, else the
// local default; without one the test skips, unless
// $SESSIONDB_REQUIRE_POSTGRES=1 (CI), where it fails.
func pgURL(t testing.TB) string {
	t.Helper()
	return pgtest.URL(t, "sessionctl_test_")
}
