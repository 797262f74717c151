package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

type searchQuery struct {
	label string
	query string   // what the user types into Store.Search
	like  []string // the LIKE patterns of the equivalent scan (ANDed)
}

// searchQueries spans the selectivities of the Zipf vocabulary: the
// rank-0 word is in most entries, the rank-10000 word in a few hundred
// (pseudo-words also match inside longer words: search is by substring).
func searchQueries() []searchQuery {
	v := vocabulary()
	q := func(label string, terms ...string) searchQuery {
		like := make([]string, len(terms))
		for i, t := range terms {
			like[i] = "%" + t + "%"
		}
		return searchQuery{label, strings.Join(terms, " "), like}
	}
	phrase := v[0] + " " + v[1]
	return []searchQuery{
		q("word rank 0 (most entries)", v[0]),
		q("word rank 10", v[10]),
		q("word rank 100", v[100]),
		q("word rank 1000", v[1000]),
		q("word rank 10000", v[10000]),
		q("two words, ranks 100+200", v[100], v[200]),
		q("two words, ranks 5+1000", v[5], v[1000]),
		{"quoted phrase, ranks 0+1", `"` + phrase + `"`, []string{"%" + phrase + "%"}},
		q("absent word", "zyxwvq"),
		q("2-letter term (scan mode)", "ka"),
		q(rareWordLabel, rareWord()),
	}
}

// The worst case of a trigram search (issue 23): a term held by one entry,
// the oldest, whose trigrams are all common, so that the index's
// candidates are a large part of the store and all but one of them fail
// the check against the whole term.
const rareWordLabel = "rare word, common trigrams"

// rareWord is the worst term the generator's text allows: 4 to 10
// letters whose trigrams are together held by as many entries as possible
// while the word itself is in none (checked on a sample of 20,000
// generated texts; runSearch reports the real counts). It is built
// greedily, one letter at a time, keeping the sample entries that still
// hold every trigram so far. runSearch plants it in the oldest entry.
var rareWord = sync.OnceValue(func() string {
	g := newGen(99)
	texts := make([]string, 20000)
	for i := range texts {
		texts[i] = g.text(220)
	}
	const letters = "etaoinshrdlcumwfgypbvkjxqz"
	holders := func(word string, among []int) []int {
		tri := word[len(word)-3:]
		var out []int
		for _, i := range among {
			if strings.Contains(texts[i], tri) {
				out = append(out, i)
			}
		}
		return out
	}
	all := make([]int, len(texts))
	for i := range all {
		all[i] = i
	}
	var start string
	var startAmong []int
	for _, a := range letters[:9] {
		for _, b := range letters[:9] {
			for _, c := range letters[:9] {
				w := string([]rune{a, b, c})
				if h := holders(w, all); len(h) > len(startAmong) {
					start, startAmong = w, h
				}
			}
		}
	}
	// Grow to each length from 4 to 10; keep the absent word with the
	// most holders of its trigrams.
	var best string
	bestHolders := -1
	for n := 4; n <= 10; n++ {
		w, among := start, startAmong
		for len(w) < n {
			var next string
			var nextAmong []int
			for _, c := range letters {
				cand := w + string(c)
				h := holders(cand, among)
				if len(cand) == n && slices.ContainsFunc(h, func(i int) bool { return strings.Contains(texts[i], cand) }) {
					continue // the word must be absent
				}
				if len(h) > len(nextAmong) {
					next, nextAmong = cand, h
				}
			}
			if next == "" {
				break
			}
			w, among = next, nextAmong
		}
		if len(w) == n && len(among) > bestHolders {
			best, bestHolders = w, len(among)
		}
	}
	return best
})

// plantRare puts rareWord into the content of line.
func plantRare(line []byte) ([]byte, error) {
	var m picoMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	m.Content = m.Content + " " + rareWord()
	return json.Marshal(m)
}

// runSearch: workload 7.
func runSearch(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Unit: "s", Speedup: true,
		SDBDesc:  "Store.Search (FTS5 trigram candidates, exact-phrase + term-frequency ranking, snippets), default limit 50; median over all queries × repetitions",
		BaseDesc: "SELECT … FROM entries WHERE text LIKE '%term%' [AND …] ORDER BY created_at DESC LIMIT 50 on the same database; median over all queries",
		TargetOp: ">=", Target: 100}
	n := e.size(1000000, 50000)
	const perSession = 1000
	path := e.path("search.db")
	t := time.Now()
	st, err := openStore(path, sqlstore.DurabilityNormal)
	if err != nil {
		return r, err
	}
	g := newGen(7)
	var textBytes int64
	for s := 0; s*perSession < n; s++ {
		k := min(perSession, n-s*perSession)
		lines := g.lines(k, 220)
		if s == 0 {
			if lines[0], err = plantRare(lines[0]); err != nil {
				st.Close()
				return r, err
			}
		}
		for _, l := range lines {
			textBytes += int64(len(l))
		}
		if err := buildSession(ctx, st, fmt.Sprintf("s%05d", s), lines, perSession); err != nil {
			st.Close()
			return r, err
		}
		if (s+1)%100 == 0 {
			e.logf("setup: %d entries in %s", (s+1)*perSession, fmtDur(time.Since(t).Seconds()))
		}
	}
	// The index is complete before measuring (it catches up in the
	// background while the entries go in).
	if err := st.CatchUpIndex(ctx); err != nil {
		st.Close()
		return r, err
	}
	if err := st.Close(); err != nil {
		return r, err
	}
	r.Setup = time.Since(t).Seconds()
	startMeasure()
	e.logf("setup: %d entries (%s of bodies) in %s (DurabilityNormal, %d entries per Commit)", n, fmtBytes(textBytes), fmtDur(r.Setup), perSession)

	st, err = sqlstore.Open(path, nil)
	if err != nil {
		return r, err
	}
	defer st.Close()
	raw, err := openRaw(path)
	if err != nil {
		return r, err
	}
	defer raw.Close()

	if err := indexSizes(ctx, raw, r); err != nil {
		r.note("index size: %v", err)
	}

	queries := searchQueries()
	hits := make([]int, len(queries))
	likeHits := make([]int, len(queries))
	perQ := make([][]float64, len(queries))
	perQLike := make([][]float64, len(queries))
	var all []float64
	// Warm-up: every query once, both ways.
	for i, q := range queries {
		h, err := st.Search(ctx, q.query, sessiondb.SearchOptions{})
		if err != nil {
			return r, fmt.Errorf("search %q: %w", q.query, err)
		}
		hits[i] = len(h)
	}
	reps := e.size(1, 2)
	for run := 0; run < e.runs; run++ {
		var sdb, base []float64
		for i, q := range queries {
			for k := 0; k < reps; k++ {
				d, err := timeIt(func() error {
					_, err := st.Search(ctx, q.query, sessiondb.SearchOptions{})
					return err
				})
				if err != nil {
					return r, err
				}
				sdb, perQ[i] = append(sdb, d), append(perQ[i], d)
			}
			var nh int
			d, err := timeIt(func() error {
				var err error
				nh, err = likeScan(ctx, raw, q.like)
				return err
			})
			if err != nil {
				return r, err
			}
			likeHits[i] = nh
			base, perQLike[i] = append(base, d), append(perQLike[i], d)
		}
		all = append(all, sdb...)
		r.SDBRuns, r.BaseRuns = append(r.SDBRuns, median(sdb)), append(r.BaseRuns, median(base))
		e.logf("run %d: Search median %s p99 %s; LIKE median %s", run+1, fmtDur(median(sdb)), fmtDur(percentile(sdb, 99)), fmtDur(median(base)))
	}
	p50, p99 := percentile(all, 50), percentile(all, 99)
	r.note("%d entries in %d sessions, mean body %d bytes; %d queries × %d repetitions per run", n, (n+perSession-1)/perSession, int(textBytes/int64(n)), len(queries), reps)
	r.note("Store.Search latency over all queries and runs: p50 %s, p99 %s, max %s", fmtDur(p50), fmtDur(p99), fmtDur(percentile(all, 100)))
	r.extra("search_p50_s", p50)
	r.extra("search_p99_s", p99)
	var words []float64
	for i, q := range queries {
		if strings.HasPrefix(q.label, "word rank") {
			words = append(words, perQ[i]...)
		}
	}
	r.note("single words (ranks 0-10000): p50 %s, p99 %s (targets: p50 <= 10ms, p99 <= 200ms)",
		fmtDur(percentile(words, 50)), fmtDur(percentile(words, 99)))
	r.extra("word_p50_s", percentile(words, 50))
	r.extra("word_p99_s", percentile(words, 99))
	for i, q := range queries {
		if q.label == rareWordLabel {
			cands, err := trigramHolders(ctx, raw, strings.Trim(q.query, `"`))
			if err != nil {
				return r, err
			}
			r.note("worst case, %s %q: %d hit(s) of %d; %d entries hold every trigram of it; Search p50 %s, max %s",
				q.label, q.query, hits[i], likeHits[i], cands, fmtDur(percentile(perQ[i], 50)), fmtDur(percentile(perQ[i], 100)))
			r.extra("rare_word_p50_s", percentile(perQ[i], 50))
			r.extra("rare_word_max_s", percentile(perQ[i], 100))
		}
	}
	for i, q := range queries {
		r.note("  %-28s %-16q Search %9s (%2d hits)  LIKE %9s (%2d hits)  %7.1f× faster", q.label, q.query,
			fmtDur(median(perQ[i])), hits[i], fmtDur(median(perQLike[i])), likeHits[i], median(perQLike[i])/median(perQ[i]))
	}
	return r, nil
}

// trigramHolders counts the entries the index says hold every trigram of
// term: a lower bound of the candidates Search must check for it (Search
// asks the index for at most 8 of a term's trigrams).
func trigramHolders(ctx context.Context, db *sql.DB, term string) (int, error) {
	var parts []string
	r := []rune(strings.ToLower(term))
	for i := 0; i+3 <= len(r); i++ {
		parts = append(parts, `"`+strings.ReplaceAll(string(r[i:i+3]), `"`, `""`)+`"`)
	}
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM search.entries_fts WHERE entries_fts MATCH ?`, strings.Join(parts, " AND ")).Scan(&n)
	return n, err
}

// openRaw opens a database read-only, with its search index file attached
// as sqlstore attaches it (schema "search"), on one connection.
func openRaw(path string) (*sql.DB, error) {
	u := url.URL{Scheme: "file", OmitHost: true, Path: path}
	q := url.Values{}
	q.Add("mode", "ro")
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", u.String()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	idx := url.URL{Scheme: "file", OmitHost: true, Path: sqlstore.IndexPath(path)}
	if _, err := db.Exec(`ATTACH DATABASE ? AS search`, idx.String()+"?mode=ro"); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// likeScan is the search a database without an index must do.
func likeScan(ctx context.Context, db *sql.DB, patterns []string) (int, error) {
	conds := make([]string, len(patterns))
	args := make([]any, len(patterns))
	for i, p := range patterns {
		conds[i], args[i] = "text LIKE ?", p
	}
	rows, err := db.QueryContext(ctx, `SELECT session_id, seq, text FROM entries WHERE `+strings.Join(conds, " AND ")+
		` ORDER BY created_at DESC LIMIT 50`, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, text string
		var seq int64
		if err := rows.Scan(&id, &seq, &text); err != nil {
			return 0, err
		}
		n++
	}
	return n, rows.Err()
}

// indexSizes reports the FTS index size relative to the data, from the
// dbstat virtual table.
func indexSizes(ctx context.Context, db *sql.DB, r *Result) error {
	rows, err := db.QueryContext(ctx, `SELECT name, sum(pgsize) FROM dbstat GROUP BY name
		UNION ALL SELECT name, sum(pgsize) FROM dbstat('search') GROUP BY name`)
	if err != nil {
		return err
	}
	defer rows.Close()
	sizes := map[string]int64{}
	var total int64
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return err
		}
		sizes[name] = n
		total += n
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var fts int64
	for name, n := range sizes {
		if strings.HasPrefix(name, "entries_fts_") {
			fts += n
		}
	}
	// text is derived from text_stored or the body's content (schema
	// version 10): what the table holds is the bodies and text_stored.
	var textLen, storedLen, bodyLen int64
	if err := db.QueryRowContext(ctx, `SELECT sum(length(CAST(text AS BLOB))), coalesce(sum(length(CAST(text_stored AS BLOB))), 0),
		sum(length(CAST(body AS BLOB))) FROM entries`).Scan(&textLen, &storedLen, &bodyLen); err != nil {
		return err
	}
	// Pages on the free list are in the file but in no b-tree (dbstat
	// does not list them): what merges and deletes left for reuse.
	var free, pageSize int64
	if err := db.QueryRowContext(ctx, `SELECT * FROM pragma_freelist_count, pragma_page_size`).Scan(&free, &pageSize); err != nil {
		return err
	}
	var indexFree int64 // the index file's, at the same page size
	if err := db.QueryRowContext(ctx, `PRAGMA search.freelist_count`).Scan(&indexFree); err != nil {
		return err
	}
	free += indexFree
	entries := sizes["entries"]
	r.note("sizes: entries table %s (bodies %s + text stored apart from them %s; extracted text, derived, %s), its (session_id, seq) index %s, entries_fts_* %s = %.2f× the entries table, %.2f× the extracted text; in b-trees %s (the database and its index file), free pages %s",
		fmtBytes(entries), fmtBytes(bodyLen), fmtBytes(storedLen), fmtBytes(textLen), fmtBytes(sizes["sqlite_autoindex_entries_1"]), fmtBytes(fts),
		float64(fts)/float64(entries), float64(fts)/float64(textLen), fmtBytes(total), fmtBytes(free*pageSize))
	r.extra("entries_table_bytes", float64(entries))
	r.extra("fts_bytes", float64(fts))
	r.extra("fts_over_entries", float64(fts)/float64(entries))
	r.extra("text_bytes", float64(textLen))
	return nil
}
