package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// FuzzSearch feeds arbitrary user input (what `sessionctl search` passes
// on) to Store.Search: it must return hits or ErrInvalid, never a raw
// SQLite or FTS5 error, and never a panic.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{"walrus", `"exact phrase"`, `a-b c:d e* (f)`, `NOT OR AND NEAR(`, `'";--`, "护照", "🚀", `"`, "x\x00y", "ab"} {
		f.Add(q)
	}
	ctx := context.Background()
	s, err := Open(filepath.Join(f.TempDir(), "fuzz.db"), &Options{Durability: DurabilityNormal})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	if _, err := s.Commit(ctx, "f", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{
		say("user", `a walrus said "exact phrase" with a-b c:d e* (f) NOT OR AND NEAR( 护照 🚀`)}}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		hits, err := s.Search(ctx, q, sessiondb.SearchOptions{Limit: 5})
		if err != nil {
			if !errors.Is(err, sessiondb.ErrInvalid) {
				t.Fatalf("Search(%q) = %v: neither results nor ErrInvalid", q, err)
			}
			return
		}
		for _, h := range hits {
			if h.SessionID != "f" || h.Seq != 1 {
				t.Fatalf("Search(%q) returned a hit that does not exist: %+v", q, h)
			}
		}
		if strings.TrimSpace(q) == "walrus" && len(hits) != 1 {
			t.Fatalf("Search(%q) lost the entry", q)
		}
	})
}
