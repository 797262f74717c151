package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// returningColumns is sessionColumns for a RETURNING clause, which cannot
// use the table alias s: the table's own name qualifies the columns.
var returningColumns = strings.ReplaceAll(sessionColumns, "s.", "sessions.")

// AppendCommit is the engine's commit for an engine.AppendOnly commit: it
// bumps the session's counters and reads it back in one UPDATE …
// RETURNING, instead of a read before and a write after.
func (d engineDriver) AppendCommit(ctx context.Context, etx engine.Tx, id string, c sessiondb.Commit, rows []engine.Row) (sessiondb.Session, error) {
	tx := etx.(*sqlx.Tx)
	now := orNow(c.Now, time.Now())
	var expect any
	if c.ExpectSequence != nil {
		expect = *c.ExpectSequence
	}
	var r sessionRow
	err := tx.GetContext(ctx, &r, `UPDATE sessions SET sequence = sequence + 1, last_seq = last_seq + ?1,
		entry_count = entry_count + ?1, message_count = message_count + ?2, updated_at = ?3
		WHERE id = ?4 AND (?5 IS NULL OR sequence = ?5) RETURNING `+returningColumns,
		len(rows), engine.CountMessages(rows), formatTime(now), id, expect)
	if errors.Is(err, sql.ErrNoRows) {
		// Not there, or not at the expected sequence: say which.
		sess, err := getSession(ctx, tx, id)
		if err != nil {
			return sessiondb.Session{}, err
		}
		if c.ExpectSequence == nil {
			return sessiondb.Session{}, fmt.Errorf("append to %s: the session row did not update", id)
		}
		return sessiondb.Session{}, &sessiondb.ConflictError{SessionID: id, Expected: *c.ExpectSequence, Current: sess.Sequence}
	}
	if err != nil {
		return sessiondb.Session{}, err
	}
	sess := r.session()
	if _, err := d.InsertEntries(ctx, tx, id, sess.LastSeq-int64(len(rows)), rows, now); err != nil {
		return sessiondb.Session{}, err
	}
	if err := engine.PutDoc(ctx, tx, "states", id, c.State, c.ClearState, now); err != nil {
		return sessiondb.Session{}, err
	}
	if err := engine.PutDoc(ctx, tx, "interrupts", id, c.Interrupt, c.ClearInterrupt, now); err != nil {
		return sessiondb.Session{}, err
	}
	for _, u := range c.Usage {
		if err := engine.InsertUsage(ctx, tx, id, sess.LastSeq, u, now); err != nil {
			return sessiondb.Session{}, err
		}
	}
	return sess, nil
}

// FinishCommit ends a commit: SQLite's UPDATE of the row. Unless the
// commit created the session or changed its metadata, the session is not
// read back (the costliest statement of a small append): only its
// counters and time changed.
func (d engineDriver) FinishCommit(ctx context.Context, etx engine.Tx, id string, sess sessiondb.Session, f engine.Finish) (sessiondb.Session, error) {
	if !f.Changed {
		// Nothing to record: no Sequence bump, no row written, so the
		// transaction commits without a WAL frame (and without an fsync).
		return sess, nil
	}
	tx := etx.(*sqlx.Tx)
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET sequence = sequence + 1, last_seq = ?, message_count = ?,
		entry_count = ?, updated_at = ? WHERE id = ?`, f.LastSeq, f.MessageCount, f.EntryCount, formatTime(f.UpdatedAt), id)
	if err != nil {
		return sessiondb.Session{}, err
	}
	if f.Reread {
		return getSession(ctx, tx, id)
	}
	sess.Sequence++
	sess.LastSeq = f.LastSeq
	sess.UpdatedAt = parseTime(formatTime(f.UpdatedAt))
	sess.MessageCount, sess.EntryCount = f.MessageCount, f.EntryCount
	return sess, nil
}

// insertChunk is how many entries one INSERT statement writes (7
// parameters each, far below SQLite's 32766-parameter limit).
const insertChunk = 512

// InsertEntries appends described entries after lastSeq and returns the
// new LastSeq. They go in with multi-row INSERTs, not one statement per
// entry: each statement costs a step of the VM and a statement journal.
func (d engineDriver) InsertEntries(ctx context.Context, tx engine.Tx, id string, lastSeq int64, rows []engine.Row, now time.Time) (int64, error) {
	const row = "(?, ?, ?, ?, ?, ?, ?)"
	for len(rows) > 0 {
		chunk := rows[:min(insertChunk, len(rows))]
		rows = rows[len(chunk):]
		args := make([]any, 0, 7*len(chunk))
		first := lastSeq + 1
		for _, e := range chunk {
			lastSeq++
			args = append(args, id, lastSeq, e.Kind, e.Role, e.Text, e.Body, formatTime(orNow(e.CreatedAt, now)))
		}
		q := `INSERT INTO entries (session_id, seq, kind, role, text, body, created_at) VALUES ` +
			row + strings.Repeat(", "+row, len(chunk)-1)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, fmt.Errorf("append entries %d-%d to %s: %w", first, lastSeq, id, err)
		}
	}
	return lastSeq, nil
}

// describe fills the derived columns of an entry.
func (s *Store) describe(e sessiondb.Entry) (kind, role, text string) {
	kind = backend.EntryKind(e)
	role, text = s.extract(kind, e.Body)
	if e.Role != "" {
		role = e.Role
	}
	return kind, role, text
}

// Append implements sessiondb.Store.
func (s *Store) Append(ctx context.Context, id string, entries ...sessiondb.Entry) (sessiondb.Session, error) {
	return s.Commit(ctx, id, sessiondb.Commit{Append: entries})
}

// SaveState implements sessiondb.Store.
func (s *Store) SaveState(ctx context.Context, id string, state json.RawMessage) (sessiondb.Session, error) {
	if state == nil {
		return sessiondb.Session{}, fmt.Errorf("save state of %s: %w: nil state", id, sessiondb.ErrInvalid)
	}
	return s.Commit(ctx, id, sessiondb.Commit{State: state})
}

// SaveInterrupt implements sessiondb.Store.
func (s *Store) SaveInterrupt(ctx context.Context, id string, interrupt json.RawMessage) (sessiondb.Session, error) {
	if interrupt == nil {
		return sessiondb.Session{}, fmt.Errorf("save interrupt of %s: %w: nil interrupt", id, sessiondb.ErrInvalid)
	}
	return s.Commit(ctx, id, sessiondb.Commit{Interrupt: interrupt})
}

// ClearInterrupt implements sessiondb.Store.
func (s *Store) ClearInterrupt(ctx context.Context, id string) (sessiondb.Session, error) {
	return s.Commit(ctx, id, sessiondb.Commit{ClearInterrupt: true})
}

// SaveFull implements sessiondb.Store.
func (s *Store) SaveFull(ctx context.Context, meta sessiondb.Session, messages []sessiondb.Entry, state json.RawMessage) (sessiondb.Session, error) {
	if meta.ID == "" {
		meta.ID = sessiondb.NewID()
	}
	probe := sessiondb.Commit{Append: messages, State: state, Create: &meta}
	if err := sessiondb.ValidateCommit(meta.ID, probe); err != nil {
		return sessiondb.Session{}, fmt.Errorf("save %s: %w", meta.ID, err)
	}
	var out sessiondb.Session
	err := s.write(ctx, func(tx *sqlx.Tx) error {
		c := sessiondb.Commit{State: state}
		_, err := getSession(ctx, tx, meta.ID)
		switch {
		case err == nil:
			if meta.Sequence != 0 {
				c.ExpectSequence = sessiondb.Expect(meta.Sequence)
			}
			aliases := meta.Aliases
			c.Meta = &sessiondb.MetaPatch{Title: &meta.Title, Summary: &meta.Summary, Scope: orNull(meta.Scope),
				Attrs: orNull(meta.Attrs), Aliases: &aliases, Version: &meta.Version}
		case isNotFound(err):
			c.Create = &meta
		default:
			return err
		}
		c.History = messages
		if c.History == nil {
			c.History = []sessiondb.Entry{}
		}
		out, err = engine.ApplyCommit(ctx, engineDriver{s}, tx, meta.ID, c, engine.DescribeAll(engineDriver{s}, c.Append))
		return err
	})
	return out, err
}

// LoadFull implements sessiondb.Store: one read transaction, one snapshot.
func (s *Store) LoadFull(ctx context.Context, id string, opts sessiondb.LoadOptions) (sessiondb.Full, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.Full{}, fmt.Errorf("load %s: %w", id, err)
	}
	var f sessiondb.Full
	err := s.read(ctx, func(tx *sqlx.Tx) (err error) {
		if f.Session, err = getSession(ctx, tx, id); err != nil {
			return err
		}
		if f.Transcript, err = engine.LoadTranscript(ctx, tx, id, opts); err != nil {
			return err
		}
		if f.State, err = engine.GetDoc(ctx, tx, "states", id); err != nil {
			return err
		}
		f.Interrupt, err = engine.GetDoc(ctx, tx, "interrupts", id)
		return err
	})
	return f, err
}

// orNull turns an unset document into JSON null, which a MetaPatch reads
// as "clear": SaveFull replaces the metadata, it does not merge it.
func orNull(doc json.RawMessage) json.RawMessage {
	if doc == nil {
		return json.RawMessage("null")
	}
	return doc
}
