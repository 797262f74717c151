package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// Fork implements sessiondb.Store (ForkWith without options). The fork gets its own copy of the
// transcript rows as of atSeq (renumbered from 1, summary messages carried
// as its first compaction) and a copy of the state, in one transaction.
// Copying keeps every session self-contained: deleting or pruning the
// parent can never break a child. It is one INSERT … SELECT, so its cost is
// that of writing the rows once.
func (e *Engine) Fork(ctx context.Context, src string, atSeq int64, newID string) (sessiondb.Session, error) {
	return e.ForkWith(ctx, src, sessiondb.ForkOptions{ID: newID, AtSeq: atSeq})
}

// ForkWith implements sessiondb.Store: Fork with a cut after the k-th
// message (forkPoint) and the child's own metadata, applied to the child
// row in the transaction that creates it (the child's Sequence is 1, as a
// fork's always is).
func (e *Engine) ForkWith(ctx context.Context, src string, opts sessiondb.ForkOptions) (sessiondb.Session, error) {
	if err := sessiondb.ValidateID(src); err != nil {
		return sessiondb.Session{}, fmt.Errorf("fork: %w", err)
	}
	newID := opts.ID
	if newID == "" {
		newID = sessiondb.NewID()
	}
	if err := sessiondb.ValidateID(newID); err != nil {
		return sessiondb.Session{}, fmt.Errorf("fork %s: %w", src, err)
	}
	switch {
	case opts.AtSeq < 0:
		return sessiondb.Session{}, fmt.Errorf("fork %s: %w: negative seq", src, sessiondb.ErrInvalid)
	case opts.AtMessage < 0:
		return sessiondb.Session{}, fmt.Errorf("fork %s: %w: negative message index", src, sessiondb.ErrInvalid)
	case opts.AtMessage > 0 && opts.AtSeq > 0:
		return sessiondb.Session{}, fmt.Errorf("fork %s: %w: both a seq and a message index to cut at", src, sessiondb.ErrInvalid)
	}
	if opts.Meta != nil {
		if opts.Meta.ForkSeq != nil {
			return sessiondb.Session{}, fmt.Errorf("fork %s: %w: the child's fork seq is the cut's", src, sessiondb.ErrInvalid)
		}
		// The checks of a commit's patch (aliases, JSON documents).
		if err := sessiondb.ValidateCommit(newID, sessiondb.Commit{Meta: opts.Meta}); err != nil {
			return sessiondb.Session{}, fmt.Errorf("fork %s: %w", src, err)
		}
	}
	var out sessiondb.Session
	err := e.d.Write(ctx, func(tx Tx) error {
		// The parent is locked so that no commit, prune or delete changes
		// it while its rows are copied.
		parent, err := e.d.LockSession(ctx, tx, src)
		if err != nil {
			return err
		}
		atSeq := opts.AtSeq // this attempt's; opts stays as given for a retry
		var cur current
		messages := int64(-1)
		switch {
		case opts.AtMessage > 0:
			if cur, atSeq, err = messageCut(ctx, tx, parent, opts.AtMessage); err != nil {
				return err
			}
			messages = int64(opts.AtMessage)
		default:
			if atSeq == 0 {
				atSeq = parent.LastSeq
			}
			if atSeq > parent.LastSeq {
				return fmt.Errorf("fork %s at %d: %w: the log ends at %d", src, atSeq, sessiondb.ErrInvalid, parent.LastSeq)
			}
			if atSeq == parent.LastSeq {
				cur, err = currentCompaction(ctx, tx, src)
				messages = parent.MessageCount // the parent's own transcript
			} else {
				cur, err = compactionAt(ctx, tx, src, atSeq)
			}
			if err != nil {
				return err
			}
		}
		if out, err = e.copyTranscript(ctx, tx, parent, newID, cur, atSeq, messages); err != nil {
			return err
		}
		if opts.Meta == nil {
			return nil
		}
		p, err := backend.EffectivePatch(out, opts.Meta)
		if err != nil {
			return fmt.Errorf("fork %s: patch %s: %w", src, newID, err)
		}
		if err := applyPatch(ctx, e.d, tx, newID, p); err != nil {
			return err
		}
		if !opts.Meta.UpdatedAt.IsZero() {
			_, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ?`, FormatTime(opts.Meta.UpdatedAt), newID)
			if err != nil {
				return err
			}
		}
		out, err = e.d.GetSession(ctx, tx, newID)
		return err
	})
	return out, err
}

// messageCut finds where a fork after the k-th message of parent's
// current transcript cuts: the current compaction and the Seq of that
// message (the compaction's KeepFromSeq-1 when k is its summary's last
// message).
func messageCut(ctx context.Context, tx Tx, parent sessiondb.Session, k int) (current, int64, error) {
	cur, err := currentCompaction(ctx, tx, parent.ID)
	if err != nil {
		return current{}, 0, err
	}
	var summary int64
	if cur.ID != 0 {
		err := tx.GetContext(ctx, &summary, `SELECT count(*) FROM summary_messages
			WHERE compaction_id = ? AND kind IN `+backend.MessageKindsSQL, cur.ID)
		if err != nil {
			return current{}, 0, err
		}
	}
	switch n := int64(k); {
	case n > parent.MessageCount:
		return current{}, 0, fmt.Errorf("fork %s after message %d: %w: the transcript holds %d messages",
			parent.ID, k, sessiondb.ErrInvalid, parent.MessageCount)
	case n < summary:
		return current{}, 0, fmt.Errorf("fork %s after message %d: %w: that message is in the summary (%d messages), which is not cut",
			parent.ID, k, sessiondb.ErrInvalid, summary)
	case n == summary:
		return cur, cur.KeepFromSeq - 1, nil
	}
	var seq int64
	err = tx.GetContext(ctx, &seq, `SELECT seq FROM entries WHERE session_id = ? AND seq >= ? AND kind IN `+
		backend.MessageKindsSQL+` ORDER BY seq LIMIT 1 OFFSET ?`, parent.ID, cur.KeepFromSeq, int64(k)-summary-1)
	if err != nil {
		return current{}, 0, fmt.Errorf("fork %s after message %d: %w", parent.ID, k, err)
	}
	return cur, seq, nil
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
	preview, err := PreviewFrom(ctx, tx, newID, 1, max(copied, 0))
	if err != nil {
		return sessiondb.Session{}, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE sessions SET sequence = sequence + 1, last_seq = ?, message_count = ?,
		entry_count = ?, preview = ? WHERE id = ?`, max(copied, 0), messages, max(copied, 0), preview, newID)
	if err != nil {
		return sessiondb.Session{}, err
	}
	return e.d.GetSession(ctx, tx, newID)
}
