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
//     schema is installed and the journal mode is not switched to WAL (the
//     read-write Open refuses someone else's database the same way, see
//     checkExisting);
//   - a schema older than this binary is sessiondb.ErrSchemaTooOld, with a
//     message that says to migrate it (unless Options.NoMigrate, for
//     diagnosis), and a newer one sessiondb.ErrSchemaTooNew.
//
// Both pools open the file with mode=ro and query_only, and the DSN sets no
// journal_mode, so SQLite cannot write to it: every write method fails
// with sessiondb.ErrReadOnly.
//
// Read-only storage (a backup disk, a snapshot, a 0555 share, a read-only
// mount): a reader of a WAL database needs the -shm file, which SQLite
// creates beside the database, so the first read fails there. Then, if
// there is no -wal file or it is empty, the database is reopened with
// immutable=1, which needs no -shm (Immutable reports it; the caller should
// say so, since SQLite then assumes that nobody changes the file while it
// is open). A non-empty -wal holds commits that SQLite reads only through
// a -shm file, and immutable would silently ignore them: such a database
// is refused with ErrReadOnly and a message saying to copy it with its
// -wal to writable storage.
func (s *Store) openReadOnly() (_ *Store, err error) {
	if err := checkReadOnlyFile(s.path); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.closeAll()
		}
	}()
	ctx := context.Background()
	s.openReadPools()
	current, err := s.schemaVersion(ctx)
	if errors.Is(err, sessiondb.ErrReadOnly) {
		if werr := walHoldsCommits(s.path); werr != nil {
			return nil, werr
		}
		s.closeAll()
		s.immutable = true
		s.openReadPools()
		var ierr error
		if current, ierr = s.schemaVersion(ctx); ierr != nil {
			return nil, err // the first error says what is wrong
		}
		err = nil
	}
	if err != nil {
		return nil, err
	}
	latest, err := migrations.Latest()
	if err != nil {
		return nil, err
	}
	ours, _, err := inspectSchema(ctx, s.writer)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", s.path, err)
	}
	switch {
	case !ours:
		return nil, errForeign(s.path)
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
	if current < indexFileVersion {
		s.noIndex = true // see indexFileVersion
	}
	s.startCommitter()
	return s, nil
}

// openReadPools opens the two read-only pools of openReadOnly. The readers
// attach the search index file when it can be read (readableIndex);
// otherwise search scans every row.
func (s *Store) openReadPools() {
	var attach []string
	if s.noIndex = !s.readableIndex(); !s.noIndex {
		attach = s.attachIndex(true)
	}
	s.reader = openDB(s.dsn(true), attach...)
	s.reader.SetMaxOpenConns(s.opts.ReadConns)
	s.reader.SetMaxIdleConns(s.opts.ReadConns)
	// The "writer" is one more read-only connection: the committer and
	// the admin helpers use it, and any write through it fails.
	s.writer = openDB(s.dsn(true))
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)
}

// readableIndex reports whether the database's search index file exists
// and reads as an index this binary knows. The index is derived data: a
// read-only store without a usable one still answers every search, by a
// scan.
func (s *Store) readableIndex() bool {
	db := openDB(s.dsn(true), s.attachIndex(true)...)
	defer db.Close()
	var v int
	if err := db.Get(&v, `PRAGMA search.user_version`); err != nil || v != indexFormat {
		return false
	}
	var n int
	return db.Get(&n, `SELECT count(*) FROM search.indexed`) == nil
}

// walHoldsCommits refuses a database on read-only storage whose -wal file
// is not empty: its commits can only be read through a -shm file, which
// cannot be created there, and an immutable open would not see them.
func walHoldsCommits(path string) error {
	fi, err := os.Stat(path + "-wal")
	if err != nil || fi.Size() == 0 {
		return nil
	}
	return fmt.Errorf("open %s: %w: the database is on storage that cannot be written, and its write-ahead log %s-wal (%d bytes) holds commits SQLite can read only by creating %s-shm there; copy %s and %s-wal to writable storage and open the copy",
		path, sessiondb.ErrReadOnly, path, fi.Size(), path, path, path)
}

// Immutable reports whether a read-only Store was opened with SQLite's
// immutable=1 because its storage cannot be written (see openReadOnly):
// it reads the file as it is on disk and would not notice another process
// changing it.
func (s *Store) Immutable() bool { return s.immutable }

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

// checkExisting refuses, before the writer connects, an existing file that
// the read-write Open must not touch: the writer's DSN switches the journal
// mode to WAL and the migrations install a schema, both changes to a file
// Open may be about to refuse. It refuses someone else's SQLite database
// (schema objects, none of them sessiondb's: the same rule as the read-only
// open) and a schema newer than this binary. An empty file, and an SQLite
// file without any schema object, hold nothing to lose: they become a new
// database.
func (s *Store) checkExisting() error {
	if fi, err := os.Stat(s.path); err != nil || fi.Size() == 0 {
		return nil
	}
	db, err := sqlx.Open("sqlite", s.dsn(true))
	if err != nil {
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	defer db.Close()
	ctx := context.Background()
	ours, objects, err := inspectSchema(ctx, db)
	if err != nil {
		return nil // let the normal open report it
	}
	if !ours && objects > 0 {
		return errForeign(s.path)
	}
	current, err := readSchemaVersion(ctx, db)
	if err != nil {
		return nil
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

// inspectSchema says whether the database behind q holds sessiondb's
// schema (goose's version table, which every sessiondb migration run
// creates) and how many schema objects of its own (not SQLite's internal
// ones) it has. The read-only and the read-write Open both decide with it.
func inspectSchema(ctx context.Context, q sqlx.QueryerContext) (ours bool, objects int, err error) {
	var r struct {
		Goose   int `db:"goose"`
		Objects int `db:"objects"`
	}
	err = sqlx.GetContext(ctx, q, &r, `SELECT
		count(*) FILTER (WHERE type = 'table' AND name = 'goose_db_version') AS goose,
		count(*) FILTER (WHERE name NOT LIKE 'sqlite\_%' ESCAPE '\') AS objects
		FROM sqlite_schema`)
	if err != nil {
		return false, 0, translate(err)
	}
	return r.Goose > 0, r.Objects, nil
}

// errForeign is the refusal of an SQLite file that is not a sessiondb
// database.
func errForeign(path string) error {
	return fmt.Errorf("open %s: %w: not a sessiondb database (an SQLite file without sessiondb's schema); refusing to touch it", path, sessiondb.ErrCorrupt)
}
