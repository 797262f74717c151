package sessioncopy

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// Tx is what both backends' transactions offer (*sqlx.Tx, pgstore's ptx,
// which rebinds ? placeholders to $n).
type Tx interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// timeLayout is the stored time format of both backends.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) time.Time {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		t, _ = time.Parse(time.RFC3339Nano, s)
	}
	return t
}

func rawOrNil(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return nil
	}
	return json.RawMessage(s.String)
}

func nullRaw(b json.RawMessage) any {
	if b == nil {
		return nil
	}
	return string(b)
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// query runs q and calls scan for each row.
func query(ctx context.Context, tx Tx, scan func(*sql.Rows) error, q string, args ...any) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Read reads session id with everything stored with it. It returns an
// error wrapping sessiondb.ErrNotFound when the session does not exist.
// Run it in one read transaction: every statement must see one snapshot.
func Read(ctx context.Context, tx Tx, id string) (sessiondb.SessionDump, error) {
	var d sessiondb.SessionDump
	s := &d.Session
	found := false
	err := query(ctx, tx, func(r *sql.Rows) error {
		var scope, attrs, parent, format, path, project, machine, seen, gone sql.NullString
		var forkSeq sql.NullInt64
		var created, updated string
		found = true
		if err := r.Scan(&s.ID, &s.Title, &s.Summary, &scope, &attrs, &s.Version, &s.Sequence, &s.LastSeq,
			&parent, &forkSeq, &format, &path, &project, &machine, &seen, &gone, &created, &updated); err != nil {
			return err
		}
		s.Scope, s.Attrs = rawOrNil(scope), rawOrNil(attrs)
		s.ParentID, s.ForkSeq = parent.String, forkSeq.Int64
		s.SourceFormat, s.SourcePath = format.String, path.String
		s.Project, s.Machine = project.String, machine.String
		if seen.Valid {
			s.SourceSeenAt = parseTime(seen.String)
		}
		if gone.Valid {
			s.SourceGoneAt = parseTime(gone.String)
		}
		s.CreatedAt, s.UpdatedAt = parseTime(created), parseTime(updated)
		return nil
	}, `SELECT id, title, summary, scope, attrs, version, sequence, last_seq, parent_id, fork_seq,
	           source_format, source_path, project, machine, source_seen_at, source_gone_at, created_at, updated_at
	    FROM sessions WHERE id = ?`, id)
	if err != nil {
		return d, fmt.Errorf("dump %s: %w", id, err)
	}
	if !found {
		return d, fmt.Errorf("dump %s: %w", id, sessiondb.ErrNotFound)
	}
	s.Aliases = []string{}
	if err := query(ctx, tx, func(r *sql.Rows) error {
		var a string
		if err := r.Scan(&a); err != nil {
			return err
		}
		s.Aliases = append(s.Aliases, a)
		return nil
	}, `SELECT alias FROM session_aliases WHERE session_id = ? ORDER BY id`, id); err != nil {
		return d, fmt.Errorf("dump %s aliases: %w", id, err)
	}
	if err := query(ctx, tx, func(r *sql.Rows) error {
		var e sessiondb.Entry
		var body, created string
		if err := r.Scan(&e.Seq, &e.Kind, &e.Role, &body, &created); err != nil {
			return err
		}
		e.Body, e.CreatedAt = json.RawMessage(body), parseTime(created)
		d.Entries = append(d.Entries, e)
		return nil
	}, `SELECT seq, kind, role, body, created_at FROM entries WHERE session_id = ? ORDER BY seq`, id); err != nil {
		return d, fmt.Errorf("dump %s entries: %w", id, err)
	}
	index := map[int64]int{}
	if err := query(ctx, tx, func(r *sql.Rows) error {
		var c sessiondb.Compaction
		var details sql.NullString
		var created string
		if err := r.Scan(&c.ID, &c.AtSeq, &c.KeepFromSeq, &c.TokensBefore, &c.TokensAfter, &details, &created); err != nil {
			return err
		}
		c.Details, c.CreatedAt = rawOrNil(details), parseTime(created)
		index[c.ID] = len(d.Compactions)
		d.Compactions = append(d.Compactions, c)
		return nil
	}, `SELECT id, at_seq, keep_from_seq, tokens_before, tokens_after, details, created_at
	    FROM compactions WHERE session_id = ? ORDER BY id`, id); err != nil {
		return d, fmt.Errorf("dump %s compactions: %w", id, err)
	}
	if err := query(ctx, tx, func(r *sql.Rows) error {
		var cid int64
		var e sessiondb.Entry
		var body, created string
		if err := r.Scan(&cid, &e.Kind, &e.Role, &body, &created); err != nil {
			return err
		}
		e.Body, e.CreatedAt, e.Summary = json.RawMessage(body), parseTime(created), true
		if i, ok := index[cid]; ok {
			d.Compactions[i].Summary = append(d.Compactions[i].Summary, e)
		}
		return nil
	}, `SELECT m.compaction_id, m.kind, m.role, m.body, m.created_at
	    FROM summary_messages m JOIN compactions c ON c.id = m.compaction_id
	    WHERE c.session_id = ? ORDER BY m.compaction_id, m.position`, id); err != nil {
		return d, fmt.Errorf("dump %s summary messages: %w", id, err)
	}
	for _, doc := range []struct {
		table string
		body  *json.RawMessage
		at    *time.Time
	}{{"states", &d.State, &d.StateUpdatedAt}, {"interrupts", &d.Interrupt, &d.InterruptUpdatedAt}} {
		if err := query(ctx, tx, func(r *sql.Rows) error {
			var body, at string
			if err := r.Scan(&body, &at); err != nil {
				return err
			}
			*doc.body, *doc.at = json.RawMessage(body), parseTime(at)
			return nil
		}, `SELECT body, updated_at FROM `+doc.table+` WHERE session_id = ?`, id); err != nil {
			return d, fmt.Errorf("dump %s %s: %w", id, doc.table, err)
		}
	}
	if err := query(ctx, tx, func(r *sql.Rows) error {
		var cp sessiondb.Checkpoint
		var cid sql.NullInt64
		var state, meta sql.NullString
		var created string
		if err := r.Scan(&cp.ID, &cp.Label, &cp.AtSeq, &cid, &state, &meta, &created); err != nil {
			return err
		}
		cp.SessionID, cp.CompactionID = id, cid.Int64
		cp.State, cp.Metadata, cp.CreatedAt = rawOrNil(state), rawOrNil(meta), parseTime(created)
		d.Checkpoints = append(d.Checkpoints, cp)
		return nil
	}, `SELECT id, label, at_seq, compaction_id, state, metadata, created_at
	    FROM checkpoints WHERE session_id = ? ORDER BY created_at, id`, id); err != nil {
		return d, fmt.Errorf("dump %s checkpoints: %w", id, err)
	}
	if err := query(ctx, tx, func(r *sql.Rows) error {
		var u sessiondb.Usage
		var seq sql.NullInt64
		var call sql.NullString
		var created string
		if err := r.Scan(&seq, &call, &u.Provider, &u.Model, &u.InputTokens, &u.OutputTokens, &u.CacheReadTokens,
			&u.CacheWriteTokens, &u.CacheWrite1hTokens, &u.ReasoningTokens, &u.Cost, &u.CostEstimated, &created); err != nil {
			return err
		}
		u.Seq, u.CallID, u.CreatedAt = seq.Int64, call.String, parseTime(created)
		d.Usage = append(d.Usage, u)
		return nil
	}, `SELECT seq, call_id, provider, model, input_tokens, output_tokens, cache_read_tokens,
	           cache_write_tokens, cache_write_1h_tokens, reasoning_tokens, cost, cost_estimated, created_at
	    FROM usage WHERE session_id = ? ORDER BY id`, id); err != nil {
		return d, fmt.Errorf("dump %s usage: %w", id, err)
	}
	if err := query(ctx, tx, func(r *sql.Rows) error {
		var f sessiondb.SourceFile
		var state sql.NullString
		var mtime, imported string
		if err := r.Scan(&f.Machine, &f.Path, &f.Format, &f.Size, &mtime, &f.SHA256, &f.Offset, &state, &imported); err != nil {
			return err
		}
		f.SessionID, f.State = id, rawOrNil(state)
		f.ModTime, f.ImportedAt = parseTime(mtime), parseTime(imported)
		d.Sources = append(d.Sources, f)
		return nil
	}, `SELECT machine, path, format, size, mtime, sha256, byte_offset, state, imported_at
	    FROM source_files WHERE session_id = ? ORDER BY path, machine`, id); err != nil {
		return d, fmt.Errorf("dump %s source files: %w", id, err)
	}
	return d, nil
}

// WriteOptions are a backend's part of Write.
type WriteOptions struct {
	// LockSuffix is appended to the statement that reads the stored
	// sequence (" FOR UPDATE" on PostgreSQL; SQLite's write transaction
	// already holds the database's write lock).
	LockSuffix string
	// ReserveCompactionID, when set, runs before a compaction is inserted
	// with an explicit ID (its one argument): PostgreSQL must move the
	// identity sequence past it, or a later insert would collide.
	ReserveCompactionID string
	// NextEntryID, when set, is a query returning the row id the next
	// entry takes; entries are then inserted with explicit ids from it
	// (engine.Dialect.NextEntryID).
	NextEntryID string
	// EntryText is how an entry's extracted text is written.
	EntryText backend.TextStore
	// Describe derives the stored role and text of an entry or summary
	// message with the target's extractor.
	Describe func(e sessiondb.Entry) (role, text string)
}

// Write replaces session d.Session.ID with d inside tx (see
// sessiondb.Copier.PutSession). The caller validated d.
func Write(ctx context.Context, tx Tx, d sessiondb.SessionDump, expect *int64, o WriteOptions) error {
	s := d.Session
	id := s.ID
	var current int64
	exists := false
	if err := query(ctx, tx, func(r *sql.Rows) error {
		exists = true
		return r.Scan(&current)
	}, `SELECT sequence FROM sessions WHERE id = ?`+o.LockSuffix, id); err != nil {
		return fmt.Errorf("put %s: %w", id, err)
	}
	if expect != nil && current != *expect {
		return &sessiondb.ConflictError{SessionID: id, Expected: *expect, Current: current}
	}
	if exists {
		// The cascade removes everything stored with the session.
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
			return fmt.Errorf("put %s: replace: %w", id, err)
		}
	}
	for _, f := range d.Sources {
		// Records are keyed by (machine, path): another machine's record
		// of the path is another file's and stays.
		if _, err := tx.ExecContext(ctx, `DELETE FROM source_files WHERE machine = ? AND path = ?`, f.Machine, f.Path); err != nil {
			return fmt.Errorf("put %s: replace source record: %w", id, err)
		}
	}
	var forkSeq any
	if s.ParentID != "" {
		forkSeq = s.ForkSeq
	}
	// The counts are the target's, derived from what it stores (the dump's
	// Session carries the source's, which a dump edited by hand may not
	// match).
	messages, entries := backend.DumpCounts(d)
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, title, summary, scope, attrs, version, sequence,
	        last_seq, parent_id, fork_seq, source_format, source_path, project, machine, source_seen_at, source_gone_at,
	        created_at, updated_at, message_count, entry_count)
	    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, s.Title, s.Summary, nullRaw(s.Scope), nullRaw(s.Attrs), s.Version, s.Sequence, s.LastSeq,
		nullString(s.ParentID), forkSeq, nullString(s.SourceFormat), nullString(s.SourcePath), nullString(s.Project),
		nullString(s.Machine), nullTime(s.SourceSeenAt), nullTime(s.SourceGoneAt),
		formatTime(s.CreatedAt), formatTime(s.UpdatedAt), messages, entries); err != nil {
		return fmt.Errorf("put %s: %w", id, err)
	}
	for _, a := range s.Aliases {
		// Whether another session may list the same alias is the
		// schema's rule (shared on SQLite since migration 5); a refusal
		// is translated to ErrExists by the backend.
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_aliases (alias, session_id) VALUES (?, ?)`, a, id); err != nil {
			return fmt.Errorf("put %s: alias %q: %w", id, a, err)
		}
	}
	var nextID int64
	if o.NextEntryID != "" && len(d.Entries) > 0 {
		if err := query(ctx, tx, func(r *sql.Rows) error { return r.Scan(&nextID) }, o.NextEntryID); err != nil {
			return fmt.Errorf("put %s: next entry id: %w", id, err)
		}
	}
	// The entries in multi-row INSERTs (insertRows), each keeping its
	// source seq (a pruned log has gaps, so EntryInserts' consecutive seqs
	// would not do).
	cols, ncols := `session_id, seq, kind, role, `+o.EntryText.Col()+`, body, created_at`, 7
	if nextID > 0 {
		cols, ncols = "id, "+cols, 8
	}
	rows := make([][]any, len(d.Entries))
	for i, e := range d.Entries {
		role, text := o.Describe(e)
		r := make([]any, 0, ncols)
		if nextID > 0 {
			r = append(r, nextID)
			nextID++
		}
		rows[i] = append(r, id, e.Seq, kindOf(e), role, o.EntryText.Arg(text, e.Body), string(e.Body), formatTime(e.CreatedAt))
	}
	if err := insertRows(ctx, tx, "entries", cols, ncols, rows, func(i, j int) string {
		return fmt.Sprintf("put %s: entries %d-%d", id, d.Entries[i].Seq, d.Entries[j].Seq)
	}); err != nil {
		return err
	}
	newIDs := make(map[int64]int64, len(d.Compactions))
	prevID := int64(0)
	for _, c := range d.Compactions {
		// Keep the source's compaction ID when the target has no row
		// with it (a copy into an empty store then shows the same IDs in
		// checkpoint listings); else take a new one.
		// An ID at or below the previous one's would break "the highest
		// ID is the current compaction": take a new (higher) one then.
		taken := c.ID <= prevID
		if !taken {
			if err := query(ctx, tx, func(r *sql.Rows) error { taken = true; return nil },
				`SELECT 1 FROM compactions WHERE id = ?`, c.ID); err != nil {
				return fmt.Errorf("put %s: compaction: %w", id, err)
			}
		}
		if !taken && o.ReserveCompactionID != "" {
			if _, err := tx.ExecContext(ctx, o.ReserveCompactionID, c.ID); err != nil {
				return fmt.Errorf("put %s: compaction: %w", id, err)
			}
		}
		var cid int64
		var err error
		if taken {
			err = query(ctx, tx, func(r *sql.Rows) error { return r.Scan(&cid) },
				`INSERT INTO compactions (session_id, at_seq, keep_from_seq, tokens_before, tokens_after, details, created_at)
				 VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
				id, c.AtSeq, c.KeepFromSeq, c.TokensBefore, c.TokensAfter, nullRaw(c.Details), formatTime(c.CreatedAt))
		} else {
			cid = c.ID
			_, err = tx.ExecContext(ctx, `INSERT INTO compactions (id, session_id, at_seq, keep_from_seq, tokens_before, tokens_after, details, created_at)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				c.ID, id, c.AtSeq, c.KeepFromSeq, c.TokensBefore, c.TokensAfter, nullRaw(c.Details), formatTime(c.CreatedAt))
		}
		if err != nil {
			return fmt.Errorf("put %s: compaction: %w", id, err)
		}
		newIDs[c.ID] = cid
		prevID = cid
		rows := make([][]any, len(c.Summary))
		for i, e := range c.Summary {
			role, text := o.Describe(e)
			rows[i] = []any{cid, i + 1, kindOf(e), role, text, string(e.Body), formatTime(e.CreatedAt)}
		}
		if err := insertRows(ctx, tx, "summary_messages", `compaction_id, position, kind, role, text, body, created_at`, 7, rows,
			func(int, int) string { return fmt.Sprintf("put %s: summary message", id) }); err != nil {
			return err
		}
	}
	if d.State != nil {
		if _, err := tx.ExecContext(ctx, `INSERT INTO states (session_id, body, updated_at) VALUES (?, ?, ?)`,
			id, string(d.State), formatTime(orTime(d.StateUpdatedAt, s.UpdatedAt))); err != nil {
			return fmt.Errorf("put %s: state: %w", id, err)
		}
	}
	if d.Interrupt != nil {
		if _, err := tx.ExecContext(ctx, `INSERT INTO interrupts (session_id, body, updated_at) VALUES (?, ?, ?)`,
			id, string(d.Interrupt), formatTime(orTime(d.InterruptUpdatedAt, s.UpdatedAt))); err != nil {
			return fmt.Errorf("put %s: interrupt: %w", id, err)
		}
	}
	for _, cp := range d.Checkpoints {
		var cid any
		if cp.CompactionID != 0 {
			cid = newIDs[cp.CompactionID]
		}
		// A checkpoint ID is global: one of another session is replaced
		// only if it is this dump's (same ID, moved with its session).
		if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE id = ?`, cp.ID); err != nil {
			return fmt.Errorf("put %s: checkpoint %s: %w", id, cp.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (id, session_id, label, at_seq, compaction_id, state, metadata, created_at)
		    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, cp.ID, id, cp.Label, cp.AtSeq, cid, nullRaw(cp.State), nullRaw(cp.Metadata),
			formatTime(cp.CreatedAt)); err != nil {
			return fmt.Errorf("put %s: checkpoint %s: %w", id, cp.ID, err)
		}
	}
	// The session's ledger was removed with its row (or never existed), and
	// the dump's call IDs are distinct (ValidateDump): the rows go in as
	// they are, in multi-row INSERTs.
	usage, err := backend.UsageRows(id, d.Session.LastSeq, d.Usage, func(u sessiondb.Usage) string { return formatTime(u.CreatedAt) })
	if err != nil {
		return fmt.Errorf("put %s: %w", id, err)
	}
	if err := insertRows(ctx, tx, "usage", backend.UsageColumns, backend.UsageColumnCount, usage,
		func(int, int) string { return fmt.Sprintf("put %s: usage", id) }); err != nil {
		return err
	}
	for _, f := range d.Sources {
		if _, err := tx.ExecContext(ctx, `INSERT INTO source_files (machine, path, format, session_id, size, mtime, sha256, byte_offset, state, imported_at)
		    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, f.Machine, f.Path, f.Format, id, f.Size, formatTime(f.ModTime), f.SHA256, f.Offset,
			nullRaw(f.State), formatTime(f.ImportedAt)); err != nil {
			return fmt.Errorf("put %s: source record %s: %w", id, f.Path, err)
		}
	}
	return nil
}

func kindOf(e sessiondb.Entry) string {
	if e.Kind == "" {
		return sessiondb.KindMessage
	}
	return e.Kind
}

func orTime(t, def time.Time) time.Time {
	if t.IsZero() {
		return def
	}
	return t
}

// nullTime is formatTime(t), or NULL for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return formatTime(t)
}
