package mcpserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestReadTranscriptCountsMessages: in a Claude Code session whose API
// responses were streamed one content block a line (message-part
// entries), read_transcript returns one message per response, with its
// tool calls together and their results folded in; last: N returns N
// messages, as list_sessions' message_count and `sessionctl show` count
// them (it returned one for last: 3 when it counted log entries).
func TestReadTranscriptCountsMessages(t *testing.T) {
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	line := func(kind, role, body string) sessiondb.Entry {
		return sessiondb.Entry{Kind: kind, Role: role, Body: json.RawMessage(body)}
	}
	if _, err := st.Commit(ctx, "cc", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code"}, Append: []sessiondb.Entry{
		line("message", "user", `{"type":"user","message":{"role":"user","content":"Check the build."}}`),
		line("message", "assistant", `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Checking."}]}}`),
		line("message-part", "assistant", `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go build ./..."}}]}}`),
		line("message-part", "assistant", `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"go vet ./..."}}]}}`),
		line("progress", "", `{"type":"progress","data":{"type":"hook_progress"}}`),
		line("message", "user", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"built"}]}}`),
		line("message-part", "user", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"vetted"}]}}`),
		line("message", "assistant", `{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"All good."}]}}`),
	}}); err != nil {
		t.Fatal(err)
	}
	sess, err := st.Get(ctx, "cc")
	if err != nil || sess.MessageCount != 4 {
		t.Fatalf("MessageCount %d, %v; want 4", sess.MessageCount, err)
	}
	cs := connect(t, st)
	read := func(args map[string]any) transcriptOut {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_transcript", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%v: %v %+v", args, err, res)
		}
		var out transcriptOut
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := read(map[string]any{"session": "cc"})
	// The result entries fold into their calls: three messages remain
	// (user, the response with both calls and results, the answer).
	if len(all.Messages) != 3 {
		t.Fatalf("the transcript: %d messages, want 3: %+v", len(all.Messages), all.Messages)
	}
	resp := all.Messages[1]
	if resp.Seq != 2 || resp.LastSeq != 4 || resp.Text != "Checking." || len(resp.ToolCalls) != 2 ||
		resp.ToolCalls[0].Result == nil || resp.ToolCalls[0].Result.Text != "built" ||
		resp.ToolCalls[1].Result == nil || resp.ToolCalls[1].Result.Text != "vetted" {
		t.Errorf("the streamed response is not one message with its calls and results: %+v", resp)
	}
	for n, want := range map[int][]int64{1: {8}, 2: {6, 8}, 3: {2, 8}, 4: {1, 2, 8}, 10: {1, 2, 8}} {
		out := read(map[string]any{"session": "cc", "last": n})
		var got []int64
		for _, m := range out.Messages {
			got = append(got, m.Seq)
		}
		if len(got) != len(want) || (len(got) > 0 && (got[0] != want[0] || got[len(got)-1] != want[len(want)-1])) {
			t.Errorf("last %d: messages at %v, want %v", n, got, want)
		}
	}
}

// TestSearchSnippetsPlain: search snippets are text as people read it: a
// command's && and a file's <template> as written (no JSON escapes), each
// match between « and », a "**" of the text left as it is.
func TestSearchSnippetsPlain(t *testing.T) {
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := st.Commit(ctx, "cc", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: "claude-code"}, Append: []sessiondb.Entry{
		{Kind: "message", Role: "assistant", Body: json.RawMessage(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cd web && npm test > out.txt; ls **/*.vue"}}]}}`)},
	}}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, st)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "npm"}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	var out searchOut
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Hits) != 1 {
		t.Fatalf("hits %+v", out.Hits)
	}
	want := "Bash\n" + `{"command":"cd web && «npm» test > out.txt; ls **/*.vue"}`
	if got := out.Hits[0].Snippet; got != want {
		t.Errorf("snippet %q, want %q", got, want)
	}
}
