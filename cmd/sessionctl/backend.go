package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/migrations"
	pgmigrations "github.com/sessiondb/sessiondb/migrations/postgres"
	"github.com/sessiondb/sessiondb/pgstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// This file is the one place that knows the backends. openBackend maps a
// --db value to a store; the commands hold a sessiondb.Store and ask it,
// through the small interfaces below, for what only some backends can do.
// Adding a backend means a new case in openBackend and an adapter type
// here: no command changes.

// openMode says how a command uses the database.
type openMode int

const (
	// modeCreate creates (and migrates) the database when needed: import.
	modeCreate openMode = iota
	// modeExisting opens an existing database for writing, migrating it.
	modeExisting
	// modeRead opens an existing database without creating, migrating or
	// changing anything.
	modeRead
)

// openOptions are the backend-independent knobs the commands set. A
// backend ignores what does not apply to it.
type openOptions struct {
	// SecureDelete overwrites deleted content (SQLite's secure_delete).
	SecureDelete bool
	// NoMigrate leaves a schema that is not the latest as it is.
	NoMigrate bool
	// NoSchemaCheck opens a database whose schema objects are damaged, so
	// that doctor can report them.
	NoSchemaCheck bool
	// ServerReadOnly makes a database server refuse every write on the
	// store's connections (PostgreSQL: default_transaction_read_only), for
	// servers that hand the store to others (mcp). A SQLite file opened
	// read-only is read-only already.
	ServerReadOnly bool
	// Serving: the process answers many reads (mcp, serve), so an SQLite
	// file's readers keep serveReadCacheMiB of page cache
	// (sqlstore.Options.ReadCacheMiB; a one-shot command keeps SQLite's
	// default, cheaper for a single read).
	Serving bool
}

// serveReadCacheMiB is the page cache of a serving process's readers.
const serveReadCacheMiB = 16

// isServerURL says whether a --db value names a database server rather
// than a file.
func isServerURL(loc string) bool { return pgstore.IsURL(loc) }

// openBackend opens the database named by loc (a file path or a
// postgres:// URL) for mode.
func openBackend(ctx context.Context, loc string, mode openMode, o openOptions) (sessiondb.Store, error) {
	st, err := openStore(ctx, loc, mode, o)
	if err != nil {
		return nil, &openError{loc: loc, err: err}
	}
	return st, nil
}

func openStore(ctx context.Context, loc string, mode openMode, o openOptions) (sessiondb.Store, error) {
	if pgstore.IsURL(loc) {
		// A server database exists once the server does: nothing to create.
		// Read-only commands never migrate it.
		if o.ServerReadOnly {
			var err error
			if loc, err = readOnlyURL(loc); err != nil {
				return nil, err
			}
		}
		// Read-only commands change nothing, not even the secret scan's
		// tables (their reads scan what they read).
		st, err := pgstore.Open(ctx, loc, &pgstore.Options{NoMigrate: o.NoMigrate || mode == modeRead,
			NoSecretScan: mode == modeRead || o.ServerReadOnly})
		if err != nil {
			return nil, err
		}
		return pgBackend{st}, nil
	}
	so := &sqlstore.Options{SecureDelete: o.SecureDelete, NoMigrate: o.NoMigrate, NoSchemaCheck: o.NoSchemaCheck}
	if o.Serving {
		so.ReadCacheMiB = serveReadCacheMiB
	}
	switch mode {
	case modeRead:
		so.ReadOnly = true
		st, err := sqlstore.Open(loc, so)
		if errors.Is(err, sessiondb.ErrNotFound) {
			return nil, fmt.Errorf("database %s does not exist (pass --db, or import something first)", loc)
		}
		if err != nil {
			return nil, err
		}
		return sqliteBackend{st}, nil
	case modeExisting:
		if _, err := os.Stat(loc); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("database %s does not exist (pass --db, or import something first)", loc)
			}
			return nil, fmt.Errorf("database %s: %w", loc, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(loc), 0o700); err != nil {
		return nil, fmt.Errorf("create database directory: %w", err)
	}
	st, err := sqlstore.Open(loc, so)
	if err != nil {
		return nil, err
	}
	return sqliteBackend{st}, nil
}

// readOnlyURL adds default_transaction_read_only=on to a PostgreSQL URL:
// pgx passes it to the server as a runtime parameter, so every
// transaction on those connections is READ ONLY and the server refuses
// writes whatever the store does.
func readOnlyURL(loc string) (string, error) {
	u, err := url.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("database URL: %w", sessiondb.ErrInvalid)
	}
	q := u.Query()
	q.Set("default_transaction_read_only", "on")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// redactedView returns the view of st whose reads mask secrets
// (sessiondb.SecretKeeper.Redacted): what show, search, list, export
// --redact, mcp and serve read. A backend that keeps no secrets has no
// such view; st is returned, which is why every backend here keeps them.
func redactedView(st sessiondb.Store) sessiondb.Store {
	if k, ok := st.(sessiondb.SecretKeeper); ok {
		return k.Redacted()
	}
	return st
}

// Optional capabilities. A command checks for them with a type assertion
// and, when the store lacks one, prints what the backend says instead
// (noter).

// locator names the database in messages: a file path, or a URL with the
// password hidden. Every backend implements it.
type locator interface {
	Location() string
}

// location names st's database for messages.
func location(st sessiondb.Store) string {
	if l, ok := st.(locator); ok {
		return l.Location()
	}
	return "database"
}

// readOnlyQuerier runs ad-hoc SQL that cannot change anything, stopped by
// the server after timeout (0: no limit) where the backend can. done
// releases what the rows hold; call it after closing the rows.
type readOnlyQuerier interface {
	QueryReadOnly(ctx context.Context, timeout time.Duration, query string) (rows *sql.Rows, done func(), err error)
}

// userQuerier runs a query a person typed (sessionctl sql): like
// QueryReadOnly, plus whatever the backend needs so that the query cannot
// reach beyond reading the database.
type userQuerier interface {
	QueryUser(ctx context.Context, o userQueryOptions, query string) (rows *sql.Rows, done func(), err error)
}

// userQueryOptions are sql's flags that reach the backend.
type userQueryOptions struct {
	timeout time.Duration
	// unsafeRole runs a PostgreSQL query as the connecting user when the
	// schema has no read-only role (see pgstore.QueryUntrusted).
	unsafeRole bool
	// readerPassword is the PostgreSQL read-only role's password
	// ($SESSIONDB_READER_PASSWORD; empty: ~/.pgpass, or none).
	readerPassword string
}

// fileBacked is a store kept in one local file, with the file checks
// (size, write-ahead log, permissions) that go with it.
type fileBacked interface {
	Path() string
}

// immutableOpener is a store that may have been opened as immutable, on
// storage that cannot be written (see sqlstore.Store.Immutable).
type immutableOpener interface {
	Immutable() bool
}

// vacuumer rebuilds storage to return free space.
type vacuumer interface {
	Vacuum(ctx context.Context) error
}

// backupKeeper keeps migration backups beside the database.
type backupKeeper interface {
	Backup(ctx context.Context) (string, error)
	Backups() ([]string, error)
	RemoveBackups(keep int) ([]string, error)
}

// reindexer rebuilds the search index (re-deriving role and text first
// with reextract, where the backend distinguishes).
type reindexer interface {
	Reindex(ctx context.Context, reextract bool) error
}

// statsRefresher is a store whose query planner keeps statistics that a
// bulk write makes stale (pgstore: ANALYZE).
type statsRefresher interface {
	RefreshStatistics(ctx context.Context, written int64) (bool, error)
}

// refreshStatistics lets a server's planner see what a bulk write of
// written entries (copy, import) put there, now rather than when
// autovacuum comes round (pgstore.Store.RefreshStatistics says why search
// needs it). The write itself succeeded, so a failure is a warning.
func (a *app) refreshStatistics(st any, written int64) {
	r, ok := st.(statsRefresher)
	if !ok || written == 0 {
		return
	}
	if _, err := r.RefreshStatistics(a.ctx, written); err != nil {
		fmt.Fprintf(a.stderr, "warning: %s (search may choose slow plans until autovacuum analyzes the tables)\n", oneLine(err.Error()))
	}
}

// lazyIndexer is a store whose search index trails the writes.
type lazyIndexer interface {
	IndexStatus(ctx context.Context) (sqlstore.IndexStatus, error)
	CatchUpIndex(ctx context.Context) error
}

// schemaChecker compares the schema's objects with what the migrations
// created.
type schemaChecker interface {
	CheckSchema(ctx context.Context) error
}

// migrator exposes the schema's migrations.
type migrator interface {
	MigrationProvider(ctx context.Context) (*goose.Provider, error)
	// SchemaVersion reads the applied version without creating anything.
	SchemaVersion(ctx context.Context) (int64, error)
	// LatestSchema is the newest version this binary knows.
	LatestSchema() (int64, error)
}

// engineChecker runs the backend's own consistency checks for doctor.
type engineChecker interface {
	EngineChecks(ctx context.Context) []checkResult
}

// noter says, for a maintenance operation the backend does not need
// ("vacuum", "backups", "index", "files"), what does it instead.
type noter interface {
	Note(op string) string
}

// note returns what st says about op, or a generic line.
func note(st sessiondb.Store, op string) string {
	if n, ok := st.(noter); ok {
		if s := n.Note(op); s != "" {
			return s
		}
	}
	return op + ": not applicable to " + location(st) + "; nothing to do"
}

// What each backend offers, checked at compile time: losing a method in a
// refactor must not silently turn a command into a "nothing to do" note.
var (
	_ interface {
		sessiondb.Store
		sessiondb.Copier
		locator
		readOnlyQuerier
		userQuerier
		fileBacked
		vacuumer
		backupKeeper
		reindexer
		lazyIndexer
		schemaChecker
		migrator
		engineChecker
		immutableOpener
	} = sqliteBackend{}
	_ interface {
		sessiondb.Store
		sessiondb.Copier
		locator
		readOnlyQuerier
		userQuerier
		reindexer
		migrator
		noter
	} = pgBackend{}
)

// sqliteBackend is a SQLite file.
type sqliteBackend struct{ *sqlstore.Store }

func (b sqliteBackend) Location() string { return b.Path() }

// QueryReadOnly runs on the reader pool (query_only), which refuses
// writes; the timeout is the context's.
func (b sqliteBackend) QueryReadOnly(ctx context.Context, _ time.Duration, query string) (*sql.Rows, func(), error) {
	rows, err := b.Query(ctx, query)
	return rows, func() {}, err
}

// QueryUser is QueryReadOnly: the reader pool opens the file mode=ro with
// query_only, and sql refuses ATTACH, VACUUM and setting PRAGMAs before
// the query gets here. SQLite reaches nothing beyond the file.
func (b sqliteBackend) QueryUser(ctx context.Context, o userQueryOptions, query string) (*sql.Rows, func(), error) {
	return b.QueryReadOnly(ctx, o.timeout, query)
}

func (b sqliteBackend) MigrationProvider(context.Context) (*goose.Provider, error) {
	return b.Provider()
}

func (b sqliteBackend) LatestSchema() (int64, error) { return migrations.Latest() }

// SchemaVersion reads goose's table with plain queries rather than through
// goose, which would create its version table in a file that has none.
func (b sqliteBackend) SchemaVersion(ctx context.Context) (int64, error) {
	n, err := queryInt(ctx, b, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'goose_db_version'")
	if err != nil || n == 0 {
		return 0, err
	}
	return queryInt(ctx, b, "SELECT coalesce(max(version_id), 0) FROM goose_db_version WHERE is_applied")
}

// EngineChecks runs SQLite's journal-mode, integrity and foreign-key
// checks.
func (b sqliteBackend) EngineChecks(ctx context.Context) []checkResult {
	var results []checkResult
	add := func(check, status, format string, args ...any) {
		results = append(results, checkResult{Check: check, Status: status, Detail: fmt.Sprintf(format, args...)})
	}
	if b.Immutable() {
		// immutable=1 reports journal mode "delete" whatever the file
		// says: read the header (bytes 18 and 19 are 2 in WAL mode).
		if wal, err := walHeader(b.Path()); err != nil {
			add("journal mode", checkFail, "%v", err)
		} else if wal {
			add("journal mode", checkOK, "wal (read-only storage: opened immutable)")
		} else {
			add("journal mode", checkFail, "not wal (read-only storage: opened immutable)")
		}
	} else if mode, err := queryStrings(ctx, b, "PRAGMA journal_mode"); err != nil {
		add("journal mode", checkFail, "%v", err)
	} else if len(mode) == 1 && strings.EqualFold(mode[0], "wal") {
		add("journal mode", checkOK, "wal")
	} else {
		add("journal mode", checkFail, "%s, expected wal", strings.Join(mode, ","))
	}
	if lines, err := queryStrings(ctx, b, "PRAGMA integrity_check"); err != nil {
		add("integrity", checkFail, "%v%s", err, repairHint([]string{err.Error()}))
	} else if len(lines) == 1 && lines[0] == "ok" {
		add("integrity", checkOK, "ok")
	} else {
		add("integrity", checkFail, "%d problem(s), first: %s%s", len(lines), firstOr(lines, "?"), repairHint(lines))
	}
	if n, err := queryInt(ctx, b, "SELECT count(*) FROM pragma_foreign_key_check"); err != nil {
		add("foreign keys", checkFail, "%v", err)
	} else if n == 0 {
		add("foreign keys", checkOK, "no violations")
	} else {
		add("foreign keys", checkFail, "%d row(s) point at missing parents", n)
	}
	return results
}

// walHeader reports whether the SQLite file at path is in WAL mode by its
// header: file format write and read versions (bytes 18 and 19) are 2.
func walHeader(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var h [20]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false, fmt.Errorf("read header: %w", err)
	}
	return h[18] == 2 && h[19] == 2, nil
}

// pgBackend is a PostgreSQL database.
type pgBackend struct{ *pgstore.Store }

func (b pgBackend) Location() string { return b.URL() }

// QueryReadOnly runs query in a READ ONLY transaction, so the server
// refuses any write (including one hidden in a function call), with
// statement_timeout set for that transaction only: the server stops a
// runaway query even if the client has gone. The transaction is always
// rolled back (done), so even what PostgreSQL allows in a read-only
// transaction (lo_create, say) leaves nothing behind.
func (b pgBackend) QueryReadOnly(ctx context.Context, timeout time.Duration, query string) (*sql.Rows, func(), error) {
	tx, err := b.DB().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("query: %w", err)
	}
	done := func() { _ = tx.Rollback() }
	if timeout > 0 {
		ms := timeout.Milliseconds()
		if ms < 1 {
			ms = 1
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", ms)); err != nil {
			done()
			return nil, nil, fmt.Errorf("query: %w", err)
		}
	}
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		done()
		if strings.Contains(err.Error(), "SQLSTATE 25006") {
			return nil, nil, errWriteRefused
		}
		if strings.Contains(err.Error(), "SQLSTATE 57014") && timeout > 0 {
			return nil, nil, fmt.Errorf("query stopped after --timeout %s", timeout)
		}
		return nil, nil, fmt.Errorf("query: %w", err)
	}
	return rows, done, nil
}

// QueryUser runs the query through pgstore's QueryUntrusted: on a
// connection logged in as the schema's read-only role (unless unsafeRole),
// one reading statement, no function that acts beyond the transaction,
// READ ONLY and rolled back.
func (b pgBackend) QueryUser(ctx context.Context, o userQueryOptions, query string) (*sql.Rows, func(), error) {
	rows, done, err := b.QueryUntrusted(ctx, query, pgstore.UntrustedQueryOptions{
		Timeout: o.timeout, AsSessionUser: o.unsafeRole, ReaderPassword: o.readerPassword,
	})
	switch {
	case err == nil:
		return rows, done, nil
	case errors.Is(err, pgstore.ErrNoReaderRole):
		return nil, nil, &sqlRefused{fmt.Errorf("%w; or pass --unsafe-role to run as the user of the URL (still read-only and rolled back, but with all of that user's privileges)", err)}
	case strings.Contains(err.Error(), "SQLSTATE 42501"):
		return nil, nil, &sqlRefused{fmt.Errorf("refused: %s (sessionctl sql is read-only: it may read sessiondb's tables and views, nothing else)", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "query: "), sessiondb.ErrReadOnly.Error()+": "))}
	case strings.Contains(err.Error(), "SQLSTATE 25006"):
		return nil, nil, errWriteRefused
	case strings.Contains(err.Error(), "SQLSTATE 57014") && o.timeout > 0:
		return nil, nil, fmt.Errorf("query stopped after --timeout %s", o.timeout)
	}
	return nil, nil, err
}

// Reindex derives every row's role and text again; the trigram indexes
// follow the rows in the same transaction, so there is no separate index
// to rebuild.
func (b pgBackend) Reindex(ctx context.Context, _ bool) error { return b.Store.Reindex(ctx) }

func (b pgBackend) MigrationProvider(ctx context.Context) (*goose.Provider, error) {
	return b.Provider(ctx)
}

func (b pgBackend) LatestSchema() (int64, error) { return pgmigrations.Latest() }

// Note says what PostgreSQL does instead of SQLite's file maintenance.
func (b pgBackend) Note(op string) string {
	switch op {
	case "vacuum":
		return "vacuum: on PostgreSQL the server's autovacuum does this; nothing to do"
	case "backups":
		return "backups: on PostgreSQL use pg_dump (or the server's backups); sessionctl keeps no backup files"
	case "index":
		return "search index: on PostgreSQL the trigram indexes are updated in each write's transaction; nothing pending"
	case "files":
		return "not a local file: the server manages storage and permissions"
	}
	return ""
}

// queryStrings runs a read-only query whose rows are one text column.
func queryStrings(ctx context.Context, st readOnlyQuerier, q string) ([]string, error) {
	rows, done, err := st.QueryReadOnly(ctx, 0, q)
	if err != nil {
		return nil, err
	}
	defer done()
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// queryInt runs a read-only query that returns one integer.
func queryInt(ctx context.Context, st readOnlyQuerier, q string) (int64, error) {
	rows, done, err := st.QueryReadOnly(ctx, 0, q)
	if err != nil {
		return 0, err
	}
	defer done()
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, err
		}
		return 0, errors.New("no result")
	}
	var n int64
	if err := rows.Scan(&n); err != nil {
		return 0, err
	}
	return n, rows.Err()
}
