package torture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestConcurrentImportsOfOneSession is the regression test for a race the
// crash workload found in jsonlimport: copies of one source session at
// different paths, imported at the same time. Each import must account
// for its file: the first creates the session, every other finds it a
// copy of that file and skips it (jsonlimport/copies.go), so that each
// round's database holds the session once. Before, the loser of the race
// to create the ID reported "not imported: … already exists" (writeUnit
// did not retry ErrExists), and later the losers were imported beside the
// first under derived IDs without the copy check.
func TestConcurrentImportsOfOneSession(t *testing.T) {
	sample, err := filepath.Abs(filepath.Join("..", "testdata", "picoclaw"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const rounds, parallel = 5, 6
	root := t.TempDir()
	var lost []string
	total := 0
	for round := range rounds {
		// A new database each round: only the first creation of an ID
		// can race.
		store, err := sqlstore.Open(filepath.Join(t.TempDir(), "race.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range parallel {
			dir := filepath.Join(root, fmt.Sprintf("r%d-%d", round, i))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, suffix := range []string{".jsonl", ".meta.json"} {
				data, err := os.ReadFile(filepath.Join(sample, sampleBase+suffix))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, sampleBase+suffix), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep, err := jsonlimport.Import(ctx, store, []string{dir}, jsonlimport.Options{Jobs: 1})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					lost = append(lost, fmt.Sprintf("%s: %v", dir, err))
					return
				}
				copied := rep.Sessions == 0 && rep.Unchanged == 1 && len(rep.Notes) == 1 && strings.Contains(rep.Notes[0].Reason, "a copy of")
				if rep.Sessions != 1 && !copied || len(rep.Problems) > 0 {
					var reasons []string
					for _, p := range rep.Problems {
						reasons = append(reasons, p.Reason)
					}
					lost = append(lost, fmt.Sprintf("%s: %d sessions imported, %d unchanged; problems: %s", dir, rep.Sessions, rep.Unchanged, strings.Join(reasons, "; ")))
				}
			}()
		}
		wg.Wait()
		infos, _, err := store.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		total += len(infos)
		if err := store.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if len(lost) > 0 || total != rounds {
		t.Fatalf("%d concurrent imports of copies of one session at distinct paths (%d rounds of %d): %d sessions in the databases (want one a round), %d imports neither imported nor recognised their file:\n  %s",
			rounds*parallel, rounds, parallel, total, len(lost), strings.Join(lost, "\n  "))
	}
}
