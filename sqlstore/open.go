package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// Store is the SQLite implementation of sessiondb.Store.
type Store struct {
	*core // the behaviour (internal/engine)

	path string
	opts Options
	// indexCreated: this Open created the index file (removeCreated).
	indexCreated bool
	extract      sessiondb.Extractor
	retention    int
	busyMillis   int64

	// writer has exactly one connection: SQLite allows one writer at a
	// time anyway, and a single connection turns contention between
	// goroutines into a Go-side queue instead of SQLITE_BUSY retries.
	writer *sqlx.DB
	// relaxed says the writer connection runs synchronous=NORMAL for an
	// index-only batch under DurabilityFull (setRelaxed). Only the
	// committer goroutine touches it.
	relaxed bool
	// tempInMemory says the writer connection journals its savepoints and
	// statements in memory (temp_store=MEMORY) for a batch of appends
	// (setTempInMemory). Only the committer goroutine touches it.
	tempInMemory bool
	// reader is a bounded pool of query_only connections. In WAL mode
	// readers never block the writer nor each other.
	reader *sqlx.DB

	// indexer has one connection, which opens the database read-only and
	// writes the search index file attached to it (indexfile.go); nil in
	// a read-only store. noIndex: the readers have no index file attached
	// (a read-only store whose database has none beside it).
	indexer *sqlx.DB
	noIndex bool

	// immutable: opened read-only with immutable=1 on storage that cannot
	// be written (readonly.go).
	immutable bool

	closed atomic.Bool
	// Group commit (groupcommit.go): writes are handed to one committer
	// goroutine that owns the writer connection.
	queue   chan writeReq
	stop    chan struct{}
	stopped chan struct{}

	// Deferred full-text indexing (indexer.go): the committer kicks the
	// indexer after each commit; indexErr holds its last error.
	indexKick   chan struct{}
	indexerDone chan struct{}
	indexErr    atomic.Pointer[error]

	// mergedHook, set by tests only, sees each batch whose appends were
	// run together (appendBatch): how many, and whether they ran (false:
	// rolled back, each then run alone).
	mergedHook func(appends int, ran bool)
}

var (
	_ sessiondb.Store         = (*Store)(nil)
	_ sessiondb.SessionLookup = (*Store)(nil)
	_ sessiondb.SourceTracker = (*Store)(nil)
)

const (
	defaultBusyTimeout = 30 * time.Second
	defaultReadConns   = 4
	defaultRetention   = 20
)

// Open opens (creating if needed) the database at path, checks it, and
// applies pending migrations; with Options.ReadOnly it only opens an
// existing, current database and changes nothing (see readonly.go). A database it creates, with its WAL, SHM and
// backups, is mode 0600; a directory it creates is 0700. If any step fails,
// everything opened so far is closed.
func Open(path string, opts *Options) (_ *Store, err error) {
	s := &Store{path: path}
	if opts != nil {
		s.opts = *opts
	}
	s.applyDefaults()
	if s.opts.ReadOnly {
		return s.openReadOnly()
	}
	created, err := prepareFile(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.closeAll()
			if created {
				// A first open that failed (a refused index path, a
				// full disk) leaves nothing behind: not an empty
				// database that later commands would call corrupt.
				s.removeCreated()
			}
		}
	}()
	if err := s.checkExisting(); err != nil {
		return nil, err
	}
	s.writer = openDB(s.dsn(false))
	// One writer connection: see the field comment. Keep it open forever so
	// that the WAL is not checkpointed and reset by every last-close.
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)
	s.writer.SetConnMaxLifetime(0)
	s.writer.SetConnMaxIdleTime(0)

	ctx := context.Background()
	if err := s.checkWAL(ctx); err != nil {
		return nil, err
	}
	if err := s.openIndex(ctx); err != nil {
		return nil, err
	}
	s.reader = openDB(s.dsn(true), s.attachIndex(true)...)
	s.reader.SetMaxOpenConns(s.opts.ReadConns)
	s.reader.SetMaxIdleConns(s.opts.ReadConns)
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	s.noIndex = !s.indexable(ctx)
	indexing := s.opts.IndexDelay >= 0 && !s.noIndex
	if indexing {
		s.indexKick = make(chan struct{}, 1) // before the committer reads it
	}
	s.startCommitter()
	if indexing {
		s.startIndexer()
	}
	// SQLite creates the -wal and -shm files with the database's mode, but
	// only if it creates them; tighten them in case they predate us.
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Chmod(path+suffix, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
	}
	return s, nil
}

func (s *Store) applyDefaults() {
	if s.opts.BusyTimeout <= 0 {
		s.opts.BusyTimeout = defaultBusyTimeout
	}
	if s.opts.IndexDelay == 0 {
		s.opts.IndexDelay = defaultIndexDelay
	}
	if s.opts.ReadConns <= 0 {
		s.opts.ReadConns = max(defaultReadConns, runtime.GOMAXPROCS(0))
	}
	s.extract = s.opts.Extractor
	if s.extract == nil {
		s.extract = sessiondb.DefaultExtractor
	}
	s.retention = s.opts.CheckpointRetention
	if s.retention == 0 {
		s.retention = defaultRetention
	}
	s.busyMillis = s.opts.BusyTimeout.Milliseconds()
	s.core = engine.New(engineDriver{s}, dialect, s.retention)
}

// prepareFile refuses paths that cannot be a database and creates a missing
// database file (and its directory) with private permissions before SQLite
// sees it: sessions hold private conversations, and SQLite would otherwise
// create the file with the process umask (typically world-readable).
// created reports whether this call created the file.
func prepareFile(path string) (created bool, err error) {
	if path == "" {
		return false, fmt.Errorf("open database: %w: empty path", sessiondb.ErrInvalid)
	}
	if strings.HasPrefix(path, "file:") || path == ":memory:" {
		return false, fmt.Errorf("open %s: %w: give a file path, not a URI or :memory:", path, sessiondb.ErrInvalid)
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("open %s: %w: the path is a directory", path, sessiondb.ErrInvalid)
	case err == nil:
		return false, checkHeader(path, fi)
	case errors.Is(err, syscall.ENOTDIR):
		return false, fmt.Errorf("open %s: %w: a parent of the path is not a directory", path, sessiondb.ErrInvalid)
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("open %s: create directory: %w", path, translateOSError(err))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil // another process created it first
	}
	if err != nil {
		return false, fmt.Errorf("open %s: create database: %w", path, translateOSError(err))
	}
	return true, f.Close()
}

// removeCreated removes the files a first Open that failed created: the
// database, its -wal and -shm, and the index file if this Open created it.
func (s *Store) removeCreated() {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(s.path + suffix)
		if s.indexCreated {
			os.Remove(IndexPath(s.path) + suffix)
		}
	}
}

// walSizeLimit is the size the -wal file is cut back to when SQLite starts
// it over after a checkpoint (journal_size_limit): twice what the
// automatic checkpoint lets it reach (1,000 pages of 8 KB), so that the
// usual cycle never truncates and regrows it, and a large transaction
// (an import of a long session) does not leave a file of its size behind
// for the life of the process.
const walSizeLimit = 16 << 20

// dsn builds the connection string. Pragmas, in the order SQLite must see
// them (the driver runs busy_timeout first whatever the order here):
//
//   - busy_timeout: wait for another process's write lock instead of
//     failing at once with "database is locked".
//   - page_size(8192), for a new file only (a database keeps the page size
//     it was created with): an entry row holds its body and its extracted
//     text, often 1-3 KB, and 4 KB pages fitting one or two of them left
//     27% of the entries table unused (11% less file for the same archive
//     at 8 KB, at no measurable cost per append; 16 KB saved 3% more and
//     cost more CPU per append). Measured again once the text was stored
//     once (issue 26, rows of about the body's size): 4 KB pages wrote
//     40-46% fewer WAL bytes per append but no faster append in the same
//     run, and a 6% larger file. The driver runs its _pragma list before
//     _journal_mode, which page_size needs: once the file is in WAL mode
//     its page size is fixed.
//   - journal_mode(WAL): readers do not block the writer nor the writer
//     the readers, and a crash mid-commit leaves the last commit intact.
//   - synchronous: FULL fsyncs the WAL at every commit (survives power
//     loss); NORMAL only at checkpoints (survives process crashes).
//   - journal_size_limit: see walSizeLimit.
//   - foreign_keys: deleting a session cascades to every row it owns, and
//     no row can point at a missing session.
//   - cell_size_check, on every connection: SQLite checks the cell
//     pointers and sizes of a b-tree page when it loads it, so a damaged
//     page is SQLITE_CORRUPT (sessiondb.ErrCorrupt) at once instead of
//     garbage that a write then builds on. Without it, one flipped byte
//     in the cell count of the entries table's last leaf made max(id)
//     read a cell at offset 0, and the store handed out an entry id that
//     existed (issue 36, torture seed 1796552175591336711). Its cost is
//     a pass over the cells of each page read from disk, not per row.
//   - cache_size, on the readers only, when Options.ReadCacheMiB is set.
//
// The writer begins every transaction with BEGIN IMMEDIATE (_txlock), so
// it takes the write lock before reading: a deferred transaction that
// reads and then writes can fail with SQLITE_BUSY that no timeout cures.
// Readers open the file with mode=ro and set query_only, so neither a bug
// nor an ad-hoc query can write through them.
func (s *Store) dsn(readOnly bool) string {
	u := url.URL{Scheme: "file", OmitHost: true, Path: absPath(s.path)}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", s.busyMillis))
	if readOnly {
		// mode=ro opens the file read-only at the OS level; query_only
		// also refuses writes SQLite could make through a read-only
		// handle. Both, because a multi-statement string can switch
		// query_only off before its next statement.
		q.Add("mode", "ro")
		if s.immutable {
			// Read-only storage: no -shm can be created, and no
			// locking is needed on a file nobody can change.
			q.Add("immutable", "1")
		}
		q.Add("_pragma", "query_only(1)")
		if s.opts.ReadCacheMiB > 0 {
			q.Add("_pragma", fmt.Sprintf("cache_size(%d)", -s.opts.ReadCacheMiB<<10))
		}
	} else {
		q.Add("_pragma", "page_size(8192)")
		q.Add("_journal_mode", "WAL")
		sync := "FULL"
		if s.opts.Durability == DurabilityNormal {
			sync = "NORMAL"
		}
		q.Add("_pragma", "synchronous("+sync+")")
		q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
		if s.opts.SecureDelete {
			// secure_delete: deleted content is overwritten with zeros
			// rather than left in free pages until a vacuum.
			q.Add("_pragma", "secure_delete(1)")
		}
		q.Add("_txlock", "immediate")
	}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "cell_size_check(1)")
	return u.String() + "?" + q.Encode()
}

// checkHeader refuses an existing non-empty file that is not an SQLite
// database: SQLite would treat a 1-byte file as an empty database and
// Open would then write a schema over it.
func checkHeader(path string, fi os.FileInfo) error {
	if fi.Size() == 0 {
		return nil // a new, empty database
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // let SQLite report it (permissions, …)
	}
	defer f.Close()
	head := make([]byte, 16)
	if n, _ := io.ReadFull(f, head); n < 16 || string(head) != "SQLite format 3\x00" {
		return fmt.Errorf("open %s: %w: not an SQLite database", path, sessiondb.ErrCorrupt)
	}
	return nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// checkWAL makes sure the journal mode really is WAL: SQLite silently keeps
// another mode when it cannot switch (for example on a file system without
// shared memory), and the concurrency guarantees depend on WAL.
func (s *Store) checkWAL(ctx context.Context) error {
	var mode string
	// The writer's first connection runs journal_mode(WAL). Switching a
	// new database to WAL needs an exclusive lock that SQLite takes
	// without calling the busy handler, so a process opening a new
	// database while another one does gets SQLITE_BUSY at once: retry
	// for up to BusyTimeout.
	err := s.retryBusy(ctx, func() error { return s.writer.GetContext(ctx, &mode, "PRAGMA journal_mode") })
	if err != nil {
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("open %s: journal mode is %q, want wal (is the file on a network file system?)", s.path, mode)
	}
	return nil
}

// Path returns the database file path.
func (s *Store) Path() string { return s.path }

// Close closes both pools. It is safe to call more than once.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if s.stop != nil {
		close(s.stop)
		<-s.stopped // the batch in flight is answered before the pools close
		if s.indexerDone != nil {
			<-s.indexerDone
		}
	}
	return s.closeAll()
}

// closeAll closes the pools in the order that lets SQLite checkpoint and
// remove both WALs: the last connection to close a file checkpoints its
// WAL and removes it, and only a connection that can write the file can.
// The readers open both files read-only, the indexer the index file
// read-write and the database read-only, the writer the database only.
func (s *Store) closeAll() error {
	var errs []error
	if s.reader != nil {
		errs = append(errs, s.reader.Close())
	}
	if s.indexer != nil {
		errs = append(errs, s.indexer.Close())
	}
	if s.writer != nil {
		errs = append(errs, s.writer.Close())
	}
	return errors.Join(errs...)
}
