package pgstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
)

func putSourceFile(ctx context.Context, tx *ptx, id string, f sessiondb.SourceFile, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO source_files
		(path, format, session_id, size, mtime, sha256, byte_offset, state, imported_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (path) DO UPDATE SET format = excluded.format, session_id = excluded.session_id,
		size = excluded.size, mtime = excluded.mtime, sha256 = excluded.sha256,
		byte_offset = excluded.byte_offset, state = excluded.state, imported_at = excluded.imported_at`,
		f.Path, f.Format, id, f.Size, formatTime(f.ModTime), f.SHA256, f.Offset, nullJSON(f.State),
		formatTime(orNow(f.ImportedAt, now)))
	return err
}

type sourceRow struct {
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

// SourceFile implements sessiondb.Store.
func (s *Store) SourceFile(ctx context.Context, path string) (sessiondb.SourceFile, error) {
	var r sourceRow
	err := s.read(ctx, func(tx *ptx) error {
		err := tx.GetContext(ctx, &r, `SELECT path, format, session_id, size, mtime, sha256, byte_offset,
			state, imported_at FROM source_files WHERE path = ?`, path)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("source file %q: %w", path, sessiondb.ErrNotFound)
		}
		return err
	})
	if err != nil {
		return sessiondb.SourceFile{}, err
	}
	f := sessiondb.SourceFile{Path: r.Path, Format: r.Format, SessionID: r.SessionID, Size: r.Size,
		ModTime: parseTime(r.ModTime), SHA256: r.SHA256, Offset: r.Offset, ImportedAt: parseTime(r.ImportedAt)}
	if r.State.Valid {
		f.State = json.RawMessage(r.State.String)
	}
	return f, nil
}
