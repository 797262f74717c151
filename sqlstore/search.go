package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// minTrigramRunes is the shortest term the trigram index can answer.
const minTrigramRunes = 3

// exactBonus lifts hits that contain the whole query as one phrase above
// every scattered match (bm25 scores are far smaller in magnitude).
const exactBonus = 1e6

type hitRow struct {
	SessionID    string  `db:"session_id"`
	SessionTitle string  `db:"title"`
	Seq          int64   `db:"seq"`
	Summary      bool    `db:"summary"`
	Kind         string  `db:"kind"`
	Role         string  `db:"role"`
	CreatedAt    string  `db:"created_at"`
	Snippet      string  `db:"snippet"`
	Rank         float64 `db:"rank"`
	Exact        bool    `db:"exact"`
}

// Search implements sessiondb.Store. Terms of three or more characters are
// answered by the FTS5 trigram index, ranked by bm25; a query with a
// shorter term is answered by a scan of the extracted text (the trigram
// index cannot see terms that short), newest first. Either way, hits that
// contain the whole query as an exact phrase rank first.
func (s *Store) Search(ctx context.Context, query string, opts sessiondb.SearchOptions) ([]sessiondb.Hit, error) {
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
	phrase := strings.Join(terms, " ")
	short := false
	for _, t := range terms {
		if utf8.RuneCountInString(t) < minTrigramRunes {
			short = true
		}
	}
	var rows []hitRow
	err = s.read(ctx, func(tx *sqlx.Tx) error {
		if opts.SessionID != "" {
			id, err := resolveIn(ctx, tx, opts.SessionID)
			if err != nil {
				return err
			}
			opts.SessionID = id
		}
		q, args := searchSQL(terms, phrase, short, opts, limit)
		return tx.SelectContext(ctx, &rows, q, args...)
	})
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	hits := make([]sessiondb.Hit, len(rows))
	for i, r := range rows {
		h := sessiondb.Hit{SessionID: r.SessionID, SessionTitle: r.SessionTitle, Seq: r.Seq, Summary: r.Summary,
			Kind: r.Kind, Role: r.Role, CreatedAt: parseTime(r.CreatedAt), Snippet: r.Snippet, Score: -r.Rank}
		h.Snippet = snippet(r.Snippet, terms)
		if r.Exact {
			h.Score += exactBonus
		}
		hits[i] = h
	}
	return hits, nil
}

// searchSQL builds the query over entries and summary messages. User terms
// only ever reach SQLite as bound parameters; for FTS5 each term is one
// quoted string (a phrase), so no character of the input is query syntax.
func searchSQL(terms []string, phrase string, short bool, opts sessiondb.SearchOptions, limit int) (string, []any) {
	var filter []string
	var fargs []any
	if opts.SessionID != "" {
		filter, fargs = append(filter, "x.session_id = ?"), append(fargs, opts.SessionID)
	}
	if opts.Role != "" {
		filter, fargs = append(filter, "x.role = ?"), append(fargs, opts.Role)
	}
	if opts.Kind != "" {
		filter, fargs = append(filter, "x.kind = ?"), append(fargs, opts.Kind)
	}
	if !opts.After.IsZero() {
		filter, fargs = append(filter, "x.created_at >= ?"), append(fargs, formatTime(opts.After))
	}
	if !opts.Before.IsZero() {
		filter, fargs = append(filter, "x.created_at <= ?"), append(fargs, formatTime(opts.Before))
	}
	where := ""
	if len(filter) > 0 {
		where = " AND " + strings.Join(filter, " AND ")
	}
	var args []any
	var q string
	if short {
		// Scan mode: every term must occur in the text (ASCII case folded).
		var match []string
		var margs []any
		for _, t := range terms {
			match, margs = append(match, "instr(lower(x.text), lower(?)) > 0"), append(margs, t)
		}
		cond := strings.Join(match, " AND ")
		q = `SELECT x.session_id, x.seq, 0 AS summary, x.kind, x.role, x.created_at, x.text AS snippet,
				0.0 AS rank, instr(lower(x.text), lower(?)) > 0 AS exact
			FROM entries x WHERE ` + cond + where + `
			UNION ALL
			SELECT x.session_id, 0, 1, x.kind, x.role, x.created_at, x.text, 0.0,
				instr(lower(x.text), lower(?)) > 0
			FROM (SELECT m.*, c.session_id FROM summary_messages m JOIN compactions c ON c.id = m.compaction_id) x
			WHERE ` + cond + where
		args = append(args, phrase)
		args = append(args, margs...)
		args = append(args, fargs...)
		args = append(args, phrase)
		args = append(args, margs...)
		args = append(args, fargs...)
		q = `SELECT h.*, s.title FROM (` + q + `) h JOIN sessions s ON s.id = h.session_id
			ORDER BY h.exact DESC, h.created_at DESC, h.session_id, h.seq LIMIT ? OFFSET ?`
	} else {
		quoted := make([]string, len(terms))
		for i, t := range terms {
			quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
		}
		match := strings.Join(quoted, " ")
		// Rank every match but read the text of the page's rows only: the
		// snippet is cut in Go from those (as in scan mode). FTS5's
		// snippet() in this query ran for every match before ORDER BY …
		// LIMIT, which made a query matching most entries several times
		// slower.
		q = `SELECT x.id AS rid, x.session_id, x.seq, 0 AS summary, x.kind, x.role, x.created_at,
				bm25(entries_fts) AS rank, instr(lower(x.text), lower(?)) > 0 AS exact
			FROM entries_fts JOIN entries x ON x.id = entries_fts.rowid
			WHERE entries_fts MATCH ?` + where + `
			UNION ALL
			SELECT x.id, x.session_id, 0, 1, x.kind, x.role, x.created_at,
				bm25(summary_fts), instr(lower(x.text), lower(?)) > 0
			FROM summary_fts JOIN (SELECT m.*, c.session_id FROM summary_messages m
				JOIN compactions c ON c.id = m.compaction_id) x ON x.id = summary_fts.rowid
			WHERE summary_fts MATCH ?` + where + `
			ORDER BY exact DESC, rank, session_id, seq LIMIT ? OFFSET ?`
		args = append(args, phrase, match)
		args = append(args, fargs...)
		args = append(args, phrase, match)
		args = append(args, fargs...)
		args = append(args, limit, opts.Offset)
		q = `WITH h AS (` + q + `)
			SELECT h.session_id, h.seq, h.summary, h.kind, h.role, h.created_at, h.rank, h.exact, s.title,
				CASE WHEN h.summary THEN (SELECT text FROM summary_messages WHERE id = h.rid)
					ELSE (SELECT text FROM entries WHERE id = h.rid) END AS snippet
			FROM h JOIN sessions s ON s.id = h.session_id
			ORDER BY h.exact DESC, h.rank, h.session_id, h.seq`
		return q, args
	}
	args = append(args, limit, opts.Offset)
	return q, args
}

// snippet cuts the text around the first match of the scan mode and
// highlights every term occurrence in the excerpt (ASCII case folded).
func snippet(text string, terms []string) string {
	const context = 80
	lower := strings.ToLower(text)
	first := len(text)
	for _, t := range terms {
		if i := strings.Index(lower, strings.ToLower(t)); i >= 0 && i < first {
			first = i
		}
	}
	if first == len(text) {
		first = 0
	}
	start, end := max(0, first-context), min(len(text), first+context)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	excerpt := text[start:end]
	for _, t := range terms {
		excerpt = highlight(excerpt, t)
	}
	if start > 0 {
		excerpt = "…" + excerpt
	}
	if end < len(text) {
		excerpt += "…"
	}
	return excerpt
}

func highlight(s, term string) string {
	if term == "" {
		return s
	}
	var b strings.Builder
	lower, lt := strings.ToLower(s), strings.ToLower(term)
	if len(lower) != len(s) { // case folding changed lengths: match exactly
		lower, lt = s, term
	}
	for {
		i := strings.Index(lower, lt)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(sessiondb.HighlightStart + s[i:i+len(lt)] + sessiondb.HighlightEnd)
		s, lower = s[i+len(lt):], lower[i+len(lt):]
	}
}

// resolveIn resolves an ID or alias inside a transaction.
func resolveIn(ctx context.Context, tx *sqlx.Tx, idOrAlias string) (string, error) {
	var id string
	err := tx.GetContext(ctx, &id, `SELECT id FROM sessions WHERE id = ?
		UNION ALL SELECT session_id FROM session_aliases WHERE alias = ? LIMIT 1`, idOrAlias, idOrAlias)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("session %q: %w", idOrAlias, sessiondb.ErrNotFound)
	}
	return id, err
}

// Reindex rebuilds the full-text index from the log. With reextract, the
// role and text of every entry and summary message are first derived
// again with the store's Extractor (after the extractor changed); this
// rewrites every row, in one transaction. It also repairs an index whose
// config row is damaged (ErrCorrupt "invalid fts5 file format"), which
// FTS5's own 'rebuild' cannot read past.
func (s *Store) Reindex(ctx context.Context, reextract bool) error {
	return s.write(ctx, func(tx *sqlx.Tx) error {
		ftsTables := []string{"entries_fts", "summary_fts"}
		for _, fts := range ftsTables {
			// FTS5 loads its config before it runs any command, and
			// refuses a version it does not know. The migrations set no
			// option, so the config of an intact index is this one row
			// (version 4, FTS5's format without secure-delete). The
			// index is not emptied first: reextract's updates fire the
			// triggers, which delete each row's old text from it.
			for _, q := range []string{
				`DELETE FROM ` + fts + `_config`,
				`INSERT INTO ` + fts + `_config (k, v) VALUES ('version', 4)`,
			} {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("reset %s: %w", fts, err)
				}
			}
		}
		if reextract {
			for _, table := range []string{"entries", "summary_messages"} {
				if err := s.reextract(ctx, tx, table); err != nil {
					return err
				}
			}
		}
		for _, fts := range ftsTables {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+fts+` (`+fts+`) VALUES ('rebuild')`); err != nil {
				return fmt.Errorf("rebuild %s: %w", fts, err)
			}
		}
		return nil
	})
}

func (s *Store) reextract(ctx context.Context, tx *sqlx.Tx, table string) error {
	rows, err := tx.QueryxContext(ctx, `SELECT id, kind, body FROM `+table)
	if err != nil {
		return err
	}
	type upd struct {
		id         int64
		role, text string
	}
	var updates []upd
	for rows.Next() {
		var id int64
		var kind string
		var body []byte
		if err := rows.Scan(&id, &kind, &body); err != nil {
			rows.Close()
			return err
		}
		role, text := s.extract(kind, body)
		updates = append(updates, upd{id, role, text})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	stmt, err := tx.PreparexContext(ctx, `UPDATE `+table+` SET role = ?, text = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, u := range updates {
		if _, err := stmt.ExecContext(ctx, u.role, u.text, u.id); err != nil {
			return err
		}
	}
	return nil
}
