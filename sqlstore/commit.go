package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

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
	// Derive kind, role and text of the new entries here, in the caller's
	// goroutine: concurrent writers then extract in parallel, and the
	// committer, which serialises every write, only inserts.
	rows := s.describeAll(c.Append)
	var out sessiondb.Session
	err := s.write(ctx, func(tx *sqlx.Tx) (err error) {
		if appendOnly(c) {
			out, err = s.applyAppend(ctx, tx, id, c, rows)
		} else {
			out, err = s.applyCommitRows(ctx, tx, id, c, rows)
		}
		return err
	})
	return out, err
}

// appendOnly reports whether c only appends entries and replaces
// documents and usage, on an existing session: the common write of an
// agent's turn, which applyAppend does in two statements. Any other field
// (including one added to Commit later) takes the general path.
func appendOnly(c sessiondb.Commit) bool {
	rest := c
	rest.ExpectSequence, rest.Append, rest.State, rest.ClearState = nil, nil, nil, false
	rest.Interrupt, rest.ClearInterrupt, rest.Usage, rest.Now = nil, false, nil, time.Time{}
	// A commit without entries may change nothing, which the general path
	// turns into a no-op; one with entries always changes the session.
	return len(c.Append) > 0 && reflect.ValueOf(rest).IsZero()
}

// returningColumns is sessionColumns for a RETURNING clause, which cannot
// use the table alias s: the table's own name qualifies the columns.
var returningColumns = strings.ReplaceAll(sessionColumns, "s.", "sessions.")

// applyAppend is applyCommit for an appendOnly commit: it bumps the
// session's counters and reads it back in one UPDATE … RETURNING, instead
// of a read before and a write after.
func (s *Store) applyAppend(ctx context.Context, tx *sqlx.Tx, id string, c sessiondb.Commit, rows []newEntry) (sessiondb.Session, error) {
	now := orNow(c.Now, time.Now())
	var expect any
	if c.ExpectSequence != nil {
		expect = *c.ExpectSequence
	}
	var r sessionRow
	err := tx.GetContext(ctx, &r, `UPDATE sessions SET sequence = sequence + 1, last_seq = last_seq + ?1,
		entry_count = entry_count + ?1, message_count = message_count + ?2, updated_at = ?3
		WHERE id = ?4 AND (?5 IS NULL OR sequence = ?5) RETURNING `+returningColumns,
		len(rows), countMessages(rows), formatTime(now), id, expect)
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
	if _, err := s.insertRows(ctx, tx, id, sess.LastSeq-int64(len(rows)), rows, now); err != nil {
		return sessiondb.Session{}, err
	}
	if err := engine.PutDoc(ctx, tx, "states", id, c.State, c.ClearState, now); err != nil {
		return sessiondb.Session{}, err
	}
	if err := engine.PutDoc(ctx, tx, "interrupts", id, c.Interrupt, c.ClearInterrupt, now); err != nil {
		return sessiondb.Session{}, err
	}
	for _, u := range c.Usage {
		if err := insertUsage(ctx, tx, id, sess.LastSeq, u, now); err != nil {
			return sessiondb.Session{}, err
		}
	}
	return sess, nil
}

// CommitMany implements sessiondb.Store: the commits in order, in one
// transaction (one write request, so group commit never splits it).
func (s *Store) CommitMany(ctx context.Context, commits []sessiondb.SessionCommit) ([]sessiondb.Session, error) {
	if err := sessiondb.ValidateCommitMany(commits); err != nil {
		return nil, fmt.Errorf("commit many: %w", err)
	}
	out := make([]sessiondb.Session, len(commits))
	err := s.write(ctx, func(tx *sqlx.Tx) error {
		for i, sc := range commits {
			sess, err := s.applyCommit(ctx, tx, sc.ID, sc.Commit)
			if err != nil {
				return fmt.Errorf("commit many: session %q (commit %d): %w", sc.ID, i, err)
			}
			out[i] = sess
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// applyCommit is the one write path: every public write method builds a
// Commit (possibly after reading inside the same transaction) and applies
// it here. c must have passed sessiondb.ValidateCommit. A commit that
// changes nothing writes nothing (see sessiondb.Commit).
func (s *Store) applyCommit(ctx context.Context, tx *sqlx.Tx, id string, c sessiondb.Commit) (sessiondb.Session, error) {
	return s.applyCommitRows(ctx, tx, id, c, s.describeAll(c.Append))
}

// applyCommitRows is applyCommit with the entries of c.Append already
// described (rows[i] is c.Append[i]).
func (s *Store) applyCommitRows(ctx context.Context, tx *sqlx.Tx, id string, c sessiondb.Commit, rows []newEntry) (sessiondb.Session, error) {
	now := orNow(c.Now, time.Now())
	create := c.Create
	if create == nil && c.CreateIfMissing != nil {
		// The write transaction holds the database's write lock from its
		// first statement (BEGIN IMMEDIATE), so no other process can
		// create the session between this check and the insert.
		switch err := sessionExists(ctx, tx, id); {
		case isNotFound(err):
			create = c.CreateIfMissing
		case err != nil:
			return sessiondb.Session{}, err
		}
	}
	if create != nil {
		cr := *create
		cr.ID = id
		if err := insertSession(ctx, tx, cr, now, c.ShadowAliases); err != nil {
			return sessiondb.Session{}, err
		}
	}
	sess, err := getSession(ctx, tx, id)
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
	metaChanged := false
	if c.Meta != nil {
		p, err := backend.EffectivePatch(sess, c.Meta)
		if err != nil {
			return sessiondb.Session{}, fmt.Errorf("patch %s: %w", id, err)
		}
		if backend.PatchChanges(sess, p) {
			if err := applyPatch(ctx, tx, id, p); err != nil {
				return sessiondb.Session{}, err
			}
			changed, metaChanged = true, true
		}
		if !c.Meta.UpdatedAt.IsZero() {
			updated = c.Meta.UpdatedAt
		}
	}
	compactions := c.Compactions
	if c.History != nil {
		var h sessiondb.Commit
		if err := engine.HistoryCommit(ctx, engineDriver{s}, tx, id, c.History, &h); err != nil {
			return sessiondb.Session{}, err
		}
		rows = append(s.describeAll(h.Append), rows...)
		compactions = append(h.Compactions, c.Compactions...)
	}
	var before backend.Before // the transcript before a compaction of this commit
	if len(compactions) > 0 || c.KeepLast != nil {
		if before, err = backend.ReadBefore(ctx, tx, sess); err != nil {
			return sessiondb.Session{}, err
		}
	}
	lastSeq := sess.LastSeq
	if len(rows) > 0 {
		if lastSeq, err = s.insertRows(ctx, tx, id, lastSeq, rows, now); err != nil {
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
	messages := sess.MessageCount + countMessages(rows)
	if cut != nil {
		kinds := make([]string, len(rows))
		for i, r := range rows {
			kinds[i] = r.kind
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
		// Nothing to record: no Sequence bump, no row written, so the
		// transaction commits without a WAL frame (and without an fsync).
		return sess, nil
	}
	entryCount := sess.EntryCount + int64(len(rows))
	_, err = tx.ExecContext(ctx, `UPDATE sessions SET sequence = sequence + 1, last_seq = ?, message_count = ?,
		entry_count = ?, updated_at = ? WHERE id = ?`, lastSeq, messages, entryCount, formatTime(updated), id)
	if err != nil {
		return sessiondb.Session{}, err
	}
	if create != nil || metaChanged {
		return getSession(ctx, tx, id)
	}
	// Only the counters and the time changed: skip re-reading the row (it
	// is the costliest statement of a small append).
	sess.Sequence++
	sess.LastSeq = lastSeq
	sess.UpdatedAt = parseTime(formatTime(updated))
	sess.MessageCount, sess.EntryCount = messages, entryCount
	return sess, nil
}

// countMessages counts the described entries that are messages (see
// backend.IsMessageKind).
func countMessages(rows []newEntry) int64 {
	var n int64
	for _, r := range rows {
		if backend.IsMessageKind(r.kind) {
			n++
		}
	}
	return n
}

// insertChunk is how many entries one INSERT statement writes (7
// parameters each, far below SQLite's 32766-parameter limit).
const insertChunk = 512

// newEntry is an entry with its derived columns.
type newEntry struct {
	kind, role, text string
	body             string
	createdAt        time.Time
}

// describeAll derives the stored columns of entries.
func (s *Store) describeAll(entries []sessiondb.Entry) []newEntry {
	rows := make([]newEntry, len(entries))
	for i, e := range entries {
		kind, role, text := s.describe(e)
		rows[i] = newEntry{kind: kind, role: role, text: text, body: string(e.Body), createdAt: e.CreatedAt}
	}
	return rows
}

// insertRows appends described entries after lastSeq and returns the new
// LastSeq. They go in with multi-row INSERTs, not one statement per entry:
// each statement costs a step of the VM and a statement journal.
func (s *Store) insertRows(ctx context.Context, tx *sqlx.Tx, id string, lastSeq int64, rows []newEntry, now time.Time) (int64, error) {
	const row = "(?, ?, ?, ?, ?, ?, ?)"
	for len(rows) > 0 {
		chunk := rows[:min(insertChunk, len(rows))]
		rows = rows[len(chunk):]
		args := make([]any, 0, 7*len(chunk))
		first := lastSeq + 1
		for _, e := range chunk {
			lastSeq++
			args = append(args, id, lastSeq, e.kind, e.role, e.text, e.body, formatTime(orNow(e.createdAt, now)))
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
	kind = engine.KindOf(e)
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
		out, err = s.applyCommit(ctx, tx, meta.ID, c)
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
