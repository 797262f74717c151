package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to create test databases

	"github.com/sessiondb/sessiondb/pgstore"
)

// pgURL returns the URL of a new, empty PostgreSQL database for one test,
// dropped at its end. The server is $SESSIONDB_TEST_POSTGRES, else the
// local default; without one the test skips, unless
// $SESSIONDB_REQUIRE_POSTGRES=1 (CI), where it fails.
func pgURL(t testing.TB) string {
	t.Helper()
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
			t.Fatalf("SESSIONDB_REQUIRE_POSTGRES=1 but no PostgreSQL server: %v", err)
		}
		t.Skipf("no PostgreSQL server: %v", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := "sessionctl_test_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		admin.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		if err := pgstore.DropReaderRoles(context.Background(), admin, name); err != nil {
			t.Errorf("drop the reader roles of %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
