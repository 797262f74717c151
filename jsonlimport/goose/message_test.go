package goose

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// TestGooseUnderstand: goose's content items, as message.rs serializes
// them, read as the text, thinking, calls and results they are.
func TestGooseUnderstand(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       jsonl.Message
	}{
		{"call with thinking", `{"id":"m","role":"assistant","created":1,"content":[{"type":"thinking","thinking":"why","signature":"s"},{"type":"text","text":"I'll look."},{"type":"toolRequest","id":"c1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}],"metadata":{"userVisible":true,"agentVisible":true}}`,
			jsonl.Message{Role: "assistant", Text: "I'll look.", Thinking: "why", Calls: []jsonl.ToolCall{{ID: "c1", Name: "developer__shell", Arguments: `{"command":"ls"}`}}}},
		{"current result, error flag", `{"role":"user","created":1,"content":[{"type":"toolResponse","id":"c1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":true}}}]}`,
			jsonl.Message{Role: "user", Results: []jsonl.ToolResult{{CallID: "c1", Text: "a\nb", IsError: true}}}},
		{"older result: a bare list", `{"role":"user","created":1,"content":[{"type":"toolResponse","id":"c2","toolResult":{"status":"success","value":[{"type":"text","text":"out"}]}}]}`,
			jsonl.Message{Role: "user", Results: []jsonl.ToolResult{{CallID: "c2", Text: "out"}}}},
		{"failed call and its error", `{"role":"assistant","created":1,"content":[{"type":"toolRequest","id":"c3","toolCall":{"status":"error","error":"bad json"}}]}`,
			jsonl.Message{Role: "assistant", Calls: []jsonl.ToolCall{{ID: "c3", Arguments: "bad json"}}}},
		{"error result", `{"role":"user","created":1,"content":[{"type":"toolResponse","id":"c3","toolResult":{"status":"error","error":"-32602: bad"}}]}`,
			jsonl.Message{Role: "user", Results: []jsonl.ToolResult{{CallID: "c3", Text: "-32602: bad", IsError: true}}}},
		{"older reasoning, image", `{"role":"assistant","created":1,"content":[{"type":"reasoning","text":"hmm"},{"type":"image","data":"AA==","mimeType":"image/png"}]}`,
			jsonl.Message{Role: "assistant", Text: "[image: image/png]", Thinking: "hmm"}},
		{"notice only", `{"role":"assistant","created":1,"content":[{"type":"systemNotification","notificationType":"inlineMessage","msg":"Compacting"}],"metadata":{"userVisible":true,"agentVisible":false}}`,
			jsonl.Message{Role: "assistant", Text: "Compacting", Bookkeeping: true}},
		{"compaction summary", `{"role":"user","created":1,"content":[{"type":"text","text":"Summary: x"}],"metadata":{"userVisible":false,"agentVisible":true}}`,
			jsonl.Message{Role: "user", Text: "Summary: x", Context: true}},
	} {
		e := sessiondb.Entry{Kind: sessiondb.KindMessage, Body: []byte(c.body)}
		if d := cmp.Diff(c.want, jsonl.ReadMessage(Format{}, e)); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// TestGooseSessionTimes: a session's times are its row's, in both ways
// goose writes them (SQLite's CURRENT_TIMESTAMP text, sqlx's RFC 3339),
// or what the driver made of them.
func TestGooseSessionTimes(t *testing.T) {
	for _, v := range []any{"2026-03-01 10:00:00", "2026-03-01T10:00:00.000+00:00", "2026-03-01T11:00:00+01:00"} {
		if got := rowTime(row{"t": v}, "t"); got.Format("2006-01-02T15:04:05Z07:00") != "2026-03-01T10:00:00Z" {
			t.Errorf("%v reads as %v", v, got)
		}
	}
}
