package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPBeforeFirstImport: an agent that registers the MCP server before
// anything is imported gets a server that starts, answers every tool with
// nothing found and says why (the database does not exist yet, and the
// command that creates it), and creates nothing at the database's path;
// the import that follows creates the database as it would have, and the
// same server then serves it.
func TestMCPBeforeFirstImport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "sub", "sessions.db")
	cs := mcpClient(t, db)

	var list struct {
		Sessions []struct{ ID string }
		Note     string
	}
	call(t, cs, "list_sessions", map[string]any{}, &list)
	if len(list.Sessions) != 0 || !strings.Contains(list.Note, "does not exist yet") || !strings.Contains(list.Note, "sessionctl import") {
		t.Errorf("list_sessions before the first import: %+v", list)
	}
	var hits struct {
		Hits []any
		Note string
	}
	call(t, cs, "search", map[string]any{"query": "deploy"}, &hits)
	if len(hits.Hits) != 0 || !strings.Contains(hits.Note, "does not exist yet") {
		t.Errorf("search before the first import: %+v", hits)
	}
	var usage struct {
		Rows []any
		Note string
	}
	call(t, cs, "usage", map[string]any{"by": "model"}, &usage)
	if len(usage.Rows) != 0 || !strings.Contains(usage.Note, "does not exist yet") {
		t.Errorf("usage before the first import: %+v", usage)
	}
	if res, text := call(t, cs, "session_info", map[string]any{"session": "nope"}, nil); !res.IsError || !strings.Contains(text, "nope") {
		t.Errorf("session_info of an unknown session: %s", text)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !os.IsNotExist(err) {
		t.Fatalf("the MCP server created something at the database's path: %v", err)
	}

	// The first import creates the database; the running server serves it.
	out, err := exec.Command(buildSessionctl(t), "--db", db, "import", filepath.Join(testdata, "samples", "swink")).CombinedOutput()
	if err != nil {
		t.Fatalf("import after the MCP server started: %v\n%s", err, out)
	}
	var after struct {
		Sessions []struct{ ID string }
		Note     string
	}
	call(t, cs, "list_sessions", map[string]any{"limit": 100}, &after)
	if len(after.Sessions) == 0 || strings.Contains(after.Note, "does not exist") {
		t.Errorf("list_sessions after the import: %d sessions, note %q", len(after.Sessions), after.Note)
	}
	// Another import (the server holds the database open read-only)
	// still works.
	if out, err := exec.Command(buildSessionctl(t), "--db", db, "import", filepath.Join(testdata, "samples", "swink")).CombinedOutput(); err != nil {
		t.Fatalf("a second import while the server runs: %v\n%s", err, out)
	}

	// The database that appeared is served redacted, as one that existed
	// at start is: the server was given the stand-in, not the database.
	leak := filepath.Join(dir, "leak")
	if err := os.MkdirAll(leak, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"role":"user","content":"deploy with ` + plantedKeyID + `"}` + "\n"
	if err := os.WriteFile(filepath.Join(leak, "leaky.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(buildSessionctl(t), "--db", db, "import", leak).CombinedOutput(); err != nil {
		t.Fatalf("import of the planted key: %v\n%s", err, out)
	}
	_, text := call(t, cs, "read_transcript", map[string]any{"session": "leaky"}, nil)
	if strings.Contains(text, plantedKeyID) || !strings.Contains(text, "REDACTED") {
		t.Errorf("read_transcript of a database that appeared after start serves the key:\n%s", text)
	}
}

// TestMCPUsageBy: usage's "by" takes one name, names joined by commas,
// or a list, and they mean the same.
func TestMCPUsageBy(t *testing.T) {
	db := mcpDBSmall(t)
	cs := mcpClient(t, db)
	type usageOut struct {
		By   []string
		Rows []struct {
			Day, Model string
		}
	}
	var asString, asCommas, asList usageOut
	call(t, cs, "usage", map[string]any{"by": "model"}, &asString)
	if len(asString.Rows) == 0 || asString.Rows[0].Model == "" || asString.Rows[0].Day != "" {
		t.Errorf(`by "model": %+v`, asString)
	}
	call(t, cs, "usage", map[string]any{"by": "day,model"}, &asCommas)
	call(t, cs, "usage", map[string]any{"by": []string{"day", "model"}}, &asList)
	if len(asCommas.Rows) == 0 || asCommas.Rows[0].Day == "" || asCommas.Rows[0].Model == "" {
		t.Errorf(`by "day,model": %+v`, asCommas)
	}
	if strings.Join(asCommas.By, ",") != "day,model" || strings.Join(asList.By, ",") != "day,model" || len(asList.Rows) != len(asCommas.Rows) {
		t.Errorf(`by "day,model" %+v, by ["day","model"] %+v`, asCommas, asList)
	}
	if res, text := call(t, cs, "usage", map[string]any{"by": 3}, nil); !res.IsError {
		t.Errorf("by 3 accepted: %s", text)
	}
	if res, text := call(t, cs, "usage", map[string]any{"by": "weekday"}, nil); !res.IsError || !strings.Contains(text, "weekday") {
		t.Errorf(`by "weekday": %s`, text)
	}
}

// mcpDBSmall is mcpDB's seed without the large sessions: a SQLite file.
func mcpDBSmall(t *testing.T) string {
	t.Helper()
	loc := filepath.Join(t.TempDir(), "sessions.db")
	st, err := openBackend(t.Context(), loc, modeCreate, openOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seedMCP(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return loc
}
