package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeMainJob runs the README's main job as written there (each
// "go run ./cmd/sessionctl ARGS" of its line, in-process) with a
// throw-away home: it fills its own demo database and lists it, and never
// creates the default database that a later import of the user's own
// archives fills. .ci/run runs the same line with the built binary.
func TestReadmeMainJob(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var job string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "go run ./cmd/sessionctl ") {
			job = l
			break
		}
	}
	if job == "" {
		t.Fatal("no main job (a line starting with go run ./cmd/sessionctl) in README.md")
	}
	dir := t.TempDir()
	home, xdg := filepath.Join(dir, "home"), filepath.Join(dir, "xdg")
	env := map[string]string{"HOME": home, "XDG_DATA_HOME": xdg}
	var listed string
	var demo string
	for _, cmd := range strings.Split(job, " && ") {
		args, ok := strings.CutPrefix(strings.TrimSpace(cmd), "go run ./cmd/sessionctl ")
		if !ok {
			t.Fatalf("a command of the main job is not go run ./cmd/sessionctl: %q", cmd)
		}
		fields := strings.Fields(args)
		for i, f := range fields {
			switch {
			case strings.HasPrefix(f, "testdata/"):
				fields[i] = filepath.Join("..", "..", f) // the README runs at the repository's root
			case i > 0 && fields[i-1] == "--db":
				demo = filepath.Join(dir, f) // where the README's relative path lands
				fields[i] = demo
			}
		}
		var out, errb strings.Builder
		a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
			getenv: func(k string) string { return env[k] }}
		if code := a.run(fields); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", cmd, code, out.String(), errb.String())
		}
		listed = out.String()
	}
	if demo == "" {
		t.Fatalf("the main job names no database of its own (--db): %q", job)
	}
	if _, err := os.Stat(demo); err != nil {
		t.Errorf("the demo database was not created: %v", err)
	}
	for _, def := range []string{filepath.Join(xdg, "sessiondb", "sessions.db"), filepath.Join(home, ".local", "share", "sessiondb", "sessions.db")} {
		if _, err := os.Stat(def); !os.IsNotExist(err) {
			t.Errorf("the main job touched the default database %s: %v", def, err)
		}
	}
	if !strings.Contains(listed, "picoclaw") || !strings.Contains(listed, "zot") || !strings.Contains(listed, "swink") {
		t.Errorf("the main job's list does not show the samples:\n%s", listed)
	}
}

// TestDeleteBySource: the samples a user imported into a database go with
// one command (delete --source DIR, or --format), with a dry run that
// counts them first; other sessions stay.
func TestDeleteBySource(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	samples, err := filepath.Abs(filepath.Join(testdata, "samples"))
	if err != nil {
		t.Fatal(err)
	}
	// Two of the samples' formats, under one directory.
	sessionctl(t, db, "import", filepath.Join(samples, "zot"), filepath.Join(samples, "swink")).mustSucceed(t)
	var all []sessionJSON
	sessionctl(t, db, "list", "--json", "--limit", "0").mustSucceed(t).decode(t, &all)
	fromSamples, zot := 0, 0
	for _, s := range all {
		if strings.HasPrefix(s.SourcePath, samples+string(filepath.Separator)) {
			fromSamples++
		}
		if s.SourceFormat == "zot" {
			zot++
		}
	}
	if fromSamples == 0 || zot == 0 || fromSamples == zot {
		t.Fatalf("the samples gave %d sessions, %d of them zot", fromSamples, zot)
	}

	r := sessionctl(t, db, "delete", "--source", samples, "--dry-run").mustSucceed(t)
	if want := "dry run: " + itoa(fromSamples) + " session(s) from " + samples + " would be deleted; nothing deleted\n"; !strings.HasSuffix(r.stdout, want) {
		t.Errorf("dry run ends %q, want %q", r.stdout[max(0, len(r.stdout)-200):], want)
	}
	if n := strings.Count(r.stdout, "would delete "); n != fromSamples {
		t.Errorf("dry run lists %d sessions, want %d", n, fromSamples)
	}
	sessionctl(t, db, "delete", "--source", samples).mustFail(t, exitUsage, "pass --yes")
	sessionctl(t, db, "delete", "--source", samples, "chat").mustFail(t, exitUsage, "not both")
	sessionctl(t, db, "delete", "--format", "zip").mustFail(t, exitUsage, "unknown --format")

	// --format zot: only the zot sessions.
	r = sessionctl(t, db, "delete", "--format", "zot", "--yes").mustSucceed(t)
	if !strings.HasSuffix(r.stdout, "deleted "+itoa(zot)+" session(s) imported from zot\n") {
		t.Errorf("delete --format zot: %q", r.stdout[max(0, len(r.stdout)-200):])
	}
	// --source: the rest of the samples; the seeded sessions stay.
	r = sessionctl(t, db, "delete", "--source", samples, "--yes").mustSucceed(t)
	if !strings.HasSuffix(r.stdout, "deleted "+itoa(fromSamples-zot)+" session(s) from "+samples+"\n") {
		t.Errorf("delete --source: %q", r.stdout[max(0, len(r.stdout)-200):])
	}
	if got := sessionIDs(t, db); got != "chat,notes,empty" {
		t.Errorf("sessions left: %s", got)
	}
	r = sessionctl(t, db, "delete", "--format", "none", "--dry-run").mustSucceed(t)
	if !strings.HasSuffix(r.stdout, "dry run: 3 session(s) written by an application would be deleted; nothing deleted\n") {
		t.Errorf("delete --format none --dry-run: %q", r.stdout)
	}
	// prune selects the same way.
	r = sessionctl(t, db, "prune", "--format", "none", "--dry-run").mustSucceed(t)
	if !strings.HasSuffix(r.stdout, "dry run: the unreachable history of 3 session(s) written by an application would be pruned; nothing pruned\n") {
		t.Errorf("prune --format none --dry-run: %q", r.stdout)
	}
	sessionctl(t, db, "prune", "--format", "none", "--yes").mustSucceed(t)
	sessionctl(t, db, "prune", "--all", "--format", "none").mustFail(t, exitUsage, "give one session ID, --all, or --format/--source")
}

func itoa(n int) string { return strconv.Itoa(n) }
