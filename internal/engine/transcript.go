package engine

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// entryRow is a row of entries or summary_messages.
type entryRow struct {
	Seq       int64  `db:"seq"`
	Kind      string `db:"kind"`
	Role      string `db:"role"`
	Body      []byte `db:"body"`
	CreatedAt string `db:"created_at"`
}

func (r entryRow) entry(summary bool) sessiondb.Entry {
	return sessiondb.Entry{Seq: r.Seq, Kind: r.Kind, Role: r.Role, Body: r.Body, CreatedAt: ParseTime(r.CreatedAt), Summary: summary}
}

// selectEntries runs q (selecting seq, kind, role, body, created_at) and
// scans the rows directly: the transcript is the largest read, and sqlx's
// reflection per row cost a third of a 10,000-entry Load.
func selectEntries(ctx context.Context, tx Tx, q string, args ...any) ([]entryRow, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entryRow
	for rows.Next() {
		var r entryRow
		if err := rows.Scan(&r.Seq, &r.Kind, &r.Role, &r.Body, &r.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// current is the compaction that defines a session's transcript.
type current struct {
	ID          int64 // 0: none
	KeepFromSeq int64 // 1 when none
}

func currentCompaction(ctx context.Context, tx Tx, id string) (current, error) {
	return compactionAt(ctx, tx, id, -1)
}

// compactionAt returns the compaction in force at log position atSeq: the
// latest one made when the log was at most atSeq long (atSeq < 0: the
// latest of all).
func compactionAt(ctx context.Context, tx Tx, id string, atSeq int64) (current, error) {
	q := `SELECT id, keep_from_seq FROM compactions WHERE session_id = ?`
	args := []any{id}
	if atSeq >= 0 {
		q += ` AND at_seq <= ?`
		args = append(args, atSeq)
	}
	q += ` ORDER BY id DESC LIMIT 1`
	var c current
	err := tx.QueryRowxContext(ctx, q, args...).Scan(&c.ID, &c.KeepFromSeq)
	if errors.Is(err, sql.ErrNoRows) {
		return current{KeepFromSeq: 1}, nil
	}
	return c, err
}

// LoadTranscript reads the effective transcript inside tx, filtered by
// opts (Kinds, then After, then LastN). With LastN alone it reads only the
// last N rows through the (session_id, seq) index.
func LoadTranscript(ctx context.Context, tx Tx, id string, opts sessiondb.LoadOptions) ([]sessiondb.Entry, error) {
	if opts.LastN < 0 {
		return nil, fmt.Errorf("load %s: %w: negative LastN", id, sessiondb.ErrInvalid)
	}
	cur, err := currentCompaction(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	return transcriptAt(ctx, tx, id, cur, -1, opts)
}

// transcriptAt reads the transcript defined by compaction cur, with log
// entries up to toSeq (toSeq < 0: all), filtered by opts.
func transcriptAt(ctx context.Context, tx Tx, id string, cur current, toSeq int64, opts sessiondb.LoadOptions) ([]sessiondb.Entry, error) {
	var filter []string
	args := []any{id, cur.KeepFromSeq}
	if toSeq >= 0 {
		filter, args = append(filter, "seq <= ?"), append(args, toSeq)
	}
	if len(opts.Kinds) > 0 {
		filter = append(filter, "kind IN (?"+strings.Repeat(", ?", len(opts.Kinds)-1)+")")
		for _, k := range opts.Kinds {
			args = append(args, k)
		}
	}
	if !opts.After.IsZero() {
		filter, args = append(filter, "created_at > ?"), append(args, FormatTime(opts.After))
	}
	where := ""
	if len(filter) > 0 {
		where = " AND " + strings.Join(filter, " AND ")
	}
	q := `SELECT seq, kind, role, body, created_at FROM entries WHERE session_id = ? AND seq >= ?` + where
	if opts.LastN > 0 {
		q += ` ORDER BY seq DESC LIMIT ?`
		args = append(args, opts.LastN)
	} else {
		q += ` ORDER BY seq`
	}
	rows, err := selectEntries(ctx, tx, q, args...)
	if err != nil {
		return nil, err
	}
	if opts.LastN > 0 {
		slices.Reverse(rows)
	}
	if err := redactEntryRows(ctx, tx, id, rows); err != nil {
		return nil, err
	}
	var out []sessiondb.Entry
	if cur.ID != 0 && (opts.LastN == 0 || len(rows) < opts.LastN) {
		summary, err := summaryMessages(ctx, tx, cur.ID)
		if err != nil {
			return nil, err
		}
		for _, e := range summary {
			if keep(e, opts) {
				out = append(out, e)
			}
		}
		if opts.LastN > 0 && len(out)+len(rows) > opts.LastN {
			out = out[len(out)+len(rows)-opts.LastN:]
		}
	}
	out = slices.Grow(out, len(rows))
	for _, r := range rows {
		out = append(out, r.entry(false))
	}
	return out, nil
}

// keep applies the Kinds and After filters to a summary message.
func keep(e sessiondb.Entry, opts sessiondb.LoadOptions) bool {
	if len(opts.Kinds) > 0 && !slices.Contains(opts.Kinds, e.Kind) {
		return false
	}
	return opts.After.IsZero() || e.CreatedAt.After(opts.After)
}

func summaryMessages(ctx context.Context, tx Tx, compactionID int64) ([]sessiondb.Entry, error) {
	var rows []entryRow
	err := tx.SelectContext(ctx, &rows, `SELECT 0 AS seq, kind, role, body, created_at FROM summary_messages
		WHERE compaction_id = ? ORDER BY position`, compactionID)
	if err != nil {
		return nil, err
	}
	out := make([]sessiondb.Entry, len(rows))
	for i, r := range rows {
		r.Body = redactSummary(ctx, r.Body)
		out[i] = r.entry(true)
	}
	return out, nil
}

// Load implements sessiondb.Store: the effective transcript, filtered by opts.
func (e *Engine) Load(ctx context.Context, id string, opts sessiondb.LoadOptions) ([]sessiondb.Entry, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return nil, fmt.Errorf("load %s: %w", id, err)
	}
	var out []sessiondb.Entry
	err := e.d.Read(ctx, func(tx Tx) (err error) {
		if err := SessionExists(ctx, tx, id); err != nil {
			return err
		}
		out, err = LoadTranscript(ctx, tx, id, opts)
		return err
	})
	return out, err
}

// Entries implements sessiondb.Store: log entries from..to by seq (to 0: the end).
func (e *Engine) Entries(ctx context.Context, id string, from, to int64) ([]sessiondb.Entry, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return nil, fmt.Errorf("entries of %s: %w", id, err)
	}
	if from < 0 || to < 0 || (to != 0 && to < from) {
		return nil, fmt.Errorf("entries of %s: %w: range %d..%d", id, sessiondb.ErrInvalid, from, to)
	}
	if to == 0 {
		to = 1<<63 - 1
	}
	var out []sessiondb.Entry
	err := e.d.Read(ctx, func(tx Tx) error {
		if err := SessionExists(ctx, tx, id); err != nil {
			return err
		}
		rows, err := selectEntries(ctx, tx, `SELECT seq, kind, role, body, created_at FROM entries
			WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`, id, from, to)
		if err == nil {
			err = redactEntryRows(ctx, tx, id, rows)
		}
		out = make([]sessiondb.Entry, len(rows))
		for i, r := range rows {
			out[i] = r.entry(false)
		}
		return err
	})
	return out, err
}

// HistoryCommit fills c with what replaces the transcript by messages.
// When the current transcript has no summary and is a byte-equal prefix of
// messages — an agent saving its whole history after each turn — only the
// new tail is appended; otherwise everything is appended and a compaction
// starts the transcript at the first new entry. A session that does not
// exist yet has an empty transcript.
func HistoryCommit(ctx context.Context, d Driver, tx Tx, id string, messages []sessiondb.Entry, c *sessiondb.Commit) error {
	sess, err := d.LockSession(ctx, tx, id)
	if isNotFound(err) {
		c.Append = messages
		return nil
	}
	if err != nil {
		return err
	}
	cur, err := currentCompaction(ctx, tx, id)
	if err != nil {
		return err
	}
	prefix, err := isPrefix(ctx, tx, id, cur, messages)
	if err != nil {
		return err
	}
	if prefix >= 0 {
		c.Append = messages[prefix:]
		return nil
	}
	c.Append = messages
	c.Compactions = append(c.Compactions, sessiondb.Compaction{
		KeepFromSeq: sess.LastSeq + 1,
		Details:     []byte(`{"reason":"set_history"}`),
	})
	return nil
}

// isPrefix returns the length of the current transcript when it is a
// prefix of messages (same kinds and bodies, no summary), else -1.
func isPrefix(ctx context.Context, tx Tx, id string, cur current, messages []sessiondb.Entry) (int, error) {
	if cur.ID != 0 {
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM summary_messages WHERE compaction_id = ?`, cur.ID); err != nil {
			return -1, err
		}
		if n > 0 {
			return -1, nil
		}
	}
	rows, err := tx.QueryxContext(ctx, `SELECT kind, body FROM entries WHERE session_id = ? AND seq >= ? ORDER BY seq`, id, cur.KeepFromSeq)
	if err != nil {
		return -1, err
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var kind string
		var body []byte
		if err := rows.Scan(&kind, &body); err != nil {
			return -1, err
		}
		if i >= len(messages) {
			return -1, nil
		}
		if kind != backend.EntryKind(messages[i]) || !bytes.Equal(body, messages[i].Body) {
			return -1, nil
		}
		i++
	}
	return i, rows.Err()
}
