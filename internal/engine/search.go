package engine

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
)

// minTrigramRunes is the shortest term a trigram index can answer.
const minTrigramRunes = 3

// Search implements sessiondb.Store: the query's terms, the page and the
// session filter are checked and resolved here, once; the index, its SQL,
// its ranking and the snippets are the backend's (Driver.SearchHits, see
// each backend's doc). A query with a term shorter than three characters
// is "short": a trigram index cannot see it, and the backend scans the
// extracted text instead.
func (e *Engine) Search(ctx context.Context, query string, opts sessiondb.SearchOptions) ([]sessiondb.Hit, error) {
	terms, err := sessiondb.SearchTerms(query)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = sessiondb.DefaultSearchLimit
	}
	limit = min(limit, sessiondb.MaxSearchLimit)
	if opts.Offset < 0 {
		return nil, fmt.Errorf("search: %w: negative offset", sessiondb.ErrInvalid)
	}
	if err := e.d.PrepareSearch(ctx, terms); err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	short := false
	for _, t := range terms {
		if utf8.RuneCountInString(t) < minTrigramRunes {
			short = true
		}
	}
	var hits []sessiondb.Hit
	err = e.d.Read(ctx, func(tx Tx) (err error) {
		o := opts
		if o.SessionID != "" {
			if o.SessionID, err = e.resolveKey(ctx, tx, o.SessionID); err != nil {
				return err
			}
		}
		rows, err := e.d.SearchHits(ctx, tx, terms, short, o, limit)
		if err != nil {
			return err
		}
		hits, err = e.hits(ctx, tx, rows, terms, opts.KeepWithheld)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	return hits, nil
}

// ExactBonus lifts hits that contain the whole query as one phrase above
// every scattered match (relevance scores are far smaller): both backends
// add it to the score of such a hit.
const ExactBonus = 1e6

// HitRow is a search hit as both backends' queries return it: the hit's
// columns, its whole extracted text (snippet, cut by Hits) and its score
// (ExactBonus included). ID is the row id (of entries or
// summary_messages): a redacting read reads the hit's body by it.
type HitRow struct {
	ID           int64   `db:"id"`
	SessionID    string  `db:"session_id"`
	SessionTitle string  `db:"title"`
	Seq          int64   `db:"seq"`
	Summary      bool    `db:"summary"`
	Kind         string  `db:"kind"`
	Role         string  `db:"role"`
	CreatedAt    string  `db:"created_at"`
	Snippet      string  `db:"snippet"`
	Score        float64 `db:"score"`
	// withheld: a redacting read holds the hit back (Engine.hits).
	withheld bool
}

// Hits turns rows into hits, each text cut to a snippet around terms
// (Engine.hits redacts them first in a redacting read).
func Hits(rows []HitRow, terms []string) []sessiondb.Hit {
	hits := make([]sessiondb.Hit, len(rows))
	for i, r := range rows {
		if r.withheld {
			hits[i] = sessiondb.Hit{Withheld: true}
			continue
		}
		hits[i] = sessiondb.Hit{SessionID: r.SessionID, SessionTitle: r.SessionTitle, Seq: r.Seq, Summary: r.Summary,
			Kind: r.Kind, Role: r.Role, CreatedAt: ParseTime(r.CreatedAt), Snippet: Snippet(r.Snippet, terms), Score: r.Score}
	}
	return hits
}
