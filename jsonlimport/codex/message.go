package codex

// How a Codex rollout line reads as a message.

import (
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// It reads one Codex rollout line {"type", "payload"} (or a
// legacy bare response item). Only response items are the conversation:
// event_msg lines (echoes of the prompts and answers, token counts, task
// events), turn_context, session_meta, compacted markers and legacy
// record lines are bookkeeping. A developer or system message, and a user
// message that is only injected context (<environment_context>,
// <user_instructions>, the AGENTS.md preamble, <turn_aborted>), is
// Context.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	typ, _ := obj["type"].(string)
	p, ok := obj["payload"].(map[string]any)
	if !ok {
		if codexItemTypes[typ] {
			return codexItem(typ, obj, e)
		}
		if rt, ok := obj["record_type"].(string); ok {
			return jsonl.Message{Role: "record", Text: rt, Bookkeeping: true}
		}
		if obj["role"] != nil {
			return jsonl.MessageObject(obj)
		}
		// A legacy header: the meta fields at the top level.
		return jsonl.Message{Role: jsonl.OrString(typ, "session_meta"), Bookkeeping: true}
	}
	if typ != "response_item" {
		text := jsonl.Str(p, "message")
		if typ == "event_msg" && text == "" {
			text = jsonl.Str(p, "type")
		}
		return jsonl.Message{Role: typ, Text: text, Bookkeeping: true}
	}
	ptype, _ := p["type"].(string)
	return codexItem(ptype, p, e)
}

// codexItem reads a response item of type ptype.
func codexItem(ptype string, p map[string]any, e sessiondb.Entry) jsonl.Message {
	id, _ := p["call_id"].(string)
	name, _ := p["name"].(string)
	switch ptype {
	case "message":
		m := jsonl.MessageObject(p)
		switch m.Role {
		case "developer", "system":
			m.Context = true
		case "user":
			m.Context = m.Text != "" && jsonl.StripContext(m.Text) == ""
		}
		return m
	case "reasoning":
		t := jsonl.ContentText(p["summary"])
		if t == "" {
			t = jsonl.ContentText(p["content"])
		}
		// Reasoning kept only encrypted says nothing a reader can see:
		// bookkeeping.
		return jsonl.Message{Role: "assistant", Thinking: t, Bookkeeping: t == ""}
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call":
		args := jsonl.FirstOf(p, "arguments", "input", "action")
		return jsonl.Message{Role: "assistant", Calls: []jsonl.ToolCall{{ID: jsonl.OrString(id, jsonl.Str(p, "id")), Name: jsonl.OrString(name, ptype), Arguments: jsonl.ArgText(args)}}}
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output":
		return jsonl.Message{Role: "tool", Results: []jsonl.ToolResult{{CallID: id, Text: codexOutputText(p["output"])}}}
	case "ghost_snapshot":
		return jsonl.Message{Role: ptype, Bookkeeping: true}
	}
	return jsonl.Message{Role: jsonl.OrString(e.Role, ptype), Text: jsonl.Extracted(e).Text}
}

// codexOutputText is a Codex tool output: a string (older rollouts wrap
// the text in a JSON document {"output": …}), or content blocks.
func codexOutputText(v any) string {
	if s, ok := v.(string); ok {
		var wrapped struct {
			Output *string `json:"output"`
		}
		if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &wrapped) == nil && wrapped.Output != nil {
			return *wrapped.Output
		}
		return s
	}
	return jsonl.ContentText(v)
}
