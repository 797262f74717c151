package cursor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/cursor"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// entryBodies loads a session's transcript bodies.
func entryBodies(t *testing.T, s sessiondb.Store, id string) [][]byte {
	t.Helper()
	es, err := s.Load(context.Background(), id, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	var out [][]byte
	for _, e := range es {
		out = append(out, e.Body)
	}
	return out
}

// trimInline keeps every fourth composer of the inline list (the quick
// run's share of the corpus).
const trimInline = `UPDATE ItemTable SET value = json_set(value, '$.allComposers', json((SELECT json_group_array(json(c.value))
	FROM json_each(ItemTable.value, '$.allComposers') c WHERE c.key % 4 = 0))) WHERE key = 'composer.composerData'`

// TestCursorCorpus imports the whole corpus: no problem; every composer
// of the cursorDiskKV store holding a conversation is a session whose
// transcript is its header bubbles in order, each body the bubble's value
// byte for byte (SQLite's json_each over fullConversationHeadersOnly is
// the oracle); every inline composer of the older ItemTable list is a
// session of its conversation in order, and so is every tab of the older
// chat pane with its bubbles; a store whose composers moved
// away and a VS Code store hold none; usage equals the tokenCount of the
// header bubbles as SQLite sums them.
func TestCursorCorpus(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	dir := copyCorpus(t)
	hist := filepath.Join(dir, "cursor-history", "state.vscdb")
	if !longtest.Enabled() {
		// The quick run keeps every fourth of the inline composers (the
		// long run all 26).
		exec(t, hist, trimInline)
	}
	rep, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("problem: %v", p)
	}
	raw := openRaw(t, urpg)
	hs := headers(t, urpg)
	wantSessions := len(hs)
	for comp, ids := range hs {
		got := entryBodies(t, s, comp)
		if d := cmp.Diff(ids, bubbleIDs(t, got)); d != "" {
			t.Errorf("composer %s: transcript is not its headers (-want +got):\n%s", comp, d)
		}
		for i, id := range ids {
			var val string
			if err := raw.QueryRow(`SELECT value FROM cursorDiskKV WHERE key = ?`, "bubbleId:"+comp+":"+id).Scan(&val); err != nil {
				t.Fatal(err)
			}
			if i < len(got) && string(got[i]) != val {
				t.Errorf("composer %s bubble %s: the body is not the stored value", comp, id)
			}
		}
		var in, out int64
		if err := raw.QueryRow(`SELECT ifnull(sum(json_extract(b.value, '$.tokenCount.inputTokens')), 0), ifnull(sum(json_extract(b.value, '$.tokenCount.outputTokens')), 0)
			FROM cursorDiskKV c, json_each(c.value, '$.fullConversationHeadersOnly') h, cursorDiskKV b
			WHERE c.key = ? AND b.key = 'bubbleId:' || ? || ':' || json_extract(h.value, '$.bubbleId')`, "composerData:"+comp, comp).Scan(&in, &out); err != nil {
			t.Fatal(err)
		}
		u, err := s.UsageTotals(ctx, comp)
		if err != nil {
			t.Fatal(err)
		}
		if u.InputTokens != in || u.OutputTokens != out || in == 0 {
			t.Errorf("composer %s: usage %d in %d out, the store records %d in %d out", comp, u.InputTokens, u.OutputTokens, in, out)
		}
	}
	// The older era: conversations inline in ItemTable's list.
	rows, err := openRaw(t, hist).Query(`SELECT json_extract(c.value, '$.composerId'), json_extract(b.value, '$.bubbleId')
		FROM ItemTable i, json_each(i.value, '$.allComposers') c, json_each(c.value, '$.conversation') b
		WHERE i.key = 'composer.composerData' ORDER BY c.key, b.key`)
	if err != nil {
		t.Fatal(err)
	}
	inline := map[string][]string{}
	for rows.Next() {
		var c, b string
		if err := rows.Scan(&c, &b); err != nil {
			t.Fatal(err)
		}
		inline[c] = append(inline[c], b)
	}
	rows.Close()
	wantSessions += len(inline)
	// The older chat pane's tabs, with bubbles.
	rows, err = openRaw(t, hist).Query(`SELECT json_extract(tb.value, '$.tabId'), json_extract(b.value, '$.id')
		FROM ItemTable i, json_each(i.value, '$.tabs') tb, json_each(tb.value, '$.bubbles') b
		WHERE i.key = 'workbench.panel.aichat.view.aichat.chatdata' ORDER BY tb.key, b.key`)
	if err != nil {
		t.Fatal(err)
	}
	tabs := map[string][]string{}
	for rows.Next() {
		var c, b string
		if err := rows.Scan(&c, &b); err != nil {
			t.Fatal(err)
		}
		tabs[c] = append(tabs[c], b)
	}
	rows.Close()
	wantSessions += len(tabs)
	for tab, ids := range tabs {
		var got []string
		for _, b := range entryBodies(t, s, tab) {
			var m struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			got = append(got, m.ID)
		}
		if d := cmp.Diff(ids, got); d != "" {
			t.Errorf("chat tab %s: transcript is not its bubbles (-want +got):\n%s", tab, d)
		}
	}
	if len(tabs) != 5 {
		t.Errorf("%d chat tabs with bubbles, want the corpus's 5", len(tabs))
	}
	for comp, ids := range inline {
		if d := cmp.Diff(ids, bubbleIDs(t, entryBodies(t, s, comp))); d != "" {
			t.Errorf("inline composer %s: transcript is not its conversation (-want +got):\n%s", comp, d)
		}
	}
	if len(hs) < 3 || len(inline) < longtest.Size(6, 26) {
		t.Fatalf("corpus: %d cursorDiskKV composers, %d inline ones", len(hs), len(inline))
	}
	if rep.Sessions != wantSessions {
		t.Errorf("imported %d sessions, the stores hold %d composers with a conversation", rep.Sessions, wantSessions)
	}
	t.Logf("corpus: %d sessions (%d cursorDiskKV, %d inline, %d chat tabs), %d entries", rep.Sessions, len(hs), len(inline), len(tabs), rep.Entries)
}

// TestCursorToolCalls: a bubble's toolFormerData is a call and its
// result at once. The corpus store's first composer has a turn of real
// tool bubbles its headers no longer name (a note says so); a copy whose
// headers name every bubble imports every tool bubble as a call paired
// with its result (SQLite counts the bubbles whose toolFormerData names
// a tool: the oracle), an errored one as an error.
func TestCursorToolCalls(t *testing.T) {
	ctx := context.Background()
	const comp = "21bcf92c-5808-47db-8faa-d847cfad6512"
	path := copyStore(t, urpg)
	exec(t, path, `UPDATE cursorDiskKV SET value = json_set(value, '$.fullConversationHeadersOnly', json(
		(SELECT json_group_array(json_object('bubbleId', substr(key, 47), 'type', json_extract(value, '$.type')))
		 FROM (SELECT key, value FROM cursorDiskKV WHERE key LIKE 'bubbleId:' || ? || ':%' ORDER BY key)))) WHERE key = ?`, comp, "composerData:"+comp)
	var wantCalls int
	if err := openRaw(t, path).QueryRow(`SELECT count(*) FROM cursorDiskKV WHERE key LIKE 'bubbleId:' || ? || ':%'
		AND json_extract(value, '$.toolFormerData.name') IS NOT NULL`, comp).Scan(&wantCalls); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	rep, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || len(rep.Notes) > 0 {
		t.Errorf("problems %v notes %v", rep.Problems, rep.Notes)
	}
	es, err := s.Load(ctx, comp, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	calls, paired := map[string]string{}, 0
	for _, e := range es {
		m := jsonl.ReadMessage(cursor.Format{}, e)
		for _, c := range m.Calls {
			calls[c.ID] = c.Name
			if !json.Valid([]byte(c.Arguments)) {
				t.Errorf("call %s: arguments %q are not JSON", c.ID, c.Arguments)
			}
		}
		for _, r := range m.Results {
			if calls[r.CallID] == r.Name && r.Name != "" {
				paired++
			}
		}
	}
	if wantCalls < 8 || len(calls) != wantCalls || paired != wantCalls {
		t.Errorf("%d calls, %d paired with their result; the store holds %d tool bubbles", len(calls), paired, wantCalls)
	}
	t.Logf("tool calls paired %d/%d", paired, wantCalls)
}

// TestCursorWorkspaceFolder: a workspace's store (workspace.json beside
// it naming the folder as a file: URL) gives its sessions that folder as
// cwd and project; the global store (no workspace.json) none.
func TestCursorWorkspaceFolder(t *testing.T) {
	ctx := context.Background()
	path := copyStore(t, urpg)
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "workspace.json"), []byte(`{"folder":"file:///home/u/my%20app"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Get(ctx, smallComposer)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]any
	if err := json.Unmarshal(sess.Attrs, &attrs); err != nil {
		t.Fatal(err)
	}
	if want := filepath.FromSlash("/home/u/my app"); attrs["cwd"] != want || attrs["project"] != want {
		t.Errorf("attrs %v, want cwd and project %q", attrs, want)
	}
}
