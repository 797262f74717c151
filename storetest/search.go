package storetest

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
)

func searchTests() []testCase {
	return []testCase{
		{name: "MixedLanguages", fn: searchMixedLanguages},
		{name: "Pagination", fn: searchPagination},
		{name: "TiedPagination", fn: searchTiedPagination},
		{name: "HostileQueries", fn: searchHostileQueries},
		{name: "ExactPhraseFirst", fn: searchRanksExactPhraseFirst},
		{name: "ForgetsDeletedAndPruned", fn: searchForgetsDeletedAndPruned},
		{name: "WhileWriting", fn: searchWhileWriting},
		{name: "ReadYourWrites", fn: searchReadYourWrites},
		{name: "UsageLedger", fn: usageLedger},
		{name: "NeverMisses", fn: searchNeverMisses},
		{name: "DeepPagination", fn: searchDeepPagination},
		{name: "Differential", fn: searchDifferential},
	}
}

func say(role, text string) sessiondb.Entry {
	return sessiondb.Entry{Body: []byte(fmt.Sprintf(`{"role":%q,"content":%q}`, role, text))}
}

func hitSeqs(hits []sessiondb.Hit) string {
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s/%d ", h.SessionID, h.Seq)
	}
	return strings.TrimSpace(b.String())
}

func searchMixedLanguages(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	corpus := map[string][]sessiondb.Entry{
		"zh":    {say("user", "我们明天去北京开会，记得带上护照"), say("assistant", "好的，我会提醒你带护照。")},
		"fr":    {say("user", "La crème brûlée était délicieuse à Montréal"), say("assistant", "Café au lait, s'il vous plaît")},
		"emoji": {say("user", "deploy 🚀 the rocket build 🚀🚀"), say("assistant", "👩‍💻 shipped it")},
		"en":    {say("user", "Please refactor the parser module"), say("tool", "grep: parser.go:12: func Parse")},
		"ja":    {say("user", "東京タワーの高さは何メートルですか")},
	}
	for id, entries := range corpus {
		if _, err := s.Commit(ctx, id, sessiondb.Commit{Create: &sessiondb.Session{Title: "lang " + id}, Append: entries}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		q, want string
		opts    sessiondb.SearchOptions
	}{
		{"北京开会", "zh/1", sessiondb.SearchOptions{}},
		{"护照", "zh/1 zh/2", sessiondb.SearchOptions{}}, // two characters: scan mode
		{"東京タワー", "ja/1", sessiondb.SearchOptions{}},
		{"brûlée", "fr/1", sessiondb.SearchOptions{}},
		{"MONTRÉAL", "fr/1", sessiondb.SearchOptions{}},
		{"🚀", "emoji/1", sessiondb.SearchOptions{}},
		{"👩‍💻 shipped", "emoji/2", sessiondb.SearchOptions{}},
		{"parser", "en/1", sessiondb.SearchOptions{Role: "user"}},
		{"parser", "en/2", sessiondb.SearchOptions{Role: "tool"}},
		{"nothing-like-this", "", sessiondb.SearchOptions{}},
	} {
		hits, err := s.Search(ctx, tc.q, tc.opts)
		if err != nil {
			t.Fatalf("Search(%q): %v", tc.q, err)
		}
		got := hitSeqs(hits)
		if got != tc.want {
			t.Errorf("Search(%q, %+v) = %q, want %q", tc.q, tc.opts, got, tc.want)
		}
		for _, h := range hits {
			if !strings.Contains(h.Snippet, sessiondb.HighlightStart) {
				t.Errorf("Search(%q): snippet %q has no highlight", tc.q, h.Snippet)
			}
			if h.SessionTitle != "lang "+h.SessionID {
				t.Errorf("hit title %q", h.SessionTitle)
			}
		}
	}
}

func searchPagination(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	var entries []sessiondb.Entry
	for i := range 25 {
		entries = append(entries, say("user", fmt.Sprintf("page marker %d", i)))
	}
	if _, err := s.Commit(ctx, "pg", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for off := 0; off < 30; off += 10 {
		hits, err := s.Search(ctx, "marker", sessiondb.SearchOptions{Limit: 10, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(10, 25-off); len(hits) != want {
			t.Fatalf("page at %d has %d hits, want %d", off, len(hits), want)
		}
		for _, h := range hits {
			if seen[h.Seq] {
				t.Fatalf("seq %d on two pages", h.Seq)
			}
			seen[h.Seq] = true
		}
	}
	if len(seen) != 25 {
		t.Fatalf("pages covered %d entries, want 25", len(seen))
	}
}

// searchTiedPagination pages one hit at a time through hits that tie on
// everything the order names before the row itself: summary messages of
// one compaction (all at seq 0 of one session), of one length and one
// time, each holding the term once. Every one must come exactly once.
func searchTiedPagination(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var summary []sessiondb.Entry
	for i := range 7 {
		e := say("system", fmt.Sprintf("tiedterm summary %c", 'a'+i))
		e.CreatedAt = at
		summary = append(summary, e)
	}
	if _, err := s.Commit(ctx, "tie", sessiondb.Commit{Create: &sessiondb.Session{},
		Append: []sessiondb.Entry{say("user", "hello"), say("user", "world")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(ctx, "tie", sessiondb.Compaction{KeepFromSeq: 2, Summary: summary}); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1, 2, 3} {
		seen := map[string]bool{}
		for off := 0; off < len(summary); off += limit {
			hits, err := s.Search(ctx, "tiedterm", sessiondb.SearchOptions{Limit: limit, Offset: off})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if seen[h.Snippet] {
					t.Fatalf("pages of %d: %q on two pages", limit, h.Snippet)
				}
				seen[h.Snippet] = true
			}
		}
		if len(seen) != len(summary) {
			t.Fatalf("pages of %d covered %d summary messages, want %d", limit, len(seen), len(summary))
		}
	}
}

// searchDeepPagination pages through more hits than one ranking window
// holds (see SearchOptions): every hit must come exactly once, whatever
// the page size, even though the store ranks a common term's hits a window
// at a time. The oldest entries score highest (the term repeated in a
// short text), so a store whose ranked set grew with the offset would show
// them again on a deep page or skip others.
func searchDeepPagination(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	const n = 2600
	var entries []sessiondb.Entry
	for i := range n {
		text := fmt.Sprintf("%s filler text number %d of a deep page test", strings.Repeat("deepterm ", 1+(n-i)/400), i)
		entries = append(entries, say("user", text))
	}
	if _, err := s.Commit(ctx, "deep", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
		t.Fatal(err)
	}
	if c, ok := s.(indexCatcher); ok {
		if err := c.CatchUpIndex(ctx); err != nil {
			t.Fatalf("CatchUpIndex: %v", err)
		}
	}
	// A page size that divides nothing runs in the long run only: each
	// page ranks the window again (see internal/longtest).
	limits := []int{100}
	if longtest.Enabled() {
		limits = append(limits, 37)
	}
	for _, limit := range limits {
		seen := map[int64]int{}
		for off := 0; ; off += limit {
			hits, err := s.Search(ctx, "deepterm", sessiondb.SearchOptions{Limit: limit, Offset: off})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if at, ok := seen[h.Seq]; ok {
					t.Fatalf("limit %d: seq %d on the page at offset %d and again at offset %d", limit, h.Seq, at, off)
				}
				seen[h.Seq] = off
			}
			if len(hits) < limit {
				break
			}
		}
		if len(seen) != n {
			t.Fatalf("limit %d: the pages covered %d entries, want %d", limit, len(seen), n)
		}
	}
}

func searchHostileQueries(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	if _, err := s.Commit(ctx, "h", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{
		say("user", `run "rm -rf" (carefully) with key:value and a*b NOT this OR that NEAR(x)`)}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`"rm -rf"`, `(carefully)`, `key:value`, `a*b`, `NOT`, `OR that`, `NEAR(x)`, `"unclosed`, `-rf`, `*`, `"`, `'`, `;DROP TABLE entries;--`, `\`, `^`} {
		hits, err := s.Search(ctx, q, sessiondb.SearchOptions{})
		if err != nil && !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("Search(%q) = %v: neither results nor ErrInvalid", q, err)
		}
		if strings.Contains(fmt.Sprint(err), "syntax") {
			t.Errorf("Search(%q) leaked a syntax error: %v", q, err)
		}
		_ = hits
	}
	for _, q := range []string{`"rm -rf"`, `(carefully)`, `key:value`, `a*b`, `NEAR(x)`} {
		if hits, _ := s.Search(ctx, q, sessiondb.SearchOptions{}); len(hits) != 1 {
			t.Errorf("Search(%q) found %d hits, want the entry", q, len(hits))
		}
	}
	for _, q := range []string{"", "   ", strings.Repeat("x", sessiondb.MaxQueryLen+1)} {
		if _, err := s.Search(ctx, q, sessiondb.SearchOptions{}); !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("Search(%q) = %v, want ErrInvalid", q, err)
		}
	}
	if _, err := s.Search(ctx, "x", sessiondb.SearchOptions{SessionID: "nope"}); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("search in unknown session = %v", err)
	}
}

func searchRanksExactPhraseFirst(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	entries := []sessiondb.Entry{
		say("user", "the database was locked again, and then the migration failed"),
		say("user", "migration failed because the database was locked"),
		say("user", "locked database, locked database, locked database everywhere"),
	}
	if _, err := s.Commit(ctx, "r", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, "database was locked", sessiondb.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("hits %q, want the two entries holding all terms", hitSeqs(hits))
	}
	for _, h := range hits {
		if h.Score < 1e5 {
			t.Errorf("exact phrase hit %d scored %f", h.Seq, h.Score)
		}
	}
	hits, err = s.Search(ctx, "locked database", sessiondb.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Entry 3 holds the exact phrase; 1 and 2 hold the words apart.
	if len(hits) != 3 || hits[0].Seq != 3 || hits[0].Score <= hits[1].Score {
		t.Fatalf("ranking %q (scores %v), want entry 3 first", hitSeqs(hits), []float64{hits[0].Score, hits[1].Score})
	}
}

func searchForgetsDeletedAndPruned(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	if _, err := s.Commit(ctx, "p", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{
		say("user", "ephemeral walrus"), say("user", "durable walrus")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "d", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{say("user", "doomed walrus")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(ctx, "p", sessiondb.Compaction{KeepFromSeq: 2,
		Summary: []sessiondb.Entry{say("system", "summary: a walrus was ephemeral")}}); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ctx, "walrus", sessiondb.SearchOptions{Limit: 10}); len(hits) != 4 {
		t.Fatalf("before: %q, want 4 hits (3 entries + summary)", hitSeqs(hits))
	}
	if n, err := s.Prune(ctx, "p"); err != nil || n != 1 {
		t.Fatalf("prune = %d, %v", n, err)
	}
	if err := s.Delete(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	hits, _ := s.Search(ctx, "walrus", sessiondb.SearchOptions{})
	if got := hitSeqs(hits); got != "p/0 p/2" && got != "p/2 p/0" {
		t.Fatalf("after prune+delete: %q, want the summary and entry 2 of p", got)
	}
}

func searchWhileWriting(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	for i := range 4 {
		if _, err := s.Create(ctx, sessiondb.Session{ID: fmt.Sprint("w", i)}); err != nil {
			t.Fatal(err)
		}
	}
	const perWriter = 50
	var wg sync.WaitGroup
	errc := make(chan error, 16)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range perWriter {
				if _, err := s.Append(ctx, fmt.Sprint("w", i), say("user", fmt.Sprintf("needle %d-%d haystack", i, j))); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for range 30 {
				hits, err := s.Search(ctx, "needle", sessiondb.SearchOptions{Limit: sessiondb.MaxSearchLimit})
				if err != nil {
					errc <- err
					return
				}
				if len(hits) < last {
					errc <- fmt.Errorf("hits went from %d down to %d", last, len(hits))
					return
				}
				last = len(hits)
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	hits, _ := s.Search(ctx, "needle", sessiondb.SearchOptions{Limit: sessiondb.MaxSearchLimit})
	if len(hits) != 4*perWriter {
		t.Fatalf("%d hits, want %d", len(hits), 4*perWriter)
	}
}

func usageLedger(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	u := func(model string, in, out int64, cost float64) sessiondb.Usage {
		return sessiondb.Usage{Provider: "p", Model: model, InputTokens: in, OutputTokens: out, Cost: cost}
	}
	if _, err := s.Commit(ctx, "a", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{say("user", "x")},
		Usage: []sessiondb.Usage{u("m1", 10, 5, 0.5), u("m2", 1, 1, 0.25)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "a", sessiondb.Commit{Append: []sessiondb.Entry{say("assistant", "y")},
		Usage: []sessiondb.Usage{{Seq: 2, Provider: "p", Model: "m1", InputTokens: 100, CacheReadTokens: 7, ReasoningTokens: 3, Cost: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "b", sessiondb.Commit{Create: &sessiondb.Session{}, Usage: []sessiondb.Usage{u("m1", 1000, 0, 2)}}); err != nil {
		t.Fatal(err)
	}
	tot, err := s.UsageTotals(ctx, "a")
	if err != nil || tot.Calls != 3 || tot.InputTokens != 111 || tot.OutputTokens != 6 || tot.CacheReadTokens != 7 || tot.ReasoningTokens != 3 || math.Abs(tot.Cost-1.75) > 1e-9 {
		t.Fatalf("totals of a = %+v, %v", tot, err)
	}
	// Compaction and truncation do not touch the ledger; a fork starts its own.
	if _, err := s.Truncate(ctx, "a", 0); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.UsageTotals(ctx, "a"); again != tot {
		t.Fatalf("truncate changed usage: %+v", again)
	}
	if _, err := s.Fork(ctx, "a", 0, "a2"); err != nil {
		t.Fatal(err)
	}
	if fork, _ := s.UsageTotals(ctx, "a2"); fork.Calls != 0 {
		t.Fatalf("fork inherited usage %+v", fork)
	}
	byModel, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByModel: true})
	if err != nil || len(byModel) != 2 || byModel[0].Model != "m1" || byModel[0].InputTokens != 1110 || byModel[1].Calls != 1 {
		t.Fatalf("by model = %+v, %v", byModel, err)
	}
	byDay, err := s.UsageReport(ctx, sessiondb.UsageQuery{BySession: true, ByDay: true})
	if err != nil || len(byDay) != 2 || byDay[0].SessionID != "a" || len(byDay[0].Day) != 10 {
		t.Fatalf("by session/day = %+v, %v", byDay, err)
	}
	if err := s.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	all, _ := s.UsageReport(ctx, sessiondb.UsageQuery{})
	if len(all) != 1 || all[0].Calls != 1 || all[0].InputTokens != 1000 {
		t.Fatalf("grand total after delete = %+v", all)
	}
	if _, err := s.Commit(ctx, "b", sessiondb.Commit{Usage: []sessiondb.Usage{{Seq: 99}}}); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Fatalf("usage pointing past the log = %v", err)
	}
}

// searchReadYourWrites: a write acknowledged before Search starts is found
// by it, whatever the store does to index it (in the same transaction, in
// batches later, or not at all yet). Writers append unique words and search
// for each right after the append returns; others search meanwhile.
func searchReadYourWrites(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	const writers, per = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		id := fmt.Sprintf("ryw-%d", w)
		if _, err := s.Create(ctx, sessiondb.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				word := fmt.Sprintf("ryw%dx%03dq", w, i)
				sess, err := s.Append(ctx, id, say("user", "just written: "+word))
				if err != nil {
					errs <- err
					return
				}
				hits, err := s.Search(ctx, word, sessiondb.SearchOptions{})
				if err != nil {
					errs <- err
					return
				}
				if len(hits) != 1 || hits[0].SessionID != id || hits[0].Seq != sess.LastSeq {
					errs <- fmt.Errorf("Search(%q) right after its append (seq %d) = %q", word, sess.LastSeq, hitSeqs(hits))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// And all of them at once, with the words' common part.
	hits, err := s.Search(ctx, "just written", sessiondb.SearchOptions{Limit: sessiondb.MaxSearchLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != writers*per {
		t.Fatalf("Search(\"just written\") = %d hits, want %d", len(hits), writers*per)
	}
}
