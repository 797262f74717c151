package foreigndb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"

	_ "modernc.org/sqlite" // the "sqlite" driver, as sqlstore uses it
)

// Errors a Snapshot reports; each wraps sessiondb.ErrInvalid (the file is
// not one that can be read as it is now), so that the importer reports it
// as a problem of that file and goes on.
var (
	// ErrNotDatabase: the file is not an SQLite database (its header is
	// not SQLite's), or SQLite finds it damaged.
	ErrNotDatabase = fmt.Errorf("not a readable SQLite database: %w", sessiondb.ErrInvalid)
	// ErrUnsettled: the database and its write-ahead log kept changing
	// while they were copied (a checkpoint of the program writing them at
	// every attempt), so no consistent copy could be taken.
	ErrUnsettled = fmt.Errorf("database kept changing while it was copied: %w", sessiondb.ErrInvalid)
)

// sqliteMagic is the first 16 bytes of every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// walHeaderSize is the size of a write-ahead log's header: its magic,
// version, page size, checkpoint sequence, salts and checksum. A
// checkpoint that restarts the log rewrites it (new salts).
const walHeaderSize = 32

// Attempts and the pause between them when a copy is torn.
var (
	maxAttempts = 8
	retryPause  = 25 * time.Millisecond
)

// testHookCopied, when set (tests), runs after the main file is copied
// and before the log is, which is where a checkpoint of the writer tears
// a copy.
var testHookCopied func(attempt int)

// fileStamp is what tells whether a file changed: existence, identity,
// size and modification time.
type fileStamp struct {
	exists bool
	ino    jsonl.Inode
	size   int64
	mtime  time.Time
}

func (a fileStamp) equal(b fileStamp) bool {
	return a.exists == b.exists && a.ino == b.ino && a.size == b.size && a.mtime.Equal(b.mtime)
}

// state is the source's main file and log as seen at one moment.
type state struct {
	db, wal, journal fileStamp
	header           []byte // the log's first walHeaderSize bytes (nil: none)
}

func statFile(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fileStamp{}, nil
	case err != nil:
		return fileStamp{}, err
	case !fi.Mode().IsRegular():
		return fileStamp{}, fmt.Errorf("%s is not a regular file: %w", path, ErrNotDatabase)
	}
	return fileStamp{exists: true, ino: jsonl.InodeOf(fi), size: fi.Size(), mtime: fi.ModTime()}, nil
}

func readState(path string) (state, error) {
	var s state
	var err error
	if s.db, err = statFile(path); err != nil {
		return s, err
	}
	if !s.db.exists {
		return s, fmt.Errorf("open %s: %w", path, fs.ErrNotExist)
	}
	if s.wal, err = statFile(path + "-wal"); err != nil {
		return s, err
	}
	if s.journal, err = statFile(path + "-journal"); err != nil {
		return s, err
	}
	if s.wal.exists {
		s.header, err = readHead(path+"-wal", walHeaderSize)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return s, err
		}
	}
	return s, nil
}

// readHead returns up to n bytes from the start of path.
func readHead(path string, n int) ([]byte, error) {
	f, err := jsonl.Open(path) // O_RDONLY: never creates
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:k], nil
}

// consistent reports whether a copy taken between before and after holds
// one state of the database: the main file did not change, and the log
// was neither replaced nor restarted nor cut (it may have grown: a copy
// of a longer log holds a prefix of it, whose last transaction, if torn,
// SQLite's recovery drops as uncommitted).
func consistent(before, after state) bool {
	if !before.db.equal(after.db) || !before.journal.equal(after.journal) {
		return false
	}
	if before.wal.exists != after.wal.exists {
		return false
	}
	if !before.wal.exists {
		return true
	}
	return before.wal.ino == after.wal.ino && after.wal.size >= before.wal.size && bytes.Equal(before.header, after.header)
}

// Snapshot is a consistent read-only copy of another program's SQLite
// database: its main file and its write-ahead log copied together into a
// temporary directory of its own and opened read-only there (the package
// doc says why). Nothing is ever opened for writing at the source's path.
// It is safe for concurrent use.
type Snapshot struct {
	// Path is the source database file.
	Path string

	mu     sync.Mutex
	dir    string // the temporary directory holding the copy
	copy   string // the copied main file
	db     *sql.DB
	taken  state // the source as copied
	closed bool
	stats  Stats
	// The copy's log: its header, and where its committed frames end
	// with the checksum chain there (log false: the copy has no log with
	// a valid header, and only a whole copy brings it up to date).
	log    bool
	walHdr walHeader
	walEnd int64
	walCk  [2]uint32
}

// Stats counts what a Snapshot did, for tests and benchmarks.
type Stats struct {
	// Copies counts whole copies of the database (main file and log).
	Copies int
	// LogAppends counts refreshes that copied only the transactions the
	// log gained.
	LogAppends int
	// Retries counts copies found torn (the source changed while it was
	// copied) and taken again.
	Retries int
	// Unchanged counts refreshes that found the source as copied.
	Unchanged int
}

// Open copies the database at path (with its -wal) aside and opens the
// copy read-only. The caller closes it, which removes the copy.
func Open(ctx context.Context, path string) (*Snapshot, error) {
	s := &Snapshot{Path: path}
	if err := s.Refresh(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// DB returns the copy, opened read-only. It stays valid until the next
// Refresh that has to take a new copy, or Close.
func (s *Snapshot) DB() *sql.DB {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db
}

// Stats returns what the snapshot did so far.
func (s *Snapshot) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Refresh brings the copy up to the source's current state. While the
// source's log has the header the copy's has (no checkpoint restarted it),
// the copy is brought up to date by the transactions committed in the log
// after the copy's last one, checked frame by frame (wal.go) and appended
// to the copy's log; nothing is copied when there are none. The main file
// is not copied again then: a checkpoint only moves into it pages that the
// log still holds. Otherwise (the log was restarted or removed, or the
// database keeps no log and its file changed) a new whole copy is taken.
func (s *Snapshot) Refresh(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("snapshot of %s: %w", s.Path, sessiondb.ErrClosed)
	}
	if s.db == nil {
		return s.copyAll(ctx)
	}
	now, err := readState(s.Path)
	if err != nil {
		return fmt.Errorf("snapshot of %s: %w", s.Path, err)
	}
	if s.log && now.wal.exists && bytes.Equal(now.header, s.taken.header) {
		if err := s.appendLog(ctx); err == nil {
			return nil
		}
		// Fall back to a whole copy.
	} else if !s.log && now.db.equal(s.taken.db) && now.wal.equal(s.taken.wal) && bytes.Equal(now.header, s.taken.header) &&
		now.journal.equal(s.taken.journal) {
		s.stats.Unchanged++
		return nil
	}
	return s.copyAll(ctx)
}

// appendLog appends to the copy's log the transactions the source's log
// committed after the copy's last one, and opens the copy again (SQLite
// rebuilds its index of the log from the log when the first connection
// opens it, so the new transactions are seen).
func (s *Snapshot) appendLog(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	src, err := jsonl.Open(s.Path + "-wal") // O_RDONLY: never creates
	if err != nil {
		return err
	}
	defer src.Close()
	end, ck, frames := walCommitted(src, s.walHdr, s.walEnd, s.walCk, true)
	if end == s.walEnd {
		s.stats.Unchanged++
		return nil
	}
	// The frames were read and checked against the header the copy's log
	// has; one read, so what is appended is what was checked.
	f, err := os.OpenFile(s.copy+"-wal", os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(frames, s.walEnd)
	if err == nil {
		err = f.Truncate(end)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := s.reopen(ctx, false); err != nil {
		return err
	}
	s.walEnd, s.walCk = end, ck
	s.stats.LogAppends++
	return nil
}

// copyAll takes a whole new copy, retrying while the source's main file
// changes or its log is restarted during the copy.
func (s *Snapshot) copyAll(ctx context.Context) error {
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "sessiondb-foreign-*")
		if err != nil {
			return fmt.Errorf("snapshot of %s: %w", s.Path, err)
		}
		s.dir = dir
	}
	s.copy = filepath.Join(s.dir, "db")
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			s.stats.Retries++
			select {
			case <-ctx.Done():
				return fmt.Errorf("snapshot of %s: %w", s.Path, ctx.Err())
			case <-time.After(retryPause << min(attempt-1, 4)):
			}
		}
		before, err := readState(s.Path)
		if err != nil {
			return fmt.Errorf("snapshot of %s: %w", s.Path, err)
		}
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if err := os.Remove(s.copy + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("snapshot of %s: %w", s.Path, err)
			}
		}
		if _, err := copyFile(s.Path, s.copy); err != nil {
			return fmt.Errorf("snapshot of %s: %w", s.Path, err)
		}
		if testHookCopied != nil {
			testHookCopied(attempt)
		}
		rollback := false
		if before.journal.exists && before.journal.size > 0 {
			// A rollback journal beside the file: a transaction of a
			// database not in WAL mode was cut off (or is running, which
			// the stamps see). SQLite rolls it back from the journal,
			// which the copy therefore carries too.
			if _, err := copyFile(s.Path+"-journal", s.copy+"-journal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("snapshot of %s: %w", s.Path, err)
			}
			rollback = true
		}
		var walBytes int64
		if before.wal.exists {
			walBytes, err = copyFile(s.Path+"-wal", s.copy+"-wal")
			if errors.Is(err, fs.ErrNotExist) {
				lastErr = err
				continue // the log went away meanwhile (the writer closed): again
			}
			if err != nil {
				return fmt.Errorf("snapshot of %s: %w", s.Path, err)
			}
		}
		after, err := readState(s.Path)
		if err != nil {
			return fmt.Errorf("snapshot of %s: %w", s.Path, err)
		}
		if !consistent(before, after) {
			lastErr = ErrUnsettled
			continue
		}
		head, err := readHead(s.copy, len(sqliteMagic))
		if err != nil {
			return fmt.Errorf("snapshot of %s: %w", s.Path, err)
		}
		if !bytes.Equal(head, sqliteMagic) {
			if len(head) == 0 {
				return fmt.Errorf("snapshot of %s: the file is empty: %w", s.Path, ErrNotDatabase)
			}
			return fmt.Errorf("snapshot of %s: the file does not start with SQLite's header: %w", s.Path, ErrNotDatabase)
		}
		if err := s.reopen(ctx, rollback); err != nil {
			// A copy that SQLite cannot read may be torn in a way the
			// stamps did not show (a file system with coarse times):
			// once more, then it is the file.
			lastErr = err
			if errors.Is(err, ErrNotDatabase) && attempt+1 < maxAttempts && attempt < 2 {
				continue
			}
			return err
		}
		s.taken = before
		s.taken.wal.size = walBytes
		if err := s.readLog(); err != nil {
			return fmt.Errorf("snapshot of %s: %w", s.Path, err)
		}
		s.stats.Copies++
		return nil
	}
	if errors.Is(lastErr, ErrUnsettled) || lastErr == nil {
		return fmt.Errorf("snapshot of %s: %d attempts: %w", s.Path, maxAttempts, ErrUnsettled)
	}
	return fmt.Errorf("snapshot of %s: %w", s.Path, lastErr)
}

// readLog finds, in the copy's log, where its committed frames end (and
// cuts what follows: torn or uncommitted frames, or the old frames of a
// log that was restarted), for appendLog to continue from there.
func (s *Snapshot) readLog() error {
	s.log = false
	f, err := os.OpenFile(s.copy+"-wal", os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, walHeaderSize)
	if n, _ := f.ReadAt(head, 0); n < walHeaderSize {
		return nil
	}
	h, ok := parseWALHeader(head)
	if !ok {
		return nil
	}
	end, ck, _ := walCommitted(f, h, walHeaderSize, h.cksum, false)
	if err := f.Truncate(end); err != nil {
		return err
	}
	s.log, s.walHdr, s.walEnd, s.walCk = true, h, end, ck
	return nil
}

// copyFile copies src to a new file dst (0600) and returns its size.
func copyFile(src, dst string) (int64, error) {
	in, err := jsonl.Open(src) // O_RDONLY: never creates the source
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// reopen opens the copy read-only (closing a previous handle) and checks
// that SQLite reads it. Read-only, so that closing it neither checkpoints
// the copy's log into its main file nor deletes the log: the copy stays a
// byte-for-byte prefix of the source, to which appendLog can add. A copy
// with a hot rollback journal is opened read-write instead (it is ours),
// since rolling the cut transaction back writes its main file.
func (s *Snapshot) reopen(ctx context.Context, rollback bool) error {
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	// The copy's -shm is rebuilt from its log by the first connection
	// (none other has it open), so the source's -shm is never needed.
	os.Remove(s.copy + "-shm")
	u := url.URL{Scheme: "file", OmitHost: true, Path: s.copy}
	q := url.Values{}
	if !rollback {
		q.Set("mode", "ro")
	}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "query_only(1)")
	u.RawQuery = q.Encode()
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return fmt.Errorf("snapshot of %s: %w", s.Path, err)
	}
	db.SetMaxOpenConns(4)
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
		db.Close()
		return fmt.Errorf("snapshot of %s: %w", s.Path, Translate(err))
	}
	s.db = db
	return nil
}

// Translate turns the driver's errors for a damaged or foreign file into
// ErrNotDatabase (keeping SQLite's message); others pass unchanged.
func Translate(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, m := range []string{"file is not a database", "database disk image is malformed", "malformed", "SQLITE_CORRUPT", "SQLITE_NOTADB"} {
		if strings.Contains(msg, m) {
			return fmt.Errorf("%v: %w", err, ErrNotDatabase)
		}
	}
	return err
}

// Close closes the copy and removes it.
func (s *Snapshot) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var err error
	if s.db != nil {
		err = s.db.Close()
		s.db = nil
	}
	if s.dir != "" {
		if rerr := os.RemoveAll(s.dir); err == nil {
			err = rerr
		}
		s.dir = ""
	}
	return err
}
