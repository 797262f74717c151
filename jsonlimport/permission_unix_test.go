//go:build unix

package jsonlimport

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sessiondb/sessiondb/sqlstore"
)

const envUnprivDir = "JSONLIMPORT_TEST_UNPRIV_DIR"

// unprivileged runs the test as an unprivileged user, for whom mode 000
// means "permission denied" (root reads any file): as root it runs the
// test again in a child process as nobody and returns "", else it returns
// a directory the test may use (world-writable when made for the child).
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
	// The test binary's own folder is root's alone: a copy is run.
	bin := filepath.Join(dir, "test.bin")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envUnprivDir+"="+dir)
	cmd.Dir, _ = os.Getwd()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	return ""
}

// TestImportRetriesAfterChmod (issue 36 item 4): a file that could not be
// read ("permission denied") is read at the next import once made
// readable, for a session file, a picoclaw meta and a Claude Code
// tool-results file (whose stamp, size and time, a chmod does not change:
// the session was taken as imported for good, without the file).
func TestImportRetriesAfterChmod(t *testing.T) {
	dir := unprivileged(t)
	if dir == "" {
		return
	}
	ctx := context.Background()
	const rel = "projects/-home-dev-proj/5c2d8e41-0000-4000-8000-000000000001"
	const pico = "agent_main_cli_direct_alice"
	tree := filepath.Join(dir, "tree")
	copyTree(t, filepath.Join("..", "testdata", "claudecode", rel), filepath.Join(tree, rel))
	copyFile(t, filepath.Join("..", "testdata", "claudecode", rel+".jsonl"), filepath.Join(tree, rel+".jsonl"))
	for _, f := range []string{pico + ".jsonl", pico + ".meta.json"} {
		copyFile(t, filepath.Join("..", "testdata", "picoclaw", f), filepath.Join(tree, "pico", f))
	}
	copyFile(t, filepath.Join("..", "testdata", "picoclaw", pico+".jsonl"), filepath.Join(tree, "pico2", "s.jsonl"))
	locked := []string{
		filepath.Join(tree, rel, "tool-results", "toolu_01.txt"),
		filepath.Join(tree, "pico", pico+".meta.json"),
		filepath.Join(tree, "pico2", "s.jsonl"),
	}
	for _, f := range locked {
		if err := os.Chmod(f, 0); err != nil {
			t.Fatal(err)
		}
	}
	s, err := sqlstore.Open(filepath.Join(dir, "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := Import(ctx, s, []string{tree}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := countProblems(rep.Problems, "permission denied"); n != len(locked) {
		t.Fatalf("first import: %d 'permission denied' problems, want %d: %v", n, len(locked), rep.Problems)
	}
	for _, f := range locked {
		if err := os.Chmod(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err = Import(ctx, s, []string{tree}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != len(locked) || countProblems(rep.Problems, "permission denied") > 0 {
		t.Errorf("after chmod: %d sessions imported (want %d, one per file made readable), problems %v", rep.Sessions, len(locked), rep.Problems)
	}
}

func countProblems(ps []Problem, s string) int {
	n := 0
	for _, p := range ps {
		if strings.Contains(p.Reason, s) {
			n++
		}
	}
	return n
}
