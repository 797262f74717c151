package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
)

// TestWALProtocolErrorIsBusy makes SQLite return SQLITE_PROTOCOL for real:
// another connection holds the WAL write lock (BEGIN IMMEDIATE, never
// finished, like a process stopped in the middle of a write) while the
// two copies of the wal-index header in the -shm file disagree, as they do
// for a moment while a writer updates them. A new reader then finds the
// header torn, cannot take the write lock to rebuild it, and retries about
// 100 times over ~10 s before giving up with SQLITE_PROTOCOL. The store
// must report that as ErrBusy (retryable), not as an unmapped error.
func TestWALProtocolErrorIsBusy(t *testing.T) {
	longtest.Skip(t, "takes about 10 s: SQLite's own retry schedule")
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "protocol.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, sessiondb.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	defer s.Close() // keeps the -shm alive

	holder, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = conn.ExecContext(ctx, "ROLLBACK") }()

	shm, err := os.OpenFile(path+"-shm", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer shm.Close()
	// Byte 16 of the first header copy is in mxFrame; the second copy
	// (bytes 48-95) keeps the old value.
	b := make([]byte, 1)
	if _, err := shm.ReadAt(b, 16); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x40
	if _, err := shm.WriteAt(b, 16); err != nil {
		t.Fatal(err)
	}
	defer func() {
		b[0] ^= 0x40
		_, _ = shm.WriteAt(b, 16)
	}()

	start := time.Now()
	_, err = s.Load(ctx, "s", sessiondb.LoadOptions{})
	t.Logf("Load after %s: %v", time.Since(start).Round(time.Millisecond), err)
	if !errors.Is(err, sessiondb.ErrBusy) {
		t.Fatalf("Load = %v, want ErrBusy", err)
	}
}
