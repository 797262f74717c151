package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestWrongTypedValueIsCorrupt: a damaged record (SQLite checksums none)
// can hold a value of another type than its column's; reading it must
// fail with ErrCorrupt, not with database/sql's scan error.
func TestWrongTypedValueIsCorrupt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "typed.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, sessiondb.Session{ID: "victim"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The tables are STRICT, so only damage can do this: drop STRICT from
	// the schema text, store text in an INTEGER column, put STRICT back.
	damageSchema(t, path, "sessions", ") STRICT", ")/*S*/")
	rawExec(t, path, `UPDATE sessions SET last_seq = 'twelve' WHERE id = 'victim'`)
	damageSchema(t, path, "sessions", ")/*S*/", ") STRICT")
	s, err = Open(path, nil) // not MustOpenStoreAt: its cleanup would report the damage
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.List(ctx, sessiondb.ListOptions{}); !errors.Is(err, sessiondb.ErrCorrupt) {
		t.Errorf("List = %v, want ErrCorrupt", err)
	}
	if _, err := s.Get(ctx, "victim"); !errors.Is(err, sessiondb.ErrCorrupt) {
		t.Errorf("Get = %v, want ErrCorrupt", err)
	}
}

// TestDamagedSearchIndexIsCorrupt: a damaged FTS5 config row makes SQLite
// answer "invalid fts5 file format" with the generic SQLITE_ERROR code.
// Search and the writes that index must say ErrCorrupt, and Reindex must
// repair the index from the log.
func TestDamagedSearchIndexIsCorrupt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fts.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, sessiondb.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "s", sessiondb.Entry{Kind: sessiondb.KindMessage, Body: []byte(`{"role":"user","content":"the lighthouse keeper"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.CatchUpIndex(ctx); err != nil { // the row is in the index, which search then reads
		t.Fatal(err)
	}
	s.Close()
	rawExec(t, IndexPath(path), `UPDATE entries_fts_config SET v = 0 WHERE k = 'version'`)

	s, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Search(ctx, "lighthouse", sessiondb.SearchOptions{}); !errors.Is(err, sessiondb.ErrCorrupt) {
		t.Errorf("Search = %v, want ErrCorrupt", err)
	}
	// The log does not depend on the index: writes go on, and the
	// background indexer reports the damage.
	if _, err := s.Append(ctx, "s", sessiondb.Entry{Kind: sessiondb.KindMessage, Body: []byte(`{"role":"user","content":"more"}`)}); err != nil {
		t.Errorf("Append = %v, want success: the index is not on the write path", err)
	}
	if err := s.CatchUpIndex(ctx); !errors.Is(err, sessiondb.ErrCorrupt) {
		t.Errorf("CatchUpIndex = %v, want ErrCorrupt", err)
	}
	if err := s.Reindex(ctx, false); err != nil {
		t.Fatalf("Reindex: %v", err)
	}
	hits, err := s.Search(ctx, "lighthouse", sessiondb.SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search after Reindex = %+v, %v; want one hit", hits, err)
	}
}
