package pgstore

import (
	"bytes"
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

// Commit implements sessiondb.Store: every part of c in one transaction,
// one Sequence bump.
func (s *Store) Commit(ctx context.Context, id string, c sessiondb.Commit) (sessiondb.Session, error) {
	if err := sessiondb.ValidateCommit(id, c); err != nil {
		return sessiondb.Session{}, fmt.Errorf("commit %q: %w", id, err)
	}
	var out sessiondb.Session
	err := s.write(ctx, func(tx *ptx) (err error) {
		out, err = s.applyCommit(ctx, tx, id, c)
		return err
	})
	return out, err
}

// applyCommit is the one write path: every public write method builds a
// Commit (possibly after reading inside the same transaction) and applies
// it here. c must have passed sessiondb.ValidateCommit. A commit that
// changes nothing writes nothing (see sessiondb.Commit): no Sequence bump.
func (s *Store) applyCommit(ctx context.Context, tx *ptx, id string, c sessiondb.Commit) (sessiondb.Session, error) {
	now := orNow(c.Now, time.Now())
	create := c.Create
	if create != nil {
		cr := *create
		cr.ID = id
		if err := insertSession(ctx, tx, cr, now, c.ShadowAliases); err != nil {
			return sessiondb.Session{}, err
		}
	} else if c.CreateIfMissing != nil {
		// INSERT … ON CONFLICT DO NOTHING waits for a concurrent creator
		// and then leaves its row alone; the lock below then queues
		// behind it like any writer.
		cr := *c.CreateIfMissing
		cr.ID = id
		created, err := insertSessionIfMissing(ctx, tx, cr, now, c.ShadowAliases)
		if err != nil {
			return sessiondb.Session{}, err
		}
		if created {
			create = c.CreateIfMissing
		}
	}
	sess, err := lockSession(ctx, tx, id)
	if err != nil {
		return sessiondb.Session{}, err
	}
	if c.ExpectSequence != nil && *c.ExpectSequence != sess.Sequence {
		return sessiondb.Session{}, &sessiondb.ConflictError{SessionID: id, Expected: *c.ExpectSequence, Current: sess.Sequence}
	}
	if err := checkSourceExpectation(ctx, tx, c); err != nil {
		return sessiondb.Session{}, err
	}
	changed := create != nil
	updated := now
	if create != nil && c.Now.IsZero() {
		updated = sess.UpdatedAt // the creator's UpdatedAt (or its CreatedAt)
	}
	if c.Meta != nil {
		if c.Meta.Aliases != nil {
			if sess.Aliases, err = lockedAliases(ctx, tx, id); err != nil {
				return sessiondb.Session{}, err
			}
		}
		p, err := backend.EffectivePatch(sess, c.Meta)
		if err != nil {
			return sessiondb.Session{}, fmt.Errorf("patch %s: %w", id, err)
		}
		if backend.PatchChanges(sess, p) {
			if err := applyPatch(ctx, tx, id, p); err != nil {
				return sessiondb.Session{}, err
			}
			changed = true
		}
		if !c.Meta.UpdatedAt.IsZero() {
			updated = c.Meta.UpdatedAt
		}
	}
	entries, compactions := c.Append, c.Compactions
	if c.History != nil {
		var h sessiondb.Commit
		if err := engine.HistoryCommit(ctx, engineDriver{s}, tx, id, c.History, &h); err != nil {
			return sessiondb.Session{}, err
		}
		entries = append(append([]sessiondb.Entry(nil), h.Append...), c.Append...)
		compactions = append(h.Compactions, c.Compactions...)
	}
	var before backend.Before // the transcript before a compaction of this commit
	if len(compactions) > 0 || c.KeepLast != nil {
		if before, err = backend.ReadBefore(ctx, tx, sess); err != nil {
			return sessiondb.Session{}, err
		}
	}
	lastSeq := sess.LastSeq
	var pendQ string // the last INSERT of entries, run with the final UPDATE
	var pendArgs []any
	if len(entries) > 0 {
		if lastSeq, pendQ, pendArgs, err = s.insertEntries(ctx, tx, id, lastSeq, entries, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed = true
	}
	var cut *sessiondb.Compaction // the last compaction recorded: it defines the transcript
	for _, cp := range compactions {
		if _, err := engine.InsertCompaction(ctx, engineDriver{s}, tx, id, lastSeq, cp, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed, cut = true, &cp
	}
	if c.KeepLast != nil {
		cp, err := engine.KeepLastCompaction(ctx, tx, id, lastSeq, *c.KeepLast)
		if err != nil {
			return sessiondb.Session{}, err
		}
		if cp != nil {
			if _, err := engine.InsertCompaction(ctx, engineDriver{s}, tx, id, lastSeq, *cp, now); err != nil {
				return sessiondb.Session{}, err
			}
			changed, cut = true, cp
		}
	}
	messages := sess.MessageCount + backend.CountMessages(entries)
	if cut != nil {
		// The count reads only entries up to the old LastSeq, all of them
		// inserted before this commit: the pending INSERT is not needed.
		kinds := make([]string, len(entries))
		for i, e := range entries {
			kinds[i] = backend.EntryKind(e)
		}
		messages, err = backend.CutMessages(ctx, tx, id, before, kinds, cut.KeepFromSeq, backend.CountMessages(cut.Summary))
		if err != nil {
			return sessiondb.Session{}, err
		}
	}
	for _, d := range []struct {
		table string
		doc   json.RawMessage
		clear bool
	}{{"states", c.State, c.ClearState}, {"interrupts", c.Interrupt, c.ClearInterrupt}} {
		if d.doc == nil && !d.clear {
			continue
		}
		stored, err := engine.GetDoc(ctx, tx, d.table, id)
		if err != nil {
			return sessiondb.Session{}, err
		}
		if d.clear && stored == nil || d.doc != nil && stored != nil && bytes.Equal(d.doc, stored) {
			continue // already so
		}
		if err := engine.PutDoc(ctx, tx, d.table, id, d.doc, d.clear, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed = true
	}
	for _, u := range c.Usage {
		if err := insertUsage(ctx, tx, id, lastSeq, u, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed = true
	}
	if c.Source != nil {
		if err := putSourceFile(ctx, tx, id, *c.Source, now); err != nil {
			return sessiondb.Session{}, err
		}
		changed = true
	}
	if !changed {
		// Nothing to record: no Sequence bump, no row written. The row
		// is read again (after the lock, so as committed) for its
		// aliases.
		return getSession(ctx, tx, id)
	}
	// One statement bumps the counters and returns the session as
	// committed (aliases and the kept counts included, as this
	// transaction left them). The last (often the only) INSERT of entries rides along
	// in a WITH: an append is then three round trips inside BEGIN …
	// COMMIT (lock, insert+update), which is what lets many writers share
	// the CPU.
	q := `UPDATE sessions AS s SET sequence = s.sequence + 1, last_seq = ?, message_count = ?, entry_count = ?,
		updated_at = ? WHERE s.id = ? RETURNING ` + sessionColumns
	args := []any{lastSeq, messages, sess.EntryCount + int64(len(entries)), formatTime(updated), id}
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

// insertEntries appends entries after lastSeq with multi-row INSERTs (one
// round trip per insertChunk entries) and returns the new LastSeq. The
// last INSERT is not run but returned (query and arguments), for the
// caller to run with the statement that ends the commit.
func (s *Store) insertEntries(ctx context.Context, tx *ptx, id string, lastSeq int64, entries []sessiondb.Entry, now time.Time) (int64, string, []any, error) {
	const row = "(?, ?, ?, ?, ?, ?, ?)"
	for {
		chunk := entries[:min(insertChunk, len(entries))]
		entries = entries[len(chunk):]
		args := make([]any, 0, 7*len(chunk))
		first := lastSeq + 1
		for _, e := range chunk {
			lastSeq++
			kind, role, text := s.describe(e)
			args = append(args, id, lastSeq, kind, role, text, string(e.Body), formatTime(orNow(e.CreatedAt, now)))
		}
		q := `INSERT INTO entries (session_id, seq, kind, role, text, body, created_at) VALUES ` +
			row + strings.Repeat(", "+row, len(chunk)-1)
		if len(entries) == 0 {
			return lastSeq, q, args, nil
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, "", nil, fmt.Errorf("append entries %d-%d to %s: %w", first, lastSeq, id, err)
		}
	}
}

// describe fills the derived columns of an entry.
func (s *Store) describe(e sessiondb.Entry) (kind, role, text string) {
	kind = engine.KindOf(e)
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
		out, err = s.applyCommit(ctx, tx, meta.ID, c)
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
