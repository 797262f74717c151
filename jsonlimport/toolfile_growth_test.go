package jsonlimport

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestClaudeCodeToolFileNamedByATornLine: a Claude Code transcript whose
// last line is torn in the middle of the line that names a tool-results
// file, imported, then imported again once complete, must read as one
// import of the finished transcript: the file's entry after that line.
// The torn line named the file before it was imported, so the file was
// placed before it (found by the watch torture test, seed
// 1796422247105867324).
func TestClaudeCodeToolFileNamedByATornLine(t *testing.T) {
	ctx := context.Background()
	const rel = "projects/-home-dev-proj/5c2d8e41-0000-4000-8000-000000000001"
	src := filepath.Join("..", "testdata", "claudecode", rel)
	data, err := os.ReadFile(src + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	name := []byte(`"toolu_01"`)
	tried := 0
	for start := 0; start < len(data); {
		end := start + bytes.IndexByte(data[start:], '\n') + 1
		if i := bytes.Index(data[start:end], name); i >= 0 {
			for _, cut := range []int{start + i + len(name), end - 2} {
				tried++
				dir := t.TempDir()
				copyTree(t, src, filepath.Join(dir, rel))
				path := filepath.Join(dir, rel+".jsonl")
				since := time.Now().Add(-time.Second)
				grown, once := openStore(t), openStore(t)
				for _, b := range [][]byte{data[:cut], data} {
					if err := os.WriteFile(path, b, 0o644); err != nil {
						t.Fatal(err)
					}
					if _, err := Import(ctx, grown, []string{dir}, Options{Jobs: 1}); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := Import(ctx, once, []string{dir}, Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since)); diff != "" {
					t.Errorf("cut at byte %d (inside the line at %d naming the file): imported then grown differs from one import (-once +grown):\n%s", cut, start, diff)
				}
			}
		}
		start = end
	}
	if tried == 0 {
		t.Fatal("no line names toolu_01")
	}
}
