package pgstore

import (
	"context"
	"slices"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// LockCommits prepares CommitMany: the existing sessions' rows are
// locked first, in ID order, so that two CommitMany calls over the same
// sessions in different orders queue instead of deadlocking (a deadlock
// would still be retried, but only after PostgreSQL's deadlock_timeout). A
// session a commit may create (Create, CreateIfMissing) has no row to lock
// yet: its place in that order is a transaction advisory lock on its ID
// (createLockClass), so two calls creating the same sessions in different
// orders queue too, instead of deadlocking on each other's uncommitted
// inserts.
func (d engineDriver) LockCommits(ctx context.Context, tx engine.Tx, commits []sessiondb.SessionCommit) error {
	ids := make([]string, 0, len(commits))
	for _, sc := range commits {
		ids = append(ids, sc.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	creates := map[string]bool{}
	for _, sc := range commits {
		if sc.Commit.Create != nil || sc.Commit.CreateIfMissing != nil {
			creates[sc.ID] = true
		}
	}
	for _, id := range ids {
		if creates[id] {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?, hashtext(?))`, createLockClass, id); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM sessions WHERE id = ? FOR UPDATE`, id); err != nil {
			return err
		}
	}
	return nil
}

// createLockClass is the first key of the advisory locks CommitMany takes
// on the IDs it may create ("SDBC"; the second key is hashtext of the
// ID). The two-key space is apart from the one-key lock of migrations.
// Two IDs with the same hash only share a lock: they queue, no more.
const createLockClass = 0x53444243

// LockUsageGroups implements engine.UsageGroupLocker: a transaction
// advisory lock on each key, in the order given (the engine sorts them).
// Transaction advisory locks are re-entrant, so a group locked again by
// a later statement of the same transaction costs a round trip, no wait.
func (d engineDriver) LockUsageGroups(ctx context.Context, tx engine.Tx, keys []int32) error {
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?, ?)`, usageGroupLockClass, k); err != nil {
			return err
		}
	}
	return nil
}

// usageGroupLockClass is the first key of the advisory locks on the
// usage_quarters groups ("SDBQ"), beside createLockClass.
const usageGroupLockClass = 0x53444251

var _ engine.UsageGroupLocker = engineDriver{}
