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
	(SELECT json_group_array(alias) FROM
		(SELECT alias FROM session_aliases WHERE session_id = s.id ORDER BY id)) AS aliases`

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
func getSession(ctx context.Context, tx *sqlx.Tx, id string) (sessiondb.Session, error) {
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

// insertSession creates the row (Sequence 0: the commit that creates it
// bumps it to 1) and its aliases.
func insertSession(ctx context.Context, tx *sqlx.Tx, s sessiondb.Session, now time.Time, shadowAliases bool) error {
	var exists int
	err := tx.GetContext(ctx, &exists, `SELECT count(*) FROM sessions WHERE id = ?`, s.ID)
	if err != nil {
		return err
	}
	if exists > 0 {
		return fmt.Errorf("create session %q: %w", s.ID, sessiondb.ErrExists)
	}
	if !shadowAliases && !sessiondb.IsPathKey(s.ID) {
		// Resolve lets such an ID win over an alias: creating it would
		// silently move the alias away from the sessions listing it.
		var holder string
		err := tx.GetContext(ctx, &holder, `SELECT a.session_id FROM session_aliases a WHERE a.alias = ?
			ORDER BY `+holderOrder+` LIMIT 1`, s.ID)
		if err == nil {
			return fmt.Errorf("create session %q: %w: it is an alias of session %q", s.ID, sessiondb.ErrExists, holder)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	created := orNow(s.CreatedAt, now)
	updated := orNow(s.UpdatedAt, now)
	var forkSeq any
	if s.ParentID != "" {
		forkSeq = s.ForkSeq
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions
		(id, title, summary, scope, attrs, version, sequence, last_seq, parent_id, fork_seq,
		 source_format, source_path, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, coalesce((SELECT sequence FROM deleted_sessions WHERE id_hash = ?), 0), 0, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.Title, s.Summary, backend.NullJSON(s.Scope), backend.NullJSON(s.Attrs), s.Version, backend.TombstoneKey(s.ID),
		backend.NullString(s.ParentID), forkSeq, backend.NullString(s.SourceFormat), backend.NullString(s.SourcePath),
		formatTime(created), formatTime(updated))
	if err != nil {
		return err
	}
	return setAliases(ctx, tx, s.ID, s.Aliases)
}

// setAliases replaces a session's aliases, in the order given.
// Duplicates and the session's own ID are dropped. An alias may be listed
// by several sessions and may equal another session's ID: Resolve decides
// which session a name means (see resolveKey).
func setAliases(ctx context.Context, tx *sqlx.Tx, id string, aliases []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_aliases WHERE session_id = ?`, id); err != nil {
		return err
	}
	for _, a := range backend.NormalAliases(id, aliases) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_aliases (alias, session_id) VALUES (?, ?)`, a, id); err != nil {
			return err
		}
	}
	return nil
}

// holderOrder is the SQL expression that orders the sessions listing one
// alias: picoclaw's file-name order, the name of session id's meta file
// (the ID with ':', '/' and '\' replaced by '_', then ".meta.json"),
// compared byte for byte. See sessiondb.AliasOrderKey.
const holderOrder = `replace(replace(replace(a.session_id, ':', '_'), '/', '_'), '\', '_') || '.meta.json', a.session_id`

// resolveKey applies sessiondb's resolution rules (see Store.Resolve)
// inside tx: a key without ':', '/' or '\' that is a session's ID names
// that session; otherwise the first session listing the key as an alias
// (in holderOrder) wins; otherwise the session with that ID.
func resolveKey(ctx context.Context, tx *sqlx.Tx, key string) (string, error) {
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
	err := s.read(ctx, func(tx *sqlx.Tx) (err error) {
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
	err := s.read(ctx, func(tx *sqlx.Tx) (err error) {
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
	err := s.read(ctx, func(tx *sqlx.Tx) error {
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
	return s.write(ctx, func(tx *sqlx.Tx) error {
		// Remember the last sequence: a session recreated under this ID
		// continues from it (see migration 00003).
		_, err := tx.ExecContext(ctx, `INSERT INTO deleted_sessions (id_hash, sequence)
			SELECT ?, sequence FROM sessions WHERE id = ?
			ON CONFLICT (id_hash) DO UPDATE SET sequence = excluded.sequence`, backend.TombstoneKey(id), id)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("delete session %q: %w", id, sessiondb.ErrNotFound)
		}
		return nil
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
		where = append(where, `(instr(lower(s.title), lower(?1q)) > 0
			OR EXISTS (SELECT 1 FROM session_aliases a WHERE a.session_id = s.id AND instr(lower(a.alias), lower(?1q)) > 0))`)
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
	err := s.read(ctx, func(tx *sqlx.Tx) error {
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
