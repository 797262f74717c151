package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sessiondb/sessiondb"
)

// translate maps driver errors to the root sentinels at the storage
// boundary, so that callers never see sql.ErrNoRows or a raw SQLITE_*
// code. Errors that are already sessiondb errors pass through.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return sessiondb.ErrNotFound
	}
	if errors.Is(err, sql.ErrConnDone) || strings.Contains(err.Error(), "sql: database is closed") {
		return sessiondb.ErrClosed
	}
	if strings.Contains(err.Error(), "sql: Scan error on column") {
		// Every column is read into the Go type its schema declares and
		// every write stores that type, so a value of another type (text
		// in last_seq, a NULL in a NOT NULL column) is a damaged record,
		// which SQLite does not checksum, or a hand edit that broke it.
		return fmt.Errorf("%w: a stored value has the wrong type: %v", sessiondb.ErrCorrupt, err)
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	var sentinel error
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		sentinel = sessiondb.ErrBusy
	case sqlite3.SQLITE_PROTOCOL:
		// WAL gave up taking a read lock after about 100 attempts over
		// some 10 s, because another process held the locks it needed
		// without finishing (a process stopped in the middle of a write,
		// a checkpoint or a recovery). SQLite's documentation: the
		// operation can be retried.
		sentinel = sessiondb.ErrBusy
	case sqlite3.SQLITE_FULL:
		sentinel = sessiondb.ErrFull
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		sentinel = sessiondb.ErrCorrupt
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
		sentinel = sessiondb.ErrReadOnly
	case sqlite3.SQLITE_TOOBIG:
		sentinel = sessiondb.ErrInvalid
	case sqlite3.SQLITE_CONSTRAINT:
		if storeChosenKey(se) {
			return fmt.Errorf("%w: the database is damaged: a key the store chose from what it read (the highest entry id, the session's last seq) exists already: %s", sessiondb.ErrCorrupt, se.Error())
		}
	case sqlite3.SQLITE_ERROR:
		// A header declaring a schema format this SQLite cannot read:
		// damaged, or written by a future SQLite.
		if strings.Contains(se.Error(), "unsupported file format") {
			sentinel = sessiondb.ErrCorrupt
		}
		// A damaged FTS5 config row (its version number): the index,
		// not the log, is damaged; Reindex (sessionctl reindex) rebuilds it.
		if strings.Contains(se.Error(), "invalid fts5 file format") {
			sentinel = sessiondb.ErrCorrupt
		}
	case sqlite3.SQLITE_IOERR:
		// A write past RLIMIT_FSIZE or onto a full disk surfaces as an I/O
		// error on some paths rather than SQLITE_FULL.
		if strings.Contains(strings.ToLower(se.Error()), "full") || se.Code() == sqlite3.SQLITE_IOERR_WRITE {
			sentinel = sessiondb.ErrFull
		}
	}
	if sentinel == nil {
		return err
	}
	return fmt.Errorf("%w: %s", sentinel, se.Error())
}

// storeChosenKey reports whether err is a uniqueness failure on a key
// that no caller gives: an entry's id (nextEntryID: one above max(id) and
// the search cursor) and its (session_id, seq) (one above the session's
// last_seq), both read inside the write transaction, which excludes every
// other writer. Such a key can exist already only if what was read is
// wrong: a damaged b-tree (a flipped byte in the last leaf of entries, which
// max(id) reads without checking its cells once the page is cached) or a
// damaged record (last_seq; SQLite does not checksum payloads). So it is
// ErrCorrupt, not a conflict the caller could resolve (issue 36, torture
// seed 1796552175591336711).
func storeChosenKey(se *sqlite.Error) bool {
	msg := se.Error()
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return strings.Contains(msg, "UNIQUE constraint failed: entries.id")
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return strings.Contains(msg, "UNIQUE constraint failed: entries.session_id, entries.seq")
	}
	return false
}

// isSQLError reports whether err is SQLite's generic SQLITE_ERROR (a
// statement that does not compile, for one) that translate left unmapped.
func isSQLError(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_ERROR
}

// isBusy reports whether err is a lock timeout worth retrying.
func isBusy(err error) bool {
	return errors.Is(err, sessiondb.ErrBusy)
}

// translateOSError maps file-system errors met while preparing the
// database path.
func translateOSError(err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%w: %v", sessiondb.ErrReadOnly, err)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EFBIG):
		return fmt.Errorf("%w: %v", sessiondb.ErrFull, err)
	}
	return err
}
