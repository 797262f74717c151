//go:build unix

package jsonl

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestOpenRefusesWhatIsNotARegularFile (issue 36 item 4): a FIFO (no
// writer: a blocking open would never return) and a link to /dev/zero (a
// read that never ends) are refused at once with ErrNotRegular, which is
// sessiondb.ErrInvalid; a regular file and a link to one open.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.meta.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(reg, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero} {
		if f, err := Open(p); !errors.Is(err, ErrNotRegular) || !errors.Is(err, sessiondb.ErrInvalid) {
			if f != nil {
				f.Close()
			}
			t.Errorf("Open(%s) = %v, want ErrNotRegular", p, err)
		}
		if _, err := ReadFile(p, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s) = %v, want ErrNotRegular", p, err)
		}
	}
	for _, p := range []string{reg, link} {
		b, err := ReadFile(p, 1<<20)
		if err != nil || string(b) != `{"a":1}` {
			t.Errorf("ReadFile(%s) = %q, %v", p, b, err)
		}
	}
}

// TestReadFileChecksTheSizeFirst: a sparse file of 3 GB is refused with
// ErrTooLarge before a byte of it is read (reading it would take 3 GB of
// memory and seconds; this test runs in milliseconds); a file at the limit
// is read.
func TestReadFileChecksTheSizeFirst(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Skip(err) // no sparse files here
	}
	f.Close()
	if _, err := ReadFile(big, MaxLineSize); !errors.Is(err, ErrTooLarge) || !errors.Is(err, sessiondb.ErrInvalid) {
		t.Fatalf("ReadFile(3 GB) = %v, want ErrTooLarge", err)
	}
	small := filepath.Join(dir, "small.txt")
	if err := os.WriteFile(small, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(small, 5); err != nil || string(b) != "12345" {
		t.Errorf("ReadFile at the limit = %q, %v", b, err)
	}
	if _, err := ReadFile(small, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over the limit = %v, want ErrTooLarge", err)
	}
}
