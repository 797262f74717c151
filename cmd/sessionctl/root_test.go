package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUsageErrors(t *testing.T) {
	db := missingDB(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"list", "--bogus"}, "unknown flag: --bogus"},
		{"bad flag value", []string{"list", "--limit", "many"}, `invalid argument "many"`},
		{"negative limit", []string{"list", "--limit", "-1"}, "--limit must be >= 0"},
		{"missing argument", []string{"show"}, "expected 1 argument(s), got 0"},
		{"extra argument", []string{"stats", "x"}, `unexpected argument "x"`},
		{"missing subcommand", []string{"migrate"}, "missing subcommand"},
		{"unknown subcommand", []string{"checkpoint", "frob"}, `unknown subcommand "frob"`},
		{"truncate without keep", []string{"truncate", "chat"}, "--keep N is required"},
		{"prune without target", []string{"prune"}, "give one session ID, --all, or --format/--source"},
		{"prune both", []string{"prune", "chat", "--all"}, "give one session ID, --all, or --format/--source"},
		{"export without format", []string{"export", "chat", "--out", t.TempDir()}, "--format is required"},
		{"export bad format", []string{"export", "chat", "--format", "xml", "--out", t.TempDir()}, `unknown --format "xml"`},
		{"export ids and all", []string{"export", "chat", "--all", "--format", "zot", "--out", t.TempDir()}, "not both"},
		{"import bad format", []string{"import", "--format", "xml", "."}, `unknown --format "xml"`},
		{"detect nothing", []string{"import", "--detect"}, "--detect needs a PATH"},
		{"completion shell", []string{"completion", "powershell"}, `unknown shell "powershell"`},
		{"down-to not a number", []string{"migrate", "down-to", "one", "--yes"}, "VERSION must be a non-negative integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sessionctl(t, db, tc.args...).mustFail(t, exitUsage, tc.want)
			if r.stdout != "" {
				t.Errorf("stdout not empty on a usage error: %q", r.stdout)
			}
			if !strings.Contains(r.stderr, "--help") {
				t.Errorf("usage error does not point at --help: %q", r.stderr)
			}
		})
	}
	// A usage error never touches the database.
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a usage error created or touched %s (stat: %v)", db, err)
	}
}

func TestHelp(t *testing.T) {
	r := sessionctl(t, "", "--help").mustSucceed(t)
	for _, cmd := range []string{"import", "list", "show", "export", "search", "sql", "stats", "truncate", "prune",
		"vacuum", "fork", "checkpoint", "rename", "delete", "migrate", "doctor", "completion", "version", "compact"} {
		if !strings.Contains(r.stdout, "\n  "+cmd+" ") {
			t.Errorf("help does not list %q:\n%s", cmd, r.stdout)
		}
	}
	sessionctl(t, "", "show", "--help").mustSucceed(t)
}

func TestDefaultDatabasePath(t *testing.T) {
	home := t.TempDir()
	xdg := t.TempDir()
	explicit := filepath.Join(t.TempDir(), "explicit.db")
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"SESSIONDB_PATH wins", map[string]string{"SESSIONDB_PATH": explicit, "XDG_DATA_HOME": xdg, "HOME": home}, explicit},
		{"XDG_DATA_HOME", map[string]string{"XDG_DATA_HOME": xdg, "HOME": home}, filepath.Join(xdg, "sessiondb", "sessions.db")},
		{"relative XDG_DATA_HOME is ignored", map[string]string{"XDG_DATA_HOME": "rel", "HOME": home}, filepath.Join(home, ".local", "share", "sessiondb", "sessions.db")},
		{"HOME", map[string]string{"HOME": home}, filepath.Join(home, ".local", "share", "sessiondb", "sessions.db")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &app{getenv: func(k string) string { return tc.env[k] }}
			if got := a.dbPath(); got != tc.want {
				t.Errorf("dbPath() = %q, want %q", got, tc.want)
			}
			a.dbFlag = "/flag.db"
			if got := a.dbPath(); got != "/flag.db" {
				t.Errorf("with --db, dbPath() = %q", got)
			}
		})
	}
}

// TestDefaultDatabaseCreated runs a writing command without --db: the
// database and its missing directories are created, private. (Read
// commands never create it: TestList.)
func TestDefaultDatabaseCreated(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("SESSIONDB_PATH", "")
	t.Setenv("XDG_DATA_HOME", xdg)
	// An empty directory is a problem (exit 3), but the database exists.
	sessionctl(t, "", "import", "--json", t.TempDir()).mustFail(t, exitProblems, "1 problem")
	dir := filepath.Join(xdg, "sessiondb")
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("%s has mode %o, want 700", dir, perm)
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions.db")); err != nil {
		t.Errorf("default database not created: %v", err)
	}
}

func TestInterrupted(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr strings.Builder
	code := run(ctx, []string{"--db", db, "list"}, strings.NewReader(""), &stdout, &stderr)
	r := result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	r.mustFail(t, exitError, "interrupted")
}

func TestOneLine(t *testing.T) {
	if got := oneLine("a\nb\r\n\nc\n"); got != "a; b; c" {
		t.Errorf("oneLine = %q", got)
	}
}

func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "complete -o default -F __start_sessionctl sessionctl",
		"zsh":  "#compdef sessionctl",
		"fish": "complete -c sessionctl",
	} {
		r := sessionctl(t, "", "completion", shell).mustSucceed(t)
		if !strings.Contains(r.stdout, want) {
			t.Errorf("completion %s does not contain %q", shell, want)
		}
	}
}

func TestVersion(t *testing.T) {
	r := sessionctl(t, "", "version").mustSucceed(t)
	if !strings.HasPrefix(r.stdout, "sessionctl ") || !strings.Contains(r.stdout, "schema version ") {
		t.Errorf("version: %q", r.stdout)
	}
	var v struct {
		Version string `json:"version"`
		Schema  int64  `json:"schema"`
		Go      string `json:"go"`
	}
	sessionctl(t, "", "version", "--json").mustSucceed(t).decode(t, &v)
	if v.Version == "" || v.Schema < 1 || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("version --json: %+v", v)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	// A directory is not a database.
	sessionctl(t, dir, "list").mustFail(t, exitError, dir)
	// Inspection commands do not create a database.
	missing := filepath.Join(t.TempDir(), "missing.db")
	sessionctl(t, missing, "doctor").mustFail(t, exitError, "does not exist")
	sessionctl(t, missing, "migrate", "status").mustFail(t, exitError, "does not exist")
	sessionctl(t, missing, "vacuum").mustFail(t, exitError, "does not exist")
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("inspection created %s", missing)
	}
}

func TestPanicIsOneLine(t *testing.T) {
	var out, errb strings.Builder
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { panic("boom") }}
	code := a.run([]string{"list"})
	result{code: code, stdout: out.String(), stderr: errb.String()}.mustFail(t, exitError, "internal error: boom")
}

func TestCompleteSessionIDs(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	r := sessionctl(t, db, "__complete", "show", "c")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "chat\tCapital question\n:4\n") {
		t.Errorf("completion of show c: exit %d\n%s", r.code, r.stdout)
	}
	r = sessionctl(t, db, "__complete", "delete", "chat", "")
	for _, id := range []string{"chat", "notes", "empty"} {
		if !strings.Contains(r.stdout, id) {
			t.Errorf("delete completion lacks %s:\n%s", id, r.stdout)
		}
	}
	// A completion never creates a database.
	missing := filepath.Join(t.TempDir(), "missing.db")
	r = sessionctl(t, missing, "__complete", "show", "")
	if r.stdout != ":4\n" {
		t.Errorf("completion on a missing database: %q", r.stdout)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("completion created %s", missing)
	}
}

// TestUnknownCommandSuggestion: a mistyped command gets cobra's
// suggestion as cobra prints it, one per line, then where the usage is.
func TestUnknownCommandSuggestion(t *testing.T) {
	r := sessionctl(t, "", "serach", "deploy")
	if r.code != exitUsage {
		t.Fatalf("exit %d, want %d", r.code, exitUsage)
	}
	want := "sessionctl: unknown command \"serach\" for \"sessionctl\"\n\nDid you mean this?\n\tsearch\n\nRun 'sessionctl --help' for usage.\n"
	if r.stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.stderr, want)
	}
	// Without a suggestion the error stays one line.
	sessionctl(t, "", "zzzzzz").mustFail(t, exitUsage, `unknown command "zzzzzz"`)
}
