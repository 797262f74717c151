package sqlstore

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// TestMigrationLockWaitIsBounded holds the migration lock file the way a
// process stopped in the middle of its first Open would (flock, then
// nothing): another Open of the new database must fail with ErrBusy after
// BusyTimeout, not wait forever, and succeed once the lock is free.
func TestMigrationLockWaitIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s, err := Open(path, &Options{BusyTimeout: 300 * time.Millisecond})
	if err == nil {
		s.Close()
		t.Fatal("Open migrated while another process held the migration lock")
	}
	if !errors.Is(err, sessiondb.ErrBusy) {
		t.Fatalf("Open behind a held migration lock: %v, want ErrBusy", err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Fatalf("gave up after %s, before BusyTimeout", waited)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, &Options{BusyTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open once the lock is free: %v", err)
	}
	s.Close()
}
