package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/longtest"
)

// binary builds sessionctl once per test binary run and returns its path.
var binary = struct {
	once sync.Once
	path string
	err  error
	out  []byte
}{}

func buildSessionctl(t *testing.T) string {
	t.Helper()
	longtest.Skip(t, "builds the binary")
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "sessionctl-e2e-")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "sessionctl")
		if runtime.GOOS == "windows" {
			binary.path += ".exe"
		}
		gobin, err := exec.LookPath("go")
		if err != nil {
			gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		binary.out, binary.err = exec.Command(gobin, "build", "-o", binary.path, ".").CombinedOutput()
	})
	if binary.err != nil {
		t.Fatalf("go build: %v\n%s", binary.err, binary.out)
	}
	return binary.path
}

// e2e runs the built binary with a private HOME and database.
type e2e struct {
	t   *testing.T
	bin string
	env []string
	db  string
}

func newE2E(t *testing.T) *e2e {
	bin := buildSessionctl(t)
	tmp := t.TempDir()
	env := []string{"HOME=" + filepath.Join(tmp, "home"), "XDG_DATA_HOME=" + filepath.Join(tmp, "xdg")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_DATA_HOME", "SESSIONDB_PATH":
		default:
			env = append(env, kv)
		}
	}
	return &e2e{t: t, bin: bin, env: env, db: filepath.Join(tmp, "sessions.db")}
}

func (e *e2e) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, append([]string{"--db", e.db}, args...)...)
	cmd.Env = e.env
	return cmd
}

// run runs the binary to completion. A run that does not end within a
// minute is killed and fails the test (it is a hang, not slowness).
func (e *e2e) run(args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, append([]string{"--db", e.db}, args...)...)
	cmd.Env = e.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		e.t.Fatalf("sessionctl %v hung (killed after a minute)", args)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run %v: %v", args, err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func picoMetaJSON(key string) string {
	return `{"key":` + jsonString(key) + `,"summary":"","skip":0,"count":1,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestE2EExportStaysInsideOut (issue 13 item 1): a hostile picoclaw archive
// whose meta keys are ".." and "." is imported and exported with --all;
// every file lands inside --out and nothing next to it is overwritten.
func TestE2EExportStaysInsideOut(t *testing.T) {
	e := newE2E(t)
	archive := t.TempDir()
	writeFiles(t, archive, map[string]string{
		"dotdot.jsonl":     `{"role":"user","content":"up"}` + "\n",
		"dotdot.meta.json": picoMetaJSON(".."),
		"dot.jsonl":        `{"role":"user","content":"here"}` + "\n",
		"dot.meta.json":    picoMetaJSON("."),
	})
	e.run("import", archive).mustSucceed(t)
	x := t.TempDir()
	writeFiles(t, x, map[string]string{"backups.jsonl": "precious\n"})
	out := filepath.Join(x, "backups", "picoclaw")
	r := e.run("export", "--all", "--format", "picoclaw", "--out", out).mustSucceed(t)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if filepath.Dir(line) != out {
			t.Errorf("export printed %s, outside %s", line, out)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(x, "backups.jsonl")); string(b) != "precious\n" {
		t.Errorf("a file next to --out was overwritten: %q", b)
	}
	for _, p := range []string{filepath.Join(x, "backups.meta.json"), filepath.Join(x, "backups", "picoclaw.jsonl")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("export wrote %s outside --out", p)
		}
	}
	// The export imports back with the same IDs.
	back := newE2E(t)
	back.run("import", out).mustSucceed(t)
	r = back.run("sql", "--csv", "SELECT id FROM sessions ORDER BY id").mustSucceed(t)
	if r.stdout != "id\n.\n..\n" {
		t.Errorf("re-imported IDs:\n%s", r.stdout)
	}
}

// TestE2EExportCollisionsAndOverwrite (item 5): colliding IDs are refused
// before anything is written; an existing file is not replaced without
// --force.
func TestE2EExportCollisionsAndOverwrite(t *testing.T) {
	e := newE2E(t)
	archive := t.TempDir()
	writeFiles(t, archive, map[string]string{"a.jsonl": `{"role":"user","content":"x"}` + "\n", "a.meta.json": picoMetaJSON("a")})
	e.run("import", archive).mustSucceed(t)
	for _, id := range []string{"a/b", "a_b", "a:b"} {
		e.run("fork", "a", "--id", id).mustSucceed(t)
	}
	out := filepath.Join(t.TempDir(), "out")
	r := e.run("export", "--all", "--format", "picoclaw", "--out", out).mustFail(t, exitError, "same file")
	if r.stdout != "" {
		t.Errorf("a refused export printed files: %q", r.stdout)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a refused export wrote %d files", len(entries))
	}

	out2 := t.TempDir()
	e.run("export", "a", "--format", "picoclaw", "--out", out2).mustSucceed(t)
	writeFiles(t, out2, map[string]string{"a.jsonl": "edited by hand\n"})
	e.run("export", "a", "--format", "picoclaw", "--out", out2).mustFail(t, exitError, "--force")
	if b, _ := os.ReadFile(filepath.Join(out2, "a.jsonl")); string(b) != "edited by hand\n" {
		t.Errorf("export replaced an existing file without --force")
	}
	e.run("export", "a", "--format", "picoclaw", "--out", out2, "--force").mustSucceed(t)
	fi, err := os.Stat(filepath.Join(out2, "a.jsonl"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("exported file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}

// TestE2EConcurrentImports (item 2): two importer processes started
// together on one archive leave exactly what one import leaves, in every
// round.
func TestE2EConcurrentImports(t *testing.T) {
	samples := filepath.Join(testdata, "samples", "picoclaw")
	if _, err := os.Stat(samples); err != nil {
		t.Skip("no testdata/samples/picoclaw")
	}
	const summary = "SELECT (SELECT count(*) FROM sessions) AS s, (SELECT count(*) FROM entries) AS e, (SELECT count(*) FROM compactions) AS c, (SELECT count(*) FROM source_files) AS f"
	one := newE2E(t)
	one.run("import", samples).mustSucceed(t)
	want := one.run("sql", "--csv", summary).mustSucceed(t).stdout

	for round := range 4 {
		e := newE2E(t)
		var wg sync.WaitGroup
		results := make([]result, 2)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := e.cmd("import", samples)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				}
				results[i] = result{code: code, stdout: stdout.String(), stderr: stderr.String()}
			}()
		}
		wg.Wait()
		for i, r := range results {
			if r.code != 0 {
				t.Errorf("round %d importer %d: exit %d: %s", round, i, r.code, r.stderr)
			}
		}
		if got := e.run("sql", "--csv", summary).mustSucceed(t).stdout; got != want {
			t.Errorf("round %d: two concurrent imports left\n%s\nwant what one leaves\n%s", round, got, want)
		}
	}
}

// TestE2EEscapesNeutralised (item 3): control sequences in an imported
// archive never reach the terminal from list, show, search or sql.
func TestE2EEscapesNeutralised(t *testing.T) {
	e := newE2E(t)
	archive := t.TempDir()
	evil := "pwn\x1b]0;owned\x07\x1b]52;c;cm0gLXJm\x07\x1b[2J\u202etxt.exe"
	writeFiles(t, archive, map[string]string{
		"e.jsonl":     `{"role":"user","content":` + jsonString("needle "+evil) + `}` + "\n",
		"e.meta.json": `{"key":"e","summary":` + jsonString(evil) + `,"skip":0,"count":1,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`,
	})
	e.run("import", archive).mustSucceed(t)
	for _, args := range [][]string{{"list"}, {"show", "e"}, {"search", "needle"}, {"sql", "SELECT summary FROM sessions"}} {
		r := e.run(args...).mustSucceed(t)
		if strings.ContainsAny(r.stdout, "\x1b\x07\u202e") {
			t.Errorf("%v printed raw control characters: %q", args, r.stdout)
		}
	}
	// JSON output stays exact.
	if r := e.run("show", "e", "--json").mustSucceed(t); !strings.Contains(r.stdout, `\u001b]0;owned\u0007`) && !strings.Contains(r.stdout, "\x1b]0;owned") {
		t.Errorf("show --json lost the stored bytes: %q", r.stdout)
	}
	e.run("rename", "e", "t\x1b[31m").mustFail(t, exitUsage, "control")
}

// TestE2EReadCommandsChangeNothing (item 4): read commands refuse a
// missing database without creating it, someone else's SQLite file
// without touching it, and do not switch it to WAL.
func TestE2EReadCommandsChangeNothing(t *testing.T) {
	e := newE2E(t)
	for _, args := range [][]string{{"list"}, {"stats"}, {"sql", "SELECT 1"}, {"show", "x"}, {"search", "x"}, {"doctor"}} {
		e.run(args...).mustFail(t, exitError, "does not exist")
		if _, err := os.Stat(e.db); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%v created the database (stat: %v)", args, err)
		}
	}

	foreign := filepath.Join(t.TempDir(), "app.sqlite")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	sum := func() ([32]byte, time.Time) {
		b, err := os.ReadFile(foreign)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(foreign)
		return sha256.Sum256(b), fi.ModTime()
	}
	h0, m0 := sum()
	e.db = foreign
	for _, args := range [][]string{{"list"}, {"stats"}, {"sql", "SELECT 1"}, {"show", "x"}, {"export", "--all", "--format", "zot", "--out", t.TempDir()}} {
		e.run(args...).mustFail(t, exitError, "not a sessiondb database")
	}
	if h, m := sum(); h != h0 || !m.Equal(m0) {
		t.Errorf("read commands changed a foreign SQLite file")
	}
	if side, _ := filepath.Glob(foreign + "-*"); len(side) != 0 {
		t.Errorf("read commands created %v (WAL switch?)", side)
	}
}

// TestE2EImportFIFOAndDevZero (item 6): import of a FIFO or /dev/zero ends
// with a problem instead of hanging.
func TestE2EImportFIFOAndDevZero(t *testing.T) {
	e := newE2E(t)
	fifo := filepath.Join(t.TempDir(), "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	args := []string{"import", fifo}
	if _, err := os.Stat("/dev/zero"); err == nil {
		args = append(args, "/dev/zero")
	}
	r := e.run(args...)
	if r.code != exitProblems || !strings.Contains(r.stdout, "not a regular file") {
		t.Errorf("import of a FIFO: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestE2EDestructiveCommandsAsk (item 7): prune --all needs --yes off a
// terminal; migrate down-to takes a backup before dropping tables.
func TestE2EDestructiveCommandsAsk(t *testing.T) {
	e := newE2E(t)
	archive := t.TempDir()
	writeFiles(t, archive, map[string]string{"a.jsonl": `{"role":"user","content":"x"}` + "\n", "a.meta.json": picoMetaJSON("a")})
	e.run("import", archive).mustSucceed(t)
	e.run("prune", "--all").mustFail(t, exitUsage, "pass --yes")
	e.run("prune", "--all", "--yes").mustSucceed(t)
	r := e.run("migrate", "down-to", "0", "--yes").mustSucceed(t)
	baks, _ := filepath.Glob(e.db + ".bak-v*")
	if len(baks) != 1 || !strings.Contains(r.stdout, "backed up") {
		t.Fatalf("down-to 0: backups %v, stdout %q", baks, r.stdout)
	}
	e.db = baks[0]
	if got := e.run("sql", "--csv", "SELECT id FROM sessions").mustSucceed(t).stdout; got != "id\na\n" {
		t.Errorf("the backup holds %q", got)
	}
}

// TestMain removes the binary built by buildSessionctl, or runs the
// read-only-mount child of TestReadCommandsOnReadOnlyMedia.
func TestMain(m *testing.M) {
	// Imports record a machine identity; the tests must not create one
	// in the config dir of the user who runs them.
	if os.Getenv("SESSIONDB_MACHINE") == "" {
		os.Setenv("SESSIONDB_MACHINE", "test-machine")
	}
	if dir := os.Getenv(envROMount); dir != "" {
		roMountMain(dir, os.Getenv(envROExec)) // a child of TestReadCommandsOnReadOnlyMedia
	}
	code := m.Run()
	if binary.path != "" {
		os.RemoveAll(filepath.Dir(binary.path))
	}
	os.Exit(code)
}
