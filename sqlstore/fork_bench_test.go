package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// BenchmarkFork100k measures Fork (which copies the transcript rows) and
// SaveCheckpoint (which copies nothing) on a 100,000-entry session with
// ~300-byte messages, at durability Full.
func BenchmarkFork100k(b *testing.B) {
	ctx := context.Background()
	s, err := Open(filepath.Join(b.TempDir(), "fork.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n, chunk = 100_000, 5_000
	if _, err := s.Create(ctx, sessiondb.Session{ID: "big"}); err != nil {
		b.Fatal(err)
	}
	batch := make([]sessiondb.Entry, chunk)
	for done := 0; done < n; done += chunk {
		for i := range batch {
			batch[i] = sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"message %d of a long session, with enough words to look like a real turn of an agent conversation about code, tools and files"}`, done+i))
		}
		if _, err := s.Append(ctx, "big", batch...); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Fork", func(b *testing.B) {
		i := 0
		for b.Loop() {
			f, err := s.Fork(ctx, "big", 0, "")
			if err != nil || f.LastSeq != n {
				b.Fatalf("fork: %+v, %v", f, err)
			}
			i++
		}
		b.ReportMetric(float64(n)*float64(i)/b.Elapsed().Seconds(), "entries/s")
	})
	b.Run("Checkpoint", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: "big"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
