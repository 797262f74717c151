package mcpserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// connect serves st in process and returns a Go SDK client session.
func connect(t *testing.T, st sessiondb.Store) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := New(st, Options{})
	st1, st2 := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st1, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, st2, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestFoldedPagesProperty: a session of 150 tool calls, each with a
// result of a varying size, read at several budgets. Every page fits its
// budget, every entry is read once, and every result comes back exactly
// once: folded into its call, or alone when its call ended the previous
// page.
func TestFoldedPagesProperty(t *testing.T) {
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var entries []sessiondb.Entry
	for i := 1; i <= 150; i++ {
		entries = append(entries,
			sessiondb.Message(fmt.Sprintf(`{"role":"assistant","content":"step %d","tool_calls":[{"id":"c%d","function":{"name":"run","arguments":"{}"}}]}`, i, i)),
			sessiondb.Message(fmt.Sprintf(`{"role":"tool","tool_call_id":"c%d","content":%q}`, i, strings.Repeat("r", (i*379)%3000))))
	}
	if _, err := st.Commit(ctx, "s", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, st)
	for _, budget := range []int{MinMaxBytes, 3000, 5000, DefaultMaxBytes} {
		results := map[string]int{}
		seqs := map[int64]bool{}
		args := map[string]any{"session": "s", "max_bytes": budget}
		pages := 0
		for {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_transcript", Arguments: args})
			if err != nil || res.IsError {
				t.Fatalf("budget %d: %v %+v", budget, err, res)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if len(text) > budget {
				t.Fatalf("budget %d: page of %d bytes", budget, len(text))
			}
			var out transcriptOut
			if err := json.Unmarshal([]byte(text), &out); err != nil {
				t.Fatal(err)
			}
			pages++
			for _, m := range out.Messages {
				seqs[m.Seq] = true
				for _, c := range m.ToolCalls {
					if c.Result != nil {
						results[c.Result.CallID]++
						seqs[c.Result.Seq] = true
					}
				}
				for _, r := range m.ToolResults {
					results[r.CallID]++
				}
			}
			if !out.Truncated {
				break
			}
			args = map[string]any{"cursor": out.NextCursor, "max_bytes": budget}
		}
		if len(seqs) != 300 {
			t.Errorf("budget %d: read %d entries, want 300", budget, len(seqs))
		}
		for i := 1; i <= 150; i++ {
			if n := results[fmt.Sprintf("c%d", i)]; n != 1 {
				t.Errorf("budget %d: result c%d came back %d times", budget, i, n)
			}
		}
		t.Logf("budget %d: %d pages", budget, pages)
	}
}

// TestToolPanicIsAToolError: a bug in a handler is a tool error, and the
// server goes on serving.
func TestToolPanicIsAToolError(t *testing.T) {
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Commit(context.Background(), "s", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"x"}`)}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv := New(st, Options{Understand: func(string, sessiondb.Entry) jsonlimport.Message { panic("boom") }})
	a, b := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_transcript", Arguments: map[string]any{"session": "s"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "internal error") {
		t.Fatalf("panic: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "session_info", Arguments: map[string]any{"session": "s"}})
	if err != nil || res.IsError {
		t.Fatalf("after the panic: %v %+v", err, res)
	}
}

// TestResourceErrorCodes: a resource read that fails answers with a
// JSON-RPC error code a client can act on: not found (-32002 or the
// SDK's -32602) for an ID that cannot name a session, internal error
// (-32603) for a bug. Before, both came with code 0, which JSON-RPC does
// not define.
func TestResourceErrorCodes(t *testing.T) {
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := st.Commit(ctx, "s", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"x"}`)}}); err != nil {
		t.Fatal(err)
	}
	code := func(cs *mcp.ClientSession, uri string) int64 {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) {
			t.Fatalf("%s: want a JSON-RPC error, got %v", uri, err)
		}
		return werr.Code
	}
	cs := connect(t, st)
	notFound := code(cs, SessionURI("no-such-session"))
	for _, id := range []string{"\x00", "a\x1bb", strings.Repeat("x", 5000)} {
		if c := code(cs, SessionURI(id)); c != notFound {
			t.Errorf("%.40q: code %d, want %d as for a missing session", id, c, notFound)
		}
	}
	srv := New(st, Options{Understand: func(string, sessiondb.Entry) jsonlimport.Message { panic("boom") }})
	a, b := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	if c := code(cs2, SessionURI("s")); c != jsonrpc.CodeInternalError {
		t.Errorf("panic: code %d, want %d", c, jsonrpc.CodeInternalError)
	}
}

// TestUsageUnpriced: the usage tool counts the calls whose model has no
// price (unpriced_calls) and says their cost is unknown, not 0 (issue 38).
func TestUsageUnpriced(t *testing.T) {
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := st.Commit(ctx, "s", sessiondb.Commit{Create: &sessiondb.Session{}, Usage: []sessiondb.Usage{
		{Model: "brand-new-model", InputTokens: 10, CostEstimated: true},
		{Model: "priced", InputTokens: 10, Cost: 0.25, CostEstimated: true},
	}}); err != nil {
		t.Fatal(err)
	}
	res, err := connect(t, st).CallTool(ctx, &mcp.CallToolParams{Name: "usage", Arguments: map[string]any{"by": []string{"model"}}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var out usageOut
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatal(err)
	}
	unpriced := map[string]int64{}
	for _, r := range out.Rows {
		unpriced[r.Model] = r.UnpricedCalls
	}
	if unpriced["brand-new-model"] != 1 || unpriced["priced"] != 0 || out.Total.UnpricedCalls != 1 || out.Total.Cost != 0.25 ||
		!strings.Contains(out.Note, "cost is unknown, not 0") {
		t.Errorf("usage: %+v", out)
	}
}

// TestUsageAbsurdStoredCost (issue 36 item 4): a stored cost of +Inf, or
// finite costs whose sum overflows (written before prices were bounded),
// used to make the usage tool fail. Totals count such a cost as 0
// (sessiondb.MaxCost); the other rows' costs are summed.
func TestUsageAbsurdStoredCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := sqlstore.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := st.Commit(ctx, "s", sessiondb.Commit{Create: &sessiondb.Session{}, Usage: []sessiondb.Usage{
		{Model: "m", InputTokens: 10, Cost: 1, CostEstimated: true},
		{Model: "m", InputTokens: 10, Cost: 2, CostEstimated: true},
		{Model: "m", InputTokens: 10, Cost: 3, CostEstimated: true},
		{Model: "m", InputTokens: 10, Cost: 0.25, CostEstimated: true},
	}}); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE usage SET cost = CASE cost WHEN 1 THEN 9e999 ELSE 1.7e308 END WHERE cost >= 1`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	cs := connect(t, st)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "usage", Arguments: map[string]any{"by": []string{"model"}}})
	if err != nil || res.IsError {
		t.Fatalf("usage: %v %+v", err, res)
	}
	var out usageOut
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatal(err)
	}
	if out.Total.Cost != 0.25 {
		t.Errorf("usage total cost %v, want 0.25 (the absurd rows count as 0)", out.Total.Cost)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_sessions", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("list_sessions: %v %+v", err, res)
	}
}
