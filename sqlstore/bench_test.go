package sqlstore

// Benchmarks report numbers; none asserts a timing. Run them with
//
//	go test ./sqlstore -run '^$' -bench . -benchmem
//
// DurabilityFull fsyncs the WAL at every commit (survives power loss);
// DurabilityNormal fsyncs only at checkpoints (survives process crashes).
// Append is measured under both; the read benchmarks do not depend on it.

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// cpuSeconds is the CPU time (user+sys, all threads) the process used so
// far. Benchmarks report CPU per operation beside the wall time: on a
// shared machine the wall time moves with the neighbours, the CPU much less.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// benchBody returns a message body of exactly n bytes.
func benchBody(n int, tag string) []byte {
	head := `{"role":"user","content":"` + tag + " "
	tail := `"}`
	pad := n - len(head) - len(tail)
	if pad < 0 {
		pad = 0
	}
	return []byte(head + strings.Repeat("b", pad) + tail)
}

func BenchmarkAppend(b *testing.B) {
	body := benchBody(1024, "bench")
	for _, bc := range []struct {
		name string
		dur  Durability
	}{
		{"Full", DurabilityFull},
		{"Normal", DurabilityNormal},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			s := MustOpenStore(b, &Options{Durability: bc.dur})
			if _, err := s.Create(ctx, sessiondb.Session{ID: "bench"}); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			n := 0
			cpu0 := cpuSeconds()
			for b.Loop() {
				if _, err := s.Append(ctx, "bench", sessiondb.Entry{Body: body}); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "appends/s")
			b.ReportMetric((cpuSeconds()-cpu0)*1e6/float64(n), "cpu-µs/op")
			if g, err := s.Get(ctx, "bench"); err != nil || g.LastSeq != int64(n) {
				b.Fatalf("after %d appends: LastSeq %d, %v", n, g.LastSeq, err)
			}
		})
	}
}

// BenchmarkAppendParallel appends from 8 x GOMAXPROCS goroutines at once
// (one session each), the case group commit is for: one fsync acknowledges
// many appends.
func BenchmarkAppendParallel(b *testing.B) {
	body := benchBody(1024, "bench")
	for _, bc := range []struct {
		name  string
		dur   Durability
		delay time.Duration
	}{
		{"Full", DurabilityFull, 0},
		{"Normal", DurabilityNormal, 0},
		// The index batch right after every group commit, for comparison
		// with the default delay (see "Search" in doc.go).
		{"Full-IndexEveryBatch", DurabilityFull, time.Nanosecond},
		// No background indexer (search scans what is not indexed): the
		// share of the trigram index in an append's CPU.
		{"Full-NoIndexer", DurabilityFull, -1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			s := MustOpenStore(b, &Options{Durability: bc.dur, IndexDelay: bc.delay})
			var next atomic.Int64
			b.SetBytes(int64(len(body)))
			b.SetParallelism(8) // 8 x GOMAXPROCS goroutines
			b.ReportAllocs()
			cpu0 := cpuSeconds()
			b.RunParallel(func(pb *testing.PB) {
				id := fmt.Sprintf("p%d", next.Add(1))
				if _, err := s.Create(ctx, sessiondb.Session{ID: id}); err != nil {
					b.Error(err)
					return
				}
				for pb.Next() {
					if _, err := s.Append(ctx, id, sessiondb.Entry{Body: body}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
			b.ReportMetric((cpuSeconds()-cpu0)*1e6/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkLoad loads a 10,000-entry session: the whole transcript, and the
// last 50 entries (what an agent resuming a long session reads).
func BenchmarkLoad(b *testing.B) {
	const entries = 10000
	ctx := context.Background()
	s := MustOpenStore(b, &Options{Durability: DurabilityNormal})
	if _, err := s.Create(ctx, sessiondb.Session{ID: "long"}); err != nil {
		b.Fatal(err)
	}
	var total int64
	for batch := 0; batch < entries; batch += 500 {
		es := make([]sessiondb.Entry, 500)
		for i := range es {
			body := benchBody(300+(batch+i)%400, fmt.Sprint(batch+i))
			total += int64(len(body))
			es[i] = sessiondb.Entry{Body: body}
		}
		if _, err := s.Append(ctx, "long", es...); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name string
		opts sessiondb.LoadOptions
		want int
	}{
		{"Whole", sessiondb.LoadOptions{}, entries},
		{"Last50", sessiondb.LoadOptions{LastN: 50}, 50},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.want == entries {
				b.SetBytes(total)
			}
			b.ReportAllocs()
			for b.Loop() {
				tr, err := s.Load(ctx, "long", bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				if len(tr) != bc.want {
					b.Fatalf("Load returned %d entries, want %d", len(tr), bc.want)
				}
			}
			b.ReportMetric(float64(bc.want), "entries/op")
			b.ReportMetric(float64(b.N)*float64(bc.want)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkList lists the 100 most recently updated of 2,000 sessions (each
// with a few entries, so that the counts have something to count).
func BenchmarkList(b *testing.B) {
	const sessions = 2000
	ctx := context.Background()
	s := MustOpenStore(b, &Options{Durability: DurabilityNormal})
	for i := range sessions {
		id := fmt.Sprintf("s%05d", i)
		if _, err := s.Commit(ctx, id, sessiondb.Commit{
			Create: &sessiondb.Session{Title: "session " + id},
			Append: []sessiondb.Entry{{Body: benchBody(200, "a")}, {Body: benchBody(200, "b")}, {Body: benchBody(200, "c")}},
			Now:    time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second),
		}); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name string
		opts sessiondb.ListOptions
		want int
	}{
		{"Newest100", sessiondb.ListOptions{Limit: 100}, 100},
		{"Query", sessiondb.ListOptions{Limit: 100, Query: "session s019"}, 100},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				infos, _, err := s.List(ctx, bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				if len(infos) != bc.want {
					b.Fatalf("List returned %d sessions, want %d", len(infos), bc.want)
				}
			}
			b.ReportMetric(float64(bc.want), "sessions/op")
		})
	}
}

// BenchmarkCommitUsage commits usage rows, the writes the usage_quarters
// triggers (migration 17) add to: an agent's turn (one message, one call)
// and an import's batch (100 calls over a day, ten models). Durability
// Normal, so that the figure is the work rather than the fsync.
func BenchmarkCommitUsage(b *testing.B) {
	body := benchBody(512, "bench")
	for _, rows := range []int{1, 100} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			ctx := context.Background()
			s := MustOpenStore(b, &Options{Durability: DurabilityNormal})
			if _, err := s.Create(ctx, sessiondb.Session{ID: "bench"}); err != nil {
				b.Fatal(err)
			}
			day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			b.ReportAllocs()
			n, cpu0 := 0, cpuSeconds()
			for b.Loop() {
				c := sessiondb.Commit{Append: []sessiondb.Entry{{Body: body}}}
				for i := range rows {
					c.Usage = append(c.Usage, sessiondb.Usage{Provider: "anthropic", Model: fmt.Sprintf("model-%d", i%10), InputTokens: 1000,
						OutputTokens: 50, CacheReadTokens: 5000, Cost: 0.0123, CreatedAt: day.Add(time.Duration(n*rows+i) * 7 * time.Second)})
				}
				if _, err := s.Commit(ctx, "bench", c); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric((cpuSeconds()-cpu0)*1e6/float64(n), "cpu-µs/op")
		})
	}
}
