package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// picoArchive writes a one-session picoclaw archive (key) into dir.
func picoArchive(t *testing.T, dir, key, text string) {
	t.Helper()
	name := strings.NewReplacer(":", "_").Replace(key)
	writeFiles(t, dir, map[string]string{
		name + ".jsonl":     `{"role":"user","content":` + jsonString(text) + `}` + "\n",
		name + ".meta.json": picoMetaJSON(key),
	})
}

// TestImportSymlinkRoot (issue 23 item 7): a symbolic link named on the
// command line is followed, whether it points at a directory or a file;
// a directory root that holds no file at all is a problem (exit 3), not a
// silent success.
func TestImportSymlinkRoot(t *testing.T) {
	tmp := t.TempDir()
	archive := filepath.Join(tmp, "archive")
	picoArchive(t, archive, "agent:main:cli:direct:linked", "through a link")
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(archive, link); err != nil {
		t.Skip(err)
	}

	db := tempDB(t)
	var rep importReport
	r := sessionctl(t, db, "import", "--json", link)
	r.decode(t, &rep)
	checkProblemsExit(t, r, rep)
	if rep.Sessions != 1 || r.code != 0 {
		t.Fatalf("import LINK-to-directory: exit %d, %+v; want 1 session", r.code, rep)
	}
	out := sessionctl(t, db, "show", "agent:main:cli:direct:linked", "--json").mustSucceed(t).stdout
	if !strings.Contains(out, "through a link") {
		t.Errorf("show: %s", out)
	}

	// A link to a link to a directory, and a relative link.
	link2 := filepath.Join(tmp, "link2")
	if err := os.Symlink("link", link2); err != nil {
		t.Fatal(err)
	}
	rep = importReport{}
	r = sessionctl(t, tempDB(t), "import", "--json", link2)
	r.decode(t, &rep)
	if rep.Sessions != 1 || r.code != 0 {
		t.Errorf("import LINK-to-LINK-to-directory: exit %d, %+v", r.code, rep)
	}

	// An empty directory (and a link to one) yields nothing: a problem.
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	emptyLink := filepath.Join(tmp, "empty-link")
	if err := os.Symlink(empty, emptyLink); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{empty, emptyLink} {
		rep = importReport{}
		r = sessionctl(t, tempDB(t), "import", "--json", root)
		r.decode(t, &rep)
		checkProblemsExit(t, r, rep)
		if r.code != exitProblems || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Reason, "no file") {
			t.Errorf("import of an empty directory %s: exit %d, problems %v; want exit 3 with one problem saying it holds no file", root, r.code, rep.Problems)
		}
	}
}

// TestImportSymlinkLeavingRoot (issue 23 item 8): inside a walked folder, a
// link to a file outside the folder is skipped with a note, so an archive
// from someone else cannot pull the user's private transcripts into the
// database under its own name; a link that stays inside the folder is
// imported.
func TestImportSymlinkLeavingRoot(t *testing.T) {
	tmp := t.TempDir()
	private := filepath.Join(tmp, "home", ".picoclaw", "workspace", "sessions")
	picoArchive(t, private, "agent:main:cli:direct:private", "my private secret")

	archive := filepath.Join(tmp, "downloaded-archive")
	picoArchive(t, archive, "agent:main:cli:direct:theirs", "their own message")
	// notes.jsonl -> the private transcript (absolute), and its meta.
	for _, f := range []string{"agent_main_cli_direct_private.jsonl", "agent_main_cli_direct_private.meta.json"} {
		if err := os.Symlink(filepath.Join(private, f), filepath.Join(archive, f)); err != nil {
			t.Skip(err)
		}
	}
	// A relative link climbing out with "..".
	if err := os.Symlink(filepath.Join("..", "home", ".picoclaw", "workspace", "sessions", "agent_main_cli_direct_private.jsonl"),
		filepath.Join(archive, "notes.jsonl")); err != nil {
		t.Fatal(err)
	}
	// A link that stays inside the archive is fine.
	inner := filepath.Join(archive, "inner")
	picoArchive(t, inner, "agent:main:cli:direct:inner", "inside the archive")
	if err := os.Symlink(filepath.Join("inner", "agent_main_cli_direct_inner.jsonl"), filepath.Join(archive, "agent_main_cli_direct_inner2.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("inner", "agent_main_cli_direct_inner.meta.json"), filepath.Join(archive, "agent_main_cli_direct_inner2.meta.json")); err != nil {
		t.Fatal(err)
	}

	db := tempDB(t)
	var rep importReport
	r := sessionctl(t, db, "import", "--json", archive)
	r.decode(t, &rep)
	checkProblemsExit(t, r, rep)

	out := sessionctl(t, db, "sql", "--csv", "SELECT text FROM transcript ORDER BY text").mustSucceed(t).stdout
	if strings.Contains(out, "secret") {
		t.Fatalf("the private transcript was imported through a link leaving the archive:\n%s", out)
	}
	// The link inside the archive is followed, and found to be a copy of
	// the file it names (jsonlimport/copies.go): that session once.
	if !strings.Contains(out, "their own message") || strings.Count(out, "inside the archive") != 1 {
		t.Errorf("the archive's own sessions should be imported, the inner one once:\n%s", out)
	}
	copies := 0
	for _, n := range rep.Notes {
		if strings.Contains(n.Reason, "a copy of") && strings.Contains(n.Reason, "agent_main_cli_direct_inner") {
			copies++
		}
	}
	if copies != 1 {
		t.Errorf("%d notes about the inner session's copy, want 1: %v", copies, rep.Notes)
	}
	outside := 0
	for _, n := range rep.Notes {
		if strings.Contains(n.Reason, "outside") {
			outside++
		}
	}
	if outside != 3 {
		t.Errorf("%d notes about links leaving the archive, want 3: %v", outside, rep.Notes)
	}

	// Named on the command line, the same link is followed: the user chose it.
	rep = importReport{}
	r = sessionctl(t, tempDB(t), "import", "--json", filepath.Join(archive, "agent_main_cli_direct_private.jsonl"), filepath.Join(archive, "agent_main_cli_direct_private.meta.json"))
	r.decode(t, &rep)
	if r.code != 0 || rep.Sessions != 1 {
		t.Errorf("a link named on the command line: exit %d, %+v", r.code, rep)
	}
}
