package watch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRestartContinuesFromSavedState (issue 42 item 3): a watcher with a
// StateDir writes its readers' parse states there when it stops; the next
// run's first import of a Claude Code transcript that grew meanwhile
// continues from the saved state (the reader resumes from the offset: no
// replay, no re-read of the file), and the sessions are those of one
// import of the final file.
func TestRestartContinuesFromSavedState(t *testing.T) {
	src := readFile(t, filepath.Join("..", "testdata", "claudecode", "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl"))
	all := lines(src)
	if len(all) < 6 {
		t.Fatalf("fixture has %d lines", len(all))
	}
	root := t.TempDir()
	path := filepath.Join(root, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	upTo := func(n int) {
		t.Helper()
		if err := os.WriteFile(path, bytes.Join(all[:n], nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := newStore(t)
	stateDir := filepath.Join(t.TempDir(), "watch")

	upTo(len(all) / 3)
	r := startWatch(t, st, Options{Paths: []string{root}, StateDir: stateDir})
	upTo(2 * len(all) / 3)
	waitFor(t, "the first run's append", func() bool { return caughtUp(st, path) })
	r.stop(t)
	saved, _ := filepath.Glob(filepath.Join(stateDir, "*"))
	if len(saved) != 1 {
		t.Fatalf("states saved by the first run: %q, want one", saved)
	}

	upTo(len(all))
	var w *watcher
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	caught := make(chan struct{}, 1)
	go func() {
		done <- run(ctx, st, Options{Paths: []string{root}, StateDir: stateDir, Events: func(e Event) {
			if e.Kind == EventCatchUp {
				select {
				case caught <- struct{}{}:
				default:
				}
			}
		}}, &w)
	}()
	<-caught
	waitFor(t, "the second run's catch-up", func() bool { return caughtUp(st, path) })
	stats := w.follow.Stats()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("second run: %+v", stats)
	if stats.Resumes != 1 || stats.Rereads != 0 || stats.Replays != 0 {
		t.Errorf("the second run's import of the grown file: %+v (want one resume from the saved state, no re-read, no replay)", stats)
	}
	compareViews(t, view(t, st), oneShot(t, root))
}
