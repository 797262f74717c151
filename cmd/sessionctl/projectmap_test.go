package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMapProject: --map FROM=TO makes import record the project of a
// Claude Code session (cwd /home/dev/proj) as the same project on another
// machine's layout; list --project reads a filter the same way; the
// agent's cwd in the session's attrs stays as recorded; the map file in the
// config dir does what the flag does, and a flag wins over its line.
func TestMapProject(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		projects := filepath.Join(t.TempDir(), "projects")
		src := filepath.Join("..", "..", "testdata", "claudecode", "projects", "-home-dev-proj")
		for _, id := range []string{"5c2d8e41-0000-4000-8000-000000000002", "5c2d8e41-0000-4000-8000-000000000004"} {
			b, err := os.ReadFile(filepath.Join(src, id+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			putFile(t, filepath.Join(projects, "-home-dev-proj", id+".jsonl"), b)
		}
		first := filepath.Join(projects, "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl")
		hidden := filepath.Join(t.TempDir(), "4.jsonl")
		second := filepath.Join(projects, "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000004.jsonl")
		if err := os.Rename(second, hidden); err != nil {
			t.Fatal(err)
		}
		sessionctl(t, db, "--machine", "linux", "--map", "/home/dev=/Users/dev", "--map", "/home=/nowhere", "import", projects).mustSucceed(t)
		got := listJSON(t, db)
		project := func(id string) string {
			t.Helper()
			out := sessionctl(t, db, "sql", "--csv", "SELECT project FROM sessions WHERE id = '"+id+"'").mustSucceed(t).stdout
			return strings.TrimSpace(strings.TrimPrefix(out, "project\n"))
		}
		if len(got) != 1 || project("5c2d8e41-0000-4000-8000-000000000002") != "/Users/dev/proj" {
			t.Fatalf("after import --map: sessions %v, project %q; want /Users/dev/proj (the longest FROM)", got, project("5c2d8e41-0000-4000-8000-000000000002"))
		}
		attrs := sessionctl(t, db, "sql", "--csv", "SELECT attrs FROM sessions").mustSucceed(t).stdout
		if !strings.Contains(attrs, "/home/dev/proj") {
			t.Errorf("the agent's cwd is no longer in the attrs as recorded: %s", attrs)
		}
		raw, err := os.ReadFile(first)
		if err != nil || !strings.Contains(string(raw), `"cwd":"/home/dev/proj"`) {
			t.Errorf("the source file changed: %v", err)
		}
		if n := len(listJSON(t, db, "--project", "/home/dev/proj")); n != 0 {
			t.Errorf("list --project /home/dev/proj without the map: %d sessions, want 0 (recorded as /Users/dev/proj)", n)
		}
		if n := len(listJSON(t, db, "--map", "/home/dev=/Users/dev", "--project", "/home/dev/proj")); n != 1 {
			t.Errorf("list --map --project /home/dev/proj: %d sessions, want 1", n)
		}

		// The map file, and a flag over it.
		cfg := t.TempDir()
		putFile(t, filepath.Join(cfg, "sessiondb", "map"), []byte("# this machine's layout\n/home/dev=/Volumes/dev\n"))
		if err := os.Rename(hidden, second); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{"XDG_CONFIG_HOME": cfg}
		r := sessionctlEnv(t, env, "--db", db, "--machine", "linux", "import", projects)
		if r.code != 0 {
			t.Fatalf("import with the map file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if p := project("5c2d8e41-0000-4000-8000-000000000004"); p != "/Volumes/dev/proj" {
			t.Errorf("project with the map file: %q, want /Volumes/dev/proj", p)
		}
		if p := project("5c2d8e41-0000-4000-8000-000000000002"); p != "/Users/dev/proj" {
			t.Errorf("an unchanged session's project changed to %q", p)
		}
		r = sessionctlEnv(t, env, "--db", db, "--map", "/home/dev=/Users/dev", "list", "--json", "--project", "/home/dev/proj")
		if r.code != 0 || strings.Count(r.stdout, `"id"`) != 1 || !strings.Contains(r.stdout, "000000000002") {
			t.Errorf("list: the flag does not win over the map file's line:\n%s%s", r.stdout, r.stderr)
		}
		putFile(t, filepath.Join(cfg, "sessiondb", "map"), []byte("no equals sign\n"))
		if r := sessionctlEnv(t, env, "--db", db, "list", "--project", "x"); r.code == 0 || !strings.Contains(r.stderr, "map:1") {
			t.Errorf("a bad map line: exit %d, %s", r.code, r.stderr)
		}
	})
}
