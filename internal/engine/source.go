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

// putSourceFile writes the import record of (f.Machine, f.Path). A
// machine's first record of a path replaces the record of "" for it (one
// made before records had machines, which that machine's lookups found
// and its import was based on): the path is that machine's now.
func putSourceFile(ctx context.Context, tx Tx, id string, f sessiondb.SourceFile, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO source_files
		(machine, path, format, session_id, size, mtime, sha256, byte_offset, state, imported_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (machine, path) DO UPDATE SET format = excluded.format, session_id = excluded.session_id,
		size = excluded.size, mtime = excluded.mtime, sha256 = excluded.sha256,
		byte_offset = excluded.byte_offset, state = excluded.state, imported_at = excluded.imported_at`,
		f.Machine, f.Path, f.Format, id, f.Size, FormatTime(f.ModTime), f.SHA256, f.Offset, backend.NullJSON(f.State),
		FormatTime(OrNow(f.ImportedAt, now)))
	if err != nil || f.Machine == "" {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM source_files WHERE machine = '' AND path = ?`, f.Path)
	return err
}

// sourceColumns are the columns sourceRow reads.
const sourceColumns = `machine, path, format, session_id, size, mtime, sha256, byte_offset, state, imported_at`

// sourceOn is the statement that reads machine's record of a path (its
// own, else the one of ""): arguments path, machine.
const sourceOn = `SELECT ` + sourceColumns + ` FROM source_files
	WHERE path = ? AND machine IN (?, '') ORDER BY machine DESC LIMIT 1`

type sourceRow struct {
	Machine    string         `db:"machine"`
	Path       string         `db:"path"`
	Format     string         `db:"format"`
	SessionID  string         `db:"session_id"`
	Size       int64          `db:"size"`
	ModTime    string         `db:"mtime"`
	SHA256     string         `db:"sha256"`
	Offset     int64          `db:"byte_offset"`
	State      sql.NullString `db:"state"`
	ImportedAt string         `db:"imported_at"`
}

// SourceFile implements sessiondb.Store: the record of an importer that
// gave no machine.
func (e *Engine) SourceFile(ctx context.Context, path string) (sessiondb.SourceFile, error) {
	return e.SourceFileOn(ctx, "", path)
}

// SourceFileOn implements sessiondb.SourceTracker.
func (e *Engine) SourceFileOn(ctx context.Context, machine, path string) (sessiondb.SourceFile, error) {
	var r sourceRow
	err := e.d.Read(ctx, func(tx Tx) error {
		err := tx.GetContext(ctx, &r, sourceOn, path, machine)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("source file %q: %w", path, sessiondb.ErrNotFound)
		}
		return err
	})
	if err != nil {
		return sessiondb.SourceFile{}, err
	}
	return r.file(), nil
}

// checkSourceExpectation enforces Commit.ExpectSource inside the commit's
// transaction: the record c.Source.Machine's lookup finds for
// c.Source.Path (its own, else the one of "") must be absent, or have the
// expected hash and offset. Driver.LockSource first keeps any other
// importer of the path, on any machine, from slipping in between the
// check and the write.
func checkSourceExpectation(ctx context.Context, d Driver, tx Tx, c sessiondb.Commit) error {
	want := c.ExpectSource
	if want == nil || c.Source == nil {
		return nil
	}
	if err := d.LockSource(ctx, tx, c.Source.Path); err != nil {
		return err
	}
	var r sourceRow
	err := tx.GetContext(ctx, &r, sourceOn, c.Source.Path, c.Source.Machine)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if want.Absent {
			return nil
		}
		return fmt.Errorf("source file %q: %w: no record, expected one of offset %d", c.Source.Path, sessiondb.ErrConflict, want.Offset)
	case err != nil:
		return err
	case want.Absent:
		return fmt.Errorf("source file %q: %w: already imported (offset %d) by another writer", c.Source.Path, sessiondb.ErrConflict, r.Offset)
	case r.SHA256 != want.SHA256 || r.Offset != want.Offset:
		return fmt.Errorf("source file %q: %w: record changed (offset %d, expected %d) by another writer", c.Source.Path, sessiondb.ErrConflict, r.Offset, want.Offset)
	}
	return nil
}

// MarkSources implements sessiondb.SourceTracker: one write transaction
// that sets the seen and gone marks of the sessions of the paths, without
// touching their sequence (the marks are the importer's bookkeeping, not
// a change of the session).
func (e *Engine) MarkSources(ctx context.Context, m sessiondb.SourceMarks) (int64, error) {
	if len(m.Seen) == 0 && len(m.Gone) == 0 {
		return 0, nil
	}
	now := OrNow(m.At, time.Now())
	at := FormatTime(now)
	m.Gone = dedupe(m.Gone)
	var gone int64
	err := e.d.Write(ctx, func(tx Tx) error {
		// Gone first, then seen: a session whose file moved (its old
		// path gone, its new path read, the new path's record pointing
		// to it) ends up seen.
		mine, args := "", []any{}
		if m.Machine != "" {
			mine, args = ` AND (machine IS NULL OR machine = ?)`, []any{m.Machine}
		}
		for _, p := range m.Gone {
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET source_gone_at = ?
				WHERE source_path = ? AND source_gone_at IS NULL`+mine, append([]any{at, p}, args...)...); err != nil {
				return err
			}
		}
		// A seen mark is written only when it changes what it says: a
		// session never seen, or gone, or seen SourceSeenResolution or
		// more before (times are fixed-width UTC text: text order is
		// time order). The others keep their row untouched, so an
		// import that found everything where it was writes nothing.
		stale := FormatTime(now.Add(-sessiondb.SourceSeenResolution))
		for _, p := range m.Seen {
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET source_seen_at = ?, source_gone_at = NULL
				WHERE (source_path = ? OR id IN (SELECT session_id FROM source_files WHERE path = ?))
				AND (source_seen_at IS NULL OR source_gone_at IS NOT NULL OR source_seen_at <= ?)`, at, p, p, stale); err != nil {
				return err
			}
		}
		// The sessions this call marked gone (and did not find again).
		for _, p := range m.Gone {
			var n int64
			if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM sessions WHERE source_path = ? AND source_gone_at = ?`, p, at); err != nil {
				return err
			}
			gone += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("mark sources: %w", err)
	}
	return gone, nil
}

// SourcesWithPrefix implements sessiondb.SourceTracker. The paths are
// compared byte for byte (source_files.path is BINARY on SQLite, COLLATE
// "C" on PostgreSQL), so the range [prefix, prefix with its last byte
// raised) is exactly the paths that start with prefix, an index range
// under each of the two machines read (machine's and "").
func (e *Engine) SourcesWithPrefix(ctx context.Context, machine, prefix string) ([]sessiondb.SourceFile, error) {
	if prefix == "" {
		return nil, fmt.Errorf("sources with prefix: %w: empty prefix", sessiondb.ErrInvalid)
	}
	q, args := `SELECT `+sourceColumns+` FROM source_files WHERE machine IN (?, '') AND path >= ?`, []any{machine, prefix}
	if hi, ok := prefixEnd(prefix); ok {
		q, args = q+` AND path < ?`, append(args, hi)
	}
	var rows []sourceRow
	err := e.d.Read(ctx, func(tx Tx) error {
		return tx.SelectContext(ctx, &rows, q+` ORDER BY path, machine DESC`, args...)
	})
	if err != nil {
		return nil, fmt.Errorf("sources with prefix %s: %w", prefix, err)
	}
	out := make([]sessiondb.SourceFile, 0, len(rows))
	for _, r := range rows {
		if !strings.HasPrefix(r.Path, prefix) {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Path == r.Path {
			continue // machine's own record came first; "" is shadowed
		}
		out = append(out, r.file())
	}
	return out, nil
}

// prefixEnd is the smallest string above every string that starts with
// prefix: prefix with its last byte raised by one. ok is false when that
// byte is not ASCII (raising it could make text PostgreSQL refuses as
// UTF-8): the query then has no upper bound and the rows are filtered.
func prefixEnd(prefix string) (string, bool) {
	b := []byte(prefix)
	if last := b[len(b)-1]; last >= 0x7f {
		return "", false
	}
	b[len(b)-1]++
	return string(b), true
}

func (r sourceRow) file() sessiondb.SourceFile {
	f := sessiondb.SourceFile{Machine: r.Machine, Path: r.Path, Format: r.Format, SessionID: r.SessionID, Size: r.Size,
		ModTime: ParseTime(r.ModTime), SHA256: r.SHA256, Offset: r.Offset, ImportedAt: ParseTime(r.ImportedAt)}
	if r.State.Valid {
		f.State = json.RawMessage(r.State.String)
	}
	return f
}

// dedupe returns paths without repeats, in their first order.
func dedupe(paths []string) []string {
	seen := make(map[string]bool, len(paths))
	out := paths[:0:0]
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
