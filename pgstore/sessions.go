package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

const sessionColumns = `s.id, s.title, s.summary, s.scope, s.attrs, s.version, s.sequence,
	s.last_seq, s.parent_id, s.fork_seq, s.source_format, s.source_path, s.project, s.machine, s.source_seen_at, s.source_gone_at, s.created_at, s.updated_at,
	s.message_count, s.entry_count,
	(SELECT coalesce(json_agg(alias ORDER BY id), '[]')::text FROM session_aliases
		WHERE session_id = s.id) AS aliases`

// getSession reads a session inside tx; ErrNotFound when absent.
func getSession(ctx context.Context, tx *ptx, id string) (sessiondb.Session, error) {
	return engine.GetSession(ctx, tx, sessionColumns, id)
}

// lockSession reads a session's row inside tx and locks it (FOR UPDATE)
// until the transaction ends: every write to a session takes this lock
// first, so the writers of one session run one after the other and each
// reads the LastSeq and Sequence its predecessor committed. It also reads
// the transaction's ID for write (see ptx.xid). The kept counts are
// columns of the row, so they are read as committed by the writer the lock
// waited for. Aliases are not read: a statement that waited for the lock
// would see the other tables as of before the wait (the engine reads
// them after it).
func lockSession(ctx context.Context, tx *ptx, id string) (sessiondb.Session, error) {
	var r engine.SessionRow
	var xid int64
	err := tx.QueryRowxContext(ctx, `SELECT s.id, s.title, s.summary, s.scope, s.attrs, s.version, s.sequence,
		s.last_seq, s.parent_id, s.fork_seq, s.source_format, s.source_path, s.project, s.machine, s.source_seen_at, s.source_gone_at, s.created_at, s.updated_at,
		s.message_count, s.entry_count, txid_current() FROM sessions s WHERE s.id = ? FOR UPDATE`, id).Scan(&r.ID,
		&r.Title, &r.Summary, &r.Scope, &r.Attrs, &r.Version, &r.Sequence, &r.LastSeq, &r.ParentID, &r.ForkSeq,
		&r.SourceFormat, &r.SourcePath, &r.Project, &r.Machine, &r.SourceSeenAt, &r.SourceGoneAt, &r.CreatedAt, &r.UpdatedAt,
		&r.MessageCount, &r.EntryCount, &xid)
	if errors.Is(err, sql.ErrNoRows) {
		return sessiondb.Session{}, fmt.Errorf("session %q: %w", id, sessiondb.ErrNotFound)
	}
	if err != nil {
		return sessiondb.Session{}, err
	}
	tx.xid = xid
	return r.Session(), nil
}

// insertSession creates the row (Sequence 0: the commit that creates it
// bumps it to 1) and its aliases. Unless shadowAliases, an ID that is not
// a path key (see sessiondb.IsPathKey) and that another session lists as
// an alias is ErrExists: Resolve lets such an ID win over the alias, so
// creating it would silently move the alias away from its holders.
func insertSession(ctx context.Context, tx *ptx, s sessiondb.Session, now time.Time, shadowAliases bool) error {
	var exists int
	err := tx.GetContext(ctx, &exists, `SELECT count(*) FROM sessions WHERE id = ?`, s.ID)
	if err != nil {
		return err
	}
	if exists > 0 {
		return &engine.IDTakenError{ID: s.ID}
	}
	if err := checkAliasShadow(ctx, tx, s.ID, shadowAliases); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, insertSessionSQL, insertSessionArgs(s, now)...)
	if isUniqueViolation(err, "sessions_pkey") {
		// Another transaction created the session after the check
		// above: run again, and the check then says ErrExists (or
		// SaveFull updates the session it now finds).
		return fmt.Errorf("%w: session %q was created concurrently", errRace, s.ID)
	}
	if err != nil {
		return err
	}
	return setAliases(ctx, tx, s.ID, s.Aliases)
}

// insertSessionIfMissing is insertSession for Commit.CreateIfMissing: an
// INSERT … ON CONFLICT DO NOTHING, which waits for a concurrent creator of
// the same ID to finish and then does nothing, so racing writers never
// fail and exactly one of them creates the session. It reports whether
// this transaction created it.
func insertSessionIfMissing(ctx context.Context, tx *ptx, s sessiondb.Session, now time.Time, shadowAliases bool) (bool, error) {
	res, err := tx.ExecContext(ctx, insertSessionSQL+` ON CONFLICT (id) DO NOTHING`, insertSessionArgs(s, now)...)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if err := checkAliasShadow(ctx, tx, s.ID, shadowAliases); err != nil {
		return false, err
	}
	return true, setAliases(ctx, tx, s.ID, s.Aliases)
}

const insertSessionSQL = `INSERT INTO sessions
	(id, title, summary, scope, attrs, version, sequence, last_seq, parent_id, fork_seq,
	 source_format, source_path, project, machine, created_at, updated_at)
	VALUES (?, ?, ?, ?, ?, ?, coalesce((SELECT sequence FROM deleted_sessions WHERE id_hash = ?), 0), 0, ?, ?, ?, ?, ?, ?, ?, ?)`

func insertSessionArgs(s sessiondb.Session, now time.Time) []any {
	var forkSeq any
	if s.ParentID != "" {
		forkSeq = s.ForkSeq
	}
	return []any{s.ID, s.Title, s.Summary, backend.NullJSON(s.Scope), backend.NullJSON(s.Attrs), s.Version, backend.TombstoneKey(s.ID),
		backend.NullString(s.ParentID), forkSeq, backend.NullString(s.SourceFormat), backend.NullString(s.SourcePath),
		backend.NullString(s.Project), backend.NullString(s.Machine), engine.FormatTime(engine.OrNow(s.CreatedAt, now)), engine.FormatTime(engine.OrNow(s.UpdatedAt, now))}
}

// checkAliasShadow refuses to create a session whose ID (not a path key)
// another session lists as an alias, unless shadowAliases.
func checkAliasShadow(ctx context.Context, tx *ptx, id string, shadowAliases bool) error {
	if shadowAliases || sessiondb.IsPathKey(id) {
		return nil
	}
	var holder string
	err := tx.GetContext(ctx, &holder, `SELECT a.session_id FROM session_aliases a WHERE a.alias = ?
		AND a.session_id <> ? ORDER BY `+holderOrder+` LIMIT 1`, id, id)
	if err == nil {
		return fmt.Errorf("create session %q: %w: it is an alias of session %q", id, sessiondb.ErrExists, holder)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return nil
}

// setAliases replaces a session's aliases, in the order given.
// Duplicates and the session's own ID are dropped. An alias may be listed
// by several sessions and may equal another session's ID: Resolve decides
// which session a name means (see engine.ResolveKey).
func setAliases(ctx context.Context, tx *ptx, id string, aliases []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_aliases WHERE session_id = ?`, id); err != nil {
		return err
	}
	norm := backend.NormalAliases(id, aliases)
	if len(norm) == 0 {
		return nil
	}
	// One statement; WITH ORDINALITY keeps the order given in the ids.
	_, err := tx.ExecContext(ctx, `INSERT INTO session_aliases (alias, session_id)
		SELECT a, ? FROM unnest(?::text[]) WITH ORDINALITY AS t(a, n) ORDER BY n`, id, norm)
	return err
}

// holderOrder is the SQL expression that orders the sessions listing one
// alias: picoclaw's file-name order, the name of session id's meta file
// (the ID with ':', '/' and '\' replaced by '_', then ".meta.json"),
// compared byte for byte (COLLATE "C"). See sessiondb.AliasOrderKey.
const holderOrder = `replace(replace(replace(a.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json' COLLATE "C",
	a.session_id COLLATE "C"`
