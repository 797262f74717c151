package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestHandoffCommand (issue 40 item 1): handoff of a Codex session of
// the corpus to pi under --home prints the file, what pi cannot carry and
// the resume command, and the file is there; --json reports the same;
// handing it to Codex twice gives a new id the second time, recorded as
// a fork of the source; an unknown agent is a usage error; handed to
// Claude Code, the thinking it leaves out is named.
func TestHandoffCommand(t *testing.T) {
	db := tempDB(t)
	sessionctl(t, db, "import", filepath.Join("..", "..", "testdata", "agents", "codex", "home", ".codex", "sessions")).mustSucceed(t)
	const id = "01a24b2d-56b0-7ef2-a254-f50b64f4f6df"
	home, cwd := t.TempDir(), t.TempDir()
	r := sessionctl(t, db, "handoff", id, "--to", "pi", "--home", home, "--cwd", cwd).mustSucceed(t)
	for _, want := range []string{"wrote session " + id + " for pi (pi, translated)", "cannot carry: 3 thinking blocks signed by openai",
		"cannot carry: calls of tools pi does not have: exec_command ×4", "resume:    cd " + cwd + " && HOME=" + home + " pi --session " + id} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	file := strings.TrimSpace(strings.Split(r.stdout, "\n")[1])
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	sessionctl(t, db, "handoff", id, "--to", "codex", "--home", home, "--cwd", cwd).mustSucceed(t)
	var res struct {
		Session string   `json:"session"`
		NewID   bool     `json:"new_id"`
		Files   []string `json:"files"`
		Resume  []string `json:"resume_headless"`
	}
	sessionctl(t, db, "handoff", id, "--to", "codex", "--home", home, "--cwd", cwd, "--json").mustSucceed(t).decode(t, &res)
	if !res.NewID || res.Session == id || len(res.Files) != 1 || strings.Join(res.Resume, " ") != "codex exec resume "+res.Session+" PROMPT" {
		t.Fatalf("second handoff to codex: %+v", res)
	}
	st, err := sqlstore.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := st.Get(t.Context(), id)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src.Attrs), `"handoffs":{"`+res.Session+`":{"agent":"codex"`) {
		t.Errorf("the new id is not recorded on the source: %s", src.Attrs)
	}
	// The agent's file imports as its own session (nothing stands in its way).
	sessionctl(t, db, "import", res.Files[0]).mustSucceed(t)
	sessionctl(t, db, "show", res.Session).mustSucceed(t)
	sessionctl(t, db, "handoff", id, "--to", "aider").mustFail(t, exitUsage, "unknown --to")
	r = sessionctl(t, db, "handoff", id, "--to", "claude-code", "--home", home, "--cwd", cwd).mustSucceed(t)
	for _, want := range []string{"3 thinking blocks signed by openai's API left out", "claude --resume " + id} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("claude-code: output lacks %q:\n%s", want, r.stdout)
		}
	}
}
