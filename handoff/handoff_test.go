package handoff

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// codexSession is session A of the Codex corpus (what Codex 0.171.0
// wrote), imported into a new store.
const codexSession = "01a24b2d-56b0-7ef2-a254-f50b64f4f6df"

func corpusStore(t *testing.T) sessiondb.Store {
	t.Helper()
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "h.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	root := filepath.Join("..", "testdata", "agents", "codex", "home", ".codex", "sessions")
	if _, err := jsonlimport.Import(t.Context(), st, []string{root}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	return st
}

func corpusFile(t *testing.T) []byte {
	t.Helper()
	var found []byte
	filepath.WalkDir(filepath.Join("..", "testdata", "agents", "codex", "home", ".codex", "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(p, codexSession) {
			found, _ = os.ReadFile(p)
		}
		return nil
	})
	if found == nil {
		t.Fatal("corpus file not found")
	}
	return found
}

// TestHandoffSameFormatThenNewID: a Codex session handed to Codex is its
// file byte for byte in the home's sessions folder; handed again, the
// target holds it, so it goes under a new UUIDv7 (bytes and file name
// rewritten, the first file untouched) and the relation is reported.
func TestHandoffSameFormatThenNewID(t *testing.T) {
	st := corpusStore(t)
	home := t.TempDir()
	// Run where Codex ran it: nothing to rewrite.
	o := Options{To: "codex", Env: Env{Home: home}, Cwd: "/tmp/sessiondb-agents/codex/project"}
	r, err := Handoff(t.Context(), st, codexSession, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Translated || r.NewID || len(r.Files) != 1 || !strings.HasPrefix(r.Files[0], filepath.Join(home, ".codex", "sessions")+"/") {
		t.Fatalf("%+v", r)
	}
	got, err := os.ReadFile(r.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, corpusFile(t)) {
		t.Error("the file is not the corpus file byte for byte")
	}
	if strings.Join(r.ResumeHeadless, " ") != "codex exec resume "+codexSession+" PROMPT" || strings.Join(r.Resume, " ") != "codex resume "+codexSession {
		t.Errorf("resume %q / %q", r.Resume, r.ResumeHeadless)
	}
	var related string
	o.Relate = func(_ context.Context, src, newID string) error { related = src + ">" + newID; return nil }
	r2, err := Handoff(t.Context(), st, codexSession, o)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.NewID || r2.Session == codexSession || related != codexSession+">"+r2.Session || r2.Session[14] != '7' {
		t.Fatalf("second handoff: %+v (related %q)", r2, related)
	}
	second, err := os.ReadFile(r2.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(second, []byte(codexSession)) || !bytes.Contains(second, []byte(r2.Session)) || !strings.Contains(r2.Files[0], r2.Session) {
		t.Error("the second file still names the first id")
	}
	if again, _ := os.ReadFile(r.Files[0]); !bytes.Equal(again, got) {
		t.Error("the first file changed")
	}
}

// TestHandoffTranslatedToPi: a Codex session handed to pi is translated,
// placed in pi's folder for the working directory, and what pi cannot
// use is named: OpenAI's signed reasoning and Codex's exec_command.
func TestHandoffTranslatedToPi(t *testing.T) {
	st := corpusStore(t)
	home, cwd := t.TempDir(), "/work/some project"
	r, err := Handoff(t.Context(), st, codexSession, Options{To: "pi", Env: Env{Home: home}, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, ".pi", "agent", "sessions", "--work-some project--")
	if !r.Translated || len(r.Files) != 1 || filepath.Dir(r.Files[0]) != want {
		t.Fatalf("%+v, want a file in %s", r, want)
	}
	lost := strings.Join(r.Lost, "\n")
	if !strings.Contains(lost, "3 thinking blocks signed by openai") || !strings.Contains(lost, "exec_command ×4") {
		t.Errorf("losses not named: %q", r.Lost)
	}
	if strings.Join(r.ResumeHeadless, " ") != "pi --session "+codexSession+" -p PROMPT" {
		t.Errorf("resume %q", r.ResumeHeadless)
	}
	// pi refuses a session whose directory does not exist: the header
	// records the directory it is handed to.
	data, err := os.ReadFile(r.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(firstLine(r.Files[0]), []byte(`"cwd":"/work/some project"`)) || bytes.Contains(data, []byte("/tmp/sessiondb-agents/codex/project\"")) {
		t.Errorf("the working directory is not rewritten: %s", firstLine(r.Files[0]))
	}
	// No temporary file or staging folder is left.
	var left []string
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(filepath.Base(p), "sessiondb-handoff") {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestHandoffTranslatedToClaudeCode: the Codex corpus session handed to
// Claude Code is a transcript in the project folder of the directory it
// is handed to, under the session's UUID, every line recording that
// directory and id; the thinking Codex's API signed is left out and
// named, Codex's exec_command calls written as Claude Code's Bash calls
// of the same command; our reader reads the file back with every call
// paired with its result.
func TestHandoffTranslatedToClaudeCode(t *testing.T) {
	st := corpusStore(t)
	home, cwd := t.TempDir(), "/work/some project"
	r, err := Handoff(t.Context(), st, codexSession, Options{To: "claude-code", Env: Env{Home: home}, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, ".claude", "projects", "-work-some-project", codexSession+".jsonl")
	if !r.Translated || r.NewID || len(r.Files) != 1 || r.Files[0] != want {
		t.Fatalf("%+v, want the file %s", r, want)
	}
	lost := strings.Join(r.Lost, "\n")
	if !strings.Contains(lost, "3 thinking blocks signed by openai's API left out") || strings.Contains(lost, "exec_command") ||
		strings.Contains(lost, "the text stays in the history") {
		t.Errorf("losses not named: %q", r.Lost)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "4 calls of exec_command written as claude-code's Bash") {
		t.Errorf("notes %q", r.Notes)
	}
	if strings.Join(r.ResumeHeadless, " ") != "claude --resume "+codexSession+" -p PROMPT" {
		t.Errorf("resume %q", r.ResumeHeadless)
	}
	data, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	for i, l := range lines {
		if !bytes.Contains(l, []byte(`"cwd":"/work/some project"`)) || !bytes.Contains(l, []byte(`"sessionId":"`+codexSession+`"`)) {
			t.Errorf("line %d does not record the directory and session: %.200s", i+1, l)
		}
		if bytes.Contains(l, []byte(`"type":"thinking"`)) {
			t.Errorf("line %d holds thinking Anthropic did not sign: %.200s", i+1, l)
		}
	}
	back, err := sqlstore.Open(filepath.Join(t.TempDir(), "b.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	rep, err := jsonlimport.Import(t.Context(), back, []string{filepath.Join(home, ".claude")}, jsonlimport.Options{Format: jsonlimport.FormatClaudeCode})
	if err != nil || rep.Sessions != 1 || len(rep.Problems) > 0 {
		t.Fatalf("read back: %v %+v", err, rep)
	}
	if !bytes.Contains(data, []byte(`"name":"Bash","input":{"command":"echo alpha"}`)) {
		t.Errorf("the shell call is not Claude Code's Bash:\n%s", data)
	}
	calls, results := 0, 0
	full, err := back.LoadFull(t.Context(), codexSession, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range full.Transcript {
		m := jsonlimport.Understand(jsonlimport.FormatClaudeCode, e)
		calls += len(m.Calls)
		results += len(m.Results)
	}
	if calls != 4 || results != 4 {
		t.Errorf("read back %d calls and %d results, want 4 and 4", calls, results)
	}
}

// TestHandoffToClaudeCodeNewUUID: a session whose id is not a UUID
// (opencode's ses_…) goes to Claude Code under a UUID made from it, the
// file named for it and the resume command naming it.
func TestHandoffToClaudeCodeNewUUID(t *testing.T) {
	st, id := importCorpus(t, "opencode")
	r, err := Handoff(t.Context(), st, id, Options{To: "claude-code", Env: Env{Home: t.TempDir()}, Cwd: "/p", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.NewID || r.Session == id || len(r.Session) != 36 || len(r.Files) != 1 || filepath.Base(r.Files[0]) != r.Session+".jsonl" {
		t.Fatalf("%+v: want a new UUID naming the file", r)
	}
	if strings.Join(r.ResumeHeadless, " ") != "claude --resume "+r.Session+" -p PROMPT" {
		t.Errorf("resume %q", r.ResumeHeadless)
	}
}

// TestHandoffRefusedAndDryRun: a target with no shape for the session
// refuses with ErrUntranslatable and writes nothing; a dry run reports
// the file and creates nothing in the home.
func TestHandoffRefusedAndDryRun(t *testing.T) {
	st := corpusStore(t)
	home := t.TempDir()
	// A pi session holding a bashExecution message (the output of a
	// command the user ran, which no neutral message holds): refused.
	if _, err := jsonlimport.Import(t.Context(), st, []string{filepath.Join("..", "testdata", "pi", "sessions", "damaged.jsonl")}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	_, err := Handoff(t.Context(), st, "01a22fef-3217-754a-80ac-976f2c9ab61d", Options{To: "gemini", Env: Env{Home: home}, Cwd: "/p"})
	if !errors.Is(err, jsonlimport.ErrUntranslatable) || !strings.Contains(err.Error(), "bashExecution") {
		t.Fatalf("err = %v, want ErrUntranslatable naming the bashExecution message", err)
	}
	// A Codex session is translated for Gemini CLI, its OpenAI-signed
	// thinking named among the losses (a dry run: nothing written).
	r, err := Handoff(t.Context(), st, codexSession, Options{To: "gemini", Env: Env{Home: home}, Cwd: "/p", DryRun: true})
	if err != nil || !r.Translated || len(r.Files) != 1 || filepath.Dir(r.Files[0]) != filepath.Join(home, ".gemini/tmp/p/chats") ||
		len(r.Lost) == 0 || !strings.Contains(r.Lost[0], "signed by openai's API") {
		t.Fatalf("gemini: %v %+v", err, r)
	}
	r, err = Handoff(t.Context(), st, codexSession, Options{To: "opencode", Env: Env{Home: home}, Cwd: "/p", DryRun: true})
	if err != nil || len(r.Files) != 1 || !r.NewID || !opencodeID(r.Session) ||
		r.Files[0] != filepath.Join(home, ".local/share/opencode/handoff", r.Session+".json") {
		t.Fatalf("dry run: %v %+v", err, r)
	}
	if es, _ := os.ReadDir(home); len(es) != 0 {
		t.Errorf("the refused handoff or the dry run wrote into the home: %v", es)
	}
	if _, err := Handoff(t.Context(), st, codexSession, Options{To: "aider", Env: Env{Home: home}}); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("unknown agent: %v", err)
	}
}

// TestPlace: each agent's folder for a working directory.
func TestPlace(t *testing.T) {
	for _, c := range []struct{ agent, rel, want string }{
		{"claude-code", "projects/-src/abc.jsonl", "projects/-home-u-my-app/abc.jsonl"},
		{"claude-code", "projects/-src/abc/subagents/agent-1.jsonl", "projects/-home-u-my-app/abc/subagents/agent-1.jsonl"},
		{"qwen", "projects/-src/chats/abc.jsonl", "projects/-home-u-my-app/chats/abc.jsonl"},
		{"gemini", "tmp/src/chats/session-x.jsonl", "tmp/my.app/chats/session-x.jsonl"},
		{"pi", "--src--/x.jsonl", "--home-u-my.app--/x.jsonl"},
		{"codex", "sessions/2026/01/02/rollout-x.jsonl", "sessions/2026/01/02/rollout-x.jsonl"},
	} {
		tg, _ := LookupTarget(c.agent)
		if got := tg.place(c.rel, "/home/u/my.app", "my.app"); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.agent, c.rel, got, c.want)
		}
	}
}

// TestHandoffClaudeAttachmentsNamed: a Claude Code session (the corpus's,
// with 16 attachment lines) is refused by a plain export into pi, but a
// handoff leaves the attachment lines out and names them.
func TestHandoffClaudeAttachmentsNamed(t *testing.T) {
	st, id := importCorpus(t, "claude-code")
	if _, err := jsonlimport.Export(t.Context(), st, []string{id}, jsonlimport.FormatPi, t.TempDir()); !errors.Is(err, jsonlimport.ErrUntranslatable) {
		t.Fatalf("plain export: %v, want ErrUntranslatable", err)
	}
	r, err := Handoff(t.Context(), st, id, Options{To: "pi", Env: Env{Home: t.TempDir()}, Cwd: "/p", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	lost := strings.Join(r.Lost, "\n")
	if !strings.Contains(lost, "16 Claude Code attachment lines left out") || !strings.Contains(lost, "Bash ×4") {
		t.Errorf("lost: %q", r.Lost)
	}
}

// TestOpencodeUserModel: the user messages of an opencode export name
// the configured model afterwards; the assistant messages keep theirs.
func TestOpencodeUserModel(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "agents", "opencode", "export", "*.json"))
	if len(files) == 0 {
		t.Fatal("no opencode export in the corpus")
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	before := sessionModel(data)
	if before == "" || before == "mine/model-x" {
		t.Fatalf("session model %q", before)
	}
	out, err := withUserModel(data, "mine/model-x")
	if err != nil {
		t.Fatal(err)
	}
	if got := sessionModel(out); got != "mine/model-x" {
		t.Errorf("after: %q", got)
	}
	provider, _, _ := strings.Cut(before, "/")
	if !bytes.Contains(out, []byte(`"providerID":"`+provider+`"`)) {
		t.Error("the assistant messages lost their provider")
	}
	home := t.TempDir()
	if m := opencodeModel(Env{Home: home}); m != "" {
		t.Errorf("no config, model %q", m)
	}
	if err := os.MkdirAll(filepath.Join(home, ".config", "opencode"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, ".config", "opencode", "opencode.json"), []byte(`{"model":"p/m"}`), 0o644)
	if m := opencodeModel(Env{Home: home}); m != "p/m" {
		t.Errorf("model %q, want p/m", m)
	}
}
