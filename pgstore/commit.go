package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// FinishCommit ends a commit: one statement bumps the counters and
// returns the session as committed (aliases and the kept counts included,
// as this transaction left them). The last (often the only) INSERT of
// entries, which InsertEntries held back, rides along in a WITH: an append
// is then three round trips inside BEGIN … COMMIT (lock, insert+update),
// which is what lets many writers share the CPU.
func (d engineDriver) FinishCommit(ctx context.Context, etx engine.Tx, id string, sess sessiondb.Session, f engine.Finish) (sessiondb.Session, error) {
	tx := etx.(*ptx)
	if !f.Changed {
		// Nothing to record: no Sequence bump, no row written. The row
		// is read again (after the lock, so as committed) for its
		// aliases.
		return getSession(ctx, tx, id)
	}
	q := `UPDATE sessions AS s SET sequence = s.sequence + 1, last_seq = ?, message_count = ?, entry_count = ?,
		updated_at = ? WHERE s.id = ? RETURNING ` + sessionColumns
	args := []any{f.LastSeq, f.MessageCount, f.EntryCount, formatTime(f.UpdatedAt), id}
	pendQ, pendArgs := tx.pendQ, tx.pendArgs
	tx.pendQ, tx.pendArgs = "", nil
	if pendQ != "" {
		q = `WITH appended AS (` + pendQ + `) ` + q
		args = append(pendArgs, args...)
	}
	var r sessionRow
	if err := tx.GetContext(ctx, &r, q, args...); err != nil {
		if pendQ != "" {
			return sessiondb.Session{}, fmt.Errorf("append entries to %s: %w", id, err)
		}
		return sessiondb.Session{}, err
	}
	return r.session(), nil
}

// insertChunk is how many entries one INSERT statement writes (7
// parameters each, far below PostgreSQL's 65535-parameter limit).
const insertChunk = 512

// InsertEntries appends described entries after lastSeq with multi-row
// INSERTs (one round trip per insertChunk entries) and returns the new
// LastSeq. The last INSERT is not run but held in the transaction
// (ptx.pendQ), for FinishCommit to run with the statement that ends the
// commit.
func (d engineDriver) InsertEntries(ctx context.Context, etx engine.Tx, id string, lastSeq int64, rows []engine.Row, now time.Time) (int64, error) {
	tx := etx.(*ptx)
	const row = "(?, ?, ?, ?, ?, ?, ?)"
	for {
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
		if len(rows) == 0 {
			tx.pendQ, tx.pendArgs = q, args
			return lastSeq, nil
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, fmt.Errorf("append entries %d-%d to %s: %w", first, lastSeq, id, err)
		}
	}
}

// describe fills the derived columns of an entry.
func (s *Store) describe(e sessiondb.Entry) (kind, role, text string) {
	kind = backend.EntryKind(e)
	role, text = s.extract(kind, e.Body)
	if e.Role != "" {
		role = e.Role
	}
	return kind, role, noNUL(text)
}

// noNUL makes derived text (an entry's plain text) storable by
// repair (backend.CleanText): U+0000, bytes that are not UTF-8 and a
// leading backend.TextMarker become U+FFFD, so the searched columns never
// hold an escaped value. Bodies and every other column keep their exact
// bytes through escapedText instead.
func noNUL(s string) string { return backend.CleanText(s) }

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
	err := s.write(ctx, func(tx *ptx) error {
		c := sessiondb.Commit{State: state}
		_, err := lockSession(ctx, tx, meta.ID)
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
		var exists *existsError
		if c.Create != nil && errors.As(err, &exists) {
			// Another SaveFull created the session since the check
			// above: run again, and this time update it.
			return fmt.Errorf("%w: session %q was created concurrently", errRace, meta.ID)
		}
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
	err := s.read(ctx, func(tx *ptx) (err error) {
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
