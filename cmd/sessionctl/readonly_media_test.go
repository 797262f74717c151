package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// Read-only media (issue 23 item 6). Tests run as root, for whom
// permission bits stop nothing, so the storage is made read-only in two
// ways that hold for root too or drop root: a read-only bind mount in a
// private mount namespace (the test binary re-executes itself there, mounts,
// then execs sessionctl: envROMount), and a 0555 directory holding a 0444
// database read by a sessionctl running as uid 65534.
const (
	envROMount = "SESSIONCTL_TEST_RO_MOUNT" // directory to bind read-only
	envROExec  = "SESSIONCTL_TEST_RO_EXEC"  // the sessionctl binary to exec then
)

// roMountMain is the test binary's child role: bind dir read-only over
// itself in this (private) mount namespace, then exec sessionctl with the
// test binary's arguments. It returns only on failure.
func roMountMain(dir, bin string) {
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		os.Stderr.WriteString("SETUP bind mount: " + err.Error() + "\n")
		os.Exit(97)
	}
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		os.Stderr.WriteString("SETUP remount read-only: " + err.Error() + "\n")
		os.Exit(97)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envROMount+"=") && !strings.HasPrefix(kv, envROExec+"=") {
			env = append(env, kv)
		}
	}
	err := syscall.Exec(bin, append([]string{bin}, os.Args[1:]...), env)
	os.Stderr.WriteString("SETUP exec: " + err.Error() + "\n")
	os.Exit(97)
}

// roRunner starts sessionctl on a database on read-only storage.
type roRunner func(t *testing.T, args ...string) *exec.Cmd

func TestReadCommandsOnReadOnlyMedia(t *testing.T) {
	bin := buildSessionctl(t)
	t.Run("read-only-mount", func(t *testing.T) {
		dir := t.TempDir()
		db := filepath.Join(dir, "sessions.db")
		seed(t, db)
		run := func(t *testing.T, args ...string) *exec.Cmd {
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(self, append([]string{"--db", db}, args...)...)
			cmd.Env = append(os.Environ(), envROMount+"="+dir, envROExec+"="+bin)
			cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
			return cmd
		}
		// Can this machine do it at all?
		out, err := run(t, "version").CombinedOutput()
		if err != nil {
			t.Skipf("cannot make a read-only bind mount in a private mount namespace here (%v): %s; the uid-65534 case covers read-only media", err, out)
		}
		checkReadOnlyMedia(t, run, db)
	})
	t.Run("0555-directory-0444-file", func(t *testing.T) {
		root := t.TempDir()
		for d := root; d != os.TempDir() && len(d) > len(os.TempDir()); d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		exe := filepath.Join(root, "sessionctl")
		copyFile(t, bin, exe, 0o755)
		dir := filepath.Join(root, "share")
		db := filepath.Join(dir, "sessions.db")
		seed(t, db)
		if err := os.Chmod(db, 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
		// Root ignores permission bits: run as nobody. Any other user
		// is stopped by them already.
		var attr *syscall.SysProcAttr
		if os.Geteuid() == 0 {
			attr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		run := func(t *testing.T, args ...string) *exec.Cmd {
			cmd := exec.Command(exe, append([]string{"--db", db}, args...)...)
			cmd.Env = []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}
			cmd.Dir = "/"
			cmd.SysProcAttr = attr
			return cmd
		}
		if out, err := run(t, "version").CombinedOutput(); err != nil {
			t.Skipf("cannot run sessionctl as uid 65534 here (%v): %s", err, out)
		}
		checkReadOnlyMedia(t, run, db)

		// A database whose -wal still holds commits cannot be read without
		// creating a -shm: refused, saying what to do, not read without
		// them.
		dirty := filepath.Join(root, "dirty")
		if err := os.Mkdir(dirty, 0o755); err != nil {
			t.Fatal(err)
		}
		src := tempDB(t)
		seed(t, src)
		withStore(t, src, func(st *sqlstore.Store) {
			if _, err := st.Create(context.Background(), sessiondb.Session{ID: "in-the-wal"}); err != nil {
				t.Fatal(err)
			}
			for _, suffix := range []string{"", "-wal"} {
				copyFile(t, src+suffix, filepath.Join(dirty, "sessions.db"+suffix), 0o444)
			}
		})
		if fi, err := os.Stat(filepath.Join(dirty, "sessions.db-wal")); err != nil || fi.Size() == 0 {
			t.Fatalf("the copied -wal is empty (%v): the case is not set up", err)
		}
		if err := os.Chmod(dirty, 0o555); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "--db", filepath.Join(dirty, "sessions.db"), "list")
		cmd.Env, cmd.Dir, cmd.SysProcAttr = []string{"HOME=/nonexistent"}, "/", attr
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitError || !strings.Contains(stderr.String(), "-wal") || !strings.Contains(stderr.String(), "copy") {
			t.Errorf("list of a database with a full -wal on read-only storage: %v\n%s%s", err, stdout.String(), stderr.String())
		}
	})
}

// checkReadOnlyMedia runs every read command on db through run: each
// succeeds, says once on stderr that the database was opened immutable,
// and reads what seed stored.
func checkReadOnlyMedia(t *testing.T, run roRunner, db string) {
	t.Helper()
	// The writable store that made the database left its search index
	// file beside it (and nothing else: its WALs were checkpointed and
	// removed when it closed).
	if side, _ := filepath.Glob(db + "-*"); !slices.Equal(side, []string{sqlstore.IndexPath(db)}) {
		t.Fatalf("files beside the database before the read commands: %v, want the index file only", side)
	}
	out := t.TempDir()
	if err := os.Chmod(out, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list"}, "Capital question"},
		{[]string{"list", "--json"}, `"chat"`},
		{[]string{"show", "chat"}, "Canberra"},
		{[]string{"show", "aussie", "--json"}, "capital of Australia"},
		{[]string{"search", "Canberra"}, "chat"},
		{[]string{"sql", "--csv", "SELECT count(*) AS n FROM sessions"}, "n\n3\n"},
		{[]string{"sql", "SELECT role FROM transcript WHERE session_id = 'chat'"}, "assistant"},
		{[]string{"stats"}, "sessions"},
		{[]string{"doctor"}, "wal"},
		{[]string{"export", "--all", "--format", "zot", "--out", out}, ""},
		{[]string{"checkpoint", "list", "chat"}, ""},
	} {
		var stdout, stderr bytes.Buffer
		cmd := run(t, c.args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%v on read-only media: %v\nstdout:\n%s\nstderr:\n%s", c.args, err, stdout.String(), stderr.String())
			continue
		}
		if !strings.Contains(stdout.String(), c.want) {
			t.Errorf("%v: stdout %q, want %q", c.args, stdout.String(), c.want)
		}
		if n := strings.Count(stderr.String(), "opened read-only as immutable"); n != 1 || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line saying the database was opened immutable", c.args, stderr.String())
		}
	}
	if side, _ := filepath.Glob(db + "-*"); !slices.Equal(side, []string{sqlstore.IndexPath(db)}) {
		t.Errorf("side files beside the database: %v, want the index file only", side)
	}

	// serve answers from it.
	cmd := run(t, "serve", "--addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve on read-only media exited with %v: %s", err, stderr.String())
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("serve did not stop")
		}
	}()
	lines := bufio.NewReader(stdout)
	var base string
	for base == "" {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("serve on read-only media: %v; stderr: %s", err, stderr.String())
		}
		if i := strings.Index(line, " at http://"); i >= 0 {
			base = strings.TrimSpace(line[i+len(" at "):])
		}
	}
	go func() { _, _ = io.Copy(io.Discard, lines) }()
	resp, err := http.Get(base + "api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"chat"`) {
		t.Errorf("serve on read-only media: GET /api/sessions: %d %s", resp.StatusCode, body)
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, mode); err != nil {
		t.Fatal(err)
	}
}
