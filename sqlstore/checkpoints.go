package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

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
		CompactionID: r.CompactionID.Int64, CreatedAt: parseTime(r.CreatedAt)}
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
func (s *Store) SaveCheckpoint(ctx context.Context, cp sessiondb.Checkpoint) (sessiondb.Checkpoint, error) {
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
	err := s.write(ctx, func(tx *sqlx.Tx) error {
		sess, err := getSession(ctx, tx, cp.SessionID)
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
			if cp.State, err = getDoc(ctx, tx, "states", cp.SessionID); err != nil {
				return err
			}
		}
		cp.CreatedAt = orNow(cp.CreatedAt, time.Now())
		var cid any
		if cur.ID != 0 {
			cid = cur.ID
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO checkpoints (`+checkpointColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, label = excluded.label,
			at_seq = excluded.at_seq, compaction_id = excluded.compaction_id, state = excluded.state,
			metadata = excluded.metadata, created_at = excluded.created_at`,
			cp.ID, cp.SessionID, cp.Label, cp.AtSeq, cid, backend.NullJSON(cp.State), backend.NullJSON(cp.Metadata), formatTime(cp.CreatedAt))
		if err != nil {
			return err
		}
		if s.retention > 0 {
			_, err = tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE session_id = ? AND id NOT IN
				(SELECT id FROM checkpoints WHERE session_id = ? ORDER BY created_at DESC, id DESC LIMIT ?)`,
				cp.SessionID, cp.SessionID, s.retention)
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
func (s *Store) LoadCheckpoint(ctx context.Context, id string) (sessiondb.Checkpoint, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.Checkpoint{}, fmt.Errorf("load checkpoint: %w", err)
	}
	var r checkpointRow
	err := s.read(ctx, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &r, `SELECT `+checkpointColumns+` FROM checkpoints WHERE id = ?`, id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("checkpoint %q: %w", id, sessiondb.ErrNotFound)
		}
		return err
	})
	return r.checkpoint(), err
}

// ListCheckpoints implements sessiondb.Store.
func (s *Store) ListCheckpoints(ctx context.Context, sessionID string) ([]sessiondb.Checkpoint, error) {
	if err := sessiondb.ValidateID(sessionID); err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	var rows []checkpointRow
	err := s.read(ctx, func(tx *sqlx.Tx) error {
		if err := sessionExists(ctx, tx, sessionID); err != nil {
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
func (s *Store) DeleteCheckpoint(ctx context.Context, id string) error {
	if err := sessiondb.ValidateID(id); err != nil {
		return fmt.Errorf("delete checkpoint: %w", err)
	}
	return s.write(ctx, func(tx *sqlx.Tx) error {
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
func (s *Store) Restore(ctx context.Context, checkpointID string, opts sessiondb.RestoreOptions) (sessiondb.Session, error) {
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
	err := s.write(ctx, func(tx *sqlx.Tx) error {
		var r checkpointRow
		err := tx.GetContext(ctx, &r, `SELECT `+checkpointColumns+` FROM checkpoints WHERE id = ?`, checkpointID)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("restore checkpoint %q: %w", checkpointID, sessiondb.ErrNotFound)
		}
		if err != nil {
			return err
		}
		cp := r.checkpoint()
		sess, err := getSession(ctx, tx, cp.SessionID)
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
			if out, err = s.copyTranscript(ctx, tx, sess, opts.NewID, cur, cp.AtSeq, -1); err != nil {
				return err
			}
			return s.restoreState(ctx, tx, out.ID, cp.State)
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
		out, err = s.applyCommit(ctx, tx, cp.SessionID, c)
		return err
	})
	return out, err
}

// restoreState sets a fork's state to the checkpoint's (or none).
func (s *Store) restoreState(ctx context.Context, tx *sqlx.Tx, id string, state json.RawMessage) error {
	return putDoc(ctx, tx, "states", id, state, state == nil, time.Now())
}
