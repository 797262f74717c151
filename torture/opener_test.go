package torture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/longtest"
)

// TestConcurrentFirstOpen is the regression test for a failure the crash
// workload found: several processes opening one new database at the same
// moment. Open documents that concurrent Opens of a new file are
// serialised (flock on <path>.lock), and every Open waits up to
// BusyTimeout for locks; yet an Open can fail at once with "database is
// locked (SQLITE_BUSY)": the journal_mode(WAL) pragma runs when the
// writer's first connection is made (checkWAL), outside the migration
// lock, and SQLite does not call the busy handler for that lock.
func TestConcurrentFirstOpen(t *testing.T) {
	t.Parallel()
	const procs = 6
	rounds := longtest.Size(3, 10)
	var failures []string
	for round := range rounds {
		dir := t.TempDir()
		db := filepath.Join(dir, "new.db")
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				delay := fmt.Sprintf("TORTURE_DELAY=%dus", (i*(round+1)*1500)%12000)
				steps, stderr, err := runChild(t, "opener", []string{envDB + "=" + db, envDir + "=" + dir, delay}, nil)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failures = append(failures, fmt.Sprintf("round %d opener %d died: %v %s", round, i, err, stderr))
					return
				}
				for _, s := range steps {
					if !s.OK {
						failures = append(failures, fmt.Sprintf("round %d opener %d: %s: %s (%s)", round, i, s.Name, s.Err, s.Sentinel))
					}
				}
			}()
		}
		// Start them together: once every opener is up and waiting.
		for {
			ready, _ := filepath.Glob(filepath.Join(dir, "ready-*"))
			if len(ready) == procs {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
	}
	if len(failures) > 0 {
		t.Fatalf("%d of %d processes opening a new database together failed:\n  %s", len(failures), rounds*procs, strings.Join(failures, "\n  "))
	}
}
