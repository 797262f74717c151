package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/sessiondb/sessiondb"
)

// Sizes of searchDifferential.
const (
	diffSessions = 12
	diffEntries  = 10
	diffQueries  = 500
)

// diffRunes is the alphabet of searchDifferential's texts: ASCII letters
// whose case partners include non-ASCII runes (İ lowers to i, the Kelvin
// sign to k), a rune that lowers to a longer encoding (Ⱥ, 2 bytes, to ⱥ,
// 3), Greek with its final sigma, a combining accent, an emoji, CJK, LIKE
// and FTS5 syntax, and spaces.
var diffRunes = []rune("aaiIkKsSeE" + "İ\u212Aſ" + "Ⱥⱥ" + "σΣς" + "éÉ\u0301" + "🚀北" + `%_\"()-:` + "    ")

// foldText is the search's contract: every rune lowered by itself
// (unicode.ToLower), then plain substring search.
func foldText(s string) string { return strings.Map(unicode.ToLower, s) }

// diffText is a random text over diffRunes; one in ten holds a NUL.
func diffText(r *rand.Rand) string {
	n := 3 + r.IntN(60)
	out := make([]rune, n)
	for i := range out {
		out[i] = diffRunes[r.IntN(len(diffRunes))]
	}
	if r.IntN(10) == 0 {
		out[r.IntN(n)] = 0
	}
	return string(out)
}

// diffBody wraps text in one of the body shapes DefaultExtractor reads:
// plain content, a content block list with thinking and a tool call.
func diffBody(r *rand.Rand, text string) []byte {
	var v any
	switch r.IntN(3) {
	case 0:
		v = map[string]any{"role": "user", "content": text}
	case 1:
		v = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "thinking", "thinking": text}}}
	default:
		v = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "name": "t", "input": map[string]any{"q": text}}}}
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// diffQuery is a random query: a substring of a stored text with the
// case of some runes changed, sometimes quoted, or random runes.
func diffQuery(r *rand.Rand, texts []string) string {
	var src []rune
	if r.IntN(5) == 0 {
		src = []rune(diffText(r))
	} else {
		src = []rune(texts[r.IntN(len(texts))])
	}
	n := min(len(src), 1+r.IntN(12))
	start := r.IntN(len(src) - n + 1)
	q := slices.Clone(src[start : start+n])
	for i, c := range q {
		switch r.IntN(6) {
		case 0:
			q[i] = unicode.ToUpper(c)
		case 1:
			q[i] = unicode.ToLower(c)
		}
	}
	if r.IntN(4) == 0 {
		return `"` + string(q) + `"`
	}
	return string(q)
}

// searchDifferential compares Search with a brute-force scan, in Go, of
// the text every entry and summary message holds (DefaultExtractor's),
// under the documented contract: a hit holds every term, each rune
// compared lowered (unicode.ToLower), as a substring; hits holding the
// whole query as one phrase score ExactBonus more and come first; every
// snippet highlights a match. Some rows are indexed, some are not yet
// (sqlstore's background index), so both paths answer.
func searchDifferential(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	r := rand.New(rand.NewPCG(7, 11))
	type row struct {
		key  string
		text string // folded
	}
	var rows []row
	var texts []string
	commit := func(id string, create bool) {
		var c sessiondb.Commit
		if create {
			c.Create = &sessiondb.Session{Title: id}
		}
		for j := range diffEntries {
			text := diffText(r)
			body := diffBody(r, text)
			_, got := sessiondb.DefaultExtractor("message", body)
			c.Append = append(c.Append, sessiondb.Entry{Body: body})
			texts = append(texts, text)
			rows = append(rows, row{fmt.Sprintf("%s/%d", id, j+1), foldText(got)})
		}
		if _, err := s.Commit(ctx, id, c); err != nil {
			t.Fatalf("Commit %s: %v", id, err)
		}
	}
	for i := range diffSessions / 2 {
		commit(fmt.Sprintf("d%02d", i), true)
	}
	// One compaction summary, searched like an entry (seq 0).
	sum := diffText(r)
	texts = append(texts, sum)
	sumBody := diffBody(r, sum)
	if _, err := s.Compact(ctx, "d00", sessiondb.Compaction{KeepFromSeq: 1,
		Summary: []sessiondb.Entry{{Body: sumBody}}}); err != nil {
		t.Fatal(err)
	}
	_, sumText := sessiondb.DefaultExtractor("message", sumBody)
	rows = append(rows, row{"d00/0", foldText(sumText)})
	if c, ok := s.(indexCatcher); ok {
		if err := c.CatchUpIndex(ctx); err != nil {
			t.Fatalf("CatchUpIndex: %v", err)
		}
	}
	for i := diffSessions / 2; i < diffSessions; i++ {
		commit(fmt.Sprintf("d%02d", i), true)
	}
	failures := 0
	for q := range diffQueries {
		query := diffQuery(r, texts)
		terms, err := sessiondb.SearchTerms(query)
		hits, serr := s.Search(ctx, query, sessiondb.SearchOptions{Limit: sessiondb.MaxSearchLimit})
		if err != nil {
			if !errors.Is(serr, sessiondb.ErrInvalid) {
				t.Errorf("query %d: Search(%q) = %v, want ErrInvalid (%v)", q, query, serr, err)
			}
			continue
		}
		if serr != nil {
			t.Fatalf("query %d: Search(%q): %v", q, query, serr)
		}
		phrase := foldText(strings.Join(terms, " "))
		var want, exact []string
		for _, w := range rows {
			holds := true
			for _, term := range terms {
				holds = holds && strings.Contains(w.text, foldText(term))
			}
			if holds {
				want = append(want, w.key)
				if strings.Contains(w.text, phrase) {
					exact = append(exact, w.key)
				}
			}
		}
		var got []string
		seenInexact := false
		for _, h := range hits {
			key := fmt.Sprintf("%s/%d", h.SessionID, h.Seq)
			got = append(got, key)
			isExact := h.Score >= 1e6
			if isExact != slices.Contains(exact, key) {
				t.Errorf("query %d: Search(%q): hit %s scored %g, but holding the phrase is %v", q, query, key, h.Score, !isExact)
			}
			if isExact && seenInexact {
				t.Errorf("query %d: Search(%q): exact hit %s after a scattered one", q, query, key)
			}
			seenInexact = seenInexact || !isExact
			if !snippetHighlights(h.Snippet, terms) {
				t.Errorf("query %d: Search(%q): hit %s snippet %q highlights no term", q, query, key, h.Snippet)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("query %d: Search(%q) terms %q = %v, the scan finds %v", q, query, terms, got, want)
		}
		if t.Failed() {
			if failures++; failures > 15 {
				t.Fatal("too many failures")
			}
		}
	}
}

// snippetHighlights reports whether snippet wraps at least one piece of
// text that holds a term (folded), as the contract of Hit.Snippet says
// (matches that touch are wrapped together).
func snippetHighlights(snippet string, terms []string) bool {
	rest := snippet
	for {
		i := strings.Index(rest, sessiondb.HighlightStart)
		if i < 0 {
			return false
		}
		rest = rest[i+len(sessiondb.HighlightStart):]
		j := strings.Index(rest, sessiondb.HighlightEnd)
		if j < 0 {
			return false
		}
		for _, t := range terms {
			if strings.Contains(foldText(rest[:j]), foldText(t)) {
				return true
			}
		}
		rest = rest[j+len(sessiondb.HighlightEnd):]
	}
}
