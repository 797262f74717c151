package torture

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestFullDiskTmpfs fills a real (tmpfs) file system: ENOSPC instead of
// EFBIG. Same promises as TestFullDiskRlimit, and the store recovers
// in-process when the file system grows.
func TestFullDiskTmpfs(t *testing.T) {
	dir := t.TempDir()
	steps, stderr, err := runChild(t, "fsprobe", []string{envProbe + "=tmpfs-full", envDir + "=" + dir},
		&syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS})
	if err != nil && len(steps) == 0 {
		t.Skipf("cannot start a process in a private mount namespace here (%v); the full-disk promise is covered by TestFullDiskRlimit", err)
	}
	if err != nil {
		t.Fatalf("probe process: %v\n%s", err, stderr)
	}
	if s := find(steps, "setup"); len(s) > 0 {
		t.Skipf("cannot mount a small tmpfs here (%s); the full-disk promise is covered by TestFullDiskRlimit", s[0].Skip)
	}
	if s := one(t, steps, "open", stderr); !s.OK {
		t.Fatalf("open: %s", s.Err)
	}
	acks := find(steps, "ack")
	fail := one(t, steps, "write-fails", stderr)
	if fail.OK || len(acks) == 0 {
		t.Fatalf("want some writes to succeed and then one to fail; %d acks, then %+v", len(acks), fail)
	}
	if !strings.Contains(fail.Sentinel, "ErrFull") {
		t.Errorf("a write on a full file system failed with %q (matches %q), want sessiondb.ErrFull", fail.Err, fail.Sentinel)
	}
	if s := one(t, steps, "append-while-full", stderr); !s.OK && !strings.Contains(s.Sentinel, "ErrFull") {
		t.Errorf("append while full failed with %q (matches %q), want ErrFull", s.Err, s.Sentinel)
	}
	for _, name := range []string{"read-while-full", "write-after-grow", "integrity", "close", "reopen", "sessions"} {
		if s := one(t, steps, name, stderr); !s.OK {
			t.Errorf("%s: %s %s", name, s.Err, s.Sentinel)
		}
	}
	if s := one(t, steps, "sessions", stderr); s.N < int64(len(acks)) {
		t.Errorf("%d sessions after reopening, %d were acknowledged", s.N, len(acks))
	}
	t.Logf("%d commits acknowledged on a 2 MiB tmpfs, then: %s", len(acks), fail.Err)
}

// expectReadOnly checks the outcome of a probe on storage that cannot be
// written: opening may fail, but only with ErrReadOnly; if it opens,
// reads work and writes fail with ErrReadOnly.
func expectReadOnly(t *testing.T, steps []step, name, stderr string) {
	t.Helper()
	open := one(t, steps, name+"-open", stderr)
	if !open.OK {
		if !strings.Contains(open.Sentinel, "ErrReadOnly") {
			t.Errorf("%s: Open failed with %q (matches %q), want an error matching sessiondb.ErrReadOnly", name, open.Err, open.Sentinel)
		} else {
			t.Logf("%s: Open: %s", name, open.Err)
		}
		return
	}
	if s := one(t, steps, name+"-read", stderr); !s.OK {
		t.Errorf("%s: opened, but a read failed: %s (%s)", name, s.Err, s.Sentinel)
	}
	w := one(t, steps, name+"-write", stderr)
	switch {
	case w.OK:
		t.Errorf("%s: a write to read-only storage succeeded", name)
	case !strings.Contains(w.Sentinel, "ErrReadOnly"):
		t.Errorf("%s: opened read-only; the write failed with %q (matches %q), want sessiondb.ErrReadOnly", name, w.Err, w.Sentinel)
	default:
		t.Logf("%s: opened; reads work; write: %s", name, w.Err)
	}
}

// expectReadable checks that the read-only open of probeReader worked.
func expectReadable(t *testing.T, steps []step, name, stderr string) {
	t.Helper()
	for _, n := range []string{name + "-ro-open", name + "-ro-read"} {
		if s := one(t, steps, n, stderr); !s.OK {
			t.Errorf("%s: a read-only open of a database on storage that cannot be written: %s (%s)", n, s.Err, s.Sentinel)
		}
	}
}

// TestReadOnly covers storage that cannot be written: a read-only
// directory and a read-only database file, each made three ways that
// also hold for root (a read-only tmpfs, a read-only bind mount, the
// immutable attribute) plus permission bits for an unprivileged user;
// and a database path that is a directory.
func TestReadOnly(t *testing.T) {
	ns := &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	t.Run("directory-readonly-mount", func(t *testing.T) {
		steps, stderr, err := runChild(t, "fsprobe", []string{envProbe + "=ro-dir", envDir + "=" + t.TempDir()}, ns)
		skipIfSetup(t, steps, stderr, err)
		expectReadOnly(t, steps, "existing", stderr)
		expectReadable(t, steps, "existing", stderr)
		expectReadOnly(t, steps, "new", stderr)
		expectReadOnly(t, steps, "newdir", stderr)
	})
	t.Run("file-readonly-bind-mount", func(t *testing.T) {
		steps, stderr, err := runChild(t, "fsprobe", []string{envProbe + "=ro-file", envDir + "=" + t.TempDir()}, ns)
		skipIfSetup(t, steps, stderr, err)
		expectReadOnly(t, steps, "file", stderr)
		expectReadable(t, steps, "file", stderr)
	})
	t.Run("permissions-unprivileged", func(t *testing.T) {
		dir := t.TempDir()
		// The test binary and the directories must be reachable by nobody.
		for d := dir; d != os.TempDir() && d != "/" && len(d) > len(os.TempDir()); d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		exe := filepath.Join(dir, "torture.test")
		copyExe(t, childExe(t), exe)
		rodir, rofile := filepath.Join(dir, "rodir"), filepath.Join(dir, "rofile")
		for _, d := range []string{rodir, rofile} {
			if err := makeDB(filepath.Join(d, "ro.db")); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(d, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		// rodir: the directory is not writable, the file is.
		if err := os.Chmod(filepath.Join(rodir, "ro.db"), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(rodir, 0o555); err != nil {
			t.Fatal(err)
		}
		// rofile: the directory is writable, the file is not.
		if err := os.Chown(filepath.Join(rofile, "ro.db"), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(rofile, "ro.db"), 0o444); err != nil {
			t.Fatal(err)
		}
		steps, stderr, err := runChildBinary(t, exe, "fsprobe", []string{envProbe + "=perm", envDir + "=" + dir},
			&syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}})
		if err != nil && len(steps) == 0 {
			t.Skipf("cannot run a child as uid 65534 here: %v\n%s", err, stderr)
		}
		expectReadOnly(t, steps, "dir", stderr)
		expectReadable(t, steps, "dir", stderr)
		expectReadOnly(t, steps, "new", stderr)
		expectReadOnly(t, steps, "file", stderr)
		expectReadable(t, steps, "file", stderr)
	})
	t.Run("file-immutable", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "ro.db")
		if err := makeDB(db); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("chattr", "+i", db).CombinedOutput(); err != nil {
			t.Skipf("chattr +i is not available here (%v: %s); read-only files are covered by the bind-mount and unprivileged cases", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("chattr", "-i", db).Run() })
		steps := captureSteps(func() { probeStore("immutable", db); probeReader("immutable", db) })
		expectReadOnly(t, steps, "immutable", "")
		expectReadable(t, steps, "immutable", "")
	})
	t.Run("path-is-directory", func(t *testing.T) {
		dir := t.TempDir()
		_, err := sqlstore.Open(dir, nil)
		if err == nil || !errors.Is(err, sessiondb.ErrInvalid) || !strings.Contains(err.Error(), "directory") {
			t.Fatalf("Open(a directory) = %v, want ErrInvalid saying it is a directory", err)
		}
		t.Logf("Open(a directory): %v", err)
		// A path below a regular file.
		f := filepath.Join(dir, "file")
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err = sqlstore.Open(filepath.Join(f, "db"), nil)
		if err == nil {
			t.Fatal("Open(file/db) succeeded")
		}
		if sentinels(err) == "" {
			t.Errorf("Open(a path below a regular file) = %q, which matches no sessiondb sentinel (want ErrInvalid)", err)
		}
		t.Logf("Open(file/db): %v", err)
	})
}

func skipIfSetup(t *testing.T, steps []step, stderr string, err error) {
	t.Helper()
	if err != nil && len(steps) == 0 {
		t.Skipf("cannot start a process in a private mount namespace here: %v\n%s", err, stderr)
	}
	if err != nil {
		t.Fatalf("probe process: %v\n%s", err, stderr)
	}
	if s := find(steps, "setup"); len(s) > 0 {
		t.Skipf("cannot set up read-only storage here: %s (the unprivileged and immutable cases cover it)", s[0].Skip)
	}
}

// captureSteps runs fn in this process and returns the steps it reports.
func captureSteps(fn func()) []step {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	fn()
	os.Stdout = old
	w.Close()
	var steps []step
	for _, line := range strings.Split(string(<-done), "\n") {
		if s, ok := strings.CutPrefix(line, "STEP "); ok {
			var st step
			if json.Unmarshal([]byte(s), &st) == nil {
				steps = append(steps, st)
			}
		}
	}
	return steps
}

func copyExe(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
