package storetest

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// ReadCostSizes are the session lengths BenchReadCost measures by default.
// $SESSIONDB_BENCH_READ_SIZES (comma-separated entry counts, for example
// "10,10000,100000,1000000") replaces them.
var ReadCostSizes = []int{10, 10_000, 100_000}

// BenchReadCost measures what a read costs as the session grows: for each
// size, a fresh store (newStore) holding one session of that many log
// entries (one in ten a bookkeeping kind, the rest messages; compacted
// once, halfway, with a summary message) and nine sessions of ten entries.
// Each iteration calls, back to back on the long session, Load{LastN: 50}
// (the reference: its cost does not depend on the session's length),
// Get, LoadFull{LastN: 50}, List{Limit: 10} and a PromoteHistory from it
// to a short session with nothing to move, and the sub-benchmark
// reports the median of each (µs) and its ratio to Load's median in the
// same run. A read whose ratio stays flat from 10 entries to 1,000,000
// costs the same on any session; one that grows counts the log.
//
// It reports numbers and asserts only what the reads return (the counts,
// the transcript's length), never a timing.
func BenchReadCost(b *testing.B, newStore func(tb testing.TB) sessiondb.Store) {
	sizes := ReadCostSizes
	if env := os.Getenv("SESSIONDB_BENCH_READ_SIZES"); env != "" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("SESSIONDB_BENCH_READ_SIZES: %q is not a positive number", f)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := newStore(b)
			ctx := b.Context()
			want := fillReadCost(b, s, n)
			wantTail := min(50, 1+n-n/2) // the summary message, then the second half
			var load, get, full, list, promote []time.Duration
			for b.Loop() {
				t0 := time.Now()
				tail, err := s.Load(ctx, "long", sessiondb.LoadOptions{LastN: 50})
				t1 := time.Now()
				if err != nil || len(tail) != wantTail {
					b.Fatalf("Load: %d entries, %v", len(tail), err)
				}
				g, err := s.Get(ctx, "long")
				t2 := time.Now()
				if err != nil || g.LastSeq != want.LastSeq {
					b.Fatalf("Get: %+v, %v", g, err)
				}
				f, err := s.LoadFull(ctx, "long", sessiondb.LoadOptions{LastN: 50})
				t3 := time.Now()
				if err != nil || len(f.Transcript) != len(tail) || f.Session.MessageCount != g.MessageCount || f.Session.EntryCount != g.EntryCount {
					b.Fatalf("LoadFull: %d entries, counts %d/%d (Get %d/%d), %v", len(f.Transcript),
						f.Session.MessageCount, f.Session.EntryCount, g.MessageCount, g.EntryCount, err)
				}
				infos, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 10})
				t4 := time.Now()
				if err != nil || len(infos) != 10 {
					b.Fatalf("List: %d sessions, %v", len(infos), err)
				}
				// picoclaw's per-turn alias promotion, with nothing to
				// move: the target already has its conversation.
				ok, err := sessiondb.PromoteHistory(ctx, s, "long", "short-0")
				t5 := time.Now()
				if err != nil || ok {
					b.Fatalf("PromoteHistory to a session with a conversation = %v, %v", ok, err)
				}
				load, get, full, list = append(load, t1.Sub(t0)), append(get, t2.Sub(t1)), append(full, t3.Sub(t2)), append(list, t4.Sub(t3))
				promote = append(promote, t5.Sub(t4))
			}
			ref := medianDuration(load)
			for _, m := range []struct {
				name string
				ds   []time.Duration
			}{{"load50", load}, {"get", get}, {"loadfull50", full}, {"list10", list}, {"promote-noop", promote}} {
				med := medianDuration(m.ds)
				b.ReportMetric(float64(med.Nanoseconds())/1e3, m.name+"-µs")
				if m.name != "load50" {
					b.ReportMetric(float64(med)/float64(ref), m.name+"/load50")
				}
			}
		})
	}
}

// fillReadCost writes the sessions BenchReadCost reads and returns the
// long one as Get returns it.
func fillReadCost(b *testing.B, s sessiondb.Store, n int) sessiondb.Session {
	b.Helper()
	ctx := b.Context()
	start := time.Now()
	for i := range 9 {
		id := fmt.Sprintf("short-%d", i)
		if _, err := s.Commit(ctx, id, sessiondb.Commit{Create: &sessiondb.Session{}, Append: msgs(1, 10)}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Create(ctx, sessiondb.Session{ID: "long", Title: "long"}); err != nil {
		b.Fatal(err)
	}
	const batch = 1000
	for from := 1; from <= n; from += batch {
		es := make([]sessiondb.Entry, 0, batch)
		for i := from; i < from+batch && i <= n; i++ {
			kind := sessiondb.KindMessage
			if i%10 == 0 {
				kind = "progress"
			}
			body := fmt.Sprintf(`{"role":"user","content":"entry %d %s"}`, i, strings.Repeat("x", 200+i%200))
			es = append(es, sessiondb.Entry{Kind: kind, Body: []byte(body)})
		}
		c := sessiondb.Commit{Append: es}
		if from <= n/2 && n/2 < from+batch {
			// Halfway: a compaction keeping the second half.
			c.Compactions = []sessiondb.Compaction{{KeepFromSeq: int64(n/2 + 1),
				Summary: entriesOf(`{"role":"user","content":"summary of the first half"}`)}}
		}
		if _, err := s.Commit(ctx, "long", c); err != nil {
			b.Fatal(err)
		}
	}
	g, err := s.Get(ctx, "long")
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d entries written in %s: MessageCount %d, EntryCount %d", n, time.Since(start).Round(time.Millisecond), g.MessageCount, g.EntryCount)
	return g
}

func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	c := slices.Clone(ds)
	slices.Sort(c)
	return c[len(c)/2]
}
