package jsonlimport

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
