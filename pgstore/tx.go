package pgstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// ptx is a transaction whose statements are written with ? placeholders
// (as in sqlstore) and rebound to PostgreSQL's $n once per distinct text.
type ptx struct {
	tx *sqlx.Tx
	// xid is the transaction's ID (txid_current), read by the first
	// statement that locks a session row, or by write before COMMIT. It
	// lets write find out whether a COMMIT whose answer was lost took
	// effect.
	xid int64
	// pendQ and pendArgs are the last INSERT of a commit's entries, held
	// back by engineDriver.InsertEntries for FinishCommit.
	pendQ    string
	pendArgs []any
}

var rebound sync.Map // string -> string

func rb(q string) string {
	if r, ok := rebound.Load(q); ok {
		return r.(string)
	}
	r := sqlx.Rebind(sqlx.DOLLAR, q)
	rebound.Store(q, r)
	return r
}

func (t *ptx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, rb(q), args...)
}

func (t *ptx) GetContext(ctx context.Context, dest any, q string, args ...any) error {
	return t.tx.GetContext(ctx, dest, rb(q), args...)
}

func (t *ptx) SelectContext(ctx context.Context, dest any, q string, args ...any) error {
	return t.tx.SelectContext(ctx, dest, rb(q), args...)
}

func (t *ptx) QueryxContext(ctx context.Context, q string, args ...any) (*sqlx.Rows, error) {
	return t.tx.QueryxContext(ctx, rb(q), args...)
}

func (t *ptx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(ctx, rb(q), args...)
}

func (t *ptx) QueryRowxContext(ctx context.Context, q string, args ...any) *sqlx.Row {
	return t.tx.QueryRowxContext(ctx, rb(q), args...)
}

// readOpts: a read sees one snapshot of the database (REPEATABLE READ), so
// LoadFull's several statements agree; a read-only snapshot transaction
// never fails with a serialization error.
var readOpts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}

// read runs fn in one read-only snapshot transaction, retrying it when the
// connection or the server failed under it (reads are idempotent).
func (s *Store) read(ctx context.Context, fn func(tx *ptx) error) error {
	if s.closed.Load() {
		return sessiondb.ErrClosed
	}
	return s.retry(ctx, func() (bool, error) {
		tx, err := s.db.BeginTxx(ctx, readOpts)
		if err != nil {
			return true, translate(err)
		}
		err = runFn(&ptx{tx: tx}, fn)
		if err == nil {
			err = tx.Commit()
		}
		_ = tx.Rollback()
		return true, translate(err)
	})
}

// write runs fn in one READ COMMITTED transaction and commits it. Writes
// that touch a session lock its row first (SELECT … FOR UPDATE), which
// serialises the writers of one session, so seqs are assigned without
// gaps or duplicates and without serialization failures. A deadlock, a
// serialization failure, a dropped connection or a server restart rolls
// the transaction back and runs fn again (fn must only use tx and may run
// more than once). When the connection drops during COMMIT itself, the
// outcome is unknown: write asks the server for the transaction's status
// (txid_status) once it is reachable again, and runs fn again only if the
// transaction did not commit, so an acknowledged write is never lost and
// never applied twice.
func (s *Store) write(ctx context.Context, fn func(tx *ptx) error) error {
	if s.closed.Load() {
		return sessiondb.ErrClosed
	}
	err := s.writeOnce(ctx, fn)
	if err == nil {
		s.kickScanner()
	}
	return err
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx *ptx) error) error {
	return s.retry(ctx, func() (bool, error) {
		tx, err := s.db.BeginTxx(ctx, nil)
		if err != nil {
			return true, translate(err)
		}
		t := &ptx{tx: tx}
		if err := runFn(t, fn); err != nil {
			_ = tx.Rollback()
			return true, translate(err)
		}
		if t.xid == 0 {
			if err := tx.QueryRowContext(ctx, `SELECT txid_current()`).Scan(&t.xid); err != nil {
				_ = tx.Rollback()
				return true, translate(err)
			}
		}
		if s.beforeCommit != nil {
			s.beforeCommit(t)
		}
		err = tx.Commit()
		if s.afterCommit != nil {
			err = s.afterCommit(err)
		}
		if err == nil || isServerError(err) {
			// The server answered: committed, or refused (then nothing
			// was written and the error says whether to retry).
			return true, translate(err)
		}
		s.unknownCommits.Add(1)
		committed, err := s.committed(ctx, t.xid)
		if err != nil {
			return false, err
		}
		if committed {
			return false, nil
		}
		return true, errLostConn
	})
}

// errLostConn marks an attempt whose connection failed before it
// committed: retried.
var errLostConn = fmt.Errorf("%w: connection to the server lost", sessiondb.ErrBusy)

// committed finds out whether transaction xid committed, waiting for the
// server to be reachable. A transaction still "in progress" belongs to a
// backend that has not yet noticed its client is gone; it will abort.
func (s *Store) committed(ctx context.Context, xid int64) (bool, error) {
	var status sql.NullString
	err := s.retry(ctx, func() (bool, error) {
		err := s.db.QueryRowContext(ctx, `SELECT txid_status($1)`, xid).Scan(&status)
		if err == nil && status.String == "in progress" {
			return true, errLostConn
		}
		return true, translate(err)
	})
	if err != nil {
		return false, fmt.Errorf("find out whether a commit took effect: %w", err)
	}
	return status.String == "committed", nil
}

// runFn runs fn, turning a panic into an error: none escapes the library.
func runFn(t *ptx, fn func(tx *ptx) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("pgstore: internal error: %v", p)
		}
	}()
	return fn(t)
}

// retry runs attempt until it succeeds, fails with an error that is not
// worth retrying, says not to retry, or Options.RetryTimeout has passed
// (then the last error, which wraps ErrBusy, is returned). Retries back
// off with jitter from 2 ms to 500 ms.
func (s *Store) retry(ctx context.Context, attempt func() (again bool, err error)) error {
	deadline := time.Now().Add(s.opts.RetryTimeout)
	wait := 2 * time.Millisecond
	for {
		again, err := attempt()
		if err == nil || !again || !isRetryable(err) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up after %v: %w", s.opts.RetryTimeout, err)
		}
		s.retries.Add(1)
		sleep := wait/2 + rand.N(wait/2+1)
		t := time.NewTimer(sleep)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (%w)", ctx.Err(), err)
		case <-t.C:
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}
