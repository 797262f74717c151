package sqlstore

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

// BenchmarkIndexingWithSecretScan measures what the secret scan adds to
// background indexing, on the real corpus (testdata/corpus: 37,745 lines
// of Claude Code and Codex sessions, imported as sessionctl import does):
// per iteration, a fresh copy of the same database is
// indexed (CatchUpIndex) and then scanned (ScanSecrets to the end), each
// timed alone, in the same run. It reports
//
//	index-MB/s   bodies indexed per second
//	scan-MB/s    bodies scanned per second (reading them, scanning, writing spans)
//	scan/index   the scan's time over the indexing's: the added cost
//	scan/index-cpu  the same in CPU time (steadier on a shared machine)
//
// Run: go test ./sqlstore -run '^$' -bench IndexingWithSecretScan -benchtime 3x
func BenchmarkIndexingWithSecretScan(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	template := filepath.Join(dir, "template.db")
	st := MustOpenStoreAt(b, template, &Options{IndexDelay: -1, Durability: DurabilityNormal})
	size := loadCorpus(b, st)
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	var index, scan time.Duration
	var indexCPU, scanCPU float64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		path := filepath.Join(dir, "run"+string(rune('a'+i%26))+".db")
		copyFile(b, template, path)
		s := MustOpenStoreAt(b, path, &Options{IndexDelay: -1, Durability: DurabilityNormal})
		b.StartTimer()
		t0, c0 := time.Now(), cpuSeconds()
		if err := s.CatchUpIndex(ctx); err != nil {
			b.Fatal(err)
		}
		t1, c1 := time.Now(), cpuSeconds()
		for {
			more, err := s.ScanSecrets(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if !more {
				break
			}
		}
		t2, c2 := time.Now(), cpuSeconds()
		index += t1.Sub(t0)
		scan += t2.Sub(t1)
		indexCPU += c1 - c0
		scanCPU += c2 - c1
		b.StopTimer()
		if n, err := s.SecretStatus(ctx); err != nil || n != 0 {
			b.Fatalf("after the scan %d entries unscanned, %v", n, err)
		}
		s.Close()
		b.StartTimer()
	}
	mb := float64(size) * float64(b.N) / 1e6
	b.ReportMetric(mb/index.Seconds(), "index-MB/s")
	b.ReportMetric(mb/scan.Seconds(), "scan-MB/s")
	b.ReportMetric(scan.Seconds()/index.Seconds(), "scan/index")
	b.ReportMetric(scanCPU/indexCPU, "scan/index-cpu")
}

// loadCorpus imports the corpus (jsonlimport, as sessionctl import does)
// and returns the bytes of the bodies stored.
func loadCorpus(b *testing.B, st *Store) int64 {
	b.Helper()
	ctx := context.Background()
	if _, err := jsonlimport.Import(ctx, st, []string{"../testdata/corpus"}, jsonlimport.Options{}); err != nil {
		b.Fatal(err)
	}
	var size int64
	err := st.read(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &size, `SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM entries`)
	})
	if err != nil || size < 10<<20 {
		b.Fatalf("corpus imported %d bytes of bodies: %v", size, err)
	}
	return size
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
