package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportShareRedactsByDefault (issue 40 item 3): markdown and html are
// read surfaces, like show: the planted secrets of a Claude Code session
// are [REDACTED:rule] in both unless --no-redact, which writes them as
// stored; the tool call and its result are in the file either way.
func TestExportShareRedactsByDefault(t *testing.T) {
	root, _ := leakyClaudeSession(t)
	db := tempDB(t)
	sessionctl(t, db, "import", root).mustSucceed(t)
	for _, format := range []string{"markdown", "html"} {
		out := t.TempDir()
		r := sessionctl(t, db, "export", leakySessionID, "--format", format, "--out", out).mustSucceed(t)
		ext := map[string]string{"markdown": ".md", "html": ".html"}[format]
		file := filepath.Join(out, leakySessionID+ext)
		if strings.TrimSpace(r.stdout) != file {
			t.Fatalf("%s: printed %q, want %s", format, r.stdout, file)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if l := leaked(string(b)); len(l) > 0 {
			t.Errorf("%s: leaked %v", format, l)
		}
		if !strings.Contains(string(b), "[REDACTED:") || !strings.Contains(string(b), "cat .env") || !strings.Contains(string(b), "kubectl apply") {
			t.Errorf("%s: no redaction marker, tool call or answer:\n%s", format, b)
		}
		if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", format, st.Mode().Perm())
		}
		// Again into the same directory: refused, nothing changed.
		sessionctl(t, db, "export", leakySessionID, "--format", format, "--out", out).mustFail(t, exitError, "exists")
		raw := t.TempDir()
		sessionctl(t, db, "export", leakySessionID, "--format", format, "--out", raw, "--no-redact").mustSucceed(t)
		b, err = os.ReadFile(filepath.Join(raw, leakySessionID+ext))
		if err != nil {
			t.Fatal(err)
		}
		if l := leaked(string(b)); len(l) != 3 {
			t.Errorf("%s --no-redact: %d of the 3 secrets as stored", format, len(l))
		}
	}
	sessionctl(t, db, "export", leakySessionID, "--format", "html", "--out", t.TempDir(), "--redact", "--no-redact").mustFail(t, exitUsage, "contradict")
	sessionctl(t, db, "export", leakySessionID, "--format", "claude-code", "--out", t.TempDir(), "--no-redact").mustFail(t, exitUsage, "--no-redact is for markdown and html")
}
