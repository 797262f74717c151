package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/migrations"
)

// openReadOnly is Open with Options.ReadOnly: for tools that only look at a
// database (sessionctl list, show, sql, stats, search, export, doctor). It
// never creates, migrates or changes the file:
//
//   - a missing file is sessiondb.ErrNotFound (a typo in a path must not
//     leave a new empty database behind);
//   - an empty file, a file that is not SQLite, and an SQLite file without
//     sessiondb's schema version (someone else's database) are
//     sessiondb.ErrCorrupt, and the file is not touched: in particular no
//     schema is installed and the journal mode is not switched to WAL;
//   - a schema older than this binary is sessiondb.ErrSchemaTooOld, with a
//     message that says to migrate it (unless Options.NoMigrate, for
//     diagnosis), and a newer one sessiondb.ErrSchemaTooNew.
//
// Both pools open the file with mode=ro and query_only, and the DSN sets no
// journal_mode, so SQLite cannot write to it: every write method fails
// with sessiondb.ErrReadOnly.
func (s *Store) openReadOnly() (_ *Store, err error) {
	if err := checkReadOnlyFile(s.path); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.closeAll()
		}
	}()
	s.reader = openDB(s.dsn(true))
	s.reader.SetMaxOpenConns(s.opts.ReadConns)
	s.reader.SetMaxIdleConns(s.opts.ReadConns)
	// The "writer" is one more read-only connection: the committer and
	// the admin helpers use it, and any write through it fails.
	s.writer = openDB(s.dsn(true))
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)

	ctx := context.Background()
	current, err := s.schemaVersion(ctx)
	if err != nil {
		return nil, err
	}
	latest, err := migrations.Latest()
	if err != nil {
		return nil, err
	}
	var gooseTables int
	if err := s.writer.GetContext(ctx, &gooseTables,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'goose_db_version'`); err != nil {
		return nil, fmt.Errorf("open %s: %w", s.path, translate(err))
	}
	switch {
	case gooseTables == 0:
		return nil, fmt.Errorf("open %s: %w: not a sessiondb database (no sessiondb schema in it); refusing to touch it", s.path, sessiondb.ErrCorrupt)
	case current > latest:
		return nil, fmt.Errorf("open %s: %w (schema version %d, this binary knows up to %d): upgrade sessiondb",
			s.path, sessiondb.ErrSchemaTooNew, current, latest)
	case current < latest && !s.opts.NoMigrate:
		return nil, fmt.Errorf("open %s: %w (schema version %d, this binary uses %d): migrate it first (sessionctl migrate)",
			s.path, sessiondb.ErrSchemaTooOld, current, latest)
	}
	if !s.opts.NoSchemaCheck {
		if err := s.checkSchema(ctx); err != nil {
			return nil, err
		}
	}
	s.startCommitter()
	return s, nil
}

// checkReadOnlyFile refuses, before SQLite opens anything, a path that does
// not name an existing, non-empty SQLite file.
func checkReadOnlyFile(path string) error {
	if path == "" {
		return fmt.Errorf("open database: %w: empty path", sessiondb.ErrInvalid)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("open %s: %w: the database does not exist", path, sessiondb.ErrNotFound)
	case err != nil:
		return fmt.Errorf("open %s: %w", path, translateOSError(err))
	case fi.IsDir():
		return fmt.Errorf("open %s: %w: the path is a directory", path, sessiondb.ErrInvalid)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("open %s: %w: not a regular file", path, sessiondb.ErrInvalid)
	case fi.Size() == 0:
		return fmt.Errorf("open %s: %w: the file is empty, not a sessiondb database", path, sessiondb.ErrCorrupt)
	}
	return checkHeader(path, fi)
}

// refuseTooNew refuses a database whose schema is newer than this binary
// before the writer connects: the writer's DSN switches the journal mode
// to WAL, which would change a file Open is about to refuse. An empty (new)
// file is skipped.
func (s *Store) refuseTooNew() error {
	if fi, err := os.Stat(s.path); err != nil || fi.Size() == 0 {
		return nil
	}
	db, err := sqlx.Open("sqlite", s.dsn(true))
	if err != nil {
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	defer db.Close()
	current, err := readSchemaVersion(context.Background(), db)
	if err != nil {
		return nil // let the normal open report it
	}
	latest, err := migrations.Latest()
	if err != nil {
		return err
	}
	if current > latest {
		return fmt.Errorf("open %s: %w (schema version %d, this binary knows up to %d): upgrade sessiondb",
			s.path, sessiondb.ErrSchemaTooNew, current, latest)
	}
	return nil
}
