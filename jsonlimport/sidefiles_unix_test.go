//go:build unix

package jsonlimport

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestImportRefusesHostileSideFiles (issue 36 item 4): side files get the
// rules session files get. A picoclaw .meta.json that is a FIFO (which
// hung the import in open for good) or a link to /dev/zero (which grew
// memory until OOM) makes its session a problem "not a regular file", and
// the import ends; a Claude Code tool-results file that is a sparse 3 GB
// file (read whole before its size was checked: 3 GB of memory) is a
// problem "over 67108864", and its session is imported without it.
func TestImportRefusesHostileSideFiles(t *testing.T) {
	ctx := context.Background()
	const pico = "agent_main_cli_direct_alice"
	for _, kind := range []string{"fifo", "zero"} {
		t.Run("picoclaw meta "+kind, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, filepath.Join("..", "testdata", "picoclaw", pico+".jsonl"), filepath.Join(dir, pico+".jsonl"))
			meta := filepath.Join(dir, pico+".meta.json")
			var err error
			if kind == "fifo" {
				err = syscall.Mkfifo(meta, 0o600)
			} else {
				err = os.Symlink("/dev/zero", meta)
			}
			if err != nil {
				t.Skip(err)
			}
			rep, err := Import(ctx, openStore(t), []string{dir}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Sessions != 0 || !hasProblem(rep.Problems, "not a regular file") {
				t.Errorf("sessions %d, problems %v: want the session refused for its meta", rep.Sessions, rep.Problems)
			}
		})
	}
	t.Run("claudecode tool-results 3 GB", func(t *testing.T) {
		const rel = "projects/-home-dev-proj/5c2d8e41-0000-4000-8000-000000000001"
		dir := t.TempDir()
		copyTree(t, filepath.Join("..", "testdata", "claudecode", rel), filepath.Join(dir, rel))
		copyFile(t, filepath.Join("..", "testdata", "claudecode", rel+".jsonl"), filepath.Join(dir, rel+".jsonl"))
		tool := filepath.Join(dir, rel, "tool-results", "toolu_01.txt")
		if err := os.Truncate(tool, 3<<30); err != nil {
			t.Skip(err)
		}
		s := openStore(t)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep, err := Import(ctx, s, []string{filepath.Join(dir, "projects")}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<30 {
			t.Errorf("the import allocated %d bytes: the 3 GB file was read", n)
		}
		if rep.Sessions == 0 || !hasProblem(rep.Problems, "over 67108864") {
			t.Errorf("sessions %d, problems %v: want the session imported and its tool file refused", rep.Sessions, rep.Problems)
		}
		fifo := filepath.Join(dir, rel, "tool-results", "toolu_01.txt")
		os.Remove(fifo)
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		rep, err = Import(ctx, openStore(t), []string{filepath.Join(dir, "projects")}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Sessions == 0 { // and it returned: the FIFO was not opened for reading
			t.Errorf("FIFO tool file: sessions %d, problems %v", rep.Sessions, rep.Problems)
		}
	})
}

func hasProblem(ps []Problem, s string) bool {
	for _, p := range ps {
		if strings.Contains(p.Reason, s) {
			return true
		}
	}
	return false
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
