package viewer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestOpencodeSession: an opencode session (the repository's fixture,
// written by opencode itself) shows its prompts, thinking, tool calls with
// their results and answers, and its task call links the sub-agent's
// session.
func TestOpencodeSession(t *testing.T) {
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "v.db"), &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db := filepath.Join("..", "testdata", "opencode", "store", "opencode.db")
	if _, err := os.Stat(db); err != nil {
		t.Fatal(err)
	}
	if _, err := jsonlimport.Import(context.Background(), st, []string{db}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	srv := server(t, st, Options{}).URL
	body := mustPage(t, srv, "/s/ses_db4bdffc1ffeoXu5fqm66Azq2r")
	mustContain(t, "opencode session", body,
		"please use tools now", `<details class="thinking">`, "I should run two tools in parallel.",
		`<span class="tool-name">bash</span>`, "call_a1", `<span class="tool-name">read</span>`, "File not found",
		`<span class="tool-name">task</span>`, `href="/s/ses_db4bc72d9ffe6Xt6zGDHJlGf55"`,
		"All tools finished.")
	if strings.Contains(body, `"parts":[`) {
		t.Errorf("the page shows raw JSON of a message")
	}
}
