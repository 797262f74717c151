package sessiondb

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error a Store returns for one of these conditions
// matches the sentinel under errors.Is; the message around it names the
// operation and the session.
var (
	// ErrNotFound: the session, alias, checkpoint or source record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists: a session (or alias) with that ID already exists.
	ErrExists = errors.New("already exists")
	// ErrConflict: the expected sequence given with a write differs from the
	// stored one (the concrete error is then a *ConflictError), or the
	// source-file record differs from Commit.ExpectSource.
	ErrConflict = errors.New("sequence conflict")
	// ErrInvalid: the input is malformed (bad ID, body that is not JSON,
	// oversized value, impossible seq range). Nothing was written.
	ErrInvalid = errors.New("invalid input")
	// ErrSchemaTooNew: the database was written by a newer sessiondb; this
	// binary refuses to touch it.
	ErrSchemaTooNew = errors.New("database schema is newer than this binary")
	// ErrSchemaTooOld: the database has pending migrations and was opened
	// in a mode that does not apply them (read-only); migrate it first.
	ErrSchemaTooOld = errors.New("database schema is older than this binary")
	// ErrClosed: the store has been closed.
	ErrClosed = errors.New("store closed")
	// ErrCorrupt: the database file is not a valid sessiondb database, or
	// damage was found in it: a page SQLite cannot read, a schema that
	// differs from what its migrations created, a stored value of the
	// wrong type, a damaged search index (which sqlstore's Reindex
	// rebuilds from the log).
	ErrCorrupt = errors.New("database corrupt")
	// ErrReadOnly: the database (or its directory) cannot be written.
	ErrReadOnly = errors.New("database is read-only")
	// ErrFull: the disk or a file-size limit refused the write. Nothing of
	// the failed write was committed.
	ErrFull = errors.New("disk full")
	// ErrBusy: another process held the write lock for longer than the busy
	// timeout. Retrying later is safe.
	ErrBusy = errors.New("database busy")
)

// ConflictError reports an optimistic-concurrency failure. It matches
// ErrConflict under errors.Is.
type ConflictError struct {
	SessionID string
	Expected  int64 // the sequence the caller expected
	Current   int64 // the sequence stored now
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("sequence conflict on session %q: expected %d, current %d", e.SessionID, e.Expected, e.Current)
}

// Unwrap makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// invalidf returns an error wrapping ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
