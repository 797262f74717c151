package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
	pgmigrations "github.com/sessiondb/sessiondb/migrations/postgres"
)

// Store is the PostgreSQL implementation of sessiondb.Store.
type Store struct {
	*core // the behaviour (internal/engine)

	url       string
	opts      Options
	extract   sessiondb.Extractor
	retention int
	// db is one pool for reads and writes: PostgreSQL runs concurrent
	// writers itself (row locks), so unlike SQLite nothing is gained by a
	// single writer connection.
	db     *sqlx.DB
	closed atomic.Bool
	// retries counts attempts run again; unknownCommits counts COMMITs
	// whose answer was lost and whose outcome was asked of the server.
	// Tests report them.
	retries, unknownCommits atomic.Int64
	// Test hooks around COMMIT (nil in production): beforeCommit runs
	// inside the transaction, afterCommit may replace COMMIT's answer.
	beforeCommit func(tx *ptx)
	afterCommit  func(err error) error
	// The background secret scan (scanner.go): nil channels when off.
	scanKick, scanStop, scanDone chan struct{}
	scanErr                      atomic.Pointer[error]
}

var (
	_ sessiondb.Store         = (*Store)(nil)
	_ sessiondb.SessionLookup = (*Store)(nil)
	_ sessiondb.SourceTracker = (*Store)(nil)
)

const (
	defaultMaxConns     = 16
	defaultRetryTimeout = 60 * time.Second
	defaultRetention    = 20
)

// openWait bounds how long Open waits for an unreachable server. A
// variable so that the test of that bound does not wait 10 s.
var openWait = 10 * time.Second

// Open connects to the PostgreSQL database named by a postgres:// (or
// postgresql://) URL, as understood by pgx (host, port, user, password,
// dbname, sslmode, and runtime parameters such as search_path), checks the
// schema version and applies pending migrations. If any step fails,
// everything opened so far is closed.
func Open(ctx context.Context, dbURL string, opts *Options) (_ *Store, err error) {
	if !IsURL(dbURL) {
		return nil, fmt.Errorf("open postgres: %w: want a postgres:// URL", sessiondb.ErrInvalid)
	}
	s := &Store{url: dbURL}
	if opts != nil {
		s.opts = *opts
	}
	s.applyDefaults()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", redact(dbURL), err)
	}
	// Every connection escapes the text PostgreSQL cannot hold (see
	// openTextDB).
	s.db = sqlx.NewDb(openTextDB(cfg), "pgx")
	defer func() {
		if err != nil {
			s.db.Close()
		}
	}()
	s.db.SetMaxOpenConns(s.opts.MaxConns)
	s.db.SetMaxIdleConns(s.opts.MaxConns)
	// A connection idle this long may have been cut by a proxy or a
	// server restart; dropping it early saves a failed attempt.
	s.db.SetConnMaxIdleTime(5 * time.Minute)
	// Wait for a server that is starting or restarting, but not for the
	// whole RetryTimeout: a wrong host or port should fail in seconds.
	pingCtx, cancel := context.WithTimeout(ctx, min(s.opts.RetryTimeout, openWait))
	err = s.retry(pingCtx, func() (bool, error) { return true, translate(s.db.PingContext(pingCtx)) })
	cancel()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", redact(dbURL), err)
	}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	if !s.opts.NoSecretScan {
		s.startScanner()
	}
	return s, nil
}

// IsURL reports whether dsn names a PostgreSQL database (postgres:// or
// postgresql://), so that callers can choose a backend by the string.
func IsURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

func (s *Store) applyDefaults() {
	if s.opts.MaxConns <= 0 {
		s.opts.MaxConns = defaultMaxConns
	}
	if s.opts.RetryTimeout <= 0 {
		s.opts.RetryTimeout = defaultRetryTimeout
	}
	s.extract = s.opts.Extractor
	if s.extract == nil {
		s.extract = sessiondb.DefaultExtractor
	}
	s.retention = s.opts.CheckpointRetention
	if s.retention == 0 {
		s.retention = defaultRetention
	}
	s.core = engine.New(engineDriver{s}, dialect, s.retention)
}

// redact hides the password of a URL in messages.
func redact(dbURL string) string { return RedactURL(dbURL) }

// RedactURL returns a PostgreSQL URL fit to print: the password of its
// user info and the value of every query parameter that holds a password
// (password, sslpassword) are replaced by "xxxxx". A string that does not
// parse as a URL is not echoed at all.
func RedactURL(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "postgres database (URL not shown)"
	}
	if q := u.Query(); len(q) > 0 {
		changed := false
		for k := range q {
			if strings.Contains(strings.ToLower(k), "password") {
				q.Set(k, "xxxxx")
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.Redacted()
}

// URL returns the URL the store was opened with, password hidden.
func (s *Store) URL() string { return redact(s.url) }

// DB returns the underlying pool, for tools (benchmarks, ad-hoc SQL).
func (s *Store) DB() *sql.DB { return s.db.DB }

// Close closes the pool. It is safe to call more than once.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.stopScanner()
	return s.db.Close()
}

// migrate brings the schema of the current schema (search_path) to the
// latest embedded version, refusing a newer one without touching it.
func (s *Store) migrate(ctx context.Context) error {
	latest, err := pgmigrations.Latest()
	if err != nil {
		return err
	}
	current, err := s.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if current > latest {
		return fmt.Errorf("open %s: %w (schema version %d, this binary knows up to %d): upgrade sessiondb",
			s.URL(), sessiondb.ErrSchemaTooNew, current, latest)
	}
	if current == latest || s.opts.NoMigrate {
		return nil
	}
	p, err := s.Provider(ctx)
	if err != nil {
		return err
	}
	// goose re-reads the version under the advisory lock, so a process
	// that waited for another one's migration finds nothing pending. A
	// newer schema may have been applied meanwhile: goose then has
	// nothing to do either, and the check below refuses it.
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s from version %d: %w", s.URL(), current, translate(err))
	}
	if current, err = s.SchemaVersion(ctx); err == nil && current > latest {
		err = fmt.Errorf("open %s: %w (schema version %d)", s.URL(), sessiondb.ErrSchemaTooNew, current)
	}
	return err
}

// Provider returns a goose Provider over the embedded PostgreSQL
// migrations whose runs hold a session-level advisory lock
// (pg_advisory_lock) named after the current schema, so two processes
// never migrate one schema at once while stores in other schemas of the
// same database do not wait for each other.
func (s *Store) Provider(ctx context.Context) (*goose.Provider, error) {
	if s.closed.Load() {
		return nil, sessiondb.ErrClosed
	}
	var schema string
	if err := s.db.GetContext(ctx, &schema, `SELECT current_database() || '.' || coalesce(current_schema(), '')`); err != nil {
		return nil, fmt.Errorf("open %s: %w", s.URL(), translate(err))
	}
	h := fnv.New64a()
	h.Write([]byte("sessiondb migrate " + schema))
	return pgmigrations.NewProvider(s.db.DB, advisoryLocker{id: int64(h.Sum64())})
}

// SchemaVersion returns the applied goose version of the current schema, 0
// for a schema without sessiondb tables. It reads goose's table directly,
// so that nothing is created in a schema this binary may refuse.
func (s *Store) SchemaVersion(ctx context.Context) (int64, error) {
	var v sql.NullInt64
	err := s.retry(ctx, func() (bool, error) {
		var exists bool
		err := s.db.GetContext(ctx, &exists, `SELECT to_regclass('goose_db_version') IS NOT NULL`)
		if err != nil || !exists {
			return true, translate(err)
		}
		return true, translate(s.db.GetContext(ctx, &v, `SELECT max(version_id) FROM goose_db_version WHERE is_applied`))
	})
	if err != nil {
		return 0, fmt.Errorf("open %s: read schema version: %w", s.URL(), err)
	}
	return v.Int64, nil
}

// advisoryLocker is a goose SessionLocker that waits in
// pg_advisory_lock: no polling interval, and cancellable through ctx. The
// lock is the session's, so it is released when the connection ends even
// if the process dies mid-migration.
type advisoryLocker struct{ id int64 }

func (l advisoryLocker) SessionLock(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, l.id)
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	return nil
}

func (l advisoryLocker) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	var ok bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_advisory_unlock($1)`, l.id).Scan(&ok); err != nil {
		return fmt.Errorf("migration unlock: %w", err)
	}
	if !ok {
		return errors.New("migration unlock: the advisory lock was not held")
	}
	return nil
}
