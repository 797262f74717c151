package viewer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestGeminiSubAgentLink: a Gemini CLI session whose invoke_agent call ran
// a sub-agent (written by Gemini CLI itself, testdata/gemini) shows the
// call's result with a link to the sub-agent's chat, a session of its own.
func TestGeminiSubAgentLink(t *testing.T) {
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := jsonlimport.Import(context.Background(), st, []string{filepath.Join("..", "testdata", "gemini", "gemini-home")}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	srv := server(t, st, Options{}).URL
	body := mustPage(t, srv, "/s/dbe76100-bb83-408c-aad9-3a584aa7a811")
	mustContain(t, "Gemini CLI session", body,
		`<span class="tool-name">invoke_agent</span>`,
		`<a class="agent-link" href="/s/2887861c-61f0-47e7-addb-bde818967921">`)
	mustPage(t, srv, "/s/2887861c-61f0-47e7-addb-bde818967921")
}
