package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/freshstore"
	"github.com/sessiondb/sessiondb/internal/sessionview"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// envRole makes the test binary a child process: "writer" runs the steps
// of the JSON file named by envSpec (see writerMain).
const (
	envRole = "WATCH_TEST_ROLE"
	envSpec = "WATCH_TEST_SPEC"
)

func TestMain(m *testing.M) {
	switch os.Getenv(envRole) {
	case "writer":
		os.Exit(writerMain(os.Getenv(envSpec)))
	case "limited":
		os.Exit(limitedWatcherMain())
	case "watcher":
		os.Exit(watcherMain())
	}
	os.Exit(m.Run())
}

// step is one action of a writer child.
type step struct {
	// Op: "append" (Data to File, created if needed), "replace" (Data
	// written to a temporary file beside File, renamed over it), "truncate"
	// (File rewritten in place with Data), "remove", "removeall", "mkdir",
	// "rename" (File moved to To).
	Op    string `json:"op"`
	File  string `json:"file"`
	Data  []byte `json:"data,omitempty"`
	To    string `json:"to,omitempty"`       // "rename": the new path
	Sleep int    `json:"sleep_ms,omitempty"` // after the step
}

// writerMain performs the steps of spec: the agent writing its files.
func writerMain(spec string) int {
	b, err := os.ReadFile(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var steps []step
	if err := json.Unmarshal(b, &steps); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			fmt.Fprintf(os.Stderr, "%s %s: %v\n", s.Op, s.File, err)
			return 1
		}
		if s.Sleep > 0 {
			time.Sleep(time.Duration(s.Sleep) * time.Millisecond)
		}
	}
	return 0
}

func (s step) do() error {
	switch s.Op {
	case "append":
		if err := os.MkdirAll(filepath.Dir(s.File), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(s.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(s.Data); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	case "replace":
		tmp := filepath.Join(filepath.Dir(s.File), ".tmp-"+filepath.Base(s.File))
		if err := os.WriteFile(tmp, s.Data, 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, s.File)
	case "truncate":
		return os.WriteFile(s.File, s.Data, 0o644)
	case "remove":
		return os.Remove(s.File)
	case "removeall":
		return os.RemoveAll(s.File)
	case "mkdir":
		return os.MkdirAll(s.File, 0o755)
	case "rename":
		if err := os.MkdirAll(filepath.Dir(s.To), 0o755); err != nil {
			return err
		}
		return os.Rename(s.File, s.To)
	}
	return fmt.Errorf("unknown op %q", s.Op)
}

// runWriter runs steps in a child process and returns when it exits.
func runWriter(t testing.TB, steps []step) {
	t.Helper()
	cmd := startWriter(t, steps)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("writer: %v", err)
	}
}

func startWriter(t testing.TB, steps []step) *exec.Cmd {
	t.Helper()
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(t.TempDir(), "steps.json")
	if err := os.WriteFile(spec, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"=writer", envSpec+"="+spec)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// lines splits data after each newline.
func lines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

// appendSteps writes data to file line by line, with pause ms between
// lines; every tornEvery-th line (0: none) is written in two halves with
// tornPause ms between them, as a writer does whose line is split over
// two write(2) calls.
func appendSteps(file string, data []byte, pause, tornEvery, tornPause int) []step {
	var out []step
	for i, l := range lines(data) {
		if tornEvery > 0 && i%tornEvery == tornEvery-1 && len(l) > 8 {
			h := len(l) / 2
			out = append(out, step{Op: "append", File: file, Data: l[:h], Sleep: tornPause}, step{Op: "append", File: file, Data: l[h:], Sleep: pause})
			continue
		}
		out = append(out, step{Op: "append", File: file, Data: l, Sleep: pause})
	}
	return out
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newStore opens a new, empty store (a copy of one created once per test
// process, internal/freshstore), closed when the test ends.
func newStore(t testing.TB) *sqlstore.Store {
	t.Helper()
	return freshstore.Open(t, &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
}

// noSideFiles is NewSettle for the tests whose session files have no
// side files written after them (Codex rollouts, pi sessions, plain
// chats, Claude Code transcripts without their folders): the default half
// second that the watcher waits before a new file's first import, for its
// side files, is only a wait there.
const noSideFiles = 50 * time.Millisecond

// recorder runs a watcher in the background and records its events.
type recorder struct {
	mu     sync.Mutex
	events []Event
	cancel context.CancelFunc
	done   chan error
}

func startWatch(t testing.TB, st sessiondb.Store, opts Options) *recorder {
	t.Helper()
	r := &recorder{done: make(chan error, 1)}
	opts.Events = func(e Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- Run(ctx, st, opts) }()
	t.Cleanup(func() { r.stop(t) })
	waitFor(t, "the catch-up import", func() bool { return len(r.of(EventCatchUp)) > 0 })
	return r
}

func (r *recorder) stop(t testing.TB) {
	t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	if err := <-r.done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// of returns the events of kind.
func (r *recorder) of(kind string) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// problems returns every problem reported by any event, catch-up included.
func (r *recorder) problems() []jsonlimport.Problem {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []jsonlimport.Problem
	for _, e := range r.events {
		out = append(out, e.Problems...)
	}
	return out
}

// waitFor waits until cond holds. It is not a timed assertion: the limit
// only turns a hang into a failure.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// caughtUp reports whether every file of files has been imported up to its
// last complete line (the store's recorded offset).
func caughtUp(st sessiondb.Store, files ...string) bool {
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return false
		}
		want := int64(bytes.LastIndexByte(data, '\n') + 1)
		sf, err := st.SourceFile(context.Background(), f)
		if err != nil || sf.Offset != want {
			return false
		}
	}
	return true
}

// view reads every session of st.
func view(t testing.TB, st sessiondb.Store) map[string]sessionview.Session {
	t.Helper()
	v, err := sessionview.Read(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// oneShot imports paths once into a new store: what the watcher must have
// left.
func oneShot(t testing.TB, paths ...string) map[string]sessionview.Session {
	t.Helper()
	st := newStore(t)
	if _, err := jsonlimport.Import(context.Background(), st, paths, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	return view(t, st)
}

// oneShotProblems returns the problems one import of paths reports.
func oneShotProblems(t testing.TB, paths ...string) []jsonlimport.Problem {
	t.Helper()
	st := newStore(t)
	rep, err := jsonlimport.Import(context.Background(), st, paths, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Problems
}

// compareViews checks that got holds what want holds, logs byte for byte.
func compareViews(t testing.TB, got, want map[string]sessionview.Session) {
	t.Helper()
	for _, d := range sessionview.Compare(got, want) {
		t.Errorf("%s", d)
	}
}

// copyTree copies the files under src into dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}
