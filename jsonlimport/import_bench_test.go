package jsonlimport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/sqlstore"
)

// Import benchmarks: the bundled samples (35 sessions of three formats)
// and a generated picoclaw archive of many small sessions, the shape of a
// real agent's archive (most sessions are a few turns), each imported into
// a fresh store with the default durability (fsync per commit).

func BenchmarkImportSamples(b *testing.B) {
	benchImport(b, filepath.Join("..", "testdata", "samples"), false)
}

func BenchmarkImportSmallSessions(b *testing.B) {
	dir := b.TempDir()
	const sessions, lines = 1000, 6
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := range sessions {
		key := fmt.Sprintf("sk_v1_%064x", i)
		var jsonl strings.Builder
		for l := range lines {
			role := []string{"user", "assistant"}[l%2]
			fmt.Fprintf(&jsonl, `{"role":%q,"content":"session %d message %d: some words to index","created_at":%q}`+"\n",
				role, i, l, t0.Add(time.Duration(i*lines+l)*time.Second).Format(time.RFC3339Nano))
		}
		meta := fmt.Sprintf(`{"key":%q,"summary":"","skip":0,"count":%d,"created_at":%q,"updated_at":%q,"aliases":["agent:main:main","agent:main:telegram:direct:u%d"]}`,
			key, lines, t0.Format(time.RFC3339Nano), t0.Add(time.Hour).Format(time.RFC3339Nano), i)
		if err := os.WriteFile(filepath.Join(dir, key+".jsonl"), []byte(jsonl.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, key+".meta.json"), []byte(meta), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	benchImport(b, dir, false)
}

// benchImport imports dir into a fresh store per iteration. With
// searchReady it also waits for the index to catch up, and accepts the
// problems a real archive reports; without, a problem fails it.
func benchImport(b *testing.B, dir string, searchReady bool) {
	ctx := context.Background()
	var sessions int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, err := sqlstore.Open(filepath.Join(b.TempDir(), fmt.Sprintf("b%d.db", i)), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := Import(ctx, st, []string{dir}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if searchReady {
			if err := st.CatchUpIndex(ctx); err != nil {
				b.Fatal(err)
			}
		} else if len(rep.Problems) > 0 {
			b.Fatalf("problems: %v", rep.Problems)
		}
		if rep.Sessions == 0 {
			b.Fatal("no session imported")
		}
		sessions = rep.Sessions
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(sessions)*float64(b.N)/b.Elapsed().Seconds(), "sessions/s")
}

// BenchmarkImportClaudeCodeCorpus imports the Claude Code corpus (114
// files the real tool wrote, 16.5 MB) into a fresh store and waits until
// search is ready (the index caught up): what a new user waits for after
// `sessionctl import ~/.claude/projects`.
func BenchmarkImportClaudeCodeCorpus(b *testing.B) {
	dir := filepath.Join("..", "testdata", "corpus", "claude-code", "projects")
	var size int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	benchImport(b, dir, true)
}
