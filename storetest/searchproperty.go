package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
)

// Sizes of searchNeverMisses: enough entries that the index's candidates
// for a rare term of common trigrams far exceed any fixed window of them.
const (
	propSessions       = 200
	propEntriesPerSess = 20
	propQueries        = 300
	propQueriesRace    = 60 // under -race (see raceEnabled), and in the quick run (see internal/longtest)
	propLimit          = 20
	propMinRunes       = 3
	propMaxRunes       = 30
)

// indexCatcher is implemented by stores whose full-text index is built in
// the background (sqlstore): the property must hold on what the index
// answers, not only on the unindexed tail that Search scans.
type indexCatcher interface {
	CatchUpIndex(ctx context.Context) error
}

// propText is a random text over a tiny alphabet, so that almost every
// entry holds almost every trigram: the index's candidates for any term are
// most of the store, while a term of 8 or more characters is held by one
// entry or a few (a rare word made of common trigrams). Some texts are
// ASCII of both cases, some CJK, some both; a few spaces make some
// substrings queries of several terms.
func propText(r *rand.Rand) string {
	var a []rune
	switch pick := r.IntN(20); {
	case pick < 9:
		a = []rune("abcAB")
	case pick < 18:
		a = []rune("北京开会")
	default:
		a = []rune("abc北京")
	}
	n := 40 + r.IntN(120)
	out := make([]rune, n)
	for i := range out {
		if i > 0 && out[i-1] != ' ' && r.IntN(25) == 0 {
			out[i] = ' '
			continue
		}
		out[i] = a[r.IntN(len(a))]
	}
	return strings.TrimSpace(string(out))
}

// holdsAll is what a LIKE scan (ILIKE on PostgreSQL) answers for one row:
// every term occurs in the text, case-insensitively (lower is the text
// lowered).
func holdsAll(lower string, terms []string) bool {
	for _, t := range terms {
		if !strings.Contains(lower, strings.ToLower(t)) {
			return false
		}
	}
	return true
}

// searchNeverMisses is the property of issue 23: for random substrings of
// random stored texts (3 to 30 characters, rare and common, ASCII and
// CJK), whenever a scan of every row finds no more rows than the page
// holds, Search returns exactly those rows. Whatever the scan finds, no
// hit is a row the scan would not find.
func searchNeverMisses(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	seed := uint64(23)
	r := rand.New(rand.NewPCG(seed, seed))
	type row struct {
		session     string
		seq         int64
		text, lower string
	}
	var rows []row
	for i := range propSessions {
		id := fmt.Sprintf("prop-%03d", i)
		var es []sessiondb.Entry
		for j := range propEntriesPerSess {
			text := propText(r)
			rows = append(rows, row{id, int64(j + 1), text, strings.ToLower(text)})
			es = append(es, say("user", text))
		}
		if _, err := s.Commit(ctx, id, sessiondb.Commit{Create: &sessiondb.Session{Title: id}, Append: es}); err != nil {
			t.Fatalf("Commit %s: %v", id, err)
		}
	}
	if c, ok := s.(indexCatcher); ok {
		if err := c.CatchUpIndex(ctx); err != nil {
			t.Fatalf("CatchUpIndex: %v", err)
		}
	}
	queries := propQueries
	if raceEnabled || !longtest.Enabled() {
		queries = propQueriesRace
	}
	checked, rare := 0, 0
	for q := range queries {
		src := []rune(rows[r.IntN(len(rows))].text)
		n := min(len(src), propMinRunes+r.IntN(propMaxRunes-propMinRunes+1))
		start := r.IntN(len(src) - n + 1)
		query := strings.TrimSpace(string(src[start : start+n]))
		terms, err := sessiondb.SearchTerms(query)
		if err != nil {
			continue // only spaces
		}
		var want []string
		for _, w := range rows {
			if holdsAll(w.lower, terms) {
				want = append(want, fmt.Sprintf("%s/%d", w.session, w.seq))
			}
		}
		hits, err := s.Search(ctx, query, sessiondb.SearchOptions{Limit: propLimit})
		if err != nil {
			t.Fatalf("query %d: Search(%q): %v", q, query, err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, fmt.Sprintf("%s/%d", h.SessionID, h.Seq))
		}
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("query %d: Search(%q) returned %s, which does not hold every term %q", q, query, g, terms)
			}
		}
		if len(want) > propLimit {
			if len(got) != propLimit {
				t.Errorf("query %d: Search(%q): %d hits, want a full page of %d (the scan finds %d)", q, query, len(got), propLimit, len(want))
			}
			continue
		}
		checked++
		if len(want) <= 2 {
			rare++
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("query %d: Search(%q) = %v, the scan finds %v", q, query, got, want)
		}
	}
	t.Logf("%d entries in %d sessions; %d queries; %d had at most %d rows to find (%d at most 2)",
		len(rows), propSessions, queries, checked, propLimit, rare)
	if checked < queries/3 || rare < queries/10 {
		t.Fatalf("only %d queries (%d rare) were checked: the generator no longer makes rare terms", checked, rare)
	}
}
