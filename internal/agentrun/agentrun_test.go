package agentrun

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAgentsCommandLines(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range Agents() {
		if seen[a.Name] || a.Package == "" || a.Version == "" || a.Executable == "" || a.Protocol == "" {
			t.Fatalf("agent %+v", a)
		}
		seen[a.Name] = true
		if Lookup(a.Name) == nil {
			t.Fatalf("Lookup(%q) = nil", a.Name)
		}
		newArgs := a.NewArgs("11111111-2222-4333-8444-555555555555", "the prompt [[hello]]")
		if !slices.Contains(newArgs, "the prompt [[hello]]") {
			t.Errorf("%s: new %v lacks the prompt", a.Name, newArgs)
		}
		if a.TakesID() != slices.Contains(newArgs, "11111111-2222-4333-8444-555555555555") {
			t.Errorf("%s: new %v and TakesID %v disagree", a.Name, newArgs, a.TakesID())
		}
		res := a.ResumeArgs("SID", "next [[recall]]")
		if !slices.Contains(res, "SID") || !slices.Contains(res, "next [[recall]]") {
			t.Errorf("%s: resume %v", a.Name, res)
		}
	}
	if len(seen) != 6 {
		t.Fatalf("%d agents", len(seen))
	}
}

// TestEnvIsolated: nothing of the caller's environment reaches an agent
// but PATH; HOME and the XDG folders are the throw-away home's.
func TestEnvIsolated(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "a-real-key")
	t.Setenv("CI", "true")
	h, err := NewHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range Agents() {
		in := &Installed{Agent: a, Dir: "/nowhere"}
		env := in.Env(h, "http://127.0.0.1:1")
		vars := map[string]string{}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			if _, dup := vars[k]; dup {
				t.Errorf("%s: %s twice", a.Name, k)
			}
			vars[k] = v
		}
		if vars["HOME"] != h.Dir || vars["XDG_DATA_HOME"] != h.Data || vars["CI"] != "" || vars["ANTHROPIC_API_KEY"] == "a-real-key" {
			t.Errorf("%s: env %v", a.Name, env)
		}
		serverSeen := false
		for _, v := range vars {
			serverSeen = serverSeen || strings.Contains(v, "127.0.0.1:1")
		}
		if err := in.Setup(h, "http://127.0.0.1:1"); err != nil {
			t.Fatalf("%s: setup: %v", a.Name, err)
		}
		if !serverSeen && !configMentions(t, h.Dir, "127.0.0.1:1") {
			t.Errorf("%s: neither its environment nor its config names the server", a.Name)
		}
		cmd := in.Command(t.Context(), h, "http://127.0.0.1:1", []string{"x"})
		if cmd.Dir != h.Project || cmd.Stdin != nil {
			t.Errorf("%s: dir %s stdin %v", a.Name, cmd.Dir, cmd.Stdin)
		}
	}
}

// configMentions reports whether a file under dir holds s.
func configMentions(t *testing.T, dir, s string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			found = found || strings.Contains(string(b), s)
		}
		return nil
	})
	return found
}

func TestFindNotInstalled(t *testing.T) {
	_, err := Lookup("gemini").Find(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("Find in an empty cache: %v", err)
	}
}

func TestSessionIDFromOutput(t *testing.T) {
	h, _ := NewHome(t.TempDir())
	for name, out := range map[string]string{
		"gemini":      `{"session_id":"g-1","response":"x"}`,
		"qwen":        `[{"type":"system","session_id":"q-1"},{"type":"result"}]`,
		"opencode":    "{\"type\":\"step_start\",\"sessionID\":\"ses_1\"}\n{\"type\":\"text\"}\n",
		"claude-code": `{"type":"result","session_id":"c-1"}`,
		"codex":       "{\"type\":\"thread.started\",\"thread_id\":\"x-1\"}\n{\"type\":\"turn.started\"}\n",
		"pi":          "{\"type\":\"session\",\"id\":\"p-1\"}\n",
	} {
		id, err := Lookup(name).SessionID(h, []byte(out))
		if err != nil || !strings.HasSuffix(id, "-1") && id != "ses_1" {
			t.Errorf("%s: %q %v", name, id, err)
		}
	}
	if _, err := Lookup("gemini").SessionID(h, []byte(`{"response":"no id"}`)); err == nil {
		t.Error("gemini: no id, no error")
	}
}

// TestEditText: a hand edit replaces the JSON-escaped text in the
// session's files only.
func TestEditText(t *testing.T) {
	h, _ := NewHome(t.TempDir())
	dir := filepath.Join(h.Dir, ".gemini", "tmp", "project", "chats")
	os.MkdirAll(dir, 0o755)
	mine := filepath.Join(dir, "session-2026-01-01T00-00-aaaaaaaa.jsonl")
	other := filepath.Join(dir, "session-2026-01-01T00-00-bbbbbbbb.jsonl")
	os.WriteFile(mine, []byte(`{"sessionId":"aaaaaaaa-1"}`+"\n"+`{"type":"user","content":[{"text":"say \"hi\" <now>"}]}`+"\n"), 0o644)
	os.WriteFile(other, []byte(`{"sessionId":"bbbbbbbb-1"}`+"\n"+`{"type":"user","content":[{"text":"say \"hi\" <now>"}]}`+"\n"), 0o644)
	n, err := Lookup("gemini").EditText(h, "aaaaaaaa-1", `say "hi" <now>`, "edited ✍")
	if err != nil || n != 1 {
		t.Fatalf("edit: %d %v", n, err)
	}
	b, _ := os.ReadFile(mine)
	if !strings.Contains(string(b), `"text":"edited ✍"`) {
		t.Fatalf("edited file: %s", b)
	}
	b, _ = os.ReadFile(other)
	if !strings.Contains(string(b), `say \"hi\" <now>`) {
		t.Fatalf("another session's file changed: %s", b)
	}
	if _, err := Lookup("gemini").EditText(h, "aaaaaaaa-1", "absent", "x"); err == nil {
		t.Fatal("editing an absent text: no error")
	}
}

func TestEditOpencode(t *testing.T) {
	h, _ := NewHome(t.TempDir())
	path := filepath.Join(h.Data, "opencode", "opencode.db")
	os.MkdirAll(filepath.Dir(path), 0o755)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE part (id text, session_id text, data text)`,
		`CREATE TABLE message (id text, session_id text, data text)`,
		`CREATE TABLE session_message (id text, session_id text, data text)`,
		`CREATE TABLE event (id text, aggregate_id text, data text)`,
		`INSERT INTO part VALUES ('p1', 'ses_a', '{"type":"text","text":"first [[tools]]"}'), ('p2', 'ses_b', '{"type":"text","text":"first [[tools]]"}')`,
		`INSERT INTO event VALUES ('e1', 'ses_a', '{"part":{"text":"first [[tools]]"}}')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	n, err := Lookup("opencode").EditText(h, "ses_a", "first [[tools]]", "edited [[tools]]")
	if err != nil || n != 2 {
		t.Fatalf("edit: %d %v", n, err)
	}
	db, _ = sql.Open("sqlite", path)
	defer db.Close()
	var a, b string
	db.QueryRow(`SELECT data FROM part WHERE id = 'p1'`).Scan(&a)
	db.QueryRow(`SELECT data FROM part WHERE id = 'p2'`).Scan(&b)
	if !strings.Contains(a, "edited [[tools]]") || !strings.Contains(b, "first [[tools]]") {
		t.Fatalf("after the edit: %s / %s", a, b)
	}
}
