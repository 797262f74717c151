package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// InsertCompaction records c given the session's LastSeq after the
// commit's appends, and returns its ID.
func InsertCompaction(ctx context.Context, d Driver, tx Tx, id string, lastSeq int64, c sessiondb.Compaction, now time.Time) (int64, error) {
	if c.AtSeq == 0 {
		c.AtSeq = lastSeq
	}
	if c.KeepFromSeq < 1 || c.KeepFromSeq > lastSeq+1 {
		return 0, fmt.Errorf("compact %s: %w: keep-from seq %d outside 1..%d", id, sessiondb.ErrInvalid, c.KeepFromSeq, lastSeq+1)
	}
	if c.AtSeq < 0 || c.AtSeq > lastSeq {
		return 0, fmt.Errorf("compact %s: %w: at seq %d outside 0..%d", id, sessiondb.ErrInvalid, c.AtSeq, lastSeq)
	}
	created := FormatTime(OrNow(c.CreatedAt, now))
	var cid int64
	err := tx.GetContext(ctx, &cid, `INSERT INTO compactions
		(session_id, at_seq, keep_from_seq, tokens_before, tokens_after, details, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		id, c.AtSeq, c.KeepFromSeq, c.TokensBefore, c.TokensAfter, backend.NullJSON(c.Details), created)
	if err != nil {
		return 0, err
	}
	for i, m := range c.Summary {
		kind, role, text := d.Describe(m)
		_, err := tx.ExecContext(ctx, `INSERT INTO summary_messages
			(compaction_id, position, kind, role, text, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			cid, i+1, kind, role, text, string(m.Body), FormatTime(OrNow(m.CreatedAt, now)))
		if err != nil {
			return 0, err
		}
	}
	return cid, nil
}

// compactionRow is a row of the compactions table.
type compactionRow struct {
	ID           int64          `db:"id"`
	AtSeq        int64          `db:"at_seq"`
	KeepFromSeq  int64          `db:"keep_from_seq"`
	TokensBefore int64          `db:"tokens_before"`
	TokensAfter  int64          `db:"tokens_after"`
	Details      sql.NullString `db:"details"`
	CreatedAt    string         `db:"created_at"`
}

// Compactions implements sessiondb.Store.
func (e *Engine) Compactions(ctx context.Context, id string) ([]sessiondb.Compaction, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return nil, fmt.Errorf("compactions of %s: %w", id, err)
	}
	var out []sessiondb.Compaction
	err := e.d.Read(ctx, func(tx Tx) error {
		if err := SessionExists(ctx, tx, id); err != nil {
			return err
		}
		var rows []compactionRow
		if err := tx.SelectContext(ctx, &rows, `SELECT id, at_seq, keep_from_seq, tokens_before, tokens_after,
			details, created_at FROM compactions WHERE session_id = ? ORDER BY id`, id); err != nil {
			return err
		}
		for _, r := range rows {
			summary, err := summaryMessages(ctx, tx, r.ID)
			if err != nil {
				return err
			}
			c := sessiondb.Compaction{ID: r.ID, AtSeq: r.AtSeq, KeepFromSeq: r.KeepFromSeq, Summary: summary,
				TokensBefore: r.TokensBefore, TokensAfter: r.TokensAfter, CreatedAt: ParseTime(r.CreatedAt)}
			if r.Details.Valid {
				c.Details = json.RawMessage(r.Details.String)
			}
			out = append(out, c)
		}
		return nil
	})
	return out, err
}

// Prune implements sessiondb.Store. It keeps every entry the current
// compaction reaches and every entry and compaction an agent checkpoint
// needs to rebuild its transcript; the rest of the log and the superseded
// compactions are deleted.
func (e *Engine) Prune(ctx context.Context, id string) (int64, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return 0, fmt.Errorf("prune %s: %w", id, err)
	}
	var removed int64
	err := e.d.Write(ctx, func(tx Tx) error {
		if _, err := e.d.LockSession(ctx, tx, id); err != nil {
			return err
		}
		cur, err := currentCompaction(ctx, tx, id)
		if err != nil || cur.ID == 0 {
			return err // no compaction: the whole log is reachable
		}
		// Entries below the current transcript go, except those inside the
		// range an agent checkpoint rebuilds its transcript from: from the
		// keep-from of the compaction current at the checkpoint to its seq.
		res, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE session_id = ? AND seq < ?
			AND NOT EXISTS (SELECT 1 FROM checkpoints k LEFT JOIN compactions c ON c.id = k.compaction_id
				WHERE k.session_id = entries.session_id
				AND entries.seq BETWEEN coalesce(c.keep_from_seq, 1) AND k.at_seq)`, id, cur.KeepFromSeq)
		if err != nil {
			return err
		}
		removed, _ = res.RowsAffected()
		res, err = tx.ExecContext(ctx, `DELETE FROM compactions WHERE session_id = ? AND id < ?
			AND id NOT IN (SELECT compaction_id FROM checkpoints WHERE session_id = ? AND compaction_id IS NOT NULL)`,
			id, cur.ID, id)
		if err != nil {
			return err
		}
		if dropped, _ := res.RowsAffected(); removed == 0 && dropped == 0 {
			return nil // nothing changed: no revision
		}
		// The transcript is untouched (only rows below it go): MessageCount
		// stays, EntryCount loses the rows deleted.
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET sequence = sequence + 1, entry_count = entry_count - ?,
			updated_at = ? WHERE id = ?`, removed, FormatTime(time.Now()), id)
		return err
	})
	return removed, err
}

// KeepLastCompaction returns the compaction that keeps the last keepLast
// entries of the current transcript (summary messages count as entries and
// are dropped first), or nil when the transcript is already that short.
func KeepLastCompaction(ctx context.Context, tx Tx, id string, lastSeq int64, keepLast int) (*sessiondb.Compaction, error) {
	cur, err := currentCompaction(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	var summary []sessiondb.Entry
	if cur.ID != 0 {
		if summary, err = summaryMessages(ctx, tx, cur.ID); err != nil {
			return nil, err
		}
	}
	kept := lastSeq - cur.KeepFromSeq + 1 // log entries in the transcript
	if int64(keepLast) >= kept+int64(len(summary)) {
		return nil, nil
	}
	c := &sessiondb.Compaction{Details: []byte(fmt.Sprintf(`{"reason":"truncate","keep_last":%d}`, keepLast))}
	if int64(keepLast) >= kept {
		// Keep every log entry and the tail of the summary.
		c.KeepFromSeq = cur.KeepFromSeq
		c.Summary = summary[int64(len(summary))-(int64(keepLast)-kept):]
	} else {
		c.KeepFromSeq = lastSeq - int64(keepLast) + 1
	}
	return c, nil
}
