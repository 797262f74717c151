package cursor

// How an entry reads as a message.

import (
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// An entry's body is one bubble as Cursor stored it: type (1 user, 2
// assistant; "user" and "ai" in the older chat pane), text, thinking ({text, signature}, or a string), and
// toolFormerData, which carries a tool call and its result together:
// name, toolCallId, rawArgs (the model's arguments; params, Cursor's
// rewrite of them, when there are none), result, status ("completed",
// "error", "cancelled", …). A bubble with toolFormerData is a call and
// its result at once. A toolFormerData without a name (Cursor writes
// {"additionalData": …} for a capability that did not run) is no call.
// An assistant bubble with neither text, thinking nor a call is
// bookkeeping (a placeholder Cursor keeps between steps).
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	role, ok := roleOf(obj["type"])
	if !ok {
		return jsonl.Extracted(e)
	}
	m := jsonl.Message{Role: role, Text: jsonl.Str(obj, "text")}
	switch th := obj["thinking"].(type) {
	case string:
		m.Thinking = th
	case map[string]any:
		m.Thinking = jsonl.Str(th, "text")
	}
	if tf, _ := obj["toolFormerData"].(map[string]any); jsonl.Str(tf, "name") != "" {
		name := jsonl.Str(tf, "name")
		id := jsonl.OrString(jsonl.Str(tf, "toolCallId"), jsonl.Str(obj, "bubbleId"))
		args := jsonl.OrString(jsonl.Str(tf, "rawArgs"), jsonl.Str(tf, "params"))
		m.Calls = append(m.Calls, jsonl.ToolCall{ID: id, Name: name, Arguments: args})
		status := jsonl.Str(tf, "status")
		if res := jsonl.Str(tf, "result"); res != "" || status == "error" || status == "completed" || status == "cancelled" {
			r := jsonl.ToolResult{CallID: id, Name: name, Text: res, IsError: status == "error" || status == "cancelled"}
			if r.Text == "" && r.IsError {
				r.Text = "[" + status + "]"
			}
			m.Results = append(m.Results, r)
		}
	}
	if m.Role == "assistant" && strings.TrimSpace(m.Text) == "" && strings.TrimSpace(m.Thinking) == "" && len(m.Calls) == 0 {
		m.Bookkeeping = true
	}
	return m
}

// number reads a JSON number decoded either way (float64, or json.Number
// as jsonl.DecodeObject keeps it).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
