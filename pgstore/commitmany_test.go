package pgstore

import (
	"fmt"
	"sync"
	"testing"

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
