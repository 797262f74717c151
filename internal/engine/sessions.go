package engine

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

// SessionRow is a row of the sessions table with its aliases as a JSON
// array (aggregated in SQL, in insertion order).
type SessionRow struct {
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
	Project      sql.NullString `db:"project"`
	Machine      sql.NullString `db:"machine"`
	SourceSeenAt sql.NullString `db:"source_seen_at"`
	SourceGoneAt sql.NullString `db:"source_gone_at"`
	CreatedAt    string         `db:"created_at"`
	UpdatedAt    string         `db:"updated_at"`
	Aliases      string         `db:"aliases"`
	MessageCount int64          `db:"message_count"`
	EntryCount   int64          `db:"entry_count"`
}

// listRow is a row List reads: the session and its preview, which only
// List returns (not in Dialect.SessionColumns).
type listRow struct {
	SessionRow
	Preview sql.NullString `db:"preview"`
}

// Session is the row as a sessiondb.Session.
func (r *SessionRow) Session() sessiondb.Session {
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
		Project:      r.Project.String,
		Machine:      r.Machine.String,
		CreatedAt:    ParseTime(r.CreatedAt),
		UpdatedAt:    ParseTime(r.UpdatedAt),
		MessageCount: r.MessageCount,
		EntryCount:   r.EntryCount,
	}
	if r.SourceSeenAt.Valid {
		s.SourceSeenAt = ParseTime(r.SourceSeenAt.String)
	}
	if r.SourceGoneAt.Valid {
		s.SourceGoneAt = ParseTime(r.SourceGoneAt.String)
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

// GetSession reads a session inside tx with the select list columns
// (Dialect.SessionColumns); ErrNotFound when absent.
func GetSession(ctx context.Context, tx Tx, columns, id string) (sessiondb.Session, error) {
	var r SessionRow
	err := tx.QueryRowxContext(ctx, `SELECT `+columns+` FROM sessions s WHERE s.id = ?`, id).Scan(r.Fields()...)
	if errors.Is(err, sql.ErrNoRows) {
		return sessiondb.Session{}, fmt.Errorf("session %q: %w", id, sessiondb.ErrNotFound)
	}
	if err != nil {
		return sessiondb.Session{}, err
	}
	return r.Session(), nil
}

func (e *Engine) resolveKey(ctx context.Context, tx Tx, key string) (string, error) {
	return ResolveKey(ctx, tx, e.sql.HolderOrder, key)
}

// ResolveKey applies sessiondb's resolution rules (see Store.Resolve)
// inside tx: a key without ':', '/' or '\' that is a session's ID names
// that session; otherwise the first session listing the key as an alias
// (in holderOrder, Dialect.HolderOrder) wins; otherwise the session with
// that ID.
func ResolveKey(ctx context.Context, tx Tx, holderOrder, key string) (string, error) {
	direct := true
	if err := SessionExists(ctx, tx, key); isNotFound(err) {
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
func (e *Engine) Create(ctx context.Context, sess sessiondb.Session) (sessiondb.Session, error) {
	if sess.ID == "" {
		sess.ID = sessiondb.NewID()
	}
	return e.Commit(ctx, sess.ID, sessiondb.Commit{Create: &sess, Now: sess.UpdatedAt})
}

// Get implements sessiondb.Store.
func (e *Engine) Get(ctx context.Context, id string) (sessiondb.Session, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.Session{}, fmt.Errorf("get session: %w", err)
	}
	var out sessiondb.Session
	err := e.d.Read(ctx, func(tx Tx) (err error) {
		out, err = e.d.GetSession(ctx, tx, id)
		return err
	})
	return out, err
}

// UpdateMeta implements sessiondb.Store.
func (e *Engine) UpdateMeta(ctx context.Context, id string, patch sessiondb.MetaPatch) (sessiondb.Session, error) {
	return e.Commit(ctx, id, sessiondb.Commit{Meta: &patch})
}

// Resolve implements sessiondb.Store.
func (e *Engine) Resolve(ctx context.Context, idOrAlias string) (string, error) {
	if err := sessiondb.ValidateID(idOrAlias); err != nil {
		return "", fmt.Errorf("resolve: %w", err)
	}
	var id string
	err := e.d.Read(ctx, func(tx Tx) (err error) {
		id, err = e.resolveKey(ctx, tx, idOrAlias)
		return err
	})
	return id, err
}

// Lookup implements sessiondb.SessionLookup: Resolve and Get in one read
// transaction.
func (e *Engine) Lookup(ctx context.Context, idOrAlias string) (sessiondb.Session, error) {
	if err := sessiondb.ValidateID(idOrAlias); err != nil {
		return sessiondb.Session{}, fmt.Errorf("lookup: %w", err)
	}
	var out sessiondb.Session
	err := e.d.Read(ctx, func(tx Tx) error {
		id, err := e.resolveKey(ctx, tx, idOrAlias)
		if err != nil {
			return err
		}
		out, err = e.d.GetSession(ctx, tx, id)
		return err
	})
	return out, err
}

// Delete implements sessiondb.Store. Foreign keys cascade the delete to
// every table that holds a row of the session.
func (e *Engine) Delete(ctx context.Context, id string) error {
	if err := sessiondb.ValidateID(id); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return e.d.Write(ctx, func(tx Tx) error {
		if _, err := deleteSession(ctx, e.d, tx, id, nil); err != nil {
			return fmt.Errorf("delete session: %w", err)
		}
		return nil
	})
}

// deleteSession deletes session id inside tx (Delete, and a Commit with
// Delete) and returns it as it was; expect, when non-nil, is the
// Sequence it must have.
func deleteSession(ctx context.Context, d Driver, tx Tx, id string, expect *int64) (sessiondb.Session, error) {
	// Lock the row first, so that the sequence remembered is the last one
	// committed.
	sess, err := d.LockSession(ctx, tx, id)
	if err != nil {
		return sessiondb.Session{}, err
	}
	if expect != nil && *expect != sess.Sequence {
		return sessiondb.Session{}, &sessiondb.ConflictError{SessionID: id, Expected: *expect, Current: sess.Sequence}
	}
	// The cascade takes the session's usage out of the rollup's groups.
	if err := lockUsageGroups(ctx, d, tx, id, sessiondb.Commit{Delete: true}, time.Time{}); err != nil {
		return sessiondb.Session{}, err
	}
	// Remember the last sequence: a session recreated under this ID
	// continues from it (see the deleted_sessions table).
	_, err = tx.ExecContext(ctx, `INSERT INTO deleted_sessions (id_hash, sequence) VALUES (?, ?)
		ON CONFLICT (id_hash) DO UPDATE SET sequence = excluded.sequence`, backend.TombstoneKey(id), sess.Sequence)
	if err != nil {
		return sessiondb.Session{}, err
	}
	if _, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		return sessiondb.Session{}, err
	}
	return sess, nil
}

// List implements sessiondb.Store. Pages are walked with a keyset cursor
// (the order's key, then id) over an index (sessions_by_updated,
// sessions_by_created, the primary key), so a page costs the same wherever
// it is in the listing.
func (e *Engine) List(ctx context.Context, opts sessiondb.ListOptions) ([]sessiondb.SessionInfo, string, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = sessiondb.DefaultListLimit
	}
	if limit > sessiondb.MaxListLimit {
		limit = sessiondb.MaxListLimit
	}
	ord, err := listOrderOf(opts)
	if err != nil {
		return nil, "", err
	}
	var where []string
	var args []any
	if opts.Cursor != "" {
		key, id, err := backend.DecodeOrderCursor(opts.Cursor, ord.tag)
		if err != nil {
			return nil, "", err
		}
		where = append(where, ord.after)
		args = append(args, ord.keyArgs(key, id)...)
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
	if opts.Project != "" {
		where = append(where, e.sql.Instr+`(lower(coalesce(s.project, '')), lower(?)) > 0`)
		args = append(args, opts.Project)
	}
	if opts.Machine != "" {
		where = append(where, `s.machine = ?`)
		args = append(args, opts.Machine)
	}
	if opts.Archived {
		where = append(where, `s.source_gone_at IS NOT NULL`)
	}
	if opts.Query != "" {
		// Last: its ?1q placeholders are expanded after the other
		// clauses' arguments.
		where = append(where, `(`+e.sql.Instr+`(lower(s.title), lower(?1q)) > 0
			OR `+e.sql.Instr+`(lower(coalesce(s.project, '')), lower(?1q)) > 0
			OR EXISTS (SELECT 1 FROM session_aliases a WHERE a.session_id = s.id AND `+e.sql.Instr+`(lower(a.alias), lower(?1q)) > 0))`)
	}
	q := `SELECT ` + e.sql.SessionColumns + `, s.preview FROM sessions s`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY ` + ord.orderBy + ` LIMIT ?`
	// ?1q is a named placeholder trick: expand it to positional arguments.
	if opts.Query != "" {
		n := strings.Count(q, "?1q")
		q = strings.ReplaceAll(q, "?1q", "?")
		for i := 0; i < n; i++ {
			args = append(args, opts.Query)
		}
	}
	args = append(args, limit+1)

	var rows []listRow
	var usage map[string]sessiondb.UsageTotals
	err = e.d.Read(ctx, func(tx Tx) error {
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
		usage, err = e.d.UsageTotalsOf(ctx, tx, ids)
		return err
	})
	if err != nil {
		return nil, "", fmt.Errorf("list sessions: %w", err)
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		next = backend.EncodeOrderCursor(ord.tag, ord.key(&last.SessionRow), last.ID)
	}
	out := make([]sessiondb.SessionInfo, len(rows))
	for i, r := range rows {
		out[i] = sessiondb.SessionInfo{Session: r.Session(), Preview: r.Preview.String}
		if opts.Usage {
			u := usage[r.ID]
			out[i].Usage = &u
		}
	}
	return out, next, nil
}

// listOrder is how List walks one order of sessiondb.ListOptions.
type listOrder struct {
	tag     string // the cursor's tag ("" for the default order, whose cursors predate tags)
	orderBy string // the ORDER BY list
	after   string // the keyset condition: rows after the cursor
	byID    bool   // the key is the ID alone
	created bool   // the key is created_at (else updated_at)
}

// listOrderOf returns the walk of opts.Order and opts.Ascending.
func listOrderOf(opts sessiondb.ListOptions) (listOrder, error) {
	dir, cmp, tag := "DESC", "<", "d"
	if opts.Ascending {
		dir, cmp, tag = "ASC", ">", "a"
	}
	var o listOrder
	switch opts.Order {
	case "", sessiondb.ByUpdated:
		o = listOrder{tag: "updated-" + tag, orderBy: `s.updated_at ` + dir + `, s.id ` + dir,
			after: `(s.updated_at, s.id) ` + cmp + ` (?, ?)`}
		if !opts.Ascending {
			o.tag = "" // the cursors List always wrote
		}
	case sessiondb.ByCreated:
		o = listOrder{tag: "created-" + tag, orderBy: `s.created_at ` + dir + `, s.id ` + dir,
			after: `(s.created_at, s.id) ` + cmp + ` (?, ?)`, created: true}
	case sessiondb.ByID:
		o = listOrder{tag: "id-" + tag, orderBy: `s.id ` + dir, after: `s.id ` + cmp + ` ?`, byID: true}
	default:
		return listOrder{}, fmt.Errorf("list sessions: %w: unknown order %q (updated, created or id)", sessiondb.ErrInvalid, opts.Order)
	}
	return o, nil
}

// key is the order's key of r, as the cursor keeps it.
func (o listOrder) key(r *SessionRow) string {
	switch {
	case o.byID:
		return ""
	case o.created:
		return r.CreatedAt
	}
	return r.UpdatedAt
}

// keyArgs are the arguments of o.after for a cursor's key and id.
func (o listOrder) keyArgs(key, id string) []any {
	if o.byID {
		return []any{id}
	}
	return []any{key, id}
}
