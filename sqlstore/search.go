package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// maxTrigramsPerTerm bounds the trigrams of one term that go into the
// index query: a long term is found by a spread of its trigrams (the first
// and the last among them), and every candidate is then checked against
// the whole term.
const maxTrigramsPerTerm = 8

// SearchHits is the search of engine.Engine.Search over SQLite's index.
//
// A query whose terms all have three or more characters is answered by the
// trigram index: the candidates are the rows holding every trigram of
// every term (the index stores no positions), each is checked against its
// text for every whole term (case-insensitive), and the hits are ranked by
// sessiondb_rank: the whole query as one phrase first, then term frequency
// against text length. The candidates are read newest first until
// backend.SearchWindow verified hits per index are found (the blocks of
// 1,000 that cover offset+limit) or the candidates end: a word found in
// most entries answers in milliseconds by ranking its newest hits instead
// of every one, and a rare word made of common trigrams reads as many
// candidates as it takes to find its hits, so no hit the page needs is
// ever dropped. Hits are ranked within blocks of 1,000, newest block
// first (backend.SearchBlock), so paging never repeats or skips a hit. A query with a shorter term
// is answered by a scan of the extracted text (the index cannot see terms
// that short), exact phrase first, then newest first.
//
// Search sees every committed write: rows after the index cursor (committed
// but not yet indexed, by this process or another) are scanned and ranked
// the same way. When that tail is large and the store can write, Search
// first lets the index catch up.
func (d engineDriver) SearchHits(ctx context.Context, etx engine.Tx, terms []string, short bool, opts sessiondb.SearchOptions, limit int) ([]engine.HitRow, error) {
	tx := etx.(*sqlx.Tx)
	var cursors [2]int64
	for i, src := range ftsSources {
		c, err := d.s.indexCursor(ctx, tx, src)
		if err != nil {
			return nil, err
		}
		cursors[i] = c
	}
	var rows []engine.HitRow
	q, args := searchSQL(terms, short, cursors, opts, limit)
	if err := tx.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	return rows, nil
}

// PrepareSearch lets the index catch up first when its unindexed tail is
// large (catchUpForSearch).
func (d engineDriver) PrepareSearch(ctx context.Context, _ []string) error {
	return d.s.catchUpForSearch(ctx)
}

// catchUpForSearch indexes a large unindexed tail before a search, so that
// the scan of the tail stays small. A small tail is left to the background
// indexer: scanning it costs less than a write.
func (s *Store) catchUpForSearch(ctx context.Context) error {
	if s.indexKick == nil {
		return nil // no background indexer (IndexDelay < 0, or an older schema)
	}
	var tail int64
	err := s.read(ctx, func(tx *sqlx.Tx) error {
		for _, src := range ftsSources {
			n, err := s.unindexed(ctx, tx, src)
			if err != nil {
				return err
			}
			tail += n
		}
		return nil
	})
	if err != nil || tail <= searchCatchUp {
		return err
	}
	return s.CatchUpIndex(ctx)
}

// maxTrigramVariants bounds the spellings of one trigram the index query
// asks for (see trigramMatch); a trigram with more is not used.
const maxTrigramVariants = 16

// trigramVariants returns every spelling of the trigram tri that a text
// search finds for it can hold (engine.FoldClass of each rune), each a
// quoted FTS5 string, or nil when there are more than
// maxTrigramVariants. The tokenizer folds case with its own tables, which
// differ from Go's lowering (it leaves İ as it is, which Go lowers to i,
// and knows no case pair newer than its Unicode version): asking for every
// spelling finds the row whatever the tokenizer made of it. ASCII capitals
// are left out: the tokenizer folds ASCII exactly as Go does.
func trigramVariants(tri []rune) []string {
	out := []string{""}
	for _, r := range tri {
		var next []string
		for _, c := range engine.FoldClass(r) {
			if 'A' <= c && c <= 'Z' {
				continue
			}
			for _, p := range out {
				next = append(next, p+string(c))
			}
		}
		if len(next) > maxTrigramVariants {
			return nil
		}
		out = next
	}
	for i, v := range out {
		out[i] = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
	}
	return out
}

// trigramMatch builds the FTS5 query for terms: for each term, up to
// maxTrigramsPerTerm of its trigrams (the first and the last among them),
// each the OR of its spellings (trigramVariants; every one a quoted
// string, so no character of the input is query syntax), all joined with
// AND. It returns "" when no term has a trigram it can ask for: the query
// must then be answered by a scan.
func trigramMatch(terms []string) string {
	seen := map[string]bool{}
	var parts []string
	for _, t := range terms {
		r := []rune(t)
		var usable [][]string
		for i := 0; i+3 <= len(r); i++ {
			if v := trigramVariants(r[i : i+3]); v != nil {
				usable = append(usable, v)
			}
		}
		n := len(usable)
		step := 1
		if n > maxTrigramsPerTerm {
			step = (n + maxTrigramsPerTerm - 2) / (maxTrigramsPerTerm - 1)
		}
		for i := 0; i < n; i += step {
			if i+step >= n {
				i = n - 1 // always the last one
			}
			part := usable[i][0]
			if len(usable[i]) > 1 {
				part = "(" + strings.Join(usable[i], " OR ") + ")"
			}
			if !seen[part] {
				seen[part] = true
				parts = append(parts, part)
			}
		}
	}
	return strings.Join(parts, " AND ")
}

// searchSQL builds the query over entries and summary messages. User terms
// only ever reach SQLite as bound parameters.
func searchSQL(terms []string, short bool, cursors [2]int64, opts sessiondb.SearchOptions, limit int) (string, []any) {
	filter, fargs := backend.SearchFilter(opts)
	where := ""
	if len(filter) > 0 {
		where = " AND " + strings.Join(filter, " AND ")
	}
	packed := strings.Join(terms, "\x1f")
	phrase := strings.Join(terms, " ")
	summaries := `(SELECT m.id, m.kind, m.role, m.text, m.created_at, c.session_id
		FROM summary_messages m JOIN compactions c ON c.id = m.compaction_id)`
	// Each branch yields candidate rows x; the outer query ranks them.
	var branches []string
	var args []any
	// Every row a branch reads is checked by sessiondb_holds (holds.go),
	// the rank's own rule (each term occurs in the folded text) without
	// the rank's counting: only the rows that hold every term are ranked.
	// It replaced LIKE (with a GLOB for each spelling outside ASCII that
	// folds to a term's letter), which it beats several times over on
	// long texts and twice on short ones (BenchmarkCandidateCheck). Its
	// argument, packed, follows the branch's own condition.
	const holds = ` AND sessiondb_holds(CAST(x.text AS BLOB), ?)`
	branch := func(from, cond string, summary int, condArgs ...any) {
		branches = append(branches, fmt.Sprintf(`SELECT x.id, x.session_id, %s AS seq, %d AS summary, x.kind, x.role,
			x.created_at, sessiondb_rank(CAST(x.text AS BLOB), ?, ?) AS score FROM %s WHERE %s%s%s`,
			map[int]string{0: "x.seq", 1: "0"}[summary], summary, from, cond, holds, where))
		args = append(args, packed, phrase)
		args = append(args, condArgs...)
		args = append(args, packed)
		args = append(args, fargs...)
	}
	order := "block, score DESC, session_id, seq"
	block := backend.SearchBlock()
	match := ""
	if !short {
		// A query none of whose trigrams the index can be asked for is
		// answered by the scan.
		match = trigramMatch(terms)
		short = match == ""
	}
	if short {
		// Scan mode: every row of both tables.
		branch("entries x", "1", 0)
		branch(summaries+" x", "1", 1)
		order = "score >= " + fmt.Sprint(engine.ExactBonus) + " DESC, created_at DESC, session_id, seq"
		block = "0" // every row is read: one block
	} else {
		// The index's candidates, newest first, each checked against the
		// whole terms; reading stops at the window's count of verified
		// hits (or when the candidates end), so a rare term made of
		// common trigrams still finds its only hit, however many older
		// candidates lack it, and a common term ranks its newest blocks
		// of hits instead of every one.
		window := backend.SearchWindow(opts.Offset, limit)
		verified := func(fts, from string, summary int) {
			branches = append(branches, fmt.Sprintf(`SELECT * FROM (SELECT x.id, x.session_id, %s AS seq, %d AS summary,
				x.kind, x.role, x.created_at, sessiondb_rank(CAST(x.text AS BLOB), ?, ?) AS score
				FROM %s f JOIN %s x ON x.id = f.rowid
				WHERE %s MATCH ?%s%s ORDER BY f.rowid DESC LIMIT ?)`,
				map[int]string{0: "x.seq", 1: "0"}[summary], summary, "search."+fts, from, fts, holds, where))
			args = append(args, packed, phrase, match, packed)
			args = append(args, fargs...)
			args = append(args, window)
		}
		// A cursor of -1: no usable index (indexCursor), every row is
		// in the tail.
		if cursors[0] >= 0 {
			verified("entries_fts", "entries", 0)
		}
		branch("entries x", "x.id > ?", 0, max(cursors[0], 0))
		if cursors[1] >= 0 {
			verified("summary_fts", summaries, 1)
		}
		branch(summaries+" x", "x.id > ?", 1, max(cursors[1], 0))
	}
	// The rank is computed once per candidate (MATERIALIZED), then the
	// hits are numbered into ranking blocks (backend.SearchBlock), the
	// page is cut (ties end at the row itself: summary messages share seq
	// 0, and a page must neither repeat nor skip a hit), and only the page's rows read their text for the
	// snippet and their session's title.
	q := `WITH h AS MATERIALIZED (` + strings.Join(branches, "\nUNION ALL\n") + `),
		v AS (SELECT *, ` + block + ` AS block FROM h WHERE score > 0)
		SELECT h.id, h.session_id, h.seq, h.summary, h.kind, h.role, h.created_at, h.score, s.title,
			CASE WHEN h.summary THEN (SELECT text FROM summary_messages WHERE id = h.id)
				ELSE (SELECT text FROM entries WHERE id = h.id) END AS snippet
		FROM (SELECT * FROM v ORDER BY ` + order + `, summary, id LIMIT ? OFFSET ?) h
		JOIN sessions s ON s.id = h.session_id
		ORDER BY ` + strings.ReplaceAll(strings.ReplaceAll(order, "created_at", "h.created_at"), "block, ", "h.block, ") + `, h.summary, h.id`
	args = append(args, limit, opts.Offset)
	return q, args
}

// Reindex rebuilds the full-text index from the log. With reextract, the
// role and text of every entry and summary message are first derived again
// with the store's Extractor (after the extractor changed), in one
// transaction. The index file is then emptied and its tables created again
// (which also repairs an index FTS5 itself cannot read past, ErrCorrupt
// "invalid fts5 file format"), and every row indexed again before Reindex
// returns. Meanwhile search scans the rows not yet indexed, so it misses
// nothing.
func (s *Store) Reindex(ctx context.Context, reextract bool) error {
	if s.indexer == nil {
		return fmt.Errorf("reindex: %w: the store has no search index writer", sessiondb.ErrReadOnly)
	}
	if reextract {
		err := s.write(ctx, func(tx *sqlx.Tx) error {
			for _, src := range ftsSources {
				if err := engine.Reextract(ctx, engineDriver{s}, tx, src.table, dialect.EntryText); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if s.noIndex {
		return nil // an older schema (NoMigrate): search scans every row
	}
	if err := s.retryBusy(ctx, func() error { return s.resetIndex(ctx) }); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	return s.CatchUpIndex(ctx)
}
