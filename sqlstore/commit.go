package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// FinishCommit ends a commit: SQLite's UPDATE of the row. Unless the
// commit created the session or changed its metadata, the session is not
// read back (the costliest statement of a small append): only its
// counters and time changed.
func (d engineDriver) FinishCommit(ctx context.Context, etx engine.Tx, id string, sess sessiondb.Session, f engine.Finish) (sessiondb.Session, error) {
	if !f.Changed {
		// Nothing to record: no Sequence bump, no row written, so the
		// transaction commits without a WAL frame (and without an fsync).
		return sess, nil
	}
	tx := etx.(*sqlx.Tx)
	args := []any{f.LastSeq, f.MessageCount, f.EntryCount, engine.FormatTime(f.UpdatedAt)}
	set := engine.PreviewSQL(f)
	if set != "" {
		args = append(args, f.Preview)
	}
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET sequence = sequence + 1, last_seq = ?, message_count = ?,
		entry_count = ?, updated_at = ?`+set+` WHERE id = ?`, append(args, id)...)
	if err != nil {
		return sessiondb.Session{}, err
	}
	if f.Reread {
		return getSession(ctx, tx, id)
	}
	sess.Sequence++
	sess.LastSeq = f.LastSeq
	sess.UpdatedAt = engine.ParseTime(engine.FormatTime(f.UpdatedAt))
	sess.MessageCount, sess.EntryCount = f.MessageCount, f.EntryCount
	return sess, nil
}

// InsertEntries appends described entries after lastSeq and returns the
// new LastSeq (engine.EntryInserts), with explicit row ids from
// nextEntryID.
func (d engineDriver) InsertEntries(ctx context.Context, etx engine.Tx, id string, lastSeq int64, rows []engine.Row, now time.Time) (int64, error) {
	tx := etx.(*sqlx.Tx)
	var next int64
	if err := tx.GetContext(ctx, &next, nextEntryID); err != nil {
		return 0, fmt.Errorf("append to %s: next entry id: %w", id, err)
	}
	if err := insertEntries(ctx, tx, id, lastSeq, next, rows, now); err != nil {
		return 0, err
	}
	return lastSeq + int64(len(rows)), nil
}

// insertEntries runs engine.EntryInserts, the first row taking id next.
func insertEntries(ctx context.Context, tx *sqlx.Tx, id string, lastSeq, next int64, rows []engine.Row, now time.Time) error {
	for _, in := range engine.EntryInserts(id, lastSeq, next, dialect.EntryText, rows, now) {
		if _, err := tx.ExecContext(ctx, in.Query, in.Args...); err != nil {
			return fmt.Errorf("append entries %d-%d to %s: %w", in.First, in.Last, id, err)
		}
	}
	return nil
}

// nextEntryID is the row id the next entry takes: above every entry and
// above the search cursor (see "Search" in doc.go). entries is not
// AUTOINCREMENT since schema version 10: SQLite then wrote the
// sqlite_sequence row at every insert, one page (8 KB of WAL) of the five
// an append wrote. Without it SQLite would take max(id)+1, which after a
// delete of the highest rows can be an id at or below the cursor, a row
// the indexer would never see; this query costs two b-tree seeks and no
// write. A trigger (entries_after_cursor) refuses such an id from any
// other writer (sqlite3, an older binary).
const nextEntryID = `SELECT max(coalesce((SELECT max(id) FROM entries), 0),
	(SELECT indexed_through FROM search_index WHERE source = 'entries')) + 1`

// describe fills the derived columns of an entry.
func (s *Store) describe(e sessiondb.Entry) (kind, role, text string) {
	kind = backend.EntryKind(e)
	role, text = s.extract(kind, e.Body)
	if e.Role != "" {
		role = e.Role
	}
	// The text is made what both backends store (backend.CleanText: U+FFFD
	// for a NUL, a byte that is not UTF-8 or a leading TextMarker): SQLite's
	// LIKE and the functions the driver calls read text up to its first
	// NUL, so search would not see what follows one. The body keeps the
	// exact bytes. Rows written before keep their text until Reindex with
	// reextract.
	return kind, role, backend.CleanText(text)
}
