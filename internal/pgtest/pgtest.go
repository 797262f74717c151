// Package pgtest gives tests a PostgreSQL database of their own on the
// server named by $SESSIONDB_TEST_POSTGRES (default
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable), dropped
// when the test ends. Without a server the test is skipped, unless
// SESSIONDB_REQUIRE_POSTGRES=1 (CI), which makes it fail.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/sessiondb/sessiondb/pgstore"
)

// URL creates a database named prefix + 16 hex digits and returns its URL.
func URL(tb testing.TB, prefix string) string {
	tb.Helper()
	base := os.Getenv("SESSIONDB_TEST_POSTGRES")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err == nil {
		err = admin.PingContext(ctx)
	}
	if err != nil {
		if admin != nil {
			admin.Close()
		}
		if os.Getenv("SESSIONDB_REQUIRE_POSTGRES") == "1" {
			tb.Fatalf("SESSIONDB_REQUIRE_POSTGRES=1 but no PostgreSQL server: %v", err)
		}
		tb.Skipf("no PostgreSQL server: %v", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := prefix + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		admin.Close()
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
		// The roles pgstore made for the database's read-only SQL are
		// the server's, not the database's: dropped too.
		if err := pgstore.DropReaderRoles(context.Background(), admin, name); err != nil {
			tb.Errorf("drop the reader roles of %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
