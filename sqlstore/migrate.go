package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/migrations"
)

// Provider returns a goose Provider over the embedded migrations, for
// inspecting and moving the schema version (sessionctl migrate). Its runs
// are serialised with other processes by the same lock file as Open's.
func (s *Store) Provider() (*goose.Provider, error) {
	if s.closed.Load() {
		return nil, sessiondb.ErrClosed
	}
	return migrations.NewProvider(s.writer.DB, &fileLocker{path: s.path + ".lock", wait: s.opts.BusyTimeout})
}

// migrate brings the schema to the latest embedded version. It refuses a
// database newer than the binary without modifying it, backs up a database
// that already holds data before changing it, and checks the result.
func (s *Store) migrate(ctx context.Context) error {
	latest, err := migrations.Latest()
	if err != nil {
		return err
	}
	current, err := s.schemaVersion(ctx)
	if err != nil {
		return err
	}
	if current > latest {
		return fmt.Errorf("open %s: %w (schema version %d, this binary knows up to %d): upgrade sessiondb",
			s.path, sessiondb.ErrSchemaTooNew, current, latest)
	}
	if current > 0 && !s.opts.NoSchemaCheck {
		// Refuse a damaged schema before migrating over it.
		if err := s.checkSchema(ctx); err != nil {
			return err
		}
	}
	if current == latest || s.opts.NoMigrate {
		return nil
	}
	p, err := s.Provider()
	if err != nil {
		return err
	}
	// Another process may be migrating the same file right now: the
	// locker serialises us, and goose re-reads the version under the lock,
	// so the second process finds nothing pending.
	if current > 0 && !s.opts.NoBackup {
		if _, err := s.backup(ctx, current); err != nil {
			return err
		}
		if s.opts.KeepBackups > 0 {
			if _, err := s.RemoveBackups(s.opts.KeepBackups); err != nil {
				return err
			}
		}
	}
	if _, err := p.Up(ctx); err != nil {
		err = translate(err)
		if isSQLError(err) {
			// The embedded migrations apply cleanly to an intact schema
			// (migrations tests), so a statement that fails here met
			// objects the recorded version does not account for. Each
			// migration runs in a transaction: the file stays at the last
			// version that applied, and the backup holds the original.
			err = fmt.Errorf("%w: the database does not match schema version %d: %v", sessiondb.ErrCorrupt, current, err)
		}
		return fmt.Errorf("migrate %s from version %d: %w", s.path, current, err)
	}
	if err := s.quickCheck(ctx); err != nil || s.opts.NoSchemaCheck {
		return err
	}
	return s.checkSchema(ctx)
}

// schemaVersion returns the applied goose version, 0 for a new database.
// It reads goose's own table directly so that no table is created in a
// database this binary may refuse.
func (s *Store) schemaVersion(ctx context.Context) (int64, error) {
	v, err := readSchemaVersion(ctx, s.writer)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", s.path, err)
	}
	return v, nil
}

// readSchemaVersion reads the applied goose version through q (the writer
// pool, or a transaction when it must agree with other reads).
func readSchemaVersion(ctx context.Context, q sqlx.QueryerContext) (int64, error) {
	var n int
	err := sqlx.GetContext(ctx, q, &n,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'goose_db_version'`)
	if err != nil {
		return 0, translate(err)
	}
	if n == 0 {
		return 0, nil
	}
	// goose trusts its table; a damaged row (a NULL version) would fail
	// deep inside a migration with a scan error, so check the rows here.
	var v struct {
		Version sql.NullInt64 `db:"version"`
		Bad     int           `db:"bad"`
	}
	err = sqlx.GetContext(ctx, q, &v, `SELECT max(CASE WHEN is_applied AND typeof(version_id) = 'integer' THEN version_id END) AS version,
		count(*) FILTER (WHERE typeof(version_id) <> 'integer' OR typeof(is_applied) <> 'integer') AS bad
		FROM goose_db_version`)
	if err == nil && v.Bad > 0 {
		err = fmt.Errorf("%w: %d rows of goose_db_version lack an integer version", sessiondb.ErrCorrupt, v.Bad)
	}
	if err != nil {
		err = translate(err)
		if isSQLError(err) {
			// The table exists by name, so a query that does not
			// compile against it means its schema text is damaged.
			err = fmt.Errorf("%w: %v", sessiondb.ErrCorrupt, err)
		}
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v.Version.Int64, nil
}

// quickCheck runs PRAGMA quick_check and reports anything but "ok".
func (s *Store) quickCheck(ctx context.Context) error {
	var rows []string
	if err := s.writer.SelectContext(ctx, &rows, `PRAGMA quick_check`); err != nil {
		return fmt.Errorf("check %s: %w", s.path, translate(err))
	}
	if len(rows) != 1 || rows[0] != "ok" {
		return fmt.Errorf("check %s: %w: %s", s.path, sessiondb.ErrCorrupt, strings.Join(rows, "; "))
	}
	return nil
}

// fileLocker is a goose lock.Locker that serialises migrations across
// processes with flock(2) on a side file. It cannot lock the database file
// itself: closing any descriptor of that file would drop SQLite's own POSIX
// locks in this process. It waits for the lock at most wait (the store's
// BusyTimeout, as for SQLite's own write lock), then fails with ErrBusy: a
// process that holds it without migrating (stopped, or hung) must not hang
// every Open behind it.
type fileLocker struct {
	path string
	wait time.Duration
	f    *os.File
}

func (l *fileLocker) Lock(ctx context.Context, _ *sql.DB) error {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	deadline := time.Now().Add(l.wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			l.f = f
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return fmt.Errorf("migration lock: %w", err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return fmt.Errorf("migration lock %s: %w: another process has held it for %s", l.path, sessiondb.ErrBusy, l.wait)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (l *fileLocker) Unlock(context.Context, *sql.DB) error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the flock
	l.f = nil
	return err
}
