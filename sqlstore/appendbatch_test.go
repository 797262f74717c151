package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// queueAppends holds the committer in a write of its own until every
// append of run has been handed to it (each run in its goroutine, which
// blocks in submit), so that the appends share the committer's next batch.
// It returns once every append has returned.
func queueAppends(t *testing.T, s *Store, runs []func()) {
	t.Helper()
	started, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- s.write(context.Background(), func(*sqlx.Tx) error {
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	var wg sync.WaitGroup
	for _, run := range runs {
		wg.Add(1)
		go func() { defer wg.Done(); run() }()
	}
	// The queue is unbuffered: an append is queued once its goroutine is
	// parked in submit. Nothing observable says so; 300 ms is ample for a
	// few dozen goroutines, and a test that merged fewer fails below
	// (mergedHook) rather than passing by luck.
	time.Sleep(300 * time.Millisecond)
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}

// TestMergedAppendsFailAlone runs appends to many sessions in one batch,
// so that the committer merges them (appendbatch.go), among them appends
// that must fail: to a session that does not exist, at a stale
// ExpectSequence, and to a session whose next seq is taken (an external
// writer lowered its last_seq, so its INSERT breaks UNIQUE (session_id,
// seq) and the merged statements are rolled back). Every good append must
// land with its state and usage, every bad one must fail with its own
// error and leave no trace.
func TestMergedAppendsFailAlone(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mu sync.Mutex
	type merge struct {
		n   int
		ran bool
	}
	var merges []merge
	s.mergedHook = func(n int, ran bool) {
		mu.Lock()
		defer mu.Unlock()
		merges = append(merges, merge{n, ran})
	}
	const good = 12
	created := map[string]int64{}
	for i := range good {
		sess, err := s.Create(ctx, sessiondb.Session{ID: fmt.Sprintf("s%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		created[sess.ID] = sess.Sequence
	}
	for _, id := range []string{"stale", "broken"} {
		if _, err := s.Create(ctx, sessiondb.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, id, sessiondb.Message(`{"role":"user","content":"first"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.write(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`UPDATE sessions SET last_seq = 0 WHERE id = 'broken'`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	before := map[string]sessiondb.Session{}
	for _, id := range []string{"stale", "broken"} {
		before[id], _ = s.Get(ctx, id)
	}

	for round, breakOne := range []bool{false, true} {
		mu.Lock()
		merges = nil
		mu.Unlock()
		errs := make([]error, good+4)
		outs := make([]sessiondb.Session, good+4)
		var runs []func()
		for i := range good {
			runs = append(runs, func() {
				c := sessiondb.Commit{Append: []sessiondb.Entry{
					sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"r%d s%d a"}`, round, i)),
					sessiondb.Message(fmt.Sprintf(`{"role":"assistant","content":"r%d s%d b"}`, round, i)),
				}}
				if i%3 == 0 {
					c.State = []byte(fmt.Sprintf(`{"round":%d}`, round))
					c.Usage = []sessiondb.Usage{{Provider: "p", Model: "m", InputTokens: 10, OutputTokens: int64(i)}}
				}
				outs[i], errs[i] = s.Commit(ctx, fmt.Sprintf("s%d", i), c)
			})
		}
		runs = append(runs,
			func() {
				_, errs[good] = s.Append(ctx, "missing", sessiondb.Message(`{"content":"x"}`))
			},
			func() {
				_, errs[good+1] = s.Commit(ctx, "stale", sessiondb.Commit{ExpectSequence: sessiondb.Expect(before["stale"].Sequence - 1),
					Append: []sessiondb.Entry{sessiondb.Message(`{"content":"stale"}`)}})
			},
			// A second append to s0 in the same batch: it cannot share s0's
			// UPDATE, so it runs alone after the merged ones.
			func() {
				outs[good+2], errs[good+2] = s.Append(ctx, "s0", sessiondb.Message(fmt.Sprintf(`{"content":"r%d again"}`, round)))
			})
		if breakOne {
			runs = append(runs, func() {
				_, errs[good+3] = s.Append(ctx, "broken", sessiondb.Message(`{"content":"collides"}`))
			})
		}
		queueAppends(t, s, runs)

		for i := range good {
			if errs[i] != nil {
				t.Fatalf("round %d: good append to s%d: %v", round, i, errs[i])
			}
		}
		if !errors.Is(errs[good], sessiondb.ErrNotFound) {
			t.Errorf("round %d: append to a missing session: %v, want ErrNotFound", round, errs[good])
		}
		if !errors.Is(errs[good+1], sessiondb.ErrConflict) {
			t.Errorf("round %d: append at a stale sequence: %v, want ErrConflict", round, errs[good+1])
		}
		if errs[good+2] != nil {
			t.Errorf("round %d: second append to s0: %v", round, errs[good+2])
		}
		if breakOne && errs[good+3] == nil {
			t.Errorf("round %d: the append whose seq is taken succeeded", round)
		}
		mu.Lock()
		got := merges
		mu.Unlock()
		// The merge that mattered: the appends to the 12 good sessions, the
		// missing one and the stale one (and the broken one) in one batch.
		want := merge{good + 2, true}
		if breakOne {
			want = merge{good + 3, false}
		}
		if len(got) == 0 || got[0] != want {
			t.Fatalf("round %d: merged batches %v, want the first to be %v", round, got, want)
		}
	}

	// What the two rounds left: every good append, in order, its session's
	// counters, preview and documents; nothing of the bad ones.
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	previews := map[string]string{}
	for _, info := range list {
		previews[info.ID] = info.Preview
	}
	for i := range good {
		id := fmt.Sprintf("s%d", i)
		sess, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(4)
		if i == 0 {
			n = 6
		}
		commits := int64(2)
		if i == 0 {
			commits = 4
		}
		if sess.LastSeq != n || sess.EntryCount != n || sess.Sequence != created[id]+commits {
			t.Errorf("%s: LastSeq %d EntryCount %d Sequence %d, want %d, %d, %d", id, sess.LastSeq, sess.EntryCount,
				sess.Sequence, n, n, created[id]+commits)
		}
		entries, err := s.Entries(ctx, id, 0, 0)
		if err != nil || int64(len(entries)) != n {
			t.Fatalf("%s: %d entries, %v", id, len(entries), err)
		}
		for k, e := range entries {
			if e.Seq != int64(k+1) {
				t.Fatalf("%s: entry %d has seq %d", id, k, e.Seq)
			}
		}
		if want := fmt.Sprintf("r0 s%d a", i); previews[id] != want {
			t.Errorf("%s: preview %q, want %q", id, previews[id], want)
		}
		state, err := s.LoadState(ctx, id)
		switch {
		case i%3 == 0 && string(state) != `{"round":1}`:
			t.Errorf("%s: state %s, %v", id, state, err)
		case i%3 != 0 && state != nil:
			t.Errorf("%s: state %s, want none", id, state)
		}
		tot, err := s.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int64{true: 2, false: 0}[i%3 == 0]; tot.Calls != want {
			t.Errorf("%s: %d usage calls, want %d", id, tot.Calls, want)
		}
	}
	for _, id := range []string{"stale", "broken"} {
		sess, _ := s.Get(ctx, id)
		if sess.Sequence != before[id].Sequence || sess.LastSeq != before[id].LastSeq || sess.EntryCount != 1 {
			t.Errorf("%s changed: %+v, before %+v", id, sess, before[id])
		}
	}
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("missing session: %v", err)
	}
}
