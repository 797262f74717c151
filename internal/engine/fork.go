package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// Fork implements sessiondb.Store. The fork gets its own copy of the
// transcript rows as of atSeq (renumbered from 1, summary messages carried
// as its first compaction) and a copy of the state, in one transaction.
// Copying keeps every session self-contained: deleting or pruning the
// parent can never break a child. It is one INSERT … SELECT, so its cost is
// that of writing the rows once.
func (e *Engine) Fork(ctx context.Context, src string, atSeq int64, newID string) (sessiondb.Session, error) {
	if err := sessiondb.ValidateID(src); err != nil {
		return sessiondb.Session{}, fmt.Errorf("fork: %w", err)
	}
	if newID == "" {
		newID = sessiondb.NewID()
	}
	if err := sessiondb.ValidateID(newID); err != nil {
		return sessiondb.Session{}, fmt.Errorf("fork %s: %w", src, err)
	}
	if atSeq < 0 {
		return sessiondb.Session{}, fmt.Errorf("fork %s: %w: negative seq", src, sessiondb.ErrInvalid)
	}
	var out sessiondb.Session
	err := e.d.Write(ctx, func(tx Tx) error {
		// The parent is locked so that no commit, prune or delete changes
		// it while its rows are copied.
		parent, err := e.d.LockSession(ctx, tx, src)
		if err != nil {
			return err
		}
		atSeq := atSeq // this attempt's; the argument stays as given for a retry
		if atSeq == 0 {
			atSeq = parent.LastSeq
		}
		if atSeq > parent.LastSeq {
			return fmt.Errorf("fork %s at %d: %w: the log ends at %d", src, atSeq, sessiondb.ErrInvalid, parent.LastSeq)
		}
		var cur current
		if atSeq == parent.LastSeq {
			cur, err = currentCompaction(ctx, tx, src)
		} else {
			cur, err = compactionAt(ctx, tx, src, atSeq)
		}
		if err != nil {
			return err
		}
		messages := int64(-1)
		if atSeq == parent.LastSeq {
			messages = parent.MessageCount // the parent's own transcript
		}
		out, err = e.copyTranscript(ctx, tx, parent, newID, cur, atSeq, messages)
		return err
	})
	return out, err
}

// copyTranscript creates session newID holding the transcript of parent
// defined by compaction cur with log entries up to toSeq, and parent's
// current state. messages is that transcript's MessageCount when the
// caller knows it (the parent's current transcript), else -1: it is then
// counted over the rows copied.
func (e *Engine) copyTranscript(ctx context.Context, tx Tx, parent sessiondb.Session, newID string, cur current, toSeq, messages int64) (sessiondb.Session, error) {
	now := time.Now()
	child := sessiondb.Session{
		ID: newID, Title: parent.Title, Summary: parent.Summary, Scope: parent.Scope, Attrs: parent.Attrs,
		Project: parent.Project, Machine: parent.Machine, Version: parent.Version, ParentID: parent.ID, ForkSeq: toSeq, CreatedAt: now, UpdatedAt: now,
	}
	if err := e.d.InsertSession(ctx, tx, child, now, false); err != nil {
		return sessiondb.Session{}, err
	}
	// Entries keep their order and bodies; seqs restart at 1.
	text := e.sql.EntryText.Col() // copied as stored
	q := `INSERT INTO entries (session_id, seq, kind, role, ` + text + `, body, created_at)
		SELECT ?, seq - ? + 1, kind, role, ` + text + `, body, created_at FROM entries
		WHERE session_id = ? AND seq >= ? AND seq <= ? ORDER BY seq`
	args := []any{newID, cur.KeepFromSeq, parent.ID, cur.KeepFromSeq, toSeq}
	if e.sql.NextEntryID != "" {
		// Explicit ids in seq order from the next one (seqs are unique,
		// so the ids are).
		var next int64
		if err := tx.GetContext(ctx, &next, e.sql.NextEntryID); err != nil {
			return sessiondb.Session{}, err
		}
		q = `INSERT INTO entries (id, session_id, seq, kind, role, ` + text + `, body, created_at)
		SELECT ? + seq - ?, ?, seq - ? + 1, kind, role, ` + text + `, body, created_at FROM entries
		WHERE session_id = ? AND seq >= ? AND seq <= ? ORDER BY seq`
		args = append([]any{next, cur.KeepFromSeq}, args...)
	}
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return sessiondb.Session{}, err
	}
	copied, _ := res.RowsAffected()
	if want := toSeq - cur.KeepFromSeq + 1; want > 0 && copied != want {
		return sessiondb.Session{}, fmt.Errorf("fork %s: %w: %d of %d entries were pruned; fork from a later position",
			parent.ID, sessiondb.ErrInvalid, want-copied, want)
	}
	if cur.ID != 0 {
		var cid int64
		err := tx.GetContext(ctx, &cid, `INSERT INTO compactions
			(session_id, at_seq, keep_from_seq, tokens_before, tokens_after, details, created_at)
			SELECT ?, 0, 1, tokens_before, tokens_after, details, created_at FROM compactions WHERE id = ?
			RETURNING id`, newID, cur.ID)
		if err != nil {
			return sessiondb.Session{}, err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO summary_messages
			(compaction_id, position, kind, role, text, body, created_at)
			SELECT ?, position, kind, role, text, body, created_at FROM summary_messages WHERE compaction_id = ?`,
			cid, cur.ID)
		if err != nil {
			return sessiondb.Session{}, err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO states (session_id, body, updated_at)
		SELECT ?, body, updated_at FROM states WHERE session_id = ?`, newID, parent.ID)
	if err != nil {
		return sessiondb.Session{}, err
	}
	if messages < 0 {
		if messages, err = backend.TranscriptMessages(ctx, tx, parent.ID, cur.ID, cur.KeepFromSeq, toSeq); err != nil {
			return sessiondb.Session{}, err
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE sessions SET sequence = sequence + 1, last_seq = ?, message_count = ?,
		entry_count = ? WHERE id = ?`, max(copied, 0), messages, max(copied, 0), newID)
	if err != nil {
		return sessiondb.Session{}, err
	}
	return e.d.GetSession(ctx, tx, newID)
}
