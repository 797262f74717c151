package pgstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/sessiondb/sessiondb"
)

// CommitMany implements sessiondb.Store: the commits in order, in one
// transaction. The existing sessions' rows are locked first, in ID order,
// so that two CommitMany calls over the same sessions in different orders
// queue instead of deadlocking (a deadlock would still be retried, but
// only after PostgreSQL's deadlock_timeout).
func (s *Store) CommitMany(ctx context.Context, commits []sessiondb.SessionCommit) ([]sessiondb.Session, error) {
	if err := sessiondb.ValidateCommitMany(commits); err != nil {
		return nil, fmt.Errorf("commit many: %w", err)
	}
	ids := make([]string, 0, len(commits))
	for _, sc := range commits {
		ids = append(ids, sc.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]sessiondb.Session, len(commits))
	err := s.write(ctx, func(tx *ptx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `SELECT 1 FROM sessions WHERE id = ? FOR UPDATE`, id); err != nil {
				return err
			}
		}
		for i, sc := range commits {
			sess, err := s.applyCommit(ctx, tx, sc.ID, sc.Commit)
			if err != nil {
				return fmt.Errorf("commit many: session %q (commit %d): %w", sc.ID, i, err)
			}
			out[i] = sess
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
