//go:build unix

package watch

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchFileReplacedByFIFOOrDevice (issue 36 item 4): a followed
// session file, or its picoclaw .meta.json, replaced by a FIFO (no writer:
// a blocking open never returns) or by a link to /dev/zero (a read that
// never ends) is reported as "not a regular file", and the watcher still
// follows the other files and still stops when its context ends (it
// stalled for good, deaf to SIGTERM).
func TestWatchFileReplacedByFIFOOrDevice(t *testing.T) {
	const pico = "agent_main_cli_direct_alice"
	for _, c := range []struct{ name, file, kind string }{
		{"jsonl fifo", pico + ".jsonl", "fifo"},
		{"jsonl zero", pico + ".jsonl", "zero"},
		{"meta fifo", pico + ".meta.json", "fifo"},
		{"meta zero", pico + ".meta.json", "zero"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src")
			if err := os.MkdirAll(src, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{pico + ".jsonl", pico + ".meta.json"} {
				if err := os.WriteFile(filepath.Join(src, f), readFile(t, filepath.Join("..", "testdata", "picoclaw", f)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			other := filepath.Join(src, "other.jsonl")
			st := newStore(t, dir)
			r := startWatch(t, st, Options{Paths: []string{src}, Settle: 20 * time.Millisecond, NewSettle: time.Millisecond})
			waitFor(t, "the session imported", func() bool { return caughtUp(st, filepath.Join(src, pico+".jsonl")) })

			// Replace the file: made beside it, renamed over it.
			tmp := filepath.Join(src, ".tmp")
			var err error
			if c.kind == "fifo" {
				err = syscall.Mkfifo(tmp, 0o600)
			} else {
				err = os.Symlink("/dev/zero", tmp)
			}
			if err != nil {
				t.Skip(err)
			}
			if err := os.Rename(tmp, filepath.Join(src, c.file)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the replaced file reported", func() bool {
				for _, e := range r.events2() {
					if strings.Contains(e, "not a regular file") {
						return true
					}
				}
				return false
			})
			// Still following: a new picoclaw session is imported.
			line := readFile(t, filepath.Join("..", "testdata", "picoclaw", pico+".jsonl"))
			line = line[:strings.IndexByte(string(line), '\n')+1]
			if err := os.WriteFile(other, line, 0o644); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "a new session imported after", func() bool { return caughtUp(st, other) })
			done := make(chan struct{})
			go func() { r.stop(t); close(done) }()
			select {
			case <-done:
			case <-time.After(time.Minute): // not a timed assertion: a hang made a failure
				t.Fatal("the watcher did not stop")
			}
		})
	}
}

// events2 returns each event's problems, notes and message as text.
func (r *recorder) events2() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Message)
		for _, p := range e.Problems {
			out = append(out, p.Reason)
		}
		for _, p := range e.Notes {
			out = append(out, p.Reason)
		}
	}
	return out
}
