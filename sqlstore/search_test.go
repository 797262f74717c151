package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "t.db"), &Options{Durability: DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func say(role, text string) sessiondb.Entry {
	return sessiondb.Entry{Body: []byte(fmt.Sprintf(`{"role":%q,"content":%q}`, role, text))}
}

// TestReindex: rebuilding the index from the log (with text extracted
// again by a new extractor) finds what the new extractor sees.
func TestReindex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "r", sessiondb.Commit{Create: &sessiondb.Session{},
		Append: []sessiondb.Entry{{Body: []byte(`{"role":"user","content":"visible","secret":"hidden walrus"}`)}}}); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ctx, "walrus", sessiondb.SearchOptions{}); len(hits) != 0 {
		t.Fatalf("default extractor indexed an unknown field: %+v", hits)
	}
	s.Close()
	all := func(kind string, body json.RawMessage) (string, string) { return "user", string(body) }
	s, err = Open(path, &Options{Extractor: all})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Reindex(ctx, false); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ctx, "walrus", sessiondb.SearchOptions{}); len(hits) != 0 {
		t.Fatal("reindex without re-extraction changed the text")
	}
	if err := s.Reindex(ctx, true); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, "walrus", sessiondb.SearchOptions{})
	if err != nil || len(hits) != 1 || hits[0].Seq != 1 {
		t.Fatalf("after re-extraction: %+v, %v", hits, err)
	}
	if hits, _ := s.Search(ctx, "visible", sessiondb.SearchOptions{}); len(hits) != 1 {
		t.Fatalf("old text still expected to match: %+v", hits)
	}
}
