package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// Tx is one transaction of a backend. Statements are written with ?
// placeholders; a backend whose database wants others rebinds them.
// *sqlx.Tx is a Tx.
type Tx interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	GetContext(ctx context.Context, dest any, q string, args ...any) error
	SelectContext(ctx context.Context, dest any, q string, args ...any) error
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryxContext(ctx context.Context, q string, args ...any) (*sqlx.Rows, error)
	QueryRowxContext(ctx context.Context, q string, args ...any) *sqlx.Row
}

// Driver is what a backend supplies to the engine (see the package doc).
type Driver interface {
	// Read runs fn in one read-only transaction: everything fn reads
	// comes from one snapshot.
	Read(ctx context.Context, fn func(tx Tx) error) error
	// Write runs fn in one write transaction and commits it. fn may run
	// more than once (a retried transaction) and must only use tx.
	Write(ctx context.Context, fn func(tx Tx) error) error
	// LockSession reads session id inside a write transaction and keeps
	// every other writer of it waiting until tx ends; an absent session
	// is sessiondb.ErrNotFound. Its aliases may be missing (PostgreSQL
	// reads them after the lock, which the engine does where it needs
	// them).
	LockSession(ctx context.Context, tx Tx, id string) (sessiondb.Session, error)
	// GetSession reads session id (aliases included) as tx sees it.
	GetSession(ctx context.Context, tx Tx, id string) (sessiondb.Session, error)
	// InsertSession creates the session row (Sequence 0) and its aliases;
	// an ID that is taken is sessiondb.ErrExists.
	InsertSession(ctx context.Context, tx Tx, s sessiondb.Session, now time.Time, shadowAliases bool) error
	// InsertSessionIfMissing is InsertSession for Commit.CreateIfMissing:
	// it creates the session unless it exists, and reports whether it did.
	InsertSessionIfMissing(ctx context.Context, tx Tx, s sessiondb.Session, now time.Time, shadowAliases bool) (bool, error)
	// SetAliases replaces session id's aliases by the normal form of
	// aliases (backend.NormalAliases).
	SetAliases(ctx context.Context, tx Tx, id string, aliases []string) error
	// LockSource keeps every other writer that expects a record of the
	// source file path (Commit.ExpectSource) waiting until tx ends.
	LockSource(ctx context.Context, tx Tx, path string) error
	// LockCommits prepares tx for CommitMany's commits, in that order,
	// so that calls over the same sessions queue instead of deadlocking.
	LockCommits(ctx context.Context, tx Tx, commits []sessiondb.SessionCommit) error
	// InsertEntries appends rows to session id after lastSeq and returns
	// the new LastSeq. The driver may hold the last INSERT back and run it
	// with FinishCommit's statement.
	InsertEntries(ctx context.Context, tx Tx, id string, lastSeq int64, rows []Row, now time.Time) (int64, error)
	// FinishCommit ends a commit on the session row sess (as LockSession
	// read it): when f.Changed, one Sequence bump and f's fields stored;
	// it returns the session as the commit leaves it, aliases included.
	FinishCommit(ctx context.Context, tx Tx, id string, sess sessiondb.Session, f Finish) (sessiondb.Session, error)
	// Describe derives the stored kind, role and searched text of e.
	Describe(e sessiondb.Entry) (kind, role, text string)
	// UsageTotalsOf sums the usage of each of the sessions ids, one
	// statement for the page (List with Usage).
	UsageTotalsOf(ctx context.Context, tx Tx, ids []string) (map[string]sessiondb.UsageTotals, error)
	// PrepareSearch runs before a search's read transaction: it may make
	// the index catch up (SQLite) or normalise terms in place to what the
	// searched text can hold (PostgreSQL).
	PrepareSearch(ctx context.Context, terms []string) error
	// SearchHits is the backend's search index: the page (opts.Offset,
	// limit) of hits holding every term, ranked, each with its whole
	// text (the engine cuts the snippets, see Engine.Hits).
	// opts.SessionID is already resolved; short says a term is shorter
	// than a trigram.
	SearchHits(ctx context.Context, tx Tx, terms []string, short bool, opts sessiondb.SearchOptions, limit int) ([]HitRow, error)
}

// Dialect is the SQL text that differs between the databases inside
// statements that are otherwise the same (goose's per-dialect strings).
type Dialect struct {
	// SessionColumns is the select list of a session row of "sessions s"
	// (SessionRow), its aliases aggregated as a JSON array in insertion
	// order, the columns in the order of SessionColumnNames.
	SessionColumns string
	// HolderOrder orders the rows of "session_aliases a" listing one
	// alias: the first is the session the alias resolves to (see
	// sessiondb.AliasOrderKey), compared byte for byte.
	HolderOrder string
	// Instr is the function giving the position of a substring (0:
	// absent): instr in SQLite, strpos in PostgreSQL.
	Instr string
	// CopyLockSuffix and ReserveCompactionID are PutSession's
	// sessioncopy.WriteOptions of the same names.
	CopyLockSuffix, ReserveCompactionID string
	// NextEntryID, when set, is a query returning the row id the next
	// entry takes: the backend then gives every inserted entry an
	// explicit id, that one and upwards (SQLite: see sqlstore's
	// nextEntryID). Empty: the database assigns ids (PostgreSQL's
	// identity sequence).
	NextEntryID string
	// EntryText is how an entry's extracted text is written (SQLite
	// stores it only where it differs from the body's content string).
	EntryText backend.TextStore
	// TableExists is a query with one argument, a table name, that
	// counts the tables of that name in the store's schema (the secret
	// tables are missing from a schema opened without migrating).
	TableExists string
	// BodyPrefix is an expression, with one argument n, giving at least
	// the first n bytes of an entry's body (all of a shorter one) while
	// reading no more of it than it must: SQLite substr over the body as
	// a BLOB (bytes), PostgreSQL substr (n characters, which TOAST slices
	// without detoasting the rest); EntriesClipped cuts it to n bytes.
	BodyPrefix string
	// BodySize is an expression giving the length in bytes of an
	// entry's body without reading it.
	BodySize string
}

// Engine is the behaviour of a store over one Driver. A backend embeds it
// in its Store.
type Engine struct {
	d   Driver
	sql Dialect
	// retention is how many checkpoints a session keeps (0: all).
	retention int
	// scanMu lets one ScanSecrets step run at a time in this process,
	// so that a caller finishing the scan and the background scanner
	// take turns instead of scanning the same batch twice. It guards
	// scanFrom and scanQuiet.
	scanMu sync.Mutex
	// scanFrom is the session id the next ScanSecrets step looks from
	// (it wraps around to the first): the last session the previous step
	// read, so that a long backlog is walked once, not from its start
	// at every step.
	scanFrom string
	// scanQuiet is the highest entry id when a step last found nothing
	// to scan (0: never), at scanQuietAt: see ScanSecrets.
	scanQuiet   int64
	scanQuietAt time.Time
}

// New returns the engine of driver d speaking dialect; retention is how
// many checkpoints a session keeps, the newest (0: all).
func New(d Driver, dialect Dialect, retention int) *Engine {
	return &Engine{d: d, sql: dialect, retention: retention}
}

// FormatTime is t as stored (backend.FormatTime: UTC, fixed width, so
// that text order is time order).
func FormatTime(t time.Time) string { return backend.FormatTime(t) }

// ParseTime reads a stored time (or, for rows written by hand, another
// RFC 3339 form): backend.ParseTime.
func ParseTime(s string) time.Time { return backend.ParseTime(s) }

// OrNow is t, or now when t is zero.
func OrNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t
}

// SessionExists checks presence without reading the row; an absent
// session is sessiondb.ErrNotFound.
func SessionExists(ctx context.Context, tx Tx, id string) error {
	var one int
	err := tx.GetContext(ctx, &one, `SELECT 1 FROM sessions WHERE id = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("session %q: %w", id, sessiondb.ErrNotFound)
	}
	return err
}

func isNotFound(err error) bool { return errors.Is(err, sessiondb.ErrNotFound) }
