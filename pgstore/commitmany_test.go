package pgstore

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// TestCommitManyCreatesInOppositeOrders: pairs of CommitMany calls create
// the same two missing sessions (CreateIfMissing) in opposite orders, at
// once. Both succeed, each session holds both writes, and no call had to
// be run again: the creates are ordered by ID like the row locks, so the
// two transactions queue instead of deadlocking (a deadlock would be
// retried, but only after the server's deadlock_timeout).
func TestCommitManyCreatesInOppositeOrders(t *testing.T) {
	s := MustOpenStore(t, nil)
	ctx := t.Context()
	const rounds = 20
	for r := range rounds {
		x, y := fmt.Sprintf("x-%d", r), fmt.Sprintf("y-%d", r)
		commit := func(id string, n int) sessiondb.SessionCommit {
			return sessiondb.SessionCommit{ID: id, Commit: sessiondb.Commit{
				CreateIfMissing: &sessiondb.Session{},
				Append:          []sessiondb.Entry{sessiondb.Message(fmt.Sprintf(`{"n":%d}`, n))},
			}}
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		wg.Go(func() {
			<-start
			_, errs[0] = s.CommitMany(ctx, []sessiondb.SessionCommit{commit(x, 0), commit(y, 0)})
		})
		wg.Go(func() {
			<-start
			_, errs[1] = s.CommitMany(ctx, []sessiondb.SessionCommit{commit(y, 1), commit(x, 1)})
		})
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, call %d: %v", r, i, err)
			}
		}
		for _, id := range []string{x, y} {
			g, err := s.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if g.LastSeq != 2 || g.Sequence != 2 {
				t.Fatalf("%s: LastSeq %d, Sequence %d; want 2, 2 (one create, two writes)", id, g.LastSeq, g.Sequence)
			}
		}
	}
	if n := s.retries.Load(); n != 0 {
		t.Fatalf("%d transactions were run again (deadlocks between the creates)", n)
	}
}

// TestUsageGroupsInOppositeOrders: pairs of commits to two sessions add
// calls of the same 24 models in one quarter hour, one in the models'
// order and one in reverse, at once. The rollup's trigger locks a group
// per call, so without the engine's group locks (engine.UsageGroupLocker)
// the pairs deadlocked and one of each was run again after the server's
// deadlock_timeout; with them they queue. So does a session's delete,
// whose cascade takes its calls out of the same groups. Every call
// succeeds, the rollup counts every call, and no transaction was run
// again.
func TestUsageGroupsInOppositeOrders(t *testing.T) {
	s := MustOpenStore(t, nil)
	ctx := t.Context()
	const rounds, models = 6, 24
	at := time.Date(2026, 12, 7, 10, 20, 0, 0, time.UTC)
	calls := func(reverse bool) []sessiondb.Usage {
		us := make([]sessiondb.Usage, models)
		for i := range us {
			m := i
			if reverse {
				m = models - 1 - i
			}
			us[i] = sessiondb.Usage{Provider: "p", Model: fmt.Sprintf("model-%02d", m), InputTokens: 1, CreatedAt: at}
		}
		return us
	}
	for _, id := range []string{"x", "y"} {
		if _, err := s.Create(ctx, sessiondb.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	for r := range rounds {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, id := range []string{"x", "y"} {
			wg.Go(func() {
				<-start
				_, errs[i] = s.Commit(ctx, id, sessiondb.Commit{Usage: calls(i == 1)})
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, commit %d: %v", r, i, err)
			}
		}
	}
	// A deleted session's calls leave the groups through the cascade, in
	// the ledger's order: its delete queues like a commit.
	for r := range rounds {
		z := fmt.Sprintf("z-%d", r)
		if _, err := s.Commit(ctx, z, sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, Usage: calls(false)}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		wg.Go(func() { <-start; errs[0] = s.Delete(ctx, z) })
		wg.Go(func() { <-start; _, errs[1] = s.Commit(ctx, "y", sessiondb.Commit{Usage: calls(true)}) })
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("delete round %d, call %d: %v", r, i, err)
			}
		}
	}
	var groups, total int64
	if err := s.db.QueryRowContext(ctx, `SELECT count(*), sum(calls) FROM usage_quarters`).Scan(&groups, &total); err != nil {
		t.Fatal(err)
	}
	if groups != models || total != 3*rounds*models {
		t.Fatalf("rollup: %d groups, %d calls; want %d, %d", groups, total, models, 3*rounds*models)
	}
	if n := s.retries.Load(); n != 0 {
		t.Fatalf("%d transactions were run again (deadlocks on the rollup's groups)", n)
	}
}
