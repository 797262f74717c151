package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies the directory tree from into to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, raw, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fakeHome lays out Claude Code, Codex, pi, Gemini CLI, Qwen Code and
// opencode archives in their default places under a temporary home
// directory and points HOME at it.
func fakeHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	td := filepath.Join("..", "..", "testdata")
	copyTree(t, filepath.Join(td, "claudecode", "projects"), filepath.Join(home, ".claude", "projects"))
	copyTree(t, filepath.Join(td, "codex", "codex-home"), filepath.Join(home, ".codex"))
	copyTree(t, filepath.Join(td, "pi", "sessions"), filepath.Join(home, ".pi", "agent", "sessions", "--home-dev-proj--"))
	copyTree(t, filepath.Join(td, "gemini", "gemini-home", ".gemini"), filepath.Join(home, ".gemini"))
	copyTree(t, filepath.Join(td, "qwen", "qwen-home", ".qwen"), filepath.Join(home, ".qwen"))
	// opencode's data folder: its database (5 sessions) and an older
	// version's storage/ tree (3).
	copyTree(t, filepath.Join(td, "opencode", "store"), filepath.Join(home, ".local", "share", "opencode"))
	copyTree(t, filepath.Join(td, "opencode", "legacy"), filepath.Join(home, ".local", "share", "opencode"))
	t.Setenv("HOME", home)
	for _, v := range agentHomeVars {
		t.Setenv(v, "")
	}
	return home
}

// agentHomeVars are the variables that move an agent's default place.
var agentHomeVars = []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "ZOT_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "OPENCODE_DB", "GEMINI_CLI_HOME", "QWEN_HOME", "QWEN_RUNTIME_DIR"}

// TestImportOffersLocations: "import" without PATH lists the archive
// directories found in their default places with their session counts,
// and imports nothing.
func TestImportOffersLocations(t *testing.T) {
	home := fakeHome(t)
	db := filepath.Join(t.TempDir(), "s.db")
	r := sessionctl(t, db, "import").mustSucceed(t)
	for _, want := range []string{
		"claude-code  6         ",
		"codex        4         ",
		"pi           8         ",
		"gemini-cli   6         ",
		"qwen-code    2         ",
		"qwen-code    1         ", // an old whole-JSON chat, in ~/.qwen/tmp
		"opencode     8         ",
		filepath.Join(home, ".claude", "projects"),
		filepath.Join(home, ".gemini", "tmp"),
		filepath.Join(home, ".qwen", "projects"),
		filepath.Join(home, ".local", "share", "opencode"),
		"import them with: sessionctl import ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("listing the locations created the database (stat: %v)", err)
	}
	r = sessionctl(t, db, "import", "--json").mustSucceed(t)
	var found []struct {
		Format   string `json:"format"`
		Path     string `json:"path"`
		Sessions int    `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &found); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	got := map[string]int{}
	for _, f := range found {
		got[f.Format] += f.Sessions
	}
	if got["claude-code"] != 6 || got["codex"] != 4 || got["pi"] != 8 || got["gemini-cli"] != 6 || got["qwen-code"] != 3 || got["opencode"] != 8 {
		t.Fatalf("found %v", got)
	}
}

// TestImportOffersNothing: with no archive anywhere, one line says so.
func TestImportOffersNothing(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, v := range agentHomeVars {
		t.Setenv(v, "")
	}
	r := sessionctl(t, "", "import").mustSucceed(t)
	if !strings.HasPrefix(r.stdout, "no session archives found") {
		t.Fatalf("stdout %q", r.stdout)
	}
}

// TestImportDetect: --detect prints per format what would be imported and
// the files no format claims, and writes nothing.
func TestImportDetect(t *testing.T) {
	home := fakeHome(t)
	junk := filepath.Join(home, ".codex", "notes.txt")
	if err := os.WriteFile(junk, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "s.db")
	r := sessionctl(t, db, "import", "--detect", home).mustSucceed(t)
	// Gemini CLI: five chats and a file a resume left with no prompt yet
	// (a unit: its import skips it with a note); projects.json and
	// .project_root are not chats.
	for _, want := range []string{"claude-code  6 ", "codex        4 ", "pi           8 ", "gemini-cli   6 ", "qwen-code    3 ", "opencode     8 ",
		"35 sessions would be imported; 7 files skipped", "notes.txt: not a session file of a known format; skipped", "projects.json: not a session file"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("--detect created the database (stat: %v)", err)
	}
	r = sessionctl(t, db, "import", "--detect", "--json", "--format", "codex", home).mustSucceed(t)
	var rep struct {
		Formats []struct {
			Format   string `json:"format"`
			Sessions int    `json:"sessions"`
		} `json:"formats"`
		Sessions int `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 4 || len(rep.Formats) != 1 || rep.Formats[0].Format != "codex" {
		t.Fatalf("--format codex --detect: %+v", rep)
	}
}
