package sqlstore

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

const envHoldLock = "SQLSTORE_TEST_HOLD_LOCK"

// TestWriteStopsWaitingForAHeldLock (issue 36 item 4): while another
// process holds the write lock, a write whose context ends (SIGTERM) stops
// waiting for the lock and fails with ErrBusy and the context's error,
// instead of waiting out BusyTimeout (30 s) and its retries (~2 minutes;
// systemd kills a service after 30 s). A write made with
// sessiondb.DetachWrites (the watcher's imports, an import's last flush)
// stops waiting too when the context it detached from ends, and still
// takes the lock when it is free.
func TestWriteStopsWaitingForAHeldLock(t *testing.T) {
	if path := os.Getenv(envHoldLock); path != "" {
		holdLock(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "sessions.db")
	s := MustOpenStoreAt(t, path, nil) // the default BusyTimeout: 30 s
	child := exec.Command(os.Args[0], "-test.run=^TestWriteStopsWaitingForAHeldLock$")
	child.Env = append(os.Environ(), envHoldLock+"="+path)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); child.Process.Kill(); child.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("child: %q, %v", line, err)
	}

	for _, detach := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		wctx := ctx
		if detach {
			wctx = sessiondb.DetachWrites(ctx)
		}
		time.AfterFunc(200*time.Millisecond, cancel) // the SIGTERM
		_, err := s.Create(wctx, sessiondb.Session{ID: fmt.Sprintf("s-%v", detach)})
		// (ErrBusy too once the wait began; a loaded machine may cancel
		// before.) Without the fix: ErrBusy alone, after ~2 minutes.
		if !errors.Is(err, context.Canceled) {
			t.Errorf("detach %v: Create under a held lock, cancelled: %v; want context.Canceled", detach, err)
		}
	}

	// The lock released: a detached write whose caller already stopped
	// still commits (it waits for no lock).
	stdin.Close()
	child.Wait()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Create(sessiondb.DetachWrites(ctx), sessiondb.Session{ID: "after"}); err != nil {
		t.Errorf("detached write with the lock free: %v", err)
	}
}

// holdLock is the child: it takes the write lock of the database at path
// (BEGIN IMMEDIATE), says "locked", and keeps it until its stdin closes.
func holdLock(t *testing.T, path string) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')         //nolint:errcheck // EOF: the parent is done
	conn.ExecContext(context.Background(), "ROLLBACK") //nolint:errcheck
}

// TestBeginContextOnlyWhenAWaitCanEnd: a batch's BEGIN watches a context
// only when every request of the batch can stop waiting for the lock;
// when one cannot (context.Background(), DetachWrites of it), the wait
// cannot end early and BEGIN runs under context.Background(), which the
// driver does not watch. With a context that can end, the batch's context
// ends once every request has stopped waiting (after lockWaitGrace), and
// never once begun.
func TestBeginContextOnlyWhenAWaitCanEnd(t *testing.T) {
	never := context.Background()
	ctx1, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	for _, tc := range []struct {
		name  string
		ctxs  []context.Context
		watch bool
	}{
		{"background", []context.Context{never}, false},
		{"detached from background", []context.Context{sessiondb.DetachWrites(never)}, false},
		{"one cancellable, one background", []context.Context{ctx1, never}, false},
		{"cancellable", []context.Context{ctx1}, true},
		{"detached from cancellable", []context.Context{sessiondb.DetachWrites(ctx1), ctx2}, true},
	} {
		batch := make([]writeReq, len(tc.ctxs))
		for i, c := range tc.ctxs {
			batch[i] = writeReq{ctx: c}
		}
		bctx, begun, release := beginContext(batch)
		if got := bctx.Done() != nil; got != tc.watch {
			t.Errorf("%s: the batch's context can end: %v, want %v", tc.name, got, tc.watch)
		}
		begun()
		release()
	}

	// Every request stops waiting before BEGIN: the context ends.
	a, cancelA := context.WithCancel(context.Background())
	b, cancelB := context.WithCancel(context.Background())
	bctx, begun, release := beginContext([]writeReq{{ctx: a}, {ctx: sessiondb.DetachWrites(b)}})
	cancelA()
	select {
	case <-bctx.Done():
		t.Fatal("the batch's context ended while one request still waits")
	case <-time.After(2 * lockWaitGrace):
	}
	cancelB()
	select {
	case <-bctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the batch's context did not end once every request stopped waiting")
	}
	begun()
	release()

	// Once begun, it ends only with release.
	c, cancelC := context.WithCancel(context.Background())
	bctx, begun, release = beginContext([]writeReq{{ctx: c}})
	begun()
	cancelC()
	time.Sleep(2 * lockWaitGrace)
	if bctx.Err() != nil {
		t.Fatal("the batch's context ended after BEGIN")
	}
	release()
}
