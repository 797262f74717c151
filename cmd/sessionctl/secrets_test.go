package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Planted secrets (made up): an AWS access key id and secret key and a
// PostgreSQL URL with a password, in the output of a tool call.
const (
	plantedKeyID    = "AKIAQ3EGRJ4WPZ7XL2MN"
	plantedSecret   = "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"
	plantedPassword = "pw-Xk29fLq7Zt3Rv8"
	leakySessionID  = "5c2d8e41-0000-4000-8000-00000000beef"
)

// leakyClaudeSession writes a Claude Code session whose Bash tool result
// (message content and toolUseResult.stdout) holds the planted secrets,
// and returns the archive root and the session file's bytes.
func leakyClaudeSession(t *testing.T) (string, []byte) {
	t.Helper()
	env := "AWS_ACCESS_KEY_ID=" + plantedKeyID + "\nAWS_SECRET_ACCESS_KEY=" + plantedSecret +
		"\nDATABASE_URL=postgres://app:" + plantedPassword + "@db.internal:5432/prod\n"
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	head := `"isSidechain":false,"userType":"external","cwd":"/home/dev/app","sessionId":"` + leakySessionID + `","version":"2.1.202","gitBranch":"main","entrypoint":"cli",`
	usage := `"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":20}`
	lines := []string{
		`{"parentUuid":null,` + head + `"type":"user","message":{"role":"user","content":"How did we deploy the app?"},"uuid":"e4000000-0000-4000-8000-000000000001","timestamp":"2026-02-01T10:00:00.000Z"}`,
		`{"parentUuid":"e4000000-0000-4000-8000-000000000001",` + head + `"type":"assistant","requestId":"req_1","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"cat .env"}}],"stop_reason":"tool_use",` + usage + `},"uuid":"e4000000-0000-4000-8000-000000000002","timestamp":"2026-02-01T10:00:01.000Z"}`,
		`{"parentUuid":"e4000000-0000-4000-8000-000000000002",` + head + `"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + js(env) + `,"is_error":false}]},"toolUseResult":{"stdout":` + js(env) + `,"stderr":"","interrupted":false,"isImage":false},"uuid":"e4000000-0000-4000-8000-000000000003","timestamp":"2026-02-01T10:00:02.000Z"}`,
		`{"parentUuid":"e4000000-0000-4000-8000-000000000003",` + head + `"type":"assistant","requestId":"req_2","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"We deploy with the env above: kubectl apply after the migration."}],"stop_reason":"end_turn",` + usage + `},"uuid":"e4000000-0000-4000-8000-000000000004","timestamp":"2026-02-01T10:00:03.000Z"}`,
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	root := t.TempDir()
	dir := filepath.Join(root, "projects", "-home-dev-app")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, leakySessionID+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return root, data
}

// leaked names the planted secrets s holds.
func leaked(s string) []string {
	var out []string
	for _, p := range []string{plantedKeyID, plantedSecret, plantedPassword} {
		if strings.Contains(s, p) {
			out = append(out, p)
		}
	}
	return out
}

func mustNotLeak(t *testing.T, what, s string) {
	t.Helper()
	if l := leaked(s); len(l) > 0 {
		t.Errorf("%s hands out %v:\n%s", what, l, s)
	}
}

func TestSecretSurfacesSQLite(t *testing.T)   { testSecretSurfaces(t, "sqlite") }
func TestSecretSurfacesPostgres(t *testing.T) { testSecretSurfaces(t, "postgres") }

// testSecretSurfaces imports a Claude Code session with an AWS key and a
// PostgreSQL URL with a password in a tool result, and reads it through
// every command a person uses: show, search and list mask the secrets
// (--no-redact shows them), export is byte for byte (--redact masks),
// secrets lists them without printing them, scrub needs --yes, removes
// them for good and is reported by doctor.
func testSecretSurfaces(t *testing.T, backend string) {
	db := tempDB(t)
	if backend == "postgres" {
		db = pgURL(t)
	}
	root, source := leakyClaudeSession(t)
	sessionctl(t, db, "import", root).mustSucceed(t)

	show := sessionctl(t, db, "show", leakySessionID).mustSucceed(t)
	mustNotLeak(t, "show", show.stdout)
	if !strings.Contains(show.stdout, "[REDACTED:aws-access-token]") {
		t.Errorf("show lacks the placeholder:\n%s", show.stdout)
	}
	showJSON := sessionctl(t, db, "show", leakySessionID, "--json").mustSucceed(t)
	mustNotLeak(t, "show --json", showJSON.stdout)
	var bodies []json.RawMessage
	showJSON.decode(t, &bodies)
	if len(bodies) != 4 || !strings.Contains(string(bodies[2]), "postgres://app:[REDACTED:url-password]@db.internal") {
		t.Fatalf("show --json: %d bodies:\n%s", len(bodies), showJSON.stdout)
	}
	// --no-redact: a person at a terminal sees what is stored, and
	// --json gives the stored bodies byte for byte.
	if l := leaked(sessionctl(t, db, "show", leakySessionID, "--no-redact").mustSucceed(t).stdout); len(l) == 0 {
		t.Errorf("show --no-redact shows no secret")
	}
	raw := sessionctl(t, db, "show", leakySessionID, "--no-redact", "--json").mustSucceed(t).stdout
	for i, line := range strings.Split(strings.TrimSuffix(string(source), "\n"), "\n") {
		if !strings.Contains(raw, line) {
			t.Errorf("show --no-redact --json lacks source line %d byte for byte", i+1)
		}
	}

	search := sessionctl(t, db, "search", "deploy", "--json").mustSucceed(t)
	mustNotLeak(t, "search", search.stdout)
	if !strings.Contains(search.stdout, leakySessionID) {
		t.Errorf("search lost the session:\n%s", search.stdout)
	}
	if out := sessionctl(t, db, "search", plantedKeyID, "--json").mustSucceed(t).stdout; strings.TrimSpace(out) != "[]" {
		t.Errorf("search for the key itself finds hits: %s", out)
	}
	if out := sessionctl(t, db, "search", plantedKeyID, "--json", "--no-redact").mustSucceed(t).stdout; !strings.Contains(out, plantedKeyID) {
		t.Errorf("search --no-redact for the key: %s", out)
	}

	// export is exact; export --redact is for sharing.
	exact := filepath.Join(t.TempDir(), "exact")
	sessionctl(t, db, "export", leakySessionID, "--format", "claude-code", "--out", exact).mustSucceed(t)
	got, err := os.ReadFile(filepath.Join(exact, "projects", "-home-dev-app", leakySessionID+".jsonl"))
	if err != nil || string(got) != string(source) {
		t.Fatalf("export is not byte for byte the imported file (%v)", err)
	}
	shared := filepath.Join(t.TempDir(), "shared")
	sessionctl(t, db, "export", leakySessionID, "--format", "claude-code", "--out", shared, "--redact").mustSucceed(t)
	red, err := os.ReadFile(filepath.Join(shared, "projects", "-home-dev-app", leakySessionID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	mustNotLeak(t, "export --redact", string(red))
	sc := bufio.NewScanner(strings.NewReader(string(red)))
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			t.Errorf("export --redact wrote a line that is not JSON: %s", sc.Text())
		}
	}

	// secrets: what to rotate, never the secret.
	var found []secretJSON
	secrets := sessionctl(t, db, "secrets", "--json").mustSucceed(t)
	mustNotLeak(t, "secrets --json", secrets.stdout)
	secrets.decode(t, &found)
	rules := map[string]secretJSON{}
	for _, f := range found {
		rules[f.Rule] = f
	}
	for _, r := range []string{"aws-access-token", "aws-secret-access-key", "url-password"} {
		if f, ok := rules[r]; !ok || f.SessionID != leakySessionID || f.FirstSeq == 0 || f.FirstAt == "" {
			t.Errorf("secrets: %s: %+v (all: %+v)", r, f, found)
		}
	}
	mustNotLeak(t, "secrets", sessionctl(t, db, "secrets").mustSucceed(t).stdout)

	// scrub: explicit, for good, recorded.
	sessionctl(t, db, "scrub", leakySessionID).mustFail(t, exitUsage, "--yes")
	if l := leaked(sessionctl(t, db, "show", leakySessionID, "--no-redact", "--json").stdout); len(l) != 3 {
		t.Fatalf("scrub without --yes changed something: %v", l)
	}
	scrub := sessionctl(t, db, "scrub", leakySessionID, "--yes", "--json").mustSucceed(t)
	var recs []scrubJSON
	scrub.decode(t, &recs)
	if len(recs) != 1 || recs[0].Entries == 0 || recs[0].Secrets < 3 {
		t.Fatalf("scrub: %s", scrub.stdout)
	}
	mustNotLeak(t, "show --no-redact after scrub", sessionctl(t, db, "show", leakySessionID, "--no-redact", "--json").mustSucceed(t).stdout)
	after := filepath.Join(t.TempDir(), "after")
	sessionctl(t, db, "export", leakySessionID, "--format", "claude-code", "--out", after).mustSucceed(t)
	got, err = os.ReadFile(filepath.Join(after, "projects", "-home-dev-app", leakySessionID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	mustNotLeak(t, "export after scrub", string(got))
	if out := sessionctl(t, db, "search", plantedKeyID, "--json", "--no-redact").mustSucceed(t).stdout; strings.TrimSpace(out) != "[]" {
		t.Errorf("the search index still finds the scrubbed key: %s", out)
	}
	doctor := sessionctl(t, db, "doctor").mustSucceed(t).stdout
	if !strings.Contains(doctor, "1 scrubs rewrote") || !strings.Contains(doctor, leakySessionID) {
		t.Errorf("doctor does not report the scrub:\n%s", doctor)
	}
	if out := sessionctl(t, db, "secrets").mustSucceed(t).stdout; !strings.Contains(out, "no secrets found") {
		t.Errorf("secrets after the scrub:\n%s", out)
	}
}

// TestSecretSurfacesMCPAndViewer: the MCP server's search and
// read_transcript, and the viewer's pages and JSON API, mask the planted
// secrets; the viewer's raw body endpoint too.
func TestSecretSurfacesMCPAndViewer(t *testing.T) {
	db := tempDB(t)
	root, _ := leakyClaudeSession(t)
	sessionctl(t, db, "import", root).mustSucceed(t)

	cs := mcpClient(t, db)
	_, text := call(t, cs, "search", map[string]any{"query": "deploy"}, nil)
	mustNotLeak(t, "MCP search", text)
	if !strings.Contains(text, leakySessionID) {
		t.Errorf("MCP search lost the session: %s", text)
	}
	_, text = call(t, cs, "search", map[string]any{"query": plantedKeyID}, nil)
	if strings.Contains(text, leakySessionID) {
		t.Errorf("MCP search for the key finds it: %s", text)
	}
	_, text = call(t, cs, "read_transcript", map[string]any{"session": leakySessionID}, nil)
	mustNotLeak(t, "MCP read_transcript", text)
	if !strings.Contains(text, "[REDACTED:") {
		t.Errorf("MCP read_transcript lacks the placeholders: %s", text)
	}
	_, text = call(t, cs, "read_transcript", map[string]any{"session": leakySessionID, "entry_seq": 3}, nil)
	mustNotLeak(t, "MCP read_transcript entry_seq", text)

	base := strings.TrimSuffix(startServe(t, db), "/")
	for _, path := range []string{
		"/s/" + leakySessionID, "/s/" + leakySessionID + "/raw/3", "/search?q=deploy",
		"/api/sessions/" + leakySessionID + "/transcript", "/api/search?q=deploy", "/api/sessions/" + leakySessionID,
	} {
		code, body := httpGet(t, base+path)
		if code != 200 {
			t.Errorf("GET %s: %d", path, code)
		}
		mustNotLeak(t, "viewer "+path, body)
	}
}
