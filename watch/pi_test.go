package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/pinode"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestPiSessionWrittenLive lets pi's own SessionManager (node, live.mjs)
// write a session turn by turn while the watcher follows its folder: the
// session must end up as one import of the final file gives it, with the
// messages pi itself resumes, and its last words must be searchable.
func TestPiSessionWrittenLive(t *testing.T) {
	node, script := pinode.Script(t, "live.mjs")
	root := t.TempDir()
	dir := filepath.Join(root, "sessions", "--home-dev-proj--")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}})
	cmd := exec.Command(node, script, dir, "12", "60")
	cmd.Dir = filepath.Dir(script)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("live.mjs: %v", err)
	}
	var res struct {
		File     string `json:"file"`
		Messages int    `json:"messages"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("live.mjs printed %q: %v", out, err)
	}
	waitFor(t, "pi's session", func() bool { return caughtUp(st, res.File) })
	got := view(t, st)
	compareViews(t, got, oneShot(t, root))
	if len(got) != 1 {
		t.Fatalf("%d sessions, want 1", len(got))
	}
	for id, v := range got {
		n := 0
		for _, e := range v.Transcript {
			if strings.HasPrefix(e, sessiondb.KindMessage+" ") {
				n++
			}
		}
		if n != res.Messages {
			t.Errorf("session %s: %d messages in the transcript, pi resumes %d", id, n, res.Messages)
		}
	}
	hits, err := st.Search(context.Background(), "kangaroo11", sessiondb.SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Errorf("search for the last answer: %d hits, %v", len(hits), err)
	}
	if imports := r.of(EventImport); len(imports) < 2 {
		t.Errorf("%d import events: the session was not followed as pi wrote it", len(imports))
	}
}

// watcherMain follows WATCH_TEST_ROOT into the database WATCH_TEST_DB
// until it is killed: a `sessionctl watch` another test can SIGKILL. It
// settles after 10 ms and imports a new pi file (which has no side files)
// after 50 ms, so that it imports often while the test writes.
func watcherMain() int {
	st, err := sqlstore.Open(os.Getenv("WATCH_TEST_DB"), &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	if err := Run(context.Background(), st, Options{Paths: []string{os.Getenv("WATCH_TEST_ROOT")}, Settle: 10 * time.Millisecond, NewSettle: noSideFiles}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startWatcherProcess runs watcherMain in a child process.
func startWatcherProcess(t *testing.T, root, db string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"=watcher", "WATCH_TEST_ROOT="+root, "WATCH_TEST_DB="+db)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// TestPiTreeWrittenWatcherKilled follows the pi sessions of
// testdata/pi/tree (written by pi's own SessionManager: one that moved
// about its tree with /tree, leaving branch summaries and a label, one
// named mid-way whose model changed twice) while a child process writes
// them line by line, a third of the lines in two writes; the watcher, a
// process of its own, is killed with SIGKILL half-way and started again.
// The database must end as one import of the finished files leaves it
// (issue 38, item 2).
func TestPiTreeWrittenWatcherKilled(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sessions", "--home-dev-proj--")
	st := newStore(t)
	db := st.Path()
	var files []string
	var steps []step
	for _, name := range []string{"navigated.jsonl", "renamed.jsonl"} {
		f := filepath.Join(dir, name)
		files = append(files, f)
		steps = append(steps, appendSteps(f, readFile(t, filepath.Join("..", "testdata", "pi", "tree", name)), 4, 3, 20)...)
	}
	w := startWatcherProcess(t, root, db)
	half := len(steps) / 2
	runWriter(t, steps[:half])
	if err := w.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w.Wait()
	writer := startWriter(t, steps[half:])
	startWatcherProcess(t, root, db)
	if err := writer.Wait(); err != nil {
		t.Fatalf("writer: %v", err)
	}
	waitFor(t, "the watcher to import every line", func() bool { return caughtUp(st, files...) })
	compareViews(t, view(t, st), oneShot(t, root))
}
