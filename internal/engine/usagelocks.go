package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	"github.com/sessiondb/sessiondb"
)

// UsageGroupLocker is the optional Driver part of a database where
// writers run at once (PostgreSQL): LockUsageGroups takes, in the order
// given, a transaction lock on each key, each a hash of one group of the
// usage_quarters rollup.
//
// The rollup's trigger locks a group's row for every usage row it adds or
// removes, in the order the rows are written. Two transactions that add
// calls of two models to the same quarter hour in opposite orders then
// deadlock, which the store retries only after the server's
// deadlock_timeout (1 s by default). So the engine takes the groups a
// write will touch first, in one order (ascending hash), after the
// session rows it locks: every write through the engine then queues on
// the first group it shares with another instead of holding one while it
// waits for the other. SQLite, one writer at a time, has no locker.
//
// What is covered: the calls a commit adds (Commit, CommitMany, every
// write built on ApplyCommit), the calls a commit with ReplaceUsage
// removes, and those of a deleted session. Not covered: the old row of a
// call re-reported under its CallID when its quarter hour or model moved,
// and writers outside the engine (sessioncopy's copy, reprice, a psql
// session); those still take the group locks in their own order, and a
// deadlock among them is retried as before.
type UsageGroupLocker interface {
	LockUsageGroups(ctx context.Context, tx Tx, keys []int32) error
}

// usageGroupKey is the lock key of one usage_quarters group: a 32-bit
// FNV-1a hash of its hour, quarter, provider and model. Two groups with
// the same key share a lock: they queue, no more.
func usageGroupKey(created, provider, model string) int32 {
	hour, quarter := created, 0
	if len(created) >= 16 {
		hour = created[:13]
		if m, err := strconv.Atoi(created[14:16]); err == nil {
			quarter = m / 15
		}
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s", hour, quarter, provider, model)
	return int32(h.Sum32())
}

// usageGroupKeys returns the sorted, distinct keys of the groups that
// commit c of session id writes or removes (the usage it adds, and with
// ReplaceUsage or Delete the session's stored usage); nil when d has no
// UsageGroupLocker.
func usageGroupKeys(ctx context.Context, d Driver, tx Tx, id string, c sessiondb.Commit, now time.Time) ([]int32, error) {
	if _, ok := d.(UsageGroupLocker); !ok {
		return nil, nil
	}
	var keys []int32
	if c.ReplaceUsage || c.Delete {
		stored, err := storedUsageGroupKeys(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		keys = stored
	}
	if !c.Delete {
		for _, u := range c.Usage {
			keys = append(keys, usageGroupKey(FormatTime(OrNow(u.CreatedAt, now)), u.Provider, u.Model))
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil
}

// storedUsageGroupKeys returns the keys of the groups session id's stored
// usage belongs to.
func storedUsageGroupKeys(ctx context.Context, tx Tx, id string) ([]int32, error) {
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT substr(created_at, 1, 16), provider, model FROM usage WHERE session_id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("usage of %s: %w", id, err)
	}
	defer rows.Close()
	var keys []int32
	for rows.Next() {
		var created, provider, model string
		if err := rows.Scan(&created, &provider, &model); err != nil {
			return nil, fmt.Errorf("usage of %s: %w", id, err)
		}
		keys = append(keys, usageGroupKey(created, provider, model))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("usage of %s: %w", id, err)
	}
	return keys, nil
}

// lockUsageGroups locks, through d's UsageGroupLocker, the groups commit
// c of session id touches. The caller has locked the session's row.
func lockUsageGroups(ctx context.Context, d Driver, tx Tx, id string, c sessiondb.Commit, now time.Time) error {
	keys, err := usageGroupKeys(ctx, d, tx, id, c, now)
	if err != nil || len(keys) == 0 {
		return err
	}
	return d.(UsageGroupLocker).LockUsageGroups(ctx, tx, keys)
}

// lockManyUsageGroups is lockUsageGroups for CommitMany's commits at
// once, after their sessions' rows are locked: the union of their groups
// in one order, so that two calls touching the same groups queue.
func lockManyUsageGroups(ctx context.Context, d Driver, tx Tx, commits []sessiondb.SessionCommit) error {
	var all []int32
	for _, sc := range commits {
		keys, err := usageGroupKeys(ctx, d, tx, sc.ID, sc.Commit, OrNow(sc.Commit.Now, time.Now()))
		if err != nil {
			return err
		}
		all = append(all, keys...)
	}
	if len(all) == 0 {
		return nil
	}
	slices.Sort(all)
	return d.(UsageGroupLocker).LockUsageGroups(ctx, tx, slices.Compact(all))
}
