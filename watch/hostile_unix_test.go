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
			st := newStore(t)
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

// TestWatchSkipsLinksOutOfTheTree (issue 36 item 4): a symbolic link
// made in a watched folder after the start, to a session file outside the
// watched tree, is skipped with the catch-up's note, as the catch-up skips
// one already there (the watcher imported it); a link to a file inside the
// tree is imported by both.
func TestWatchSkipsLinksOutOfTheTree(t *testing.T) {
	const pico = "agent_main_cli_direct_alice"
	dir := t.TempDir()
	src, outside := filepath.Join(dir, "src"), filepath.Join(dir, "outside")
	for _, d := range []string{src, filepath.Join(src, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data := readFile(t, filepath.Join("..", "testdata", "picoclaw", pico+".jsonl"))
	for _, f := range []string{filepath.Join(outside, "private.jsonl"), filepath.Join(outside, "early.jsonl"), filepath.Join(src, "sub", "inside.jsonl")} {
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	early := filepath.Join(src, "early.jsonl")
	if err := os.Symlink(filepath.Join(outside, "early.jsonl"), early); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{src}, Settle: 20 * time.Millisecond, NewSettle: time.Millisecond})
	out, in := filepath.Join(src, "leak.jsonl"), filepath.Join(src, "in.jsonl")
	if err := os.Symlink(filepath.Join(outside, "private.jsonl"), out); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(src, "sub", "inside.jsonl"), in); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the link inside the tree imported", func() bool { return caughtUp(st, in) })
	waitFor(t, "the link out of the tree noted", func() bool {
		n := 0
		for _, e := range r.events2() {
			if strings.Contains(e, "outside the imported folder") {
				n++
			}
		}
		return n >= 2 // the catch-up's and the watcher's
	})
	for _, p := range []string{early, out} {
		if sf, err := st.SourceFile(t.Context(), p); err == nil {
			t.Errorf("%s (a link out of the tree) imported as session %q", p, sf.SessionID)
		}
	}
}

// TestWatchOversizedUnfinishedLineReportedOnce (issue 36 item 4): a last
// line over the 64 MiB limit that is still being written (no newline) is
// reported once for a file state, not again at every burst that finds the
// same line still unfinished (each append to it made a new report).
func TestWatchOversizedUnfinishedLineReportedOnce(t *testing.T) {
	const pico = "agent_main_cli_direct_alice"
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(src, pico+".jsonl")
	if err := os.WriteFile(file, readFile(t, filepath.Join("..", "testdata", "picoclaw", pico+".jsonl")), 0o644); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{src}, Settle: 20 * time.Millisecond, NewSettle: time.Millisecond, TornAfter: time.Millisecond})
	waitFor(t, "the session imported", func() bool { return caughtUp(st, file) })
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	big := []byte(`{"role":"user","content":"` + strings.Repeat("x", 64<<20) + `"`)
	reports := func() int {
		n := 0
		for _, e := range r.events2() {
			if strings.Contains(e, "longer than") || strings.Contains(e, "oversized") || strings.Contains(e, "exceeds") {
				n++
			}
		}
		return n
	}
	if _, err := f.Write(big); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the oversized line reported", func() bool { return reports() > 0 })
	first := reports()
	for range 3 {
		if _, err := f.Write([]byte(" ")); err != nil {
			t.Fatal(err)
		}
		// The line still unfinished, still over the limit: each append
		// is a burst that reads it again.
		n := len(r.of(EventImport))
		waitFor(t, "the import of the grown file", func() bool { return len(r.of(EventImport)) > n || reports() > first })
	}
	if got := reports(); got != first {
		t.Errorf("the unfinished oversized line was reported %d times after %d appends to it, want %d (once)\n%v", got, 3, first, r.events2())
	}
}
