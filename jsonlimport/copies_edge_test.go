package jsonlimport

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestImportCopiesConcurrently: two imports at once of two copies of one
// archive into one store end as one import of it: no error escapes, no
// session is shown twice.
func TestImportCopiesConcurrently(t *testing.T) {
	ctx := context.Background()
	for _, root := range growthRoots {
		t.Run(filepath.Base(filepath.Dir(root))+"/"+filepath.Base(root), func(t *testing.T) {
			tmp := t.TempDir()
			a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
			stageTree(t, root, a, 1, 1)
			stageTree(t, root, b, 1, 1)
			since := time.Now().Add(-time.Second)
			once := openStore(t)
			if _, err := Import(ctx, once, []string{a}, Options{Jobs: 1}); err != nil {
				t.Fatal(err)
			}
			want := jsonltest.GrowthSnapshot(t, once, since)
			for round := 0; round < 3; round++ {
				s := openStore(t)
				var wg sync.WaitGroup
				errs := make([]error, 2)
				reps := make([]Report, 2)
				for i, dir := range []string{a, b} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						reps[i], errs[i] = Import(ctx, s, []string{dir}, Options{Jobs: 2})
					}()
				}
				wg.Wait()
				for i, err := range errs {
					if err != nil {
						t.Fatalf("import %d: %v", i, err)
					}
					for _, p := range reps[i].Problems {
						if !strings.Contains(p.Reason, "cannot import:") && strings.Contains(p.Reason, "not imported: ") || strings.Contains(p.Reason, "already exists (from") {
							t.Errorf("import %d: %v", i, p)
						}
					}
				}
				if diff := cmp.Diff(want, jsonltest.GrowthSnapshot(t, s, since)); diff != "" {
					t.Fatalf("round %d: two concurrent imports of copies differ from one (-once +both):\n%s", round, diff)
				}
			}
		})
	}
}

// tearTree cuts every .jsonl file under dir in the middle of a line (at
// 60% of its bytes): a copy taken while the tool was writing.
func tearTree(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(path, data[:len(data)*6/10], 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportTornCopies: a copy cut in the middle of a line, imported
// after the whole archive, adds nothing; imported before it, the whole
// archive continues it.
func TestImportTornCopies(t *testing.T) {
	ctx := context.Background()
	for r, root := range growthRoots {
		for o, tornFirst := range []bool{false, true} {
			// The quick run takes one order per format, alternating, so
			// that both orders and every format still run (internal/longtest).
			if !longtest.Every(r+o, 2) {
				continue
			}
			name := filepath.Base(filepath.Dir(root)) + "/" + filepath.Base(root)
			if tornFirst {
				name += "/torn first"
			}
			t.Run(name, func(t *testing.T) {
				tmp := t.TempDir()
				full, torn := filepath.Join(tmp, "full"), filepath.Join(tmp, "torn")
				stageTree(t, root, full, 1, 1)
				stageTree(t, root, torn, 1, 1)
				tearTree(t, torn)
				since := time.Now().Add(-time.Second)
				once := openStore(t)
				if _, err := Import(ctx, once, []string{full}, Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
				s := openStore(t)
				order := []string{full, torn}
				if tornFirst {
					order = []string{torn, full}
				}
				for _, dir := range order {
					if _, err := Import(ctx, s, []string{dir}, Options{Jobs: 1}); err != nil {
						t.Fatal(err)
					}
				}
				if diff := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, s, since)); diff != "" {
					t.Errorf("(-full alone +with torn copy):\n%s", diff)
				}
			})
		}
	}
}

// TestImportBackupWithOlderMeta: picoclaw's TruncateHistory rewrote the
// meta of the live archive (skip, a summary, a later updated_at) and left
// the .jsonl as it was; a backup taken before holds the old meta. The
// backup imported after the live archive changes nothing (it must not
// undo the truncation nor drop the summary); imported before it, the live
// archive's meta wins, as after one import of it.
func TestImportBackupWithOlderMeta(t *testing.T) {
	ctx := context.Background()
	for _, backupFirst := range []bool{false, true} {
		name := "live first"
		if backupFirst {
			name = "backup first"
		}
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			live, backup := filepath.Join(tmp, "live"), filepath.Join(tmp, "backup")
			copyTree(t, picoDir, live)
			copyTree(t, picoDir, backup)
			meta := filepath.Join(live, "agent_main_cli_direct_alice.meta.json")
			data, err := os.ReadFile(meta)
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.NewReplacer(`"skip": 0`, `"skip": 4`, `"summary": ""`, `"summary": "Alice asked twice."`,
				`"updated_at": "2026-11-29T12:32:44.301370927Z"`, `"updated_at": "2026-11-30T08:00:00Z"`).Replace(string(data))
			if strings.Count(edited, "Alice asked") != 1 || !strings.Contains(edited, `"skip": 4`) || !strings.Contains(edited, "2026-11-30") {
				t.Fatalf("meta not edited: %s", edited)
			}
			if err := os.WriteFile(meta, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			since := time.Now().Add(-time.Second)
			once := openStore(t)
			if _, err := Import(ctx, once, []string{live}, Options{Jobs: 1}); err != nil {
				t.Fatal(err)
			}
			s := openStore(t)
			order := []string{live, backup}
			if backupFirst {
				order = []string{backup, live}
			}
			for _, dir := range order {
				if _, err := Import(ctx, s, []string{dir}, Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
			}
			got := jsonltest.GrowthSnapshot(t, s, since)
			w := jsonltest.GrowthSnapshot(t, once, since)
			if !backupFirst {
				// The live archive's import left a truncation compaction
				// in place; compare what a reader sees.
				if diff := cmp.Diff(w["agent:main:cli:direct:alice"].Transcript, got["agent:main:cli:direct:alice"].Transcript); diff != "" {
					t.Errorf("the older backup changed the transcript (-live alone +then backup):\n%s", diff)
				}
				if g := got["agent:main:cli:direct:alice"].Summary; g != "Alice asked twice." {
					t.Errorf("summary %q after the older backup, want the live one's", g)
				}
			}
			if len(got) != len(w) {
				t.Errorf("%d sessions, want %d", len(got), len(w))
			}
			if backupFirst {
				if diff := cmp.Diff(w["agent:main:cli:direct:alice"].Transcript, got["agent:main:cli:direct:alice"].Transcript); diff != "" {
					t.Errorf("(-live alone +backup then live):\n%s", diff)
				}
			}
		})
	}
}
