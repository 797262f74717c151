package foreigndb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// writer opens path as a program writing its store would: WAL mode, and
// no automatic checkpoint unless autockpt > 0, so that commits stay in
// the log while it is open.
func writer(t testing.TB, path string, autockpt int) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", fmt.Sprintf("file:%s?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(%d)", path, autockpt))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	mustExec(t, db, `CREATE TABLE IF NOT EXISTS t (i INTEGER PRIMARY KEY, v TEXT NOT NULL)`)
	mustExec(t, db, `CREATE TABLE IF NOT EXISTS total (k INTEGER PRIMARY KEY, n INTEGER NOT NULL)`)
	mustExec(t, db, `INSERT OR IGNORE INTO total VALUES (1, 0)`)
	return db
}

func mustExec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// insert adds n rows and raises the total by n, in one transaction.
func insert(db *sql.DB, n int) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for range n {
		if _, err := tx.Exec(`INSERT INTO t (v) VALUES (?)`, strings.Repeat("x", 300)); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(`UPDATE total SET n = n + ? WHERE k = 1`, n); err != nil {
		return err
	}
	return tx.Commit()
}

// counts returns the rows of t and the total the snapshot reads, which a
// consistent copy has equal.
func counts(t testing.TB, s *Snapshot) (rows, total int) {
	t.Helper()
	db := s.DB()
	if err := db.QueryRow(`SELECT count(*) FROM t`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT n FROM total WHERE k = 1`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	return rows, total
}

// listing is every file of dir with its size, time and content hash.
func listing(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if f, err := os.Open(p); err == nil {
			io.Copy(h, f)
			f.Close()
		}
		out[e.Name()] = fmt.Sprintf("%d %s %s", fi.Size(), fi.ModTime().Format(time.RFC3339Nano), hex.EncodeToString(h.Sum(nil))[:16])
	}
	return out
}

// TestSnapshotReadsCommitsOnlyInTheLog: a store whose log holds commits
// the main file does not (the writer still open, no checkpoint) is read
// with them; the main file alone does not hold them.
func TestSnapshotReadsCommitsOnlyInTheLog(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "store.db")
	w := writer(t, src, 0)
	if err := insert(w, 50); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(src + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the log holds nothing (%v): the case is not set up", err)
	}
	// The main file alone, opened immutable, does not have the rows.
	alone := filepath.Join(t.TempDir(), "alone.db")
	if _, err := copyFile(src, alone); err != nil {
		t.Fatal(err)
	}
	adb, err := sql.Open("sqlite", "file:"+alone+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := adb.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err == nil && n == 50 {
		t.Fatalf("the main file alone holds the 50 rows: the case is not set up")
	}
	adb.Close()

	s, err := Open(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if rows, total := counts(t, s); rows != 50 || total != 50 {
		t.Errorf("snapshot reads %d rows, total %d; want 50 and 50", rows, total)
	}
}

// TestSnapshotLeavesTheSourceAlone: taking, refreshing and closing
// snapshots creates no file beside the source and changes none (names,
// sizes, times and contents compared), with the writer's -wal and -shm
// there and with the main file alone.
func TestSnapshotLeavesTheSourceAlone(t *testing.T) {
	ctx := context.Background()
	for _, open := range []bool{true, false} {
		t.Run(fmt.Sprintf("writer-open=%v", open), func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "store.db")
			w := writer(t, src, 0)
			if err := insert(w, 10); err != nil {
				t.Fatal(err)
			}
			if !open {
				w.Close() // checkpoints and removes -wal and -shm
			}
			before := listing(t, dir)
			if open && (before["store.db-wal"] == "" || before["store.db-shm"] == "") {
				t.Fatalf("listing %v: the writer's -wal and -shm are not there", before)
			}
			if !open && len(before) != 1 {
				t.Fatalf("listing %v: want the main file alone", before)
			}
			s, err := Open(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			if rows, _ := counts(t, s); rows != 10 {
				t.Errorf("read %d rows, want 10", rows)
			}
			if err := s.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			counts(t, s)
			copyDir := s.dir
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(before, listing(t, dir)); d != "" {
				t.Errorf("the source's directory changed (-before +after):\n%s", d)
			}
			if _, err := os.Stat(copyDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the copy %s is still there after Close (%v)", copyDir, err)
			}
		})
	}
}

// TestSnapshotRefreshAppendsTheLog: while the writer only appends, a
// refresh copies what the log gained (not the database); after a
// checkpoint rewrote the main file, it copies the whole again. Each time
// the copy reads every commit.
func TestSnapshotRefreshAppendsTheLog(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "store.db")
	w := writer(t, src, 0)
	if err := insert(w, 5); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Copies != 1 || st.Unchanged != 1 {
		t.Errorf("after an unchanged refresh: %+v, want 1 copy and 1 unchanged", st)
	}
	for i := 1; i <= 3; i++ {
		if err := insert(w, 7); err != nil {
			t.Fatal(err)
		}
		if err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if rows, total := counts(t, s); rows != 5+7*i || total != rows {
			t.Errorf("after append %d: %d rows, total %d, want %d", i, rows, total, 5+7*i)
		}
	}
	if st := s.Stats(); st.Copies != 1 || st.LogAppends != 3 {
		t.Errorf("after three appends: %+v, want 1 copy and 3 log appends", st)
	}
	mustExec(t, w, `PRAGMA wal_checkpoint(TRUNCATE)`)
	if err := insert(w, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if rows, total := counts(t, s); rows != 27 || total != 27 {
		t.Errorf("after a checkpoint: %d rows, total %d, want 27", rows, total)
	}
	if st := s.Stats(); st.Copies != 2 {
		t.Errorf("after a checkpoint: %+v, want a second whole copy", st)
	}
}

// TestSnapshotTornCopyIsTakenAgain: a checkpoint between the copy of the
// main file and that of the log (the writer moved its log into the main
// file and started a new log) tears the copy; it is taken again, and the
// snapshot reads one state.
func TestSnapshotTornCopyIsTakenAgain(t *testing.T) {
	src := filepath.Join(t.TempDir(), "store.db")
	w := writer(t, src, 0)
	if err := insert(w, 20); err != nil {
		t.Fatal(err)
	}
	torn := 0
	testHookCopied = func(attempt int) {
		if attempt < 2 {
			torn++
			mustExec(t, w, `PRAGMA wal_checkpoint(TRUNCATE)`)
			if err := insert(w, 3); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { testHookCopied = nil }()
	s, err := Open(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if rows, total := counts(t, s); rows != 26 || total != 26 {
		t.Errorf("read %d rows, total %d; want the state after both writes, 26", rows, total)
	}
	if st := s.Stats(); st.Retries != torn || torn != 2 {
		t.Errorf("stats %+v after %d torn copies: want that many retries", st, torn)
	}
}

// TestSnapshotUnderABusyWriter: a writer commits without pause, with
// automatic checkpoints every few pages and a truncating checkpoint now
// and then, while snapshots are refreshed; every one reads one state
// (the rows and the total written in the same transaction agree).
func TestSnapshotUnderABusyWriter(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "store.db")
	w := writer(t, src, 8)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var writes atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			if err := insert(w, 1+i%5); err != nil {
				t.Error(err)
				return
			}
			writes.Add(1)
			if i%40 == 39 {
				w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
			}
		}
	}()
	s, err := Open(ctx, src)
	if err != nil {
		stop.Store(true)
		wg.Wait()
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.Now().Add(1500 * time.Millisecond)
	reads, last := 0, 0
	for time.Now().Before(deadline) {
		if err := s.Refresh(ctx); err != nil {
			if errors.Is(err, ErrUnsettled) {
				continue // every attempt torn: said so, never a wrong read
			}
			t.Fatal(err)
		}
		rows, total := counts(t, s)
		if rows != total {
			t.Fatalf("read %d rows but total %d: an inconsistent copy", rows, total)
		}
		if rows < last {
			t.Fatalf("read %d rows after %d: went back in time", rows, last)
		}
		last = rows
		reads++
	}
	stop.Store(true)
	wg.Wait()
	st := s.Stats()
	t.Logf("%d reads of a writer that committed %d times: %+v", reads, writes.Load(), st)
	if reads < 10 || st.LogAppends == 0 || st.Copies < 2 {
		t.Errorf("%d reads, %+v: want log appends and whole copies after checkpoints", reads, st)
	}
}

// TestSnapshotDamagedFiles: a file that is not SQLite, an empty one and
// a database cut short are errors wrapping ErrNotDatabase, never a
// panic, and leave nothing behind.
func TestSnapshotDamagedFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(t.TempDir(), "good.db")
	w := writer(t, good, 0)
	if err := insert(w, 200); err != nil {
		t.Fatal(err)
	}
	w.Close()
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	garbled := append([]byte{}, data...)
	for i := 100; i < len(garbled); i += 7 {
		garbled[i] ^= 0x5a
	}
	cases := map[string][]byte{
		"text.db":    []byte("this is not a database\n"),
		"empty.db":   nil,
		"garbled.db": garbled,
	}
	for name, b := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, p)
		if err == nil {
			// SQLite may open a damaged file and fail only on the pages
			// a query reads.
			var n int
			qerr := s.DB().QueryRow(`SELECT count(*) FROM t`).Scan(&n)
			s.Close()
			if qerr == nil {
				t.Errorf("%s: read %d rows from a garbled file", name, n)
			} else if !errors.Is(Translate(qerr), ErrNotDatabase) {
				t.Errorf("%s: query error %v, want one wrapping ErrNotDatabase", name, qerr)
			}
			continue
		}
		if !errors.Is(err, ErrNotDatabase) {
			t.Errorf("%s: %v, want ErrNotDatabase", name, err)
		}
	}
	cut := filepath.Join(dir, "cut.db")
	if err := os.WriteFile(cut, data[:len(data)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(ctx, cut); err == nil {
		var n int
		qerr := s.DB().QueryRow(`SELECT count(*), sum(length(v)) FROM t`).Scan(&n, new(int))
		s.Close()
		if qerr == nil {
			t.Errorf("cut.db: read %d rows from a third of the file", n)
		}
	}
	if _, err := Open(ctx, filepath.Join(dir, "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("opening a missing database created it")
	}
	leftovers, _ := filepath.Glob(filepath.Join(os.TempDir(), "sessiondb-foreign-*"))
	_ = leftovers // other tests may hold copies concurrently; Close is checked elsewhere
}

// TestCacheClosesItsSnapshots: a snapshot acquired in a jsonl.Cache is
// reused (refreshed) by the next Acquire, read by Current, and removed
// when the cache is closed.
func TestCacheClosesItsSnapshots(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "store.db")
	w := writer(t, src, 0)
	if err := insert(w, 4); err != nil {
		t.Fatal(err)
	}
	c := &jsonl.Cache{}
	a, err := Acquire(ctx, c, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := insert(w, 4); err != nil {
		t.Fatal(err)
	}
	b, err := Acquire(ctx, c, src)
	if err != nil {
		t.Fatal(err)
	}
	cur, owned, err := Current(ctx, c, src)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || b != cur || owned {
		t.Fatalf("Acquire, Acquire, Current gave %p %p %p (owned %v): want one snapshot", a, b, cur, owned)
	}
	if rows, _ := counts(t, cur); rows != 8 {
		t.Errorf("%d rows, want 8", rows)
	}
	dir := a.dir
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("copy %s still there after the cache was closed (%v)", dir, err)
	}
}

// The read-only directory case runs the test binary again as uid 65534
// (root ignores permission bits), which takes a snapshot of a database
// in a 0555 directory and prints what it read.
const envChild = "FOREIGNDB_TEST_SNAPSHOT"

func TestMain(m *testing.M) {
	if p := os.Getenv(envChild); p != "" {
		s, err := Open(context.Background(), p)
		if err != nil {
			fmt.Println("ERROR", err)
			os.Exit(3)
		}
		var n int
		if err := s.DB().QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil {
			fmt.Println("ERROR", err)
			os.Exit(3)
		}
		s.Close()
		fmt.Println("ROWS", n)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSnapshotOfAReadOnlyDirectory: a store in a directory its reader
// cannot write (0555, files 0444, read as uid 65534), with its log
// holding the commits, is read whole.
func TestSnapshotOfAReadOnlyDirectory(t *testing.T) {
	root := t.TempDir()
	for d := root; d != os.TempDir() && len(d) > len(os.TempDir()); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(t.TempDir(), "store.db")
	w := writer(t, src, 0)
	if err := insert(w, 33); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(root, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal"} {
		if _, err := copyFile(src+suffix, filepath.Join(ro, "store.db"+suffix)); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(ro, "store.db"+suffix), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	tmp := filepath.Join(root, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o777)
	before := listing(t, ro)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(root, "foreigndb.test")
	if _, err := copyFile(self, exe); err != nil {
		t.Fatal(err)
	}
	os.Chmod(exe, 0o755)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = []string{envChild + "=" + filepath.Join(ro, "store.db"), "TMPDIR=" + tmp, "HOME=/nonexistent"}
	cmd.Dir = "/"
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "permission denied") && !strings.Contains(string(out), "ERROR") {
		t.Skipf("cannot run the test binary as uid 65534 here: %v: %s", err, out)
	}
	if err != nil || strings.TrimSpace(string(out)) != "ROWS 33" {
		t.Fatalf("snapshot in a read-only directory: %v: %s", err, out)
	}
	if d := cmp.Diff(before, listing(t, ro)); d != "" {
		t.Errorf("the read-only directory changed (-before +after):\n%s", d)
	}
	left, _ := os.ReadDir(tmp)
	names := []string{}
	for _, e := range left {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if len(names) > 0 {
		t.Errorf("the copy was not removed: %v left in TMPDIR", names)
	}
}

// TestSnapshotAfterTheLogRestarted: after a checkpoint moved the whole log
// into the main file, the writer starts the log again from its start,
// writing new transactions over the old frames in place: the file does not
// grow, and its time may not change within the clock's tick. Each refresh
// reads those transactions (opencode checkpoints when it starts, then
// keeps writing in the restarted log).
func TestSnapshotAfterTheLogRestarted(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "store.db")
	w := writer(t, src, 0)
	if err := insert(w, 200); err != nil { // a long log
		t.Fatal(err)
	}
	s, err := Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, w, `PRAGMA wal_checkpoint(PASSIVE)`)
	fi, _ := os.Stat(src + "-wal")
	size := fi.Size()
	want := 200
	for i := 0; i < 6; i++ {
		if err := insert(w, 1); err != nil {
			t.Fatal(err)
		}
		want++
		if err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if rows, total := counts(t, s); rows != want || total != want {
			t.Fatalf("write %d after the restart: read %d rows, total %d; want %d (%+v)", i+1, rows, total, want, s.Stats())
		}
	}
	if fi, _ := os.Stat(src + "-wal"); fi.Size() != size {
		t.Fatalf("the log grew from %d to %d bytes: the writes did not go over the old frames, the case is not set up", size, fi.Size())
	}
	if err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	t.Logf("%+v", st)
	if st.Unchanged == 0 {
		t.Errorf("a refresh with nothing new was not found unchanged: %+v", st)
	}
}
