package pgstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// sessionRow is a row of the sessions table with its aliases as a JSON
// array (aggregated in SQL, in insertion order).
type sessionRow struct {
	ID           string         `db:"id"`
	Title        string         `db:"title"`
	Summary      string         `db:"summary"`
	Scope        sql.NullString `db:"scope"`
	Attrs        sql.NullString `db:"attrs"`
	Version      int            `db:"version"`
	Sequence     int64          `db:"sequence"`
	LastSeq      int64          `db:"last_seq"`
	ParentID     sql.NullString `db:"parent_id"`
	ForkSeq      sql.NullInt64  `db:"fork_seq"`
	SourceFormat sql.NullString `db:"source_format"`
	SourcePath   sql.NullString `db:"source_path"`
	CreatedAt    string         `db:"created_at"`
	UpdatedAt    string         `db:"updated_at"`
	Aliases      string         `db:"aliases"`
	MessageCount int64          `db:"message_count"`
	EntryCount   int64          `db:"entry_count"`
}

const sessionColumns = `s.id, s.title, s.summary, s.scope, s.attrs, s.version, s.sequence,
	s.last_seq, s.parent_id, s.fork_seq, s.source_format, s.source_path, s.created_at, s.updated_at,
	s.message_count, s.entry_count,
	(SELECT coalesce(json_agg(alias ORDER BY id), '[]')::text FROM session_aliases
		WHERE session_id = s.id) AS aliases`

func (r *sessionRow) session() sessiondb.Session {
	s := sessiondb.Session{
		ID:           r.ID,
		Title:        r.Title,
		Summary:      r.Summary,
		Version:      r.Version,
		Sequence:     r.Sequence,
		LastSeq:      r.LastSeq,
		ParentID:     r.ParentID.String,
		ForkSeq:      r.ForkSeq.Int64,
		SourceFormat: r.SourceFormat.String,
		SourcePath:   r.SourcePath.String,
		CreatedAt:    parseTime(r.CreatedAt),
		UpdatedAt:    parseTime(r.UpdatedAt),
		MessageCount: r.MessageCount,
		EntryCount:   r.EntryCount,
	}
	if r.Scope.Valid {
		s.Scope = json.RawMessage(r.Scope.String)
	}
	if r.Attrs.Valid {
		s.Attrs = json.RawMessage(r.Attrs.String)
	}
	if r.Aliases != "" && r.Aliases != "[]" {
		_ = json.Unmarshal([]byte(r.Aliases), &s.Aliases)
	}
	return s
}

// getSession reads a session inside tx; ErrNotFound when absent.
func getSession(ctx context.Context, tx *ptx, id string) (sessiondb.Session, error) {
	var r sessionRow
	err := tx.GetContext(ctx, &r, `SELECT `+sessionColumns+` FROM sessions s WHERE s.id = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return sessiondb.Session{}, fmt.Errorf("session %q: %w", id, sessiondb.ErrNotFound)
	}
	if err != nil {
		return sessiondb.Session{}, err
	}
	return r.session(), nil
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
	var r sessionRow
	var xid int64
	err := tx.QueryRowxContext(ctx, `SELECT s.id, s.title, s.summary, s.scope, s.attrs, s.version, s.sequence,
		s.last_seq, s.parent_id, s.fork_seq, s.source_format, s.source_path, s.created_at, s.updated_at,
		s.message_count, s.entry_count, txid_current() FROM sessions s WHERE s.id = ? FOR UPDATE`, id).Scan(&r.ID,
		&r.Title, &r.Summary, &r.Scope, &r.Attrs, &r.Version, &r.Sequence, &r.LastSeq, &r.ParentID, &r.ForkSeq,
		&r.SourceFormat, &r.SourcePath, &r.CreatedAt, &r.UpdatedAt, &r.MessageCount, &r.EntryCount, &xid)
	if errors.Is(err, sql.ErrNoRows) {
		return sessiondb.Session{}, fmt.Errorf("session %q: %w", id, sessiondb.ErrNotFound)
	}
	if err != nil {
		return sessiondb.Session{}, err
	}
	tx.xid = xid
	return r.session(), nil
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
		return &existsError{id: s.ID}
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
	 source_format, source_path, created_at, updated_at)
	VALUES (?, ?, ?, ?, ?, ?, coalesce((SELECT sequence FROM deleted_sessions WHERE id_hash = ?), 0), 0, ?, ?, ?, ?, ?, ?)`

func insertSessionArgs(s sessiondb.Session, now time.Time) []any {
	var forkSeq any
	if s.ParentID != "" {
		forkSeq = s.ForkSeq
	}
	return []any{s.ID, s.Title, s.Summary, backend.NullJSON(s.Scope), backend.NullJSON(s.Attrs), s.Version, backend.TombstoneKey(s.ID),
		backend.NullString(s.ParentID), forkSeq, backend.NullString(s.SourceFormat), backend.NullString(s.SourcePath),
		formatTime(orNow(s.CreatedAt, now)), formatTime(orNow(s.UpdatedAt, now))}
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

// existsError is insertSession's ErrExists: the session ID is taken (not
// an alias), which SaveFull, unlike Create, answers by updating it.
type existsError struct{ id string }

func (e *existsError) Error() string {
	return fmt.Sprintf("create session %q: %v", e.id, sessiondb.ErrExists)
}

// Unwrap makes errors.Is(err, sessiondb.ErrExists) true.
func (e *existsError) Unwrap() error { return sessiondb.ErrExists }

// setAliases replaces a session's aliases, in the order given.
// Duplicates and the session's own ID are dropped. An alias may be listed
// by several sessions and may equal another session's ID: Resolve decides
// which session a name means (see resolveKey).
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

// resolveKey applies sessiondb's resolution rules (see Store.Resolve)
// inside tx: a key without ':', '/' or '\' that is a session's ID names
// that session; otherwise the first session listing the key as an alias
// (in holderOrder) wins; otherwise the session with that ID.
func resolveKey(ctx context.Context, tx *ptx, key string) (string, error) {
	direct := true
	if err := sessionExists(ctx, tx, key); isNotFound(err) {
		direct = false
	} else if err != nil {
		return "", err
	}
	if direct && !sessiondb.IsPathKey(key) {
		return key, nil
	}
	var holder string
	err := tx.GetContext(ctx, &holder, `SELECT a.session_id FROM session_aliases a
		WHERE a.alias = ? AND a.session_id <> ? ORDER BY `+holderOrder+` LIMIT 1`, key, key)
	switch {
	case err == nil:
		return holder, nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", err
	case direct:
		return key, nil
	}
	return "", fmt.Errorf("resolve %q: %w", key, sessiondb.ErrNotFound)
}

// Create implements sessiondb.Store.
func (s *Store) Create(ctx context.Context, sess sessiondb.Session) (sessiondb.Session, error) {
	if sess.ID == "" {
		sess.ID = sessiondb.NewID()
	}
	return s.Commit(ctx, sess.ID, sessiondb.Commit{Create: &sess, Now: sess.UpdatedAt})
}

// Get implements sessiondb.Store.
func (s *Store) Get(ctx context.Context, id string) (sessiondb.Session, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.Session{}, fmt.Errorf("get session: %w", err)
	}
	var out sessiondb.Session
	err := s.read(ctx, func(tx *ptx) (err error) {
		out, err = getSession(ctx, tx, id)
		return err
	})
	return out, err
}

// UpdateMeta implements sessiondb.Store.
func (s *Store) UpdateMeta(ctx context.Context, id string, patch sessiondb.MetaPatch) (sessiondb.Session, error) {
	return s.Commit(ctx, id, sessiondb.Commit{Meta: &patch})
}

// Resolve implements sessiondb.Store.
func (s *Store) Resolve(ctx context.Context, idOrAlias string) (string, error) {
	if err := sessiondb.ValidateID(idOrAlias); err != nil {
		return "", fmt.Errorf("resolve: %w", err)
	}
	var id string
	err := s.read(ctx, func(tx *ptx) (err error) {
		id, err = resolveKey(ctx, tx, idOrAlias)
		return err
	})
	return id, err
}

// Lookup implements sessiondb.SessionLookup: Resolve and Get in one read
// transaction.
func (s *Store) Lookup(ctx context.Context, idOrAlias string) (sessiondb.Session, error) {
	if err := sessiondb.ValidateID(idOrAlias); err != nil {
		return sessiondb.Session{}, fmt.Errorf("lookup: %w", err)
	}
	var out sessiondb.Session
	err := s.read(ctx, func(tx *ptx) error {
		id, err := resolveKey(ctx, tx, idOrAlias)
		if err != nil {
			return err
		}
		out, err = getSession(ctx, tx, id)
		return err
	})
	return out, err
}

// Delete implements sessiondb.Store. Foreign keys cascade the delete to
// every table that holds a row of the session.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := sessiondb.ValidateID(id); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return s.write(ctx, func(tx *ptx) error {
		// Lock the row first, so that the sequence remembered is the
		// last one committed.
		sess, err := lockSession(ctx, tx, id)
		if err != nil {
			return fmt.Errorf("delete session: %w", err)
		}
		// Remember the last sequence: a session recreated under this ID
		// continues from it (see the deleted_sessions table).
		_, err = tx.ExecContext(ctx, `INSERT INTO deleted_sessions (id_hash, sequence) VALUES (?, ?)
			ON CONFLICT (id_hash) DO UPDATE SET sequence = excluded.sequence`, backend.TombstoneKey(id), sess.Sequence)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		return err
	})
}

// List implements sessiondb.Store. Pages are walked with a keyset cursor
// (updated_at, id) over the sessions_by_updated index, so a page costs the
// same wherever it is in the listing.
func (s *Store) List(ctx context.Context, opts sessiondb.ListOptions) ([]sessiondb.SessionInfo, string, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = sessiondb.DefaultListLimit
	}
	if limit > sessiondb.MaxListLimit {
		limit = sessiondb.MaxListLimit
	}
	var where []string
	var args []any
	if opts.Cursor != "" {
		updated, id, err := backend.DecodeCursor(opts.Cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, `(s.updated_at, s.id) < (?, ?)`)
		args = append(args, updated, id)
	}
	if opts.ParentID != "" {
		if err := sessiondb.ValidateID(opts.ParentID); err != nil {
			return nil, "", fmt.Errorf("list forks: %w", err)
		}
		// sessions_by_parent finds the forks; they are few next to the
		// sessions, so sorting them is cheap.
		where = append(where, `s.parent_id = ?`)
		args = append(args, opts.ParentID)
	}
	if opts.Query != "" {
		where = append(where, `(strpos(lower(s.title), lower(?1q)) > 0
			OR EXISTS (SELECT 1 FROM session_aliases a WHERE a.session_id = s.id AND strpos(lower(a.alias), lower(?1q)) > 0))`)
	}
	q := `SELECT ` + sessionColumns + ` FROM sessions s`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`
	// ?1q is a named placeholder trick: expand it to positional arguments.
	if opts.Query != "" {
		n := strings.Count(q, "?1q")
		q = strings.ReplaceAll(q, "?1q", "?")
		for i := 0; i < n; i++ {
			args = append(args, opts.Query)
		}
	}
	args = append(args, limit+1)

	var rows []sessionRow
	var usage map[string]sessiondb.UsageTotals
	err := s.read(ctx, func(tx *ptx) error {
		if err := tx.SelectContext(ctx, &rows, q, args...); err != nil {
			return err
		}
		if !opts.Usage || len(rows) == 0 {
			return nil
		}
		ids := make([]string, 0, len(rows))
		for _, r := range rows[:min(len(rows), limit)] {
			ids = append(ids, r.ID)
		}
		var err error
		usage, err = usageTotalsOf(ctx, tx, ids)
		return err
	})
	if err != nil {
		return nil, "", fmt.Errorf("list sessions: %w", err)
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		next = backend.EncodeCursor(last.UpdatedAt, last.ID)
	}
	out := make([]sessiondb.SessionInfo, len(rows))
	for i, r := range rows {
		out[i] = sessiondb.SessionInfo{Session: r.session()}
		if opts.Usage {
			u := usage[r.ID]
			out[i].Usage = &u
		}
	}
	return out, next, nil
}
