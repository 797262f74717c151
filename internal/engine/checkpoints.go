package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// checkpointRow is a row of the checkpoints table.
type checkpointRow struct {
	ID           string         `db:"id"`
	SessionID    string         `db:"session_id"`
	Label        string         `db:"label"`
	AtSeq        int64          `db:"at_seq"`
	CompactionID sql.NullInt64  `db:"compaction_id"`
	State        sql.NullString `db:"state"`
	Metadata     sql.NullString `db:"metadata"`
	CreatedAt    string         `db:"created_at"`
}

func (r checkpointRow) checkpoint() sessiondb.Checkpoint {
	cp := sessiondb.Checkpoint{ID: r.ID, SessionID: r.SessionID, Label: r.Label, AtSeq: r.AtSeq,
		CompactionID: r.CompactionID.Int64, CreatedAt: ParseTime(r.CreatedAt)}
	if r.State.Valid {
		cp.State = json.RawMessage(r.State.String)
	}
	if r.Metadata.Valid {
		cp.Metadata = json.RawMessage(r.Metadata.String)
	}
	return cp
}

const checkpointColumns = `id, session_id, label, at_seq, compaction_id, state, metadata, created_at`

// SaveCheckpoint implements sessiondb.Store. Saving an existing ID
// replaces that checkpoint. It does not change the session's Sequence: a
// checkpoint describes the session, it does not change it.
func (e *Engine) SaveCheckpoint(ctx context.Context, cp sessiondb.Checkpoint) (sessiondb.Checkpoint, error) {
	if cp.ID == "" {
		cp.ID = sessiondb.NewID()
	}
	if err := sessiondb.ValidateID(cp.ID); err != nil {
		return cp, fmt.Errorf("save checkpoint: %w", err)
	}
	if err := sessiondb.ValidateID(cp.SessionID); err != nil {
		return cp, fmt.Errorf("save checkpoint %s: %w", cp.ID, err)
	}
	for what, doc := range map[string]json.RawMessage{"checkpoint state": cp.State, "checkpoint metadata": cp.Metadata} {
		if doc != nil {
			if err := sessiondb.ValidateJSON(what, doc); err != nil {
				return cp, fmt.Errorf("save checkpoint %s: %w", cp.ID, err)
			}
		}
	}
	var out sessiondb.Checkpoint
	err := e.d.Write(ctx, func(tx Tx) error {
		cp := cp // this attempt's defaults; the argument stays as given for a retry
		sess, err := e.d.LockSession(ctx, tx, cp.SessionID)
		if err != nil {
			return err
		}
		if cp.AtSeq == 0 {
			cp.AtSeq = sess.LastSeq
		}
		if cp.AtSeq < 0 || cp.AtSeq > sess.LastSeq {
			return fmt.Errorf("save checkpoint %s: %w: seq %d outside 0..%d", cp.ID, sessiondb.ErrInvalid, cp.AtSeq, sess.LastSeq)
		}
		var cur current
		if cp.AtSeq == sess.LastSeq {
			cur, err = currentCompaction(ctx, tx, cp.SessionID)
		} else {
			cur, err = compactionAt(ctx, tx, cp.SessionID, cp.AtSeq)
		}
		if err != nil {
			return err
		}
		cp.CompactionID = cur.ID
		if cp.State == nil {
			if cp.State, err = GetDoc(ctx, tx, "states", cp.SessionID); err != nil {
				return err
			}
		}
		cp.CreatedAt = OrNow(cp.CreatedAt, time.Now())
		var cid any
		if cur.ID != 0 {
			cid = cur.ID
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO checkpoints (`+checkpointColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, label = excluded.label,
			at_seq = excluded.at_seq, compaction_id = excluded.compaction_id, state = excluded.state,
			metadata = excluded.metadata, created_at = excluded.created_at`,
			cp.ID, cp.SessionID, cp.Label, cp.AtSeq, cid, backend.NullJSON(cp.State), backend.NullJSON(cp.Metadata), FormatTime(cp.CreatedAt))
		if err != nil {
			return err
		}
		if e.retention > 0 {
			_, err = tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE session_id = ? AND id NOT IN
				(SELECT id FROM checkpoints WHERE session_id = ? ORDER BY created_at DESC, id DESC LIMIT ?)`,
				cp.SessionID, cp.SessionID, e.retention)
			if err != nil {
				return err
			}
		}
		out = cp
		return nil
	})
	return out, err
}

// LoadCheckpoint implements sessiondb.Store.
func (e *Engine) LoadCheckpoint(ctx context.Context, id string) (sessiondb.Checkpoint, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.Checkpoint{}, fmt.Errorf("load checkpoint: %w", err)
	}
	var r checkpointRow
	err := e.d.Read(ctx, func(tx Tx) error {
		err := tx.GetContext(ctx, &r, `SELECT `+checkpointColumns+` FROM checkpoints WHERE id = ?`, id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("checkpoint %q: %w", id, sessiondb.ErrNotFound)
		}
		return err
	})
	return r.checkpoint(), err
}

// ListCheckpoints implements sessiondb.Store.
func (e *Engine) ListCheckpoints(ctx context.Context, sessionID string) ([]sessiondb.Checkpoint, error) {
	if err := sessiondb.ValidateID(sessionID); err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	var rows []checkpointRow
	err := e.d.Read(ctx, func(tx Tx) error {
		if err := SessionExists(ctx, tx, sessionID); err != nil {
			return err
		}
		return tx.SelectContext(ctx, &rows, `SELECT `+checkpointColumns+` FROM checkpoints
			WHERE session_id = ? ORDER BY created_at DESC, id DESC`, sessionID)
	})
	out := make([]sessiondb.Checkpoint, len(rows))
	for i, r := range rows {
		out[i] = r.checkpoint()
	}
	return out, err
}

// DeleteCheckpoint implements sessiondb.Store.
func (e *Engine) DeleteCheckpoint(ctx context.Context, id string) error {
	if err := sessiondb.ValidateID(id); err != nil {
		return fmt.Errorf("delete checkpoint: %w", err)
	}
	return e.d.Write(ctx, func(tx Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("delete checkpoint %q: %w", id, sessiondb.ErrNotFound)
		}
		return nil
	})
}

// Restore implements sessiondb.Store.
func (e *Engine) Restore(ctx context.Context, checkpointID string, opts sessiondb.RestoreOptions) (sessiondb.Session, error) {
	if err := sessiondb.ValidateID(checkpointID); err != nil {
		return sessiondb.Session{}, fmt.Errorf("restore: %w", err)
	}
	if opts.AsFork && opts.NewID == "" {
		opts.NewID = sessiondb.NewID()
	}
	if opts.AsFork {
		if err := sessiondb.ValidateID(opts.NewID); err != nil {
			return sessiondb.Session{}, fmt.Errorf("restore %s: %w", checkpointID, err)
		}
	}
	var out sessiondb.Session
	err := e.d.Write(ctx, func(tx Tx) error {
		var r checkpointRow
		err := tx.GetContext(ctx, &r, `SELECT `+checkpointColumns+` FROM checkpoints WHERE id = ?`, checkpointID)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("restore checkpoint %q: %w", checkpointID, sessiondb.ErrNotFound)
		}
		if err != nil {
			return err
		}
		cp := r.checkpoint()
		sess, err := e.d.LockSession(ctx, tx, cp.SessionID)
		if err != nil {
			return err
		}
		cur := current{KeepFromSeq: 1}
		if cp.CompactionID != 0 {
			if err := tx.GetContext(ctx, &cur.KeepFromSeq, `SELECT keep_from_seq FROM compactions WHERE id = ?`, cp.CompactionID); err != nil {
				return fmt.Errorf("restore checkpoint %q: its compaction is gone: %w", checkpointID, err)
			}
			cur.ID = cp.CompactionID
		}
		if opts.AsFork {
			if out, err = e.copyTranscript(ctx, tx, sess, opts.NewID, cur, cp.AtSeq, -1); err != nil {
				return err
			}
			return e.restoreState(ctx, tx, out.ID, cp.State)
		}
		transcript, err := transcriptAt(ctx, tx, cp.SessionID, cur, cp.AtSeq, sessiondb.LoadOptions{})
		if err != nil {
			return err
		}
		c := sessiondb.Commit{ExpectSequence: opts.ExpectSequence, State: cp.State, ClearState: cp.State == nil}
		rewind := sessiondb.Compaction{KeepFromSeq: sess.LastSeq + 1,
			Details: []byte(fmt.Sprintf(`{"reason":"rewind","checkpoint":%q,"at_seq":%d}`, cp.ID, cp.AtSeq))}
		for _, e := range transcript {
			e.Seq = 0
			if e.Summary {
				rewind.Summary = append(rewind.Summary, e)
			} else {
				c.Append = append(c.Append, e)
			}
		}
		c.Compactions = []sessiondb.Compaction{rewind}
		out, err = e.applyCommit(ctx, tx, cp.SessionID, c)
		return err
	})
	return out, err
}

// restoreState sets a fork's state to the checkpoint's (or none).
func (e *Engine) restoreState(ctx context.Context, tx Tx, id string, state json.RawMessage) error {
	return PutDoc(ctx, tx, "states", id, state, state == nil, time.Now())
}
