package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb/internal/longtest"
)

// TestImportCorpusExitsZero imports the whole corpus of real Claude Code
// and Codex archives (testdata/corpus, reduced copies of files people
// committed; SESSIONDB_CORPUS names another copy): clean real archives
// import with exit code 0, what is worth knowing being notes (issue 21,
// item 5).
func TestImportCorpusExitsZero(t *testing.T) {
	longtest.Skip(t, "imports the whole real corpus through the command")
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	root := filepath.Join(testdata, "corpus")
	if env := os.Getenv("SESSIONDB_CORPUS"); env != "" {
		root = env
	}
	if _, err := os.Stat(filepath.Join(root, "claude-code")); err != nil {
		t.Skipf("no corpus at %s", root)
	}
	db := tempDB(t)
	var rep importReport
	r := sessionctl(t, db, "import", "--json", filepath.Join(root, "claude-code"), filepath.Join(root, "codex"))
	r.decode(t, &rep)
	t.Logf("corpus import: exit %d, %d files, %d sessions, %d entries, %d skipped, %d problems, %d notes",
		r.code, rep.Files, rep.Sessions, rep.Entries, rep.Skipped, len(rep.Problems), len(rep.Notes))
	for _, p := range rep.Problems {
		t.Errorf("problem: %s:%d: %s", p.Path, p.Line, p.Reason)
	}
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (stderr %q)", r.code, r.stderr)
	}
	if rep.Sessions == 0 {
		t.Fatal("no session imported")
	}
}

// TestImportAgentsCorpusExitsZero imports the stores Gemini CLI and Qwen
// Code themselves wrote for the agents' corpus (testdata/agents, issue 35):
// exit 0, every session, no problem; the files beside the chats
// (projects.json, meta.json, memory notes) are notes.
func TestImportAgentsCorpusExitsZero(t *testing.T) {
	for _, c := range []struct {
		agent    string
		sessions int
	}{{"gemini", 4}, {"qwen", 4}} {
		root := filepath.Join(testdata, "agents", c.agent)
		db := tempDB(t)
		var rep importReport
		r := sessionctl(t, db, "import", "--json", filepath.Join(root, "home"), filepath.Join(root, "subagent", "home"))
		r.decode(t, &rep)
		t.Logf("%s corpus import: exit %d, %d files, %d sessions, %d entries, %d skipped, %d problems, %d notes",
			c.agent, r.code, rep.Files, rep.Sessions, rep.Entries, rep.Skipped, len(rep.Problems), len(rep.Notes))
		for _, p := range rep.Problems {
			t.Errorf("%s: problem: %s:%d: %s", c.agent, p.Path, p.Line, p.Reason)
		}
		if r.code != 0 || rep.Sessions != c.sessions {
			t.Errorf("%s: exit %d and %d sessions, want 0 and %d (stderr %q)", c.agent, r.code, rep.Sessions, c.sessions, r.stderr)
		}
	}
}

// TestImportAiderCorpusExitsZero imports the aider chat histories of
// public repositories (testdata/aider/corpus, reduced; issue 41): exit 0,
// a session per run, no problem, and a second import changes nothing.
func TestImportAiderCorpusExitsZero(t *testing.T) {
	if raceEnabled {
		t.Skip("imports the whole corpus, no concurrency: run without -race (.ci/run does)")
	}
	db := tempDB(t)
	root := filepath.Join(testdata, "aider", "corpus")
	for i, want := range []int{14, 0} {
		var rep importReport
		r := sessionctl(t, db, "import", "--json", root)
		r.decode(t, &rep)
		t.Logf("aider corpus import %d: exit %d, %d files, %d sessions, %d entries, %d problems, %d notes",
			i+1, r.code, rep.Files, rep.Sessions, rep.Entries, len(rep.Problems), len(rep.Notes))
		for _, p := range rep.Problems {
			t.Errorf("problem: %s:%d: %s", p.Path, p.Line, p.Reason)
		}
		if r.code != 0 || rep.Sessions != want {
			t.Errorf("import %d: exit %d and %d sessions, want 0 and %d (stderr %q)", i+1, r.code, rep.Sessions, want, r.stderr)
		}
	}
}

// TestImportClineCorpusExitsZero imports the Cline tasks of public
// repositories and the one the Cline CLI wrote (testdata/cline/corpus and
// cli; issue 41): exit 0, a session per task, no problem, and a second
// import changes nothing.
func TestImportClineCorpusExitsZero(t *testing.T) {
	if raceEnabled {
		t.Skip("imports the whole corpus, no concurrency: run without -race (.ci/run does)")
	}
	db := tempDB(t)
	roots := []string{filepath.Join(testdata, "cline", "corpus"), filepath.Join(testdata, "cline", "cli")}
	for i, want := range []int{5, 0} {
		var rep importReport
		r := sessionctl(t, db, append([]string{"import", "--json"}, roots...)...)
		r.decode(t, &rep)
		t.Logf("cline corpus import %d: exit %d, %d files, %d sessions, %d entries, %d problems, %d notes",
			i+1, r.code, rep.Files, rep.Sessions, rep.Entries, len(rep.Problems), len(rep.Notes))
		for _, p := range rep.Problems {
			t.Errorf("problem: %s:%d: %s", p.Path, p.Line, p.Reason)
		}
		if r.code != 0 || rep.Sessions != want {
			t.Errorf("import %d: exit %d and %d sessions, want 0 and %d (stderr %q)", i+1, r.code, rep.Sessions, want, r.stderr)
		}
	}
}

// TestImportCursorAgentCorpusExitsZero imports the real Cursor agent
// transcripts (testdata/cursor-agent/corpus; issue 41) and the crafted
// ones but the damaged file: exit 0, a session per transcript (a file of
// turn markers alone is a note), no problem, and a second import changes
// nothing.
func TestImportCursorAgentCorpusExitsZero(t *testing.T) {
	crafted := t.TempDir()
	src := filepath.Join(testdata, "cursor-agent", "crafted")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == "a1b2c3d4-0006-4000-8000-000000000006" {
				return filepath.SkipDir // the damaged transcript
			}
			return os.MkdirAll(filepath.Join(crafted, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(crafted, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	db := tempDB(t)
	for i, want := range []int{7, 0} {
		var rep importReport
		r := sessionctl(t, db, "import", "--json", filepath.Join(testdata, "cursor-agent", "corpus"), crafted)
		r.decode(t, &rep)
		t.Logf("cursor-agent corpus import %d: exit %d, %d files, %d sessions, %d entries, %d problems, %d notes",
			i+1, r.code, rep.Files, rep.Sessions, rep.Entries, len(rep.Problems), len(rep.Notes))
		for _, p := range rep.Problems {
			t.Errorf("problem: %s:%d: %s", p.Path, p.Line, p.Reason)
		}
		if r.code != 0 || rep.Sessions != want {
			t.Errorf("import %d: exit %d and %d sessions, want 0 and %d (stderr %q)", i+1, r.code, rep.Sessions, want, r.stderr)
		}
	}
}
