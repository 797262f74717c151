package pgstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/storetest"
)

// The tests run against the server named by $SESSIONDB_TEST_POSTGRES, else
// the local default. TestMain creates a database with a random name for
// this test binary and drops it at the end; every store gets a schema of
// its own in it (search_path), which is much faster than a database per
// store: a fresh one, or one an earlier test's store left, emptied
// (schemapool_test.go). With no server reachable the tests skip, unless
// $SESSIONDB_REQUIRE_POSTGRES=1 (CI), where they fail.
const (
	serverEnv  = "SESSIONDB_TEST_POSTGRES"
	requireEnv = "SESSIONDB_REQUIRE_POSTGRES"
	defaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	// testDBEnv hands the test database's URL to child processes.
	testDBEnv = "SESSIONDB_PGSTORE_TEST_DB"
)

var (
	// testDB is the URL of this binary's database ("" when no server).
	testDB string
	// skipReason says why no server is available.
	skipReason string
)

func TestMain(m *testing.M) {
	if u := os.Getenv(testDBEnv); u != "" {
		testDB = u // a child process: the parent owns the database
		os.Exit(m.Run())
	}
	drop, err := createTestDB()
	if err != nil {
		skipReason = err.Error()
		if os.Getenv(requireEnv) == "1" {
			fmt.Fprintf(os.Stderr, "pgstore: %s=1 but no PostgreSQL server: %v\n", requireEnv, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	testDBConns.Lock()
	if testDBConns.db != nil {
		testDBConns.db.Close()
	}
	testDBConns.Unlock()
	if drop != nil {
		if err := drop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgstore: drop test database: %v\n", err)
		}
	}
	os.Exit(code)
}

func serverURL() string {
	if u := os.Getenv(serverEnv); u != "" {
		return u
	}
	return defaultURL
}

// withDatabase returns base with its database replaced by name.
func withDatabase(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// withSchema returns base with search_path set to schema then public (where
// TestMain installs pg_trgm, once per database).
func withSchema(base, schema string) string {
	u, err := url.Parse(base)
	if err != nil {
		panic(err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

func randomName(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func createTestDB() (drop func() error, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", serverURL())
	if err != nil {
		return nil, err
	}
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		return nil, fmt.Errorf("connect %s: %w", redact(serverURL()), err)
	}
	name := randomName("sessiondb_test_")
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		admin.Close()
		return nil, fmt.Errorf("create database: %w", err)
	}
	drop = func() error {
		defer admin.Close()
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
			return err
		}
		return DropReaderRoles(context.Background(), admin, name)
	}
	if testDB, err = withDatabase(serverURL(), name); err != nil {
		return drop, err
	}
	db, err := sql.Open("pgx", testDB)
	if err != nil {
		return drop, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`); err != nil {
		return drop, fmt.Errorf("create extension pg_trgm (needs postgresql-contrib and a role allowed to create it): %w", err)
	}
	return drop, nil
}

// requireServer skips (or, under $SESSIONDB_REQUIRE_POSTGRES=1, fails) the
// test when no server is reachable.
func requireServer(tb testing.TB) {
	tb.Helper()
	if testDB == "" {
		if os.Getenv(requireEnv) == "1" {
			tb.Fatalf("no PostgreSQL server (%s): %s", serverEnv, skipReason)
		}
		tb.Skipf("no PostgreSQL server (set %s): %s", serverEnv, skipReason)
	}
}

// testDBConns is one pool on testDB for the tests' own statements
// (creating schemas, emptying them for reuse): a new connection costs a
// backend start, tens of ms on two busy cores.
var testDBConns struct {
	sync.Mutex
	db *sql.DB
}

// testDBPool returns testDBConns' pool, opening it on first use.
func testDBPool(tb testing.TB) *sql.DB {
	tb.Helper()
	requireServer(tb)
	testDBConns.Lock()
	defer testDBConns.Unlock()
	if testDBConns.db == nil {
		db, err := sql.Open("pgx", testDB)
		if err != nil {
			tb.Fatal(err)
		}
		testDBConns.db = db
	}
	return testDBConns.db
}

// newSchema creates a fresh schema and returns a URL that uses it.
func newSchema(tb testing.TB) string {
	tb.Helper()
	schema := randomName("s_")
	if _, err := testDBPool(tb).Exec(`CREATE SCHEMA ` + schema); err != nil {
		tb.Fatalf("create schema: %v", err)
	}
	return withSchema(testDB, schema)
}

// MustOpenStore opens a store on a schema of the test database that Open
// migrated, fresh or emptied after an earlier test (schemas, see
// schemapool_test.go), and closes it in a cleanup. Tests of what Open does
// to a new schema (migrations, a first open), and tests whose schema
// other processes write to, call newSchema and Open.
func MustOpenStore(tb testing.TB, opts *Options) *Store {
	tb.Helper()
	return schemas.open(tb, opts, false)
}

func mustOpenURL(tb testing.TB, u string, opts *Options) *Store {
	tb.Helper()
	s, err := Open(context.Background(), u, opts)
	if err != nil {
		tb.Fatalf("open %s: %v", u, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestConformance runs the backend-independent suite, each subtest on a
// store of its own: a schema Open migrated, fresh or emptied after an
// earlier test (schemapool_test.go). A subtest whose store changed its
// own schema fails.
func TestConformance(t *testing.T) {
	requireServer(t)
	storetest.Run(t, func(t *testing.T) sessiondb.Store {
		return schemas.open(t, nil, true)
	})
}
