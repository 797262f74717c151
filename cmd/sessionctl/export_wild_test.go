package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportClaudeCodeAndCodexBack: sessions imported from Claude Code and
// Codex export back to the files they came from, byte for byte, in the
// tools' layouts; exported to pi they are translated; a Codex session is
// refused as Claude Code, a Claude Code session translated into Codex or
// refused naming what a rollout cannot hold, and export --all goes on
// past those with exit 1.
func TestExportClaudeCodeAndCodexBack(t *testing.T) {
	db := tempDB(t)
	cc := filepath.Join("..", "..", "testdata", "claudecode", "projects")
	cx := filepath.Join("..", "..", "testdata", "codex", "codex-home")
	sessionctl(t, db, "import", cc, cx)

	const ccID = "5c2d8e41-0000-4000-8000-000000000002"
	const cxID = "019f26cb-0000-7000-8000-000000000001"
	out := t.TempDir()
	var written []string
	sessionctl(t, db, "export", ccID, "--format", "claude-code", "--out", out, "--json").mustSucceed(t).decode(t, &written)
	rel := filepath.Join("projects", "-home-dev-proj", ccID+".jsonl")
	if len(written) != 1 || written[0] != filepath.Join(out, rel) {
		t.Fatalf("wrote %v, want %s", written, rel)
	}
	sameFile(t, filepath.Join(cc, "-home-dev-proj", ccID+".jsonl"), written[0])

	written = nil
	sessionctl(t, db, "export", cxID, "--format", "codex", "--out", out, "--json").mustSucceed(t).decode(t, &written)
	rel = filepath.Join("sessions", "2026", "01", "10", "rollout-2026-01-10T09-00-00-"+cxID+".jsonl")
	if len(written) != 1 || written[0] != filepath.Join(out, rel) {
		t.Fatalf("wrote %v, want %s", written, rel)
	}
	sameFile(t, filepath.Join(cx, rel), written[0])

	// Across formats: pi translates, the other wild format refuses by name.
	sessionctl(t, db, "export", cxID, "--format", "pi", "--out", t.TempDir()).mustSucceed(t)
	r := sessionctl(t, db, "export", cxID, "--format", "claude-code", "--out", t.TempDir()).mustFail(t, exitError, "cannot be written as a claude-code file")
	if !strings.Contains(r.stderr, "tool call") {
		t.Errorf("the refusal does not say what the session holds: %s", r.stderr)
	}
	empty := t.TempDir()
	r = sessionctl(t, db, "export", "--all", "--format", "codex", "--out", empty, "--json").mustFail(t, exitError, "could not be exported")
	written = nil
	r.decode(t, &written)
	// The four Codex fixtures, and the Claude Code sessions a rollout can
	// hold, translated (ccID among them); the others named.
	joined := strings.Join(written, "\n")
	if len(written) < 5 || !strings.Contains(joined, cxID) || !strings.Contains(joined, "-"+ccID+".jsonl") {
		t.Errorf("export --all --format codex wrote %d files: %v", len(written), written)
	}
	if !strings.Contains(r.stderr, "5c2d8e41-0000-4000-8000-000000000001") || !strings.Contains(r.stderr, "no codex shape for") {
		t.Errorf("the note does not name the Claude Code sessions left out: %s", r.stderr)
	}
}

func sameFile(t *testing.T, want, got string) {
	t.Helper()
	a, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s differs from %s", got, want)
	}
}
