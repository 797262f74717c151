package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// FinishCommit ends a commit: one statement bumps the counters and
// returns the session as committed (aliases and the kept counts included,
// as this transaction left them). The last (often the only) INSERT of
// entries, which InsertEntries held back, rides along in a WITH: an append
// is then three round trips inside BEGIN … COMMIT (lock, insert+update),
// which is what lets many writers share the CPU.
func (d engineDriver) FinishCommit(ctx context.Context, etx engine.Tx, id string, sess sessiondb.Session, f engine.Finish) (sessiondb.Session, error) {
	tx := etx.(*ptx)
	if !f.Changed {
		// Nothing to record: no Sequence bump, no row written. The row
		// is read again (after the lock, so as committed) for its
		// aliases.
		return getSession(ctx, tx, id)
	}
	set := engine.PreviewSQL(f)
	q := `UPDATE sessions AS s SET sequence = s.sequence + 1, last_seq = ?, message_count = ?, entry_count = ?,
		updated_at = ?` + set + ` WHERE s.id = ? RETURNING ` + sessionColumns
	args := []any{f.LastSeq, f.MessageCount, f.EntryCount, engine.FormatTime(f.UpdatedAt)}
	if set != "" {
		args = append(args, f.Preview)
	}
	args = append(args, id)
	pendQ, pendArgs := tx.pendQ, tx.pendArgs
	tx.pendQ, tx.pendArgs = "", nil
	if pendQ != "" {
		q = `WITH appended AS (` + pendQ + `) ` + q
		args = append(pendArgs, args...)
	}
	var r engine.SessionRow
	if err := tx.GetContext(ctx, &r, q, args...); err != nil {
		if pendQ != "" {
			return sessiondb.Session{}, fmt.Errorf("append entries to %s: %w", id, err)
		}
		return sessiondb.Session{}, err
	}
	return r.Session(), nil
}

// InsertEntries appends described entries after lastSeq with multi-row
// INSERTs (engine.EntryInserts, one round trip each) and returns the new
// LastSeq. The last INSERT is not run but held in the transaction
// (ptx.pendQ), for FinishCommit to run with the statement that ends the
// commit.
func (d engineDriver) InsertEntries(ctx context.Context, etx engine.Tx, id string, lastSeq int64, rows []engine.Row, now time.Time) (int64, error) {
	tx := etx.(*ptx)
	ins := engine.EntryInserts(id, lastSeq, 0, backend.TextStore{}, rows, now)
	if len(ins) == 0 {
		return lastSeq, nil
	}
	for _, in := range ins[:len(ins)-1] {
		if _, err := tx.ExecContext(ctx, in.Query, in.Args...); err != nil {
			return 0, fmt.Errorf("append entries %d-%d to %s: %w", in.First, in.Last, id, err)
		}
	}
	last := ins[len(ins)-1]
	tx.pendQ, tx.pendArgs = last.Query, last.Args
	return last.Last, nil
}

// describe fills the derived columns of an entry.
func (s *Store) describe(e sessiondb.Entry) (kind, role, text string) {
	kind = backend.EntryKind(e)
	role, text = s.extract(kind, e.Body)
	if e.Role != "" {
		role = e.Role
	}
	return kind, role, noNUL(text)
}

// noNUL makes derived text (an entry's plain text) storable by
// repair (backend.CleanText): U+0000, bytes that are not UTF-8 and a
// leading backend.TextMarker become U+FFFD, so the searched columns never
// hold an escaped value. Bodies and every other column keep their exact
// bytes through escapedText instead.
func noNUL(s string) string { return backend.CleanText(s) }
