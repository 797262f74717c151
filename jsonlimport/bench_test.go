package jsonlimport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/sqlstore"
)

// picoBulkDir writes a picoclaw sessions directory shaped like picoclaw's
// bulk sample (200 sessions, ~270 lines and ~290 KB each, ~58 MB in all)
// scaled by n sessions.
func picoBulkDir(b *testing.B, n int) (string, int64) {
	dir := b.TempDir()
	var total int64
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 38) // ~1 KB
	for i := range n {
		key := fmt.Sprintf("agent:main:bulk:direct:user-%03d", i)
		base := filepath.Join(dir, sanitizePicoclawKey(key))
		var sb strings.Builder
		for j := range 270 {
			role := "user"
			if j%2 == 1 {
				role = "assistant"
			}
			fmt.Fprintf(&sb, `{"role":%q,"content":"message %d of session %d: %s","created_at":"2026-11-29T12:32:44.%09dZ"}`+"\n", role, j, i, filler, j)
		}
		if err := os.WriteFile(base+".jsonl", []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		meta := fmt.Sprintf(`{"key":%q,"summary":"","skip":0,"count":270,"created_at":"2026-11-29T12:32:44Z","updated_at":"2026-11-29T12:32:45Z"}`, key)
		if err := os.WriteFile(base+".meta.json", []byte(meta), 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(sb.Len() + len(meta))
	}
	return dir, total
}

// BenchmarkImportPicoclaw imports a bulk picoclaw directory (200 sessions,
// ~61 MB) into a fresh SQLite store per iteration and reports MB/s and
// sessions/s: with the default durability (fsync at every commit), with
// DurabilityNormal, and as a dry run (parsing and planning only, no writes).
func BenchmarkImportPicoclaw(b *testing.B) {
	const sessions = 200
	dir, size := picoBulkDir(b, sessions)
	for _, bc := range []struct {
		name   string
		opts   *sqlstore.Options
		dryRun bool
	}{
		{"full", nil, false},
		{"normal", &sqlstore.Options{Durability: sqlstore.DurabilityNormal}, false},
		{"dryrun", nil, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := sqlstore.Open(filepath.Join(b.TempDir(), fmt.Sprintf("s%d.db", i)), bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				rep, err := Import(context.Background(), s, []string{dir}, Options{DryRun: bc.dryRun})
				b.StopTimer()
				if err != nil || rep.Sessions != sessions {
					b.Fatalf("import: %v, %d sessions", err, rep.Sessions)
				}
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(sessions*b.N)/b.Elapsed().Seconds(), "sessions/s")
		})
	}
}
