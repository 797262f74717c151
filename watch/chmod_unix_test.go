//go:build unix

package watch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const envUnprivDir = "WATCH_TEST_UNPRIV_DIR"

// unprivileged runs the test as an unprivileged user, for whom mode 000
// means "permission denied" (root reads any file): as root it runs the
// test again in a child process as nobody (a copy of the test binary,
// whose own folder is root's alone) and returns "", else it returns a
// directory the test may use.
func unprivileged(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(envUnprivDir); d != "" {
		return d
	}
	if os.Geteuid() != 0 {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "unpriv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "test.bin")
	if err := os.WriteFile(bin, readFile(t, os.Args[0]), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envUnprivDir+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	return ""
}

// TestWatchRetriesAfterChmod (issue 36 item 4): a session file the
// watcher could not read ("permission denied") is imported once chmod
// makes it readable (a chmod was taken as changing nothing imported, and
// the failure stood for good).
func TestWatchRetriesAfterChmod(t *testing.T) {
	dir := unprivileged(t)
	if dir == "" {
		return
	}
	const pico = "agent_main_cli_direct_alice"
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(src, pico+".jsonl")
	if err := os.WriteFile(file, readFile(t, filepath.Join("..", "testdata", "picoclaw", pico+".jsonl")), 0); err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{src}, Settle: 20 * time.Millisecond, NewSettle: time.Millisecond})
	waitFor(t, "the unreadable file reported", func() bool {
		for _, e := range r.events2() {
			if strings.Contains(e, "permission denied") {
				return true
			}
		}
		return false
	})
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the file imported after chmod", func() bool { return caughtUp(st, file) })
}
