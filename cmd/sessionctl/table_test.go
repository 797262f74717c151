package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

var tablesUpdate = flag.Bool("tables.update", false, "rewrite the golden files in testdata/tables")

// tableFixture is what the table goldens are printed from: four Claude
// Code sessions of four projects and a Codex rollout of the real corpus.
var tableFixture = []string{
	"claude-code/projects/-home-lena-yarrow-dune-home-lena-oasis-opal-topaz-desert/2b06ee99-4165-4719-81dc-0bb91795fd1f.jsonl",
	"claude-code/projects/-Users-cleo-work-src-violet-indigo-com-cleo-birch-autumn/7281b7bf-6255-40e1-9d41-24d6b0debd37.jsonl",
	"claude-code/projects/-Users-bruno-crane-reed-maple-crane--crane-reed-stone-tundra/b6a167ee-d73d-4170-a2ae-1de13be39207.jsonl",
	"claude-code/projects/E--sandbox-crane-reed/afd7a435-062b-401b-a687-7238fdfbb684.jsonl",
	"codex/sessions/2026/03/05/rollout-2026-03-05T22-50-24-019cc1e9-6537-70a3-a8cd-d2957e043dd4.jsonl",
}

// runAt runs sessionctl as if stdout were a terminal of width columns
// (0: not a terminal, a pipe).
func runAt(t *testing.T, db string, width int, args ...string) string {
	t.Helper()
	var out, errb strings.Builder
	a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }, width: width, stdoutTTY: width > 0}
	if code := a.run(append([]string{"--db", db}, args...)); code != 0 {
		t.Fatalf("%v at %d columns: exit %d\n%s%s", args, width, code, out.String(), errb.String())
	}
	return out.String()
}

// ansi matches the terminal's bold on and off.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestTablesFitTheTerminal holds the tables of list, search and usage
// (daily, session, project) at 80 and 120 columns and piped to their
// golden files (testdata/tables, -tables.update rewrites them), on both
// backends: on a terminal every line fits its width, numbers are
// right-aligned, search marks matches in bold; piped, every cell is whole
// and no escape is printed.
func TestTablesFitTheTerminal(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		dir := t.TempDir()
		for _, rel := range tableFixture {
			data, err := os.ReadFile(filepath.Join(testdata, "corpus", rel))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, rel, string(data))
		}
		sessionctl(t, db, "import", dir).mustSucceed(t)
		for _, tc := range []struct {
			name string
			args []string
		}{
			{"list", []string{"list"}},
			{"search", []string{"search", "canyon", "--limit", "6"}},
			{"usage-daily", []string{"usage", "daily", "--tz", "UTC"}},
			{"usage-session", []string{"usage", "session", "--tz", "UTC"}},
			{"usage-project", []string{"usage", "project", "--tz", "UTC"}},
		} {
			for _, width := range []int{80, 120, 0} {
				out := runAt(t, db, width, tc.args...)
				if width > 0 {
					for _, l := range strings.Split(out, "\n") {
						if n := runes(ansi.ReplaceAllString(l, "")); n > width {
							t.Errorf("%s at %d columns: a line of %d runes:\n%s", tc.name, width, n, l)
						}
					}
				} else if strings.Contains(out, "\x1b") {
					t.Errorf("%s piped prints terminal escapes", tc.name)
				}
				name := tc.name + "-piped.golden"
				if width > 0 {
					name = tc.name + "-" + itoa(width) + ".golden"
				}
				path := filepath.Join("..", "..", "testdata", "tables", name)
				if *tablesUpdate && strings.HasSuffix(t.Name(), "sqlite") {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./cmd/sessionctl -run TestTablesFitTheTerminal -tables.update)", err)
				}
				if out != string(want) {
					t.Errorf("%s at %d columns differs from %s:\n%s", tc.name, width, path, out)
				}
			}
		}
	})
}

// TestLongIDsKeepTheirOwnLine: an ID longer than a terminal's ID column
// (picoclaw's sk_v1_ keys are 70 characters) is never cut, since the other
// commands take it whole: it is printed on a line of its own, its row on
// the next, and no line is wider than the terminal.
func TestLongIDsKeepTheirOwnLine(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	long := "sk_v1_6d9217fe77c7f11d9cc992aabe81a2d09604e9c48babbda8fdad3791f9c19f3b"
	withStore(t, db, func(st *sqlstore.Store) {
		if _, err := st.Create(context.Background(), sessiondb.Session{ID: long, Title: "a routed session with a long key", CreatedAt: t0, UpdatedAt: t0}); err != nil {
			t.Fatal(err)
		}
	})
	for _, width := range []int{80, 120} {
		out := runAt(t, db, width, "list")
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		at := -1
		for i, l := range lines {
			if runes(l) > width {
				t.Errorf("%d columns: a line of %d runes: %q", width, runes(l), l)
			}
			if l == long {
				at = i
			}
		}
		if at < 0 || at+1 >= len(lines) || !strings.HasPrefix(lines[at+1], strings.Repeat(" ", 36)) || !strings.Contains(lines[at+1], "a routed") {
			t.Errorf("%d columns: the long ID is not whole on a line of its own, its row after it:\n%s", width, out)
		}
		if !strings.HasPrefix(lines[1], "chat  ") {
			t.Errorf("%d columns: short IDs lose their row: %q", width, lines[1])
		}
	}
}
