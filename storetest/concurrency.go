package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
)

func concurrencyTests() []testCase {
	return []testCase{
		{name: "Appends32", fn: testConcurrentAppends},
		{name: "ConflictingWriters", fn: testConflictingWriters},
		{name: "SnapshotReads", fn: testSnapshotReads},
		{name: "CreateSameID", fn: testConcurrentCreate},
	}
}

// testConcurrentAppends: 32 goroutines append to 4 sessions at once, 200
// appends each in the long run and 60 in the quick one.
func testConcurrentAppends(t *testing.T, s sessiondb.Store) {
	const (
		goroutines = 32
		sessions   = 4
	)
	appends := longtest.Size(60, 200)
	for i := range sessions {
		mustCreate(t, s, fmt.Sprintf("conc-%d", i))
	}
	type key struct{ g, i int }
	// returned[g][i] is the LastSeq Append returned for (g, i).
	returned := make([][]int64, goroutines)
	var failed atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		returned[g] = make([]int64, appends)
		wg.Go(func() {
			id := fmt.Sprintf("conc-%d", g%sessions)
			for i := range appends {
				r, err := s.Append(t.Context(), id, sessiondb.Entry{Kind: sessiondb.KindCustom, Body: raw(fmt.Sprintf(`{"g":%d,"i":%d}`, g, i))})
				if err != nil {
					if failed.Add(1) <= 5 {
						t.Errorf("goroutine %d append %d: %v", g, i, err)
					}
					continue
				}
				returned[g][i] = r.LastSeq
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d concurrent appends failed", failed.Load(), goroutines*appends)
	}
	per := goroutines / sessions * appends
	for sn := range sessions {
		id := fmt.Sprintf("conc-%d", sn)
		g := mustGet(t, s, id)
		if g.LastSeq != int64(per) {
			t.Errorf("%s: LastSeq %d, want %d", id, g.LastSeq, per)
		}
		log := mustEntries(t, s, id, 0, 0)
		if len(log) != per {
			t.Errorf("%s: %d entries, want %d", id, len(log), per)
		}
		seen := map[key]int64{}
		lastI := map[int]int{}
		for k, e := range log {
			if e.Seq != int64(k+1) {
				t.Fatalf("%s: entry %d has seq %d; seqs are not contiguous from 1", id, k, e.Seq)
			}
			var v struct{ G, I int }
			if err := json.Unmarshal(e.Body, &v); err != nil {
				t.Fatalf("%s: seq %d body %q: %v", id, e.Seq, e.Body, err)
			}
			if v.G%sessions != sn {
				t.Errorf("%s: seq %d holds goroutine %d's entry, which belongs to session %d", id, e.Seq, v.G, v.G%sessions)
			}
			kk := key{v.G, v.I}
			if _, dup := seen[kk]; dup {
				t.Errorf("%s: entry %+v stored twice", id, kk)
			}
			seen[kk] = e.Seq
			if prev, ok := lastI[v.G]; ok && v.I <= prev {
				t.Errorf("%s: goroutine %d's append %d stored after its append %d", id, v.G, v.I, prev)
			}
			lastI[v.G] = v.I
		}
		for gr := sn; gr < goroutines; gr += sessions {
			for i := range appends {
				seq, ok := seen[key{gr, i}]
				if !ok {
					t.Errorf("%s: goroutine %d's append %d is missing", id, gr, i)
					continue
				}
				if returned[gr][i] != seq {
					t.Errorf("%s: Append of (%d, %d) returned LastSeq %d but the entry has seq %d", id, gr, i, returned[gr][i], seq)
				}
			}
		}
		if tr := mustLoad(t, s, id, sessiondb.LoadOptions{}); len(tr) != per {
			t.Errorf("%s: transcript has %d entries, want %d", id, len(tr), per)
		}
	}
}

func testConflictingWriters(t *testing.T, s sessiondb.Store) {
	const rounds = 25
	start := mustCreate(t, s, "race")
	for round := range rounds {
		cur := mustGet(t, s, "race").Sequence
		var (
			wg    sync.WaitGroup
			ready = make(chan struct{})
			errs  [2]error
		)
		for w := range 2 {
			wg.Go(func() {
				<-ready
				_, errs[w] = s.Commit(t.Context(), "race", sessiondb.Commit{
					ExpectSequence: sessiondb.Expect(cur),
					Append:         []sessiondb.Entry{sessiondb.Message(fmt.Sprintf(`{"round":%d,"writer":%d}`, round, w))},
					State:          raw(fmt.Sprintf(`{"writer":%d}`, w)),
				})
			})
		}
		close(ready)
		wg.Wait()
		var won, lost int
		for w, err := range errs {
			if err == nil {
				won++
				continue
			}
			lost++
			var ce *sessiondb.ConflictError
			if !errors.Is(err, sessiondb.ErrConflict) || !errors.As(err, &ce) {
				t.Fatalf("round %d writer %d: %v, want a *ConflictError", round, w, err)
			}
			if ce.Current != cur+1 || ce.Expected != cur {
				t.Errorf("round %d: ConflictError Expected %d Current %d, want %d and %d", round, ce.Expected, ce.Current, cur, cur+1)
			}
		}
		if won != 1 || lost != 1 {
			t.Fatalf("round %d: %d writers won, %d lost; want exactly one each", round, won, lost)
		}
		// The state is the winner's.
		winner := 0
		if errs[0] != nil {
			winner = 1
		}
		wantJSON(t, mustState(t, s, "race"), fmt.Sprintf(`{"writer":%d}`, winner), fmt.Sprintf("state after round %d", round))
	}
	g := mustGet(t, s, "race")
	if g.LastSeq != rounds || g.Sequence != start.Sequence+rounds {
		t.Errorf("after %d rounds: LastSeq %d Sequence %d, want %d and %d", rounds, g.LastSeq, g.Sequence, rounds, start.Sequence+rounds)
	}
}

// snapState is the state document of testSnapshotReads: it names the
// revision and the transcript it was saved with.
type snapState struct {
	Seq int64 `json:"seq"`
	Rev int   `json:"rev"`
	Len int   `json:"len"`
}

func testSnapshotReads(t *testing.T, s sessiondb.Store) {
	const revs = 40
	var (
		done    atomic.Bool
		reads   atomic.Int64
		wg      sync.WaitGroup
		cur     int64
		errOnce sync.Once
	)
	save := func(rev int) {
		n := rev%7 + 1
		var es []sessiondb.Entry
		for j := range n {
			es = append(es, sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"rev %d msg %d"}`, rev, j)))
		}
		st, _ := json.Marshal(snapState{Seq: cur + 1, Rev: rev, Len: n})
		if cur == 0 {
			st, _ = json.Marshal(snapState{Seq: -1, Rev: rev, Len: n})
		}
		r, err := s.SaveFull(t.Context(), sessiondb.Session{ID: "snap", Sequence: cur, Title: fmt.Sprint(rev)}, es, st)
		if err != nil {
			t.Fatalf("SaveFull rev %d: %v", rev, err)
		}
		if cur != 0 && r.Sequence != cur+1 {
			t.Fatalf("SaveFull rev %d: Sequence %d, want %d", rev, r.Sequence, cur+1)
		}
		cur = r.Sequence
	}
	save(0)
	for range 2 {
		wg.Go(func() {
			for !done.Load() {
				f, err := s.LoadFull(t.Context(), "snap", sessiondb.LoadOptions{})
				if err != nil {
					errOnce.Do(func() { t.Errorf("LoadFull: %v", err) })
					return
				}
				reads.Add(1)
				var st snapState
				if err := json.Unmarshal(f.State, &st); err != nil {
					errOnce.Do(func() { t.Errorf("state %q: %v", f.State, err) })
					return
				}
				bad := len(f.Transcript) != st.Len || (st.Seq != -1 && st.Seq != f.Session.Sequence) || f.Session.Title != fmt.Sprint(st.Rev)
				for _, e := range f.Transcript {
					if !strings.Contains(string(e.Body), fmt.Sprintf(`"rev %d msg`, st.Rev)) {
						bad = true
					}
				}
				if bad {
					errOnce.Do(func() {
						t.Errorf("LoadFull is not one snapshot: state %s, Sequence %d, title %q, transcript %v",
							f.State, f.Session.Sequence, f.Session.Title, bodiesOf(f.Transcript))
					})
					return
				}
			}
		})
	}
	for rev := 1; rev <= revs; rev++ {
		save(rev)
	}
	done.Store(true)
	wg.Wait()
	if reads.Load() == 0 {
		t.Errorf("readers made no read")
	}
	t.Logf("%d consistent LoadFull snapshots during %d SaveFulls", reads.Load(), revs)
}

func testConcurrentCreate(t *testing.T, s sessiondb.Store) {
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	ready := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-ready
			_, errs[i] = s.Create(t.Context(), sessiondb.Session{ID: "once", Title: fmt.Sprint(i), Aliases: []string{fmt.Sprintf("alias-%d", i)}})
		})
	}
	close(ready)
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil:
			if won >= 0 {
				t.Errorf("Create of the same ID succeeded twice (%d and %d)", won, i)
			}
			won = i
		case !errors.Is(err, sessiondb.ErrExists):
			t.Errorf("concurrent Create %d: %v, want ErrExists", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no concurrent Create succeeded")
	}
	g := mustGet(t, s, "once")
	if g.Title != fmt.Sprint(won) || len(g.Aliases) != 1 || g.Aliases[0] != fmt.Sprintf("alias-%d", won) {
		t.Errorf("session = title %q aliases %v, want the winner's (%d)", g.Title, g.Aliases, won)
	}
	for i := range n {
		if i == won {
			continue
		}
		_, err := s.Resolve(t.Context(), fmt.Sprintf("alias-%d", i))
		wantErr(t, err, sessiondb.ErrNotFound, "alias of a losing Create")
	}
}
