package pgstore

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
	"github.com/sessiondb/sessiondb/storetest"
)

// TestLostCommitAnswerCommitted: COMMIT succeeded but its answer was lost
// (simulated). The store must find out that it committed and not apply
// the write a second time.
func TestLostCommitAnswerCommitted(t *testing.T) {
	s := MustOpenStore(t, nil)
	ctx := t.Context()
	if _, err := s.Create(ctx, sessiondb.Session{ID: "lost"}); err != nil {
		t.Fatal(err)
	}
	lose := true
	s.afterCommit = func(err error) error {
		if err == nil && lose {
			lose = false
			return io.ErrUnexpectedEOF
		}
		return err
	}
	sess, err := s.Append(ctx, "lost", sessiondb.Message(`{"n":1}`), sessiondb.Message(`{"n":2}`))
	if err != nil {
		t.Fatal(err)
	}
	s.afterCommit = nil
	es, err := s.Entries(ctx, "lost", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || sess.LastSeq != 2 || sess.Sequence != 2 {
		t.Fatalf("after a commit whose answer was lost: %d entries, LastSeq %d, Sequence %d; want 2, 2, 2", len(es), sess.LastSeq, sess.Sequence)
	}
	if got := s.unknownCommits.Load(); got != 1 {
		t.Fatalf("%d commits settled by txid_status, want 1", got)
	}
}

// TestLostCommitAnswerAborted: the connection is terminated just before
// COMMIT (FATAL 57P01 from the server). The store must find out that the
// transaction did not commit and apply the write exactly once.
func TestLostCommitAnswerAborted(t *testing.T) {
	s := MustOpenStore(t, nil)
	ctx := t.Context()
	if _, err := s.Create(ctx, sessiondb.Session{ID: "killed"}); err != nil {
		t.Fatal(err)
	}
	kill := true
	var hookErr error
	s.beforeCommit = func(tx *ptx) {
		if !kill {
			return
		}
		kill = false
		var pid int
		if err := tx.GetContext(ctx, &pid, `SELECT pg_backend_pid()`); err != nil {
			hookErr = err
			return
		}
		if _, err := s.db.ExecContext(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
			hookErr = err
		}
	}
	sess, err := s.Append(ctx, "killed", sessiondb.Message(`{"n":1}`))
	s.beforeCommit = nil
	if hookErr != nil {
		t.Fatal(hookErr)
	}
	if err != nil {
		t.Fatal(err)
	}
	es, err := s.Entries(ctx, "killed", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || sess.LastSeq != 1 {
		t.Fatalf("%d entries, LastSeq %d; want 1, 1", len(es), sess.LastSeq)
	}
	if s.retries.Load() == 0 {
		t.Fatal("the terminated transaction was not retried")
	}
}

// TestRetryGivesUpWithErrBusy: a server that stays unreachable makes an
// operation fail with ErrBusy after RetryTimeout, not hang.
func TestRetryGivesUpWithErrBusy(t *testing.T) {
	s := &Store{opts: Options{RetryTimeout: 50e6}}
	calls := 0
	err := s.retry(t.Context(), func() (bool, error) { calls++; return true, errLostConn })
	if !errors.Is(err, sessiondb.ErrBusy) || calls < 2 {
		t.Fatalf("retry = %v after %d calls, want ErrBusy after several", err, calls)
	}
}

// TestSessionColumnsOrder checks that the session select list gives the
// columns in the order engine.SessionRow.Fields scans them (by position).
func TestSessionColumnsOrder(t *testing.T) {
	requireServer(t)
	ctx := context.Background()
	s := MustOpenStore(t, nil)
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := engine.CheckSessionColumns(ctx, tx, sessionColumns); err != nil {
		t.Fatal(err)
	}
}

// TestUnscannedRedaction: with the background scan off, the redacted
// view still hands out no secret (storetest).
func TestUnscannedRedaction(t *testing.T) {
	requireServer(t)
	storetest.UnscannedRedaction(t, MustOpenStore(t, &Options{NoSecretScan: true}))
}
