package claudecode_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestClaudeCodeResumesUnderFollow: a Claude Code transcript grown line
// by line under a Follow is continued from its offset (no whole re-read)
// and ends as one import of the whole file.
func TestClaudeCodeResumesUnderFollow(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"5c2d8e41-0000-4000-8000-000000000002.jsonl", "5c2d8e41-0000-4000-8000-000000000003.jsonl"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(ccTestdata, "projects", "-home-dev-proj", name))
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "-home-dev-proj")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, name)
			since := time.Now().Add(-time.Second)
			grown, follow := jsonltest.OpenStore(t), jsonlimport.NewFollow()
			lines := bytes.SplitAfter(src, []byte("\n"))
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, l := range lines {
				if _, err := f.Write(l); err != nil {
					t.Fatal(err)
				}
				if _, err := jsonlimport.Import(ctx, grown, []string{path}, jsonlimport.Options{Jobs: 1, Follow: follow}); err != nil {
					t.Fatal(err)
				}
			}
			s := follow.Stats()
			if s.Rereads != 0 || s.Resumes < int64(len(lines))/2 {
				t.Errorf("grown line by line: %+v; want resumed appends and no whole re-read", s)
			}
			once := jsonltest.OpenStore(t)
			if _, err := jsonlimport.Import(ctx, once, []string{path}, jsonlimport.Options{Jobs: 1}); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since)); d != "" {
				t.Errorf("(-one-shot +grown):\n%s", d)
			}
		})
	}
}
