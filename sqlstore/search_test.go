package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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
	// The preview follows the new text (issue 44).
	infos, _, err := s.List(ctx, sessiondb.ListOptions{})
	if want := `{"role":"user","content":"visible","secret":"hidden walrus"}`; err != nil || len(infos) != 1 || infos[0].Preview != want {
		t.Errorf("preview after re-extraction = %+v, %v; want %q", infos, err, want)
	}
}

// TestSearchFoldsLikeTheScan: a hit is a text holding every term with each
// rune lowered by itself (unicode.ToLower, as sessiondb_rank and
// PostgreSQL compare), before and after the index has seen the row. LIKE,
// the scan's prefilter, folds ASCII only and stops at a NUL, and the
// trigram tokenizer folds İ and other runes otherwise than Go lowers them:
// each dropped rows the contract finds (a text after a NUL; "istanbul" in
// "İstanbul"; "İstanbul" itself once indexed).
func TestSearchFoldsLikeTheScan(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "f.db"), &Options{Durability: DurabilityNormal, IndexDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Commit(ctx, "f", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{
		{Body: []byte(`{"role":"user","content":"a\u0000 nulneedle"}`)},
		say("user", "İstanbul trip"),
		say("user", "\u212Aelvin units"),
		say("user", "istanbul lower"),
	}}); err != nil {
		t.Fatal(err)
	}
	for _, pass := range []string{"unindexed", "indexed"} {
		if pass == "indexed" {
			if err := s.CatchUpIndex(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct{ q, want string }{
			{"nulneedle", "1"},
			{"ne", "1"},
			{"İstanbul", "2 4"},
			{"İSTANBUL", "2 4"},
			{"istanbul", "2 4"},
			{"kelvin", "3"},
			{"\u212Aelvin", "3"},
		} {
			hits, err := s.Search(ctx, tc.q, sessiondb.SearchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, h := range hits {
				got = append(got, h.Seq)
			}
			slices.Sort(got)
			if fmt.Sprint(got) != "["+tc.want+"]" {
				t.Errorf("%s: Search(%q) = %v, want [%s]", pass, tc.q, got, tc.want)
			}
		}
	}
}
