package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/compactor"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestCompactionSplitTurnAndFiles: a compaction that cut inside a long
// turn shows which turn, and the files its summarized part read and
// changed, on the transcript page and where it cut in the full log
// (issue 38, item 3).
func TestCompactionSplitTurnAndFiles(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	es := []sessiondb.Entry{{Kind: sessiondb.KindMessage, Body: json.RawMessage(`{"type":"user","message":{"role":"user","content":"Port the lexer."},"uuid":"u"}`)}}
	for i := range 30 {
		name := []string{"Read", "Edit"}[i%2]
		es = append(es,
			sessiondb.Entry{Kind: sessiondb.KindMessage, Body: json.RawMessage(fmt.Sprintf(`{"type":"assistant","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"c%d","name":%q,"input":{"file_path":"lex%d.go"}}]}}`, i, i, name, i))},
			sessiondb.Entry{Kind: sessiondb.KindMessage, Body: json.RawMessage(fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c%d","content":%q}]}}`, i, strings.Repeat("tok ", 300)))})
	}
	if _, err := st.Commit(ctx, "cc", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: jsonlimport.FormatClaudeCode}, Append: es}); err != nil {
		t.Fatal(err)
	}
	res, err := (&compactor.Compactor{Store: st, Summarizer: compactor.Offline{}, Policy: compactor.Policy{KeepTokens: 3000}}).Compact(ctx, "cc")
	if err != nil || !res.Compacted {
		t.Fatalf("%+v %v", res, err)
	}
	srv := server(t, st, Options{}).URL
	for _, path := range []string{"/s/cc", "/s/cc?all=1"} {
		body := mustPage(t, srv, path)
		mustContain(t, path, body, `class="split-turn"`, "The kept part starts inside the turn begun by the user prompt #1 &#34;Port the lexer.&#34;",
			"files of the summarized part:", "<code>lex0.go</code>", "<code>lex1.go</code>", `class="modified-files"`, `class="read-files"`)
	}
}

// TestUnpricedNeverZero: calls whose model has no price show as
// "unpriced" on the session list and the usage page (table, totals and
// cost bars), never as $0.00; a session with priced calls as well shows
// "$X + unpriced" (issue 38).
func TestUnpricedNeverZero(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	day := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for id, rows := range map[string][]sessiondb.Usage{
		"only-unpriced": {{Model: "brand-new-model", InputTokens: 100, CostEstimated: true, CreatedAt: day}},
		"mixed": {{Model: "brand-new-model", InputTokens: 100, CostEstimated: true, CreatedAt: day.AddDate(0, 0, 1)},
			{Model: "claude-opus-5", InputTokens: 100, Cost: 1.5, CostEstimated: true, CreatedAt: day.AddDate(0, 0, 1)}},
	} {
		if _, err := st.Commit(ctx, id, sessiondb.Commit{Create: &sessiondb.Session{Title: id}, Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"hi"}`)}, Usage: rows}); err != nil {
			t.Fatal(err)
		}
	}
	srv := server(t, st, Options{}).URL
	list := mustPage(t, srv, "/")
	mustContain(t, "list", list, ">unpriced<", "$1.50 &#43; unpriced")
	mustNotContain(t, "list", list, "$0.00")
	usage := mustPage(t, srv, "/usage")
	mustContain(t, "usage", usage, "<strong>$1.50 &#43; unpriced</strong>", `<td class="n">unpriced</td>`, "unpriced</text>")
	mustNotContain(t, "usage", usage, "$0.00")
}
