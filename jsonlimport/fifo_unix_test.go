//go:build unix

package jsonlimport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestImportRefusesNonRegularFiles (issue 13 item 6): a FIFO or a device
// given as an argument is reported and skipped instead of blocking in open
// or reading forever. Without the fix this test hangs (the FIFO has no
// writer) until the test timeout.
func TestImportRefusesNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "archive.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	paths := []string{fifo}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	s := openStore(t)
	rep, err := Import(context.Background(), s, paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != len(paths) {
		t.Fatalf("problems %v, want one per path", rep.Problems)
	}
	for _, p := range rep.Problems {
		if !strings.Contains(p.Reason, "not a regular file") {
			t.Errorf("problem %v, want 'not a regular file'", p)
		}
	}
}
