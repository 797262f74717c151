package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// Appends, merged.
//
// An append-only commit (engine.AppendOnly: an agent's turn, its state and
// usage) is a write request of its own, which carries what it appends
// (appendOp) besides its function. The committer runs the appends of a
// batch to different sessions together (appendBatch): one UPDATE …
// RETURNING bumps every session's counters and reads the rows back, one
// multi-row INSERT writes every entry, inside one savepoint, instead of a
// savepoint, an UPDATE and an INSERT per append. A session that is absent
// or not at its ExpectSequence is simply not updated by the UPDATE, and
// its append alone fails, having written nothing. If any statement of the
// merged appends fails (a constraint an external writer broke, a full
// disk), the savepoint is rolled back and each append runs again in its
// own savepoint, so that one bad write still fails alone.

// appendOp is an append-only commit submitted to the committer, rows being
// c.Append described (engine.DescribeAll).
type appendOp struct {
	id   string
	c    sessiondb.Commit
	rows []engine.Row
	// out is the session after the commit, set when it succeeded.
	out sessiondb.Session
}

// WriteAppend implements engine.Appender.
func (d engineDriver) WriteAppend(ctx context.Context, id string, c sessiondb.Commit, rows []engine.Row) (sessiondb.Session, error) {
	op := &appendOp{id: id, c: c, rows: rows}
	err := d.s.submit(writeReq{ctx: ctx, app: op, fn: func(tx *sqlx.Tx) error {
		errs, err := appendMany(ctx, tx, []*appendOp{op})
		if err != nil {
			return err
		}
		return errs[0]
	}})
	if err != nil {
		return sessiondb.Session{}, err
	}
	return op.out, nil
}

// returningColumns is sessionColumns for a RETURNING clause, which cannot
// use the table alias s: the table's own name qualifies the columns.
var returningColumns = strings.ReplaceAll(sessionColumns, "s.", "sessions.")

// appendMany applies append-only commits to distinct sessions: one UPDATE
// … RETURNING of every session row (its counters, its preview, and the
// row id the first new entry takes, nextEntryID: no statement of its
// own), then the INSERTs of every entry, then each commit's documents and
// usage. errs[i] is ops[i]'s own failure (the session is absent or not at
// the expected sequence), for which nothing was written; err is a
// statement's failure, after which the caller must roll back whatever the
// call wrote. ops[i].out is set for each op that succeeded.
func appendMany(ctx context.Context, tx *sqlx.Tx, ops []*appendOp) (errs []error, err error) {
	clock := time.Now()
	nows := make([]time.Time, len(ops))
	args := make([]any, 0, 6*len(ops))
	for i, op := range ops {
		nows[i] = engine.OrNow(op.c.Now, clock)
		var expect any
		if op.c.ExpectSequence != nil {
			expect = *op.c.ExpectSequence
		}
		// A user message appended gives a session without a preview its
		// preview (engine.AppendPreview): coalesce keeps one it has.
		args = append(args, op.id, len(op.rows), engine.CountMessages(op.rows), engine.FormatTime(nows[i]), expect,
			engine.AppendPreview(op.rows))
	}
	updated, next, err := updateSessions(ctx, tx, updateQueryOf(len(ops)), args, len(ops))
	if err != nil {
		return nil, err
	}
	errs = make([]error, len(ops))
	runs := make([]engine.EntryRun, 0, len(ops))
	for i, op := range ops {
		sess, ok := updated[op.id]
		if !ok {
			if errs[i], err = notUpdated(ctx, tx, op); err != nil {
				return nil, err
			}
			continue
		}
		op.out = sess
		runs = append(runs, engine.EntryRun{ID: op.id, LastSeq: sess.LastSeq - int64(len(op.rows)), Rows: op.rows, Now: nows[i]})
	}
	for _, in := range engine.EntryInsertsOf(runs, next, dialect.EntryText) {
		if _, err := tx.ExecContext(ctx, in.Query, in.Args...); err != nil {
			if len(runs) == 1 {
				return nil, fmt.Errorf("append entries %d-%d to %s: %w", in.First, in.Last, runs[0].ID, err)
			}
			return nil, fmt.Errorf("append entries to %d sessions: %w", len(runs), err)
		}
	}
	for i, op := range ops {
		if errs[i] != nil {
			continue
		}
		c := op.c
		if err := engine.PutDoc(ctx, tx, "states", op.id, c.State, c.ClearState, nows[i]); err != nil {
			return nil, err
		}
		if err := engine.PutDoc(ctx, tx, "interrupts", op.id, c.Interrupt, c.ClearInterrupt, nows[i]); err != nil {
			return nil, err
		}
		if err := engine.InsertUsages(ctx, tx, op.id, op.out.LastSeq, c.Usage, nows[i]); err != nil {
			return nil, err
		}
	}
	return errs, nil
}

// updateQueries holds updateQuery(n) for each batch size n, built on its
// first use: a process that never appends (a one-shot search) builds none.
var updateQueries [maxBatch + 1]struct {
	once sync.Once
	q    string
}

// updateQueryOf returns updateQuery(n), built once per n (1 ≤ n ≤ maxBatch).
func updateQueryOf(n int) string {
	u := &updateQueries[n]
	u.once.Do(func() { u.q = updateQuery(n) })
	return u.q
}

// updateQuery is appendMany's UPDATE … RETURNING of n sessions, whose
// arguments are (id, entries, messages, time, expected sequence or NULL,
// preview or NULL) for each. One session's is a plain UPDATE: the join
// with a VALUES list costs a single append about 10 % of its time.
func updateQuery(n int) string {
	const set = `sequence = sequence + 1, last_seq = last_seq + %[2]s,
		entry_count = entry_count + %[2]s, message_count = message_count + %[3]s, updated_at = %[4]s,
		preview = coalesce(sessions.preview, %[6]s)`
	const returning = ` RETURNING ` + "%[7]s" + `, (` + nextEntryID + `)`
	if n == 1 {
		return fmt.Sprintf(`UPDATE sessions SET `+set+` WHERE id = %[1]s AND (%[5]s IS NULL OR sequence = %[5]s)`+returning,
			"?1", "?2", "?3", "?4", "?5", "?6", returningColumns)
	}
	var q strings.Builder
	q.WriteString(`WITH v (id, n, m, now, expect, preview) AS (VALUES (?, ?, ?, ?, ?, ?)`)
	q.WriteString(strings.Repeat(`, (?, ?, ?, ?, ?, ?)`, n-1))
	fmt.Fprintf(&q, `) UPDATE sessions SET `+set+` FROM v
		WHERE sessions.id = %[1]s AND (%[5]s IS NULL OR sessions.sequence = %[5]s)`+returning,
		"v.id", "v.n", "v.m", "v.now", "v.expect", "v.preview", returningColumns)
	return q.String()
}

// updateSessions runs appendMany's UPDATE … RETURNING and returns the
// sessions it updated by id, and the row id of the first new entry.
func updateSessions(ctx context.Context, tx *sqlx.Tx, query string, args []any, n int) (map[string]sessiondb.Session, int64, error) {
	rows, err := tx.QueryxContext(ctx, query, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	updated := make(map[string]sessiondb.Session, n)
	var next int64
	for rows.Next() {
		var r engine.SessionRow
		if err := rows.Scan(append(r.Fields(), &next)...); err != nil {
			return nil, 0, err
		}
		updated[r.ID] = r.Session()
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return updated, next, rows.Close()
}

// notUpdated says why appendMany's UPDATE left op's session alone: it is
// absent (ErrNotFound) or not at the expected sequence (ConflictError).
func notUpdated(ctx context.Context, tx *sqlx.Tx, op *appendOp) (opErr, err error) {
	sess, err := getSession(ctx, tx, op.id)
	if errors.Is(err, sessiondb.ErrNotFound) {
		return err, nil
	}
	if err != nil {
		return nil, err
	}
	if op.c.ExpectSequence == nil {
		return nil, fmt.Errorf("append to %s: the session row did not update", op.id)
	}
	return &sessiondb.ConflictError{SessionID: op.id, Expected: *op.c.ExpectSequence, Current: sess.Sequence}, nil
}

// mergedAppends picks the requests of batch that tryBatch runs together
// (appendBatch): the appends whose caller still waits, one per session
// (two appends to one session in a batch cannot share its UPDATE; the
// later runs alone). It returns nil when fewer than two qualify.
func mergedAppends(batch []writeReq) []int {
	if len(batch) < 2 {
		return nil
	}
	var picked []int
	seen := make(map[string]bool, len(batch))
	for i, r := range batch {
		if r.app == nil || seen[r.app.id] || r.ctx.Err() != nil {
			continue
		}
		seen[r.app.id] = true
		picked = append(picked, i)
	}
	if len(picked) < 2 {
		return nil
	}
	return picked
}

// appendBatch runs the requests picked (mergedAppends) in one savepoint
// with appendMany and sets each one's outcome in errs. ran reports whether
// they ran: false when the merged statements failed and were rolled back,
// in which case each request must run on its own. err is a failure that
// ended the transaction.
func appendBatch(batch []writeReq, picked []int, errs []error, tx *sqlx.Tx) (ran bool, err error) {
	ops := make([]*appendOp, len(picked))
	for k, i := range picked {
		ops[k] = batch[i].app
	}
	if _, err := tx.Exec(`SAVEPOINT appends`); err != nil {
		return false, translate(err)
	}
	// The statements run for several callers, so under none's context; each
	// caller's was checked when the batch was picked.
	opErrs, mergedErr := appendManySafe(tx, ops)
	if mergedErr != nil {
		if _, err := tx.Exec(`ROLLBACK TO appends`); err != nil {
			return false, fmt.Errorf("%w (after: %v)", translate(err), mergedErr)
		}
	}
	if _, err := tx.Exec(`RELEASE appends`); err != nil {
		return false, translate(err)
	}
	if mergedErr != nil {
		return false, nil
	}
	for k, i := range picked {
		errs[i] = opErrs[k]
	}
	return true, nil
}

// appendManySafe is appendMany under context.Background() with a panic
// turned into an error.
func appendManySafe(tx *sqlx.Tx, ops []*appendOp) (errs []error, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sqlstore: internal error: %v", p)
		}
	}()
	errs, err = appendMany(context.Background(), tx, ops)
	return errs, translate(err)
}
