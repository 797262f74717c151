package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestServingKeepsALargerReadCache checks that mcp's store (openMCP) reads
// with serveReadCacheMiB of page cache, and a one-shot command's store
// (openRead) with SQLite's default.
func TestServingKeepsALargerReadCache(t *testing.T) {
	db := tempDB(t)
	cacheKiB := func(st sessiondb.Store) int {
		t.Helper()
		b, ok := st.(sqliteBackend)
		if !ok {
			t.Fatalf("store %T is not an SQLite file's", st)
		}
		rows, err := b.Query(t.Context(), "PRAGMA cache_size")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		kib := 0
		if !rows.Next() || rows.Scan(&kib) != nil {
			t.Fatalf("PRAGMA cache_size: no value (%v)", rows.Err())
		}
		return kib
	}
	newApp := func() *app {
		return &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
			getenv: func(string) string { return "" }, dbFlag: db}
	}

	a := newApp()
	st, _, err := a.openMCP()
	if err != nil {
		t.Fatal(err)
	}
	if got := cacheKiB(st); got != -serveReadCacheMiB<<10 {
		t.Errorf("mcp: cache_size %d, want %d", got, -serveReadCacheMiB<<10)
	}
	st.Close()

	a = newApp()
	st, err = a.openRead(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := cacheKiB(st); got != -2000 {
		t.Errorf("a one-shot read: cache_size %d, want SQLite's default -2000", got)
	}
}
