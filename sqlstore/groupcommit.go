package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// Group commit.
//
// Every write of the process goes through one committer goroutine that
// owns the writer connection. While a transaction is being committed (and
// fsynced), other writers queue up; the committer then runs all of them in
// ONE transaction, each inside its own SAVEPOINT, and commits once (the
// appends of a batch share one savepoint and their statements:
// appendbatch.go). So one
// fsync acknowledges many writes, and each write is still atomic and
// isolated: a write that fails rolls back to its savepoint and leaves the
// others in the batch untouched. Nobody is acknowledged before the COMMIT
// of their batch returned, so an acknowledged write is exactly as durable
// as with one transaction per write. If the batch transaction itself fails
// (disk full, I/O error), each write is retried alone so that one poisoned
// write cannot fail its neighbours.

// maxBatch bounds the writes grouped into one transaction.
const maxBatch = 64

// maxBusyRetries bounds how often a transaction that timed out waiting for
// another process's lock is retried. Each attempt already waited
// BusyTimeout inside SQLite.
const maxBusyRetries = 3

type writeReq struct {
	ctx  context.Context
	fn   func(tx *sqlx.Tx) error
	done chan error
	// indexing marks the indexer's own writes, which must not wake the
	// indexer again.
	indexing bool
	// app, when set, is the append fn makes, which the committer may run
	// together with the other appends of its batch (appendbatch.go).
	app *appendOp
}

// startCommitter starts the goroutine that owns the writer connection.
func (s *Store) startCommitter() {
	s.queue = make(chan writeReq) // unbuffered: see write
	s.stop = make(chan struct{})
	s.stopped = make(chan struct{})
	go s.committer()
}

// write runs fn in a write transaction (possibly shared with other writes,
// each in its own savepoint) and returns once it is committed or failed.
// fn must use only tx: the writer connection is busy with it. A panic in fn
// becomes an error: none escapes the library. Once fn has started, the
// write may commit even if ctx is cancelled; write reports what happened.
func (s *Store) write(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	return s.submit(writeReq{ctx: ctx, fn: fn})
}

// submit hands req to the committer and waits for its outcome.
func (s *Store) submit(req writeReq) error {
	ctx := req.ctx
	if s.closed.Load() {
		return sessiondb.ErrClosed
	}
	req.done = make(chan error, 1)
	// The queue is unbuffered, so a request is either taken by the running
	// committer or refused by Close: it can never be stranded.
	select {
	case s.queue <- req:
	case <-s.stop:
		return sessiondb.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-req.done
}

func (s *Store) committer() {
	defer close(s.stopped)
	for {
		var first writeReq
		select {
		case first = <-s.queue:
		case <-s.stop:
			return
		}
		batch := []writeReq{first}
	drain:
		for len(batch) < maxBatch {
			select {
			case r := <-s.queue:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.commitBatch(batch)
		for _, r := range batch {
			if !r.indexing {
				s.kickIndexer()
				break
			}
		}
	}
}

// commitBatch runs a batch and answers every request in it.
func (s *Store) commitBatch(batch []writeReq) {
	for attempt := 0; ; attempt++ {
		errs, err := s.tryBatch(batch)
		if err == nil {
			for i, r := range batch {
				r.done <- errs[i]
			}
			return
		}
		if isBusy(err) || errors.Is(err, context.Canceled) {
			if wait := lockWaitDone(batch); wait != nil {
				// Every caller stopped waiting (SIGTERM): nothing was
				// written; say so rather than wait out the retries.
				for _, r := range batch {
					r.done <- fmt.Errorf("wait for the write lock: %w: %w", sessiondb.ErrBusy, wait)
				}
				return
			}
		}
		if isBusy(err) && attempt < maxBusyRetries {
			time.Sleep(time.Duration(10+rand.IntN(40)) * time.Millisecond)
			continue
		}
		if len(batch) > 1 {
			for _, r := range batch {
				s.commitBatch([]writeReq{r})
			}
			return
		}
		batch[0].done <- err
		return
	}
}

// tryBatch runs every request of the batch in one transaction. It returns
// each request's own outcome, or a transaction-level error, in which case
// nothing of the batch was committed.
func (s *Store) tryBatch(batch []writeReq) (errs []error, err error) {
	relax := s.opts.Durability == DurabilityFull && indexOnly(batch)
	if err := s.setRelaxed(relax); err != nil {
		return nil, err
	}
	if relax {
		// Back to FULL at once, not only before the next batch: a VACUUM
		// or checkpoint run on the writer outside the committer must not
		// find the connection relaxed. If this fails, the next batch
		// retries it before its BEGIN and fails rather than commit
		// without fsync.
		defer s.setRelaxed(false) //nolint:errcheck // the next batch retries it, see above
	}
	picked := mergedAppends(batch)
	if picked != nil && len(picked) == len(batch) {
		// The merged appends' savepoint and multi-row statements journal
		// every page they change that the transaction had before (about
		// 8 KiB a session and index leaf), which past 64 KiB SQLite spills
		// to a temporary file it creates, writes and deletes per batch
		// (16 appends: +20-25 % on the committer). In memory they cost
		// at most a few pages per append of the batch, so a batch of
		// appends only journals in memory; any other write (a deletion
		// whose journal could be the size of a session) keeps SQLite's
		// spill. As with relax, the setting is undone at once.
		if err := s.setTempInMemory(true); err != nil {
			return nil, err
		}
		defer s.setTempInMemory(false) //nolint:errcheck // the next batch retries it before its BEGIN
	} else if err := s.setTempInMemory(false); err != nil {
		return nil, err
	}
	// The transaction outlives any one request, so it does not take a
	// request's context; statements inside fn use their request's context.
	// Only its BEGIN IMMEDIATE, the wait for another process's write lock
	// (up to BusyTimeout inside SQLite), ends when every request has
	// stopped waiting (sessiondb.LockWait): the driver's busy handler
	// gives up once the context is done. The context must not end once
	// the transaction has begun (database/sql would roll it back), hence
	// the guard.
	bctx, begun, release := beginContext(batch)
	defer release() // after the deferred rollback below: the tx is over
	tx, err := s.writer.BeginTxx(bctx, nil)
	begun()
	if err != nil {
		return nil, translate(err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	errs = make([]error, len(batch))
	ok := 0
	var merged []bool
	if picked != nil {
		ran, err := appendBatch(batch, picked, errs, tx)
		if err != nil {
			return nil, err
		}
		if s.mergedHook != nil {
			s.mergedHook(len(picked), ran)
		}
		if ran {
			merged = make([]bool, len(batch))
			for _, i := range picked {
				if merged[i] = true; errs[i] == nil {
					ok++
				}
			}
		}
	}
	for i, r := range batch {
		if merged != nil && merged[i] {
			continue
		}
		if err := r.ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		if len(batch) == 1 {
			errs[i] = run(r, tx)
			if isBusy(errs[i]) {
				return nil, errs[i] // retried by the caller
			}
		} else if errs[i], err = runInSavepoint(r, tx); err != nil {
			return nil, err
		}
		if errs[i] == nil {
			ok++
		}
	}
	if ok == 0 {
		return errs, nil // nothing to commit; the deferred rollback ends tx
	}
	if err := tx.Commit(); err != nil {
		return nil, translate(err)
	}
	committed = true
	return errs, nil
}

// indexOnly reports whether every request of the batch is the indexer's.
func indexOnly(batch []writeReq) bool {
	for _, r := range batch {
		if !r.indexing {
			return false
		}
	}
	return true
}

// setRelaxed switches the writer connection between the store's
// synchronous level and NORMAL, outside any transaction (SQLite refuses
// the change inside one). Index-only batches commit relaxed: why that
// loses nothing is under "Durability" in doc.go. After a power loss a torn
// WAL tail is cut at the first frame whose checksum fails, never inside a
// durable commit, since the next FULL commit's fsync covers every frame
// before it.
func (s *Store) setRelaxed(relax bool) error {
	return s.switchWriter(&s.relaxed, relax, "synchronous", "NORMAL", "FULL")
}

// setTempInMemory switches the writer connection's temp_store between
// MEMORY and the default (FILE past SQLite's spill threshold), outside any
// transaction: SQLite samples it when a transaction begins, for the
// statement and savepoint journals of that transaction.
func (s *Store) setTempInMemory(mem bool) error {
	return s.switchWriter(&s.tempInMemory, mem, "temp_store", "MEMORY", "DEFAULT")
}

// switchWriter sets pragma on the writer connection to on or off as want
// says, unless *state says it already is, and records it in *state.
func (s *Store) switchWriter(state *bool, want bool, pragma, on, off string) error {
	if *state == want {
		return nil
	}
	level := off
	if want {
		level = on
	}
	if _, err := s.writer.Exec(`PRAGMA ` + pragma + ` = ` + level); err != nil {
		return fmt.Errorf("set %s=%s: %w", pragma, level, translate(err))
	}
	*state = want
	return nil
}

// runInSavepoint runs one request of a shared transaction. A request error
// rolls back to the savepoint; an error that destroyed the savepoint (SQLite
// rolls the whole transaction back on SQLITE_FULL, IOERR, BUSY or NOMEM) is
// returned as the transaction's error.
func runInSavepoint(r writeReq, tx *sqlx.Tx) (reqErr, txErr error) {
	if _, err := tx.Exec(`SAVEPOINT write`); err != nil {
		return nil, translate(err)
	}
	reqErr = run(r, tx)
	if reqErr != nil {
		if _, err := tx.Exec(`ROLLBACK TO write`); err != nil {
			return nil, fmt.Errorf("%w (after: %v)", translate(err), reqErr)
		}
	}
	if _, err := tx.Exec(`RELEASE write`); err != nil {
		return nil, translate(err)
	}
	return reqErr, nil
}

// run calls the request's function, turning a panic into an error.
func run(r writeReq, tx *sqlx.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sqlstore: internal error: %v", p)
		}
	}()
	return translate(r.fn(tx))
}

// lockWaitGrace is how long a write whose callers all stopped waiting
// still waits for the lock: enough to take a free one.
const lockWaitGrace = 100 * time.Millisecond

// beginContext returns a context that is done (lockWaitGrace) after every request of the
// batch has stopped waiting for the lock (sessiondb.LockWait), until begun
// is called: from then on it ends only with release, which the caller
// calls once the transaction is over.
//
// When some request can never stop waiting (its LockWait is never done:
// context.Background(), or DetachWrites of it), the batch waits as long
// as BusyTimeout lets it whatever the others do, so the context is
// context.Background() itself: the driver then watches no context during
// BEGIN and COMMIT (with one that can end, it starts a goroutine and a
// progress handler for each: with the context and the per-request
// callbacks, 21 of the 211 allocations of a DurabilityNormal append by a
// caller whose context cannot end, BenchmarkAppend).
func beginContext(batch []writeReq) (ctx context.Context, begun func(), release context.CancelFunc) {
	if !canStopWaiting(batch) {
		return context.Background(), func() {}, func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	started := false
	left := len(batch)
	stops := make([]func() bool, 0, len(batch))
	for _, r := range batch {
		stops = append(stops, context.AfterFunc(sessiondb.LockWait(r.ctx), func() {
			mu.Lock()
			defer mu.Unlock()
			if left--; left == 0 && !started {
				// Not at once: a write made after its caller stopped
				// (an import flushing what it parsed) still takes a
				// free lock; it only does not wait for a held one.
				time.AfterFunc(lockWaitGrace, func() {
					mu.Lock()
					defer mu.Unlock()
					if !started {
						cancel()
					}
				})
			}
		}))
	}
	return ctx, func() {
		mu.Lock()
		started = true
		mu.Unlock()
		for _, f := range stops {
			f()
		}
	}, cancel
}

// canStopWaiting reports whether every request of the batch can stop
// waiting for the lock (its LockWait can be done): only then can the
// batch's wait end before BusyTimeout.
func canStopWaiting(batch []writeReq) bool {
	for _, r := range batch {
		if sessiondb.LockWait(r.ctx).Done() == nil {
			return false
		}
	}
	return true
}

// lockWaitDone returns the error of a request's lock-wait context when
// every request of the batch has stopped waiting for the lock, else nil.
func lockWaitDone(batch []writeReq) error {
	var err error
	for _, r := range batch {
		e := sessiondb.LockWait(r.ctx).Err()
		if e == nil {
			return nil
		}
		err = e
	}
	return err
}
