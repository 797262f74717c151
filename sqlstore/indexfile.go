package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// The search index's own file (see "Search" in doc.go).
//
// The full-text index lives in <database>-search (IndexPath), an SQLite
// file of its own, attached to every connection as the schema "search".
// It is written by its own connection (Store.indexer), which opens the
// database itself read-only: indexing takes the index file's write lock,
// never the database's, so appends commit while a batch is tokenized.
// The index is derived data: a missing or damaged index file, or one
// built for another database, is rebuilt from the log, and nothing in it
// is needed to read a session. An SQLite file at its path that holds
// anything else is someone's: it is refused, never emptied.

// noFollow makes creating the index file fail on a link put at its path
// after refuseLinked looked.
const noFollow = syscall.O_NOFOLLOW

// IndexPath returns the path of the search index file of the database at
// path.
func IndexPath(path string) string { return path + "-search" }

// indexFormat is the index file's user_version: the layout below. A file
// of another version (or none, 0) is emptied and built again.
const indexFormat = 1

// indexSchemaSQL creates the index file's tables: per source table its
// FTS5 index and its cursor (the highest row id whose text is in it).
var indexSchemaSQL = []string{
	`CREATE TABLE search.indexed (
		source  TEXT PRIMARY KEY,           -- entries or summary_messages
		through INTEGER NOT NULL DEFAULT 0, -- rows with id <= through are in the index
		log     TEXT NOT NULL DEFAULT ''    -- the database's search_index.index_file
	) STRICT`,
	`INSERT INTO search.indexed (source) VALUES ('entries'), ('summary_messages')`,
	`CREATE VIRTUAL TABLE search.entries_fts USING fts5 (
		text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram')`,
	`CREATE VIRTUAL TABLE search.summary_fts USING fts5 (
		text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram')`,
	// No automatic merges: see mergeWhileIdle.
	`INSERT INTO search.entries_fts (entries_fts, rank) VALUES ('automerge', 0)`,
	`INSERT INTO search.summary_fts (summary_fts, rank) VALUES ('automerge', 0)`,
	// An index file made before this setting gets it from
	// ensureIndexFormat.
	hashSizeSQL("entries_fts"),
	hashSizeSQL("summary_fts"),
	fmt.Sprintf(`PRAGMA search.user_version = %d`, indexFormat),
}

// indexHashBytes is FTS5's hashsize for both indexes: how much pending
// postings it holds in memory before it writes them out as a segment
// (default 1 MiB). A batch's postings (indexBatchBytes of text) fit, so
// a batch is one segment.
const indexHashBytes = 4 << 20

// hashSizeSQL sets the hashsize of the FTS5 table fts (indexHashBytes),
// a setting FTS5 keeps in the file.
func hashSizeSQL(fts string) string {
	return fmt.Sprintf(`INSERT INTO search.%s (%s, rank) VALUES ('hashsize', %d)`, fts, fts, indexHashBytes)
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// attachIndex returns the statements that attach the index file to a new
// connection: read-only for the readers, read-write for the indexer (with
// its per-connection pragmas and its temporary table).
func (s *Store) attachIndex(readOnly bool) []string {
	u := url.URL{Scheme: "file", OmitHost: true, Path: absPath(IndexPath(s.path))}
	q := url.Values{}
	if readOnly {
		q.Add("mode", "ro")
		if s.immutable {
			q.Add("immutable", "1")
		}
	} else {
		q.Add("mode", "rwc")
	}
	stmts := []string{`ATTACH DATABASE ` + sqlString(u.String()+"?"+q.Encode()) + ` AS search`}
	if readOnly && s.opts.ReadCacheMiB > 0 {
		// Options.ReadCacheMiB: an attached file takes main's cache
		// size only if main's schema was read before.
		stmts = append(stmts, fmt.Sprintf(`PRAGMA search.cache_size = %d`, -s.opts.ReadCacheMiB<<10))
	}
	if !readOnly {
		// As the database's own pragmas (dsn), but synchronous=NORMAL:
		// the index is rebuilt from the log, and a cursor a power loss
		// takes back only makes the indexer do a batch again.
		// journal_mode=WAL is set by ensureIndexFormat, once the file
		// is known to be an index: it rewrites the file's header.
		stmts = append(stmts,
			`PRAGMA search.page_size = 8192`,
			`PRAGMA search.synchronous = NORMAL`,
			fmt.Sprintf(`PRAGMA search.journal_size_limit = %d`, walSizeLimit))
		if s.opts.SecureDelete {
			stmts = append(stmts, `PRAGMA search.secure_delete = 1`)
		}
		// The rows of the batch being indexed, copied out of the log
		// (readIndexWork), in memory.
		stmts = append(stmts, `PRAGMA temp_store = MEMORY`,
			`CREATE TEMP TABLE index_rows (source INTEGER NOT NULL, id INTEGER NOT NULL, text TEXT NOT NULL)`)
	}
	return stmts
}

// indexerDSN opens the database read-only for the indexer connection:
// it only reads the log, and writes the attached index file.
func (s *Store) indexerDSN() string {
	u := url.URL{Scheme: "file", OmitHost: true, Path: absPath(s.path)}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", s.busyMillis))
	q.Add("mode", "ro")
	q.Add("_pragma", "cell_size_check(1)") // see dsn
	return u.String() + "?" + q.Encode()
}

// openIndex starts the index file (startIndexFile), replaces one SQLite
// cannot read, and makes its -wal and -shm private.
func (s *Store) openIndex(ctx context.Context) error {
	path := IndexPath(s.path)
	err := s.startIndexFile(ctx)
	if errors.Is(err, sessiondb.ErrCorrupt) && !errors.Is(err, errForeignIndex) {
		// Not an SQLite file any more: the index is derived data, so
		// it is started again rather than refused.
		err = s.replaceIndexFile(ctx)
	}
	if err != nil {
		return fmt.Errorf("open search index %s: %w", path, err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := refuseLinked(path + suffix); err != nil {
			return fmt.Errorf("open search index %s: %w", path, err)
		}
		if err := os.Chmod(path+suffix, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("open search index %s: %w", path, err)
		}
	}
	return nil
}

// refuseLinked refuses a side file of the database (the index file, its
// -wal and -shm) that is a symbolic link or not a regular file: sessiondb
// writes, empties and chmods these files, so a link would have it rewrite
// its target (a link to someone's empty file) or create one elsewhere (a
// dangling link). A missing file is fine: it is created, never through a
// link (O_NOFOLLOW).
func refuseLinked(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return fmt.Errorf("%w: %s is a symbolic link (to %s): sessiondb keeps this file itself and does not write through a link; remove the link", sessiondb.ErrInvalid, path, target)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file (%s); remove it", sessiondb.ErrInvalid, path, fi.Mode().Type())
	}
	return nil
}

// replaceIndexFile removes an index file SQLite cannot read and creates a
// new one.
func (s *Store) replaceIndexFile(ctx context.Context) error {
	path := IndexPath(s.path)
	if err := s.indexer.Close(); err != nil {
		return err
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return s.startIndexFile(ctx)
}

// startIndexFile creates the index file if it is missing (mode 0600, before
// SQLite sees it, as prepareFile does for the database), opens the indexer
// connection and brings the file to indexFormat. Switching a new file to
// WAL takes an exclusive lock without the busy handler (see checkWAL):
// that is retried while another process does it.
func (s *Store) startIndexFile(ctx context.Context) error {
	path := IndexPath(s.path)
	_, statErr := os.Lstat(path)
	if err := refuseLinked(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return translateOSError(err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		s.indexCreated = true
	}
	if err := f.Close(); err != nil {
		return err
	}
	s.indexer = s.openIndexer()
	return s.retryBusy(ctx, func() error { return s.ensureIndexFormat(ctx) })
}

// openIndexer opens the indexer's one connection.
func (s *Store) openIndexer() *sqlx.DB {
	db := openDB(s.indexerDSN(), s.attachIndex(false)...)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db
}

// retryBusy runs fn until it does not fail with SQLITE_BUSY, for up to
// BusyTimeout.
func (s *Store) retryBusy(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(s.opts.BusyTimeout)
	for {
		err := translate(fn())
		if err == nil || !isBusy(err) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(5+rand.IntN(20)) * time.Millisecond)
	}
}

// ensureIndexFormat creates the index file's tables, or empties and
// creates them again when the file holds another format.
func (s *Store) ensureIndexFormat(ctx context.Context) error {
	var v int
	if err := s.indexer.GetContext(ctx, &v, `PRAGMA search.user_version`); err != nil {
		return err
	}
	// Never empty an SQLite file that is not an index of ours: the path
	// may be a link to, or a copy of, someone's database.
	var foreign []string
	if err := s.indexer.SelectContext(ctx, &foreign, `SELECT name FROM search.sqlite_schema WHERE NOT (`+ourIndexObjects+`)`); err != nil {
		return err
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%w: %s holds %q, which is not sessiondb's: the search index is kept at that path; move the file away",
			errForeignIndex, IndexPath(s.path), foreign[0])
	}
	var mode string
	if err := s.indexer.GetContext(ctx, &mode, `PRAGMA search.journal_mode = WAL`); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("search index %s: journal mode is %q, want wal", IndexPath(s.path), mode)
	}
	if v != indexFormat {
		return s.resetIndex(ctx)
	}
	// An index file made before indexHashBytes keeps FTS5's default
	// until it is set (one write, once).
	for _, src := range ftsSources {
		var size int
		err := s.indexer.GetContext(ctx, &size, `SELECT v FROM search.`+src.fts+`_config WHERE k = 'hashsize'`)
		if errors.Is(err, sql.ErrNoRows) || err == nil && size != indexHashBytes {
			_, err = s.indexer.ExecContext(ctx, hashSizeSQL(src.fts))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ourIndexObjects matches, in search.sqlite_schema, the objects the index
// file's own tables make (indexSchemaSQL): the cursor table, the FTS5
// tables and their shadow tables, and SQLite's own objects (the indexes
// of primary keys).
const ourIndexObjects = `name = 'indexed' OR name GLOB 'entries_fts*' OR name GLOB 'summary_fts*' OR name GLOB 'sqlite_*'`

// errForeignIndex is the refusal of an SQLite file at the index file's
// path that holds objects sessiondb did not make: Open fails rather than
// empty it.
var errForeignIndex = fmt.Errorf("%w: not a sessiondb search index", sessiondb.ErrCorrupt)

// resetIndex empties the index file and creates its tables, in one
// transaction: every row is indexed again.
func (s *Store) resetIndex(ctx context.Context) error {
	tx, err := s.indexer.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	var objects []struct {
		Type string `db:"type"`
		Name string `db:"name"`
	}
	// The virtual tables first: dropping one drops its shadow tables.
	if err := tx.SelectContext(ctx, &objects, `SELECT type, name FROM search.sqlite_schema
		WHERE type = 'table' AND (`+ourIndexObjects+`) ORDER BY sql LIKE 'CREATE VIRTUAL%' DESC`); err != nil {
		return err
	}
	for _, o := range objects {
		// FTS5 loads its config before it runs anything, DROP
		// included, and refuses a version it does not know: give a
		// damaged index the config of an intact one first (version 4,
		// FTS5's format without secure-delete).
		var config int
		if err := tx.GetContext(ctx, &config, `SELECT count(*) FROM search.sqlite_schema WHERE type = 'table' AND name = ?`, o.Name+"_config"); err != nil {
			return err
		}
		if config > 0 {
			cfg := `search.` + quoteIdent(o.Name+"_config")
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+cfg); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+cfg+` (k, v) VALUES ('version', 4)`); err != nil {
				return err
			}
		}
	}
	for _, o := range objects {
		var exists int
		if err := tx.GetContext(ctx, &exists, `SELECT count(*) FROM search.sqlite_schema WHERE name = ?`, o.Name); err != nil {
			return err
		}
		if exists == 0 || strings.HasPrefix(o.Name, "sqlite_") {
			continue // a shadow table its virtual table dropped
		}
		if _, err := tx.ExecContext(ctx, `DROP `+strings.ToUpper(o.Type)+` search.`+quoteIdent(o.Name)); err != nil {
			return err
		}
	}
	for _, q := range indexSchemaSQL {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// indexTx begins a transaction of the indexer connection that holds the
// index file's write lock before it reads anything of the database: so
// its snapshot of the log is taken after the last commit of any other
// process's indexer, and two indexers never index from different
// snapshots at once. The database itself is only read.
func (s *Store) indexTx(ctx context.Context) (*sqlx.Tx, error) {
	tx, err := s.indexer.BeginTxx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE search.indexed SET through = through WHERE source = ''`); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return tx, nil
}
