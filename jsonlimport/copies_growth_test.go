package jsonlimport

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// stageTree writes into dst the archive root as it stood at stage k of n:
// every .jsonl file cut after the first k/n of its lines (whole at k == n),
// every other file whole.
func stageTree(t *testing.T, root, dst string, k, n int) {
	t.Helper()
	copyTree(t, root, dst)
	// damaged.jsonl: see TestImportCopiesOfImportedFiles. pi's /fork file
	// copies entries its parent file held when it was made: cutting both
	// makes a fork of entries its parent does not have yet.
	for _, name := range []string{"damaged.jsonl", "fork-of-branched.jsonl"} {
		if err := os.RemoveAll(filepath.Join(dst, name)); err != nil {
			t.Fatal(err)
		}
	}
	err := filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		return os.WriteFile(path, bytes.Join(lines[:(len(lines)*k+n-1)/n], nil), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

var growthRoots = []string{"../testdata/claudecode", "../testdata/codex/codex-home", "../testdata/pi/sessions",
	"../testdata/zot/zot_home", "../testdata/picoclaw", "../testdata/swink"}

// TestImportTwoGrowingCopies: two places that hold one archive (a backup
// B synced now and then, the live directory L) both keep growing and are
// both imported again and again, in either order. Whatever the order, the
// store ends as after one import of the whole archive: nothing read
// twice, no usage counted twice.
func TestImportTwoGrowingCopies(t *testing.T) {
	ctx := context.Background()
	type step struct {
		dir   string // "B" or "L"
		stage int    // the stage the directory is brought to before its import
	}
	scenarios := map[string][]step{
		// B imported, L imported as its copy, then both grow.
		"copy then both grow, B first": {{"B", 1}, {"L", 1}, {"B", 2}, {"L", 2}, {"B", 3}, {"L", 3}},
		"copy then both grow, L first": {{"B", 1}, {"L", 1}, {"L", 2}, {"B", 2}, {"L", 3}, {"B", 3}},
		// L, further than B, continues B's session; then both grow.
		"continued then both grow, B first": {{"B", 1}, {"L", 2}, {"B", 3}, {"L", 3}},
		"continued then both grow, L first": {{"B", 1}, {"L", 2}, {"L", 3}, {"B", 3}},
		"continued, B catches up":           {{"B", 1}, {"L", 2}, {"B", 2}, {"L", 3}, {"B", 3}},
		"B ahead then behind":               {{"B", 2}, {"L", 1}, {"L", 3}, {"B", 3}},
		"one place (control)":               {{"B", 1}, {"B", 2}, {"B", 3}},
	}
	names := slices.Sorted(maps.Keys(scenarios))
	for r, root := range growthRoots {
		for k, name := range names {
			// The quick run takes every third pair, so that every format
			// and every scenario still runs (internal/longtest).
			if !longtest.Every(r+k, 3) {
				continue
			}
			steps := scenarios[name]
			t.Run(filepath.Base(filepath.Dir(root))+"/"+filepath.Base(root)+"/"+name, func(t *testing.T) {
				tmp := t.TempDir()
				since := time.Now().Add(-time.Second)
				once := openStore(t)
				whole := filepath.Join(tmp, "whole")
				stageTree(t, root, whole, 3, 3)
				if _, err := Import(ctx, once, []string{whole}, Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
				s := openStore(t)
				for _, st := range steps {
					dir := filepath.Join(tmp, st.dir)
					stageTree(t, root, dir, st.stage, 3)
					if _, err := Import(ctx, s, []string{dir}, Options{Jobs: 1}); err != nil {
						t.Fatal(err)
					}
				}
				want, got := jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, s, since)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%v differs from one import of the whole archive (-once +steps):\n%s", steps, diff)
				}
			})
		}
	}
}
