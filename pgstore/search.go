package pgstore

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// SearchHits is the search of engine.Engine.Search over PostgreSQL's
// indexes. Every term must occur in the
// extracted text, case-insensitively (ILIKE, with the database's Unicode
// case rules). When every term has three or more characters, the pg_trgm
// GIN indexes on entries.text and summary_messages.text narrow the rows
// (for any script: CJK text needs no word boundaries) and hits are ranked
// by a BM25-style relevance computed from each term's occurrences and the
// text's length; a query with a shorter term is answered by a scan of the
// extracted text (the trigram index cannot see terms that short), newest
// first. Either way, hits that contain the whole query as an exact phrase
// rank first, and ties go by session ID and seq.
func (d engineDriver) SearchHits(ctx context.Context, etx engine.Tx, terms []string, short bool, opts sessiondb.SearchOptions, limit int) ([]engine.HitRow, error) {
	tx := etx.(*ptx)
	var rows []engine.HitRow
	q, args := searchSQL(terms, strings.Join(terms, " "), short, opts, limit)
	if err := tx.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	return rows, nil
}

// PrepareSearch makes the terms what the searched text can hold (noNUL,
// as Describe stores it).
func (d engineDriver) PrepareSearch(_ context.Context, terms []string) error {
	for i, t := range terms {
		terms[i] = noNUL(t)
	}
	return nil
}

// likePattern makes term a pattern ILIKE matches anywhere in the text,
// with no character of it a wildcard.
func likePattern(term string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(term) + "%"
}

// searchSQL builds the query over entries and summary messages. User terms
// only ever reach PostgreSQL as bound parameters, escaped for ILIKE.
func searchSQL(terms []string, phrase string, short bool, opts sessiondb.SearchOptions, limit int) (string, []any) {
	var filter []string
	var fargs []any
	for _, t := range terms {
		filter, fargs = append(filter, "x.text ILIKE ?"), append(fargs, likePattern(t))
	}
	more, margs := backend.SearchFilter(opts)
	filter, fargs = append(filter, more...), append(fargs, margs...)
	where := strings.Join(filter, " AND ")
	var args []any
	args = append(args, fargs...)
	args = append(args, fargs...)
	// rank: BM25's term-frequency part, summed over the terms, with the
	// text length in characters normalised by a typical message length
	// (200). Every hit holds every term, so the IDF factor would only
	// reweigh the terms against each other; it is left out, which spares
	// counting the matching rows.
	rank := "0.0::float8"
	// Ties end at the row itself (summary messages share seq 0), so that
	// pages of any size neither repeat nor skip a hit.
	const tie = ", h.summary, h.id"
	order := "exact DESC, h.created_at DESC, h.session_id, h.seq" + tie
	block := "0" // scan mode: every row is read, one block
	var rargs []any
	if !short {
		var parts []string
		for _, t := range terms {
			lt := strings.ToLower(t)
			tf := "((length(lower(h.text)) - length(replace(lower(h.text), ?, '')))::float8 / ?)"
			parts = append(parts, "("+tf+" * 2.2 / ("+tf+" + 1.2 * (0.25 + 0.75 * length(h.text) / 200.0)))")
			rargs = append(rargs, lt, utf8.RuneCountInString(lt), lt, utf8.RuneCountInString(lt))
		}
		rank = strings.Join(parts, " + ")
		order = "h.block, exact DESC, rank DESC, h.session_id, h.seq" + tie
		block = backend.SearchBlock()
	}
	// With the trigram index, each table yields its verified hits (every
	// row the index answers is checked against the whole terms by ILIKE)
	// newest first, up to the window: a rare term finds every hit
	// however many older rows hold its trigrams, and a common term ranks
	// its newest blocks of hits instead of every one (as sqlstore;
	// backend.SearchBlock).
	cut := ""
	if !short {
		window := backend.SearchWindow(opts.Offset, limit)
		cut = fmt.Sprintf(" ORDER BY x.id DESC LIMIT %d", window)
	}
	q := `WITH h AS (
			(SELECT x.id, x.session_id, x.seq, false AS summary, x.kind, x.role, x.created_at, x.text
			FROM entries x WHERE ` + where + cut + `)
			UNION ALL
			(SELECT x.id, x.session_id, 0, true, x.kind, x.role, x.created_at, x.text
			FROM (SELECT m.*, c.session_id FROM summary_messages m JOIN compactions c ON c.id = m.compaction_id) x
			WHERE ` + where + cut + `)
		), r AS (
			SELECT h.id, h.session_id, h.seq, h.summary, h.kind, h.role, h.created_at, h.text,
				strpos(lower(h.text), lower(?)) > 0 AS exact, ` + rank + ` AS rank, ` + block + ` AS block
			FROM h
		)
		SELECT h.id, h.session_id, h.seq, h.summary, h.kind, h.role, h.created_at, h.text AS snippet,
			CASE WHEN h.exact THEN ` + fmt.Sprint(engine.ExactBonus) + ` ELSE 0 END + h.rank AS score, s.title
		FROM r h JOIN sessions s ON s.id = h.session_id
		ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	args = append(args, phrase)
	args = append(args, rargs...)
	args = append(args, limit, opts.Offset)
	return q, args
}
