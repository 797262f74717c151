package copilot

// How a Copilot CLI event reads as a message.

import (
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// The conversation is what Copilot CLI sends its model again on resume
// (seen in the requests of testdata/copilot): user.message (its content;
// the model was sent transformedContent, the same text after a
// <current_datetime> block), assistant.message (content, reasoningText,
// toolRequests) and tool.execution_complete (the result of the call it
// names). system.message is the system prompt: context. Every other event
// (turns, usage records, tool starts, hooks, shutdowns, resumes) is
// bookkeeping; so is an event of a sub-agent (data.parentToolCallId set),
// which is the sub-agent's conversation, not the session's.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	typ, _ := obj["type"].(string)
	d, _ := obj["data"].(map[string]any)
	if d == nil {
		return jsonl.Message{Role: jsonl.OrString(typ, "event"), Bookkeeping: true}
	}
	if SubAgent(obj) {
		return jsonl.Message{Role: typ, Text: jsonl.Str(d, "content"), Bookkeeping: true}
	}
	switch typ {
	case "user.message":
		src := jsonl.Str(d, "source")
		m := jsonl.Message{Role: "user", Text: jsonl.Str(d, "content")}
		m.Context = (src != "" && src != "user" && src != "compaction") || d["isAutopilotContinuation"] == true
		return m
	case "assistant.message":
		m := jsonl.Message{Role: "assistant", Text: jsonl.Str(d, "content"), Thinking: jsonl.Str(d, "reasoningText")}
		reqs, _ := d["toolRequests"].([]any)
		for _, r := range reqs {
			rm, _ := r.(map[string]any)
			if rm == nil {
				continue
			}
			m.Calls = append(m.Calls, jsonl.ToolCall{ID: jsonl.Str(rm, "toolCallId"), Name: jsonl.Str(rm, "name"), Arguments: jsonl.ArgText(rm["arguments"])})
		}
		return m
	case "tool.execution_complete":
		return jsonl.Message{Role: "tool", Results: []jsonl.ToolResult{Result(d)}}
	case "system.message":
		return jsonl.Message{Role: "system", Text: jsonl.Str(d, "content"), Context: true}
	}
	text := jsonl.Str(d, "message")
	if text == "" && strings.HasPrefix(typ, "session.") {
		text = jsonl.Str(d, "infoType")
	}
	return jsonl.Message{Role: jsonl.OrString(typ, e.Kind), Text: text, Bookkeeping: true}
}

// Result reads the data of a tool.execution_complete: result.content (the
// text the model was sent; detailedContent is the timeline's), or, for a
// failed call, error.message.
func Result(d map[string]any) jsonl.ToolResult {
	r := jsonl.ToolResult{CallID: jsonl.Str(d, "toolCallId")}
	ok, _ := d["success"].(bool)
	r.IsError = !ok
	if res, _ := d["result"].(map[string]any); res != nil {
		r.Text = jsonl.ContentText(res["content"])
	}
	if e, _ := d["error"].(map[string]any); e != nil && r.Text == "" {
		r.Text = jsonl.Str(e, "message")
	} else if s, _ := d["error"].(string); s != "" && r.Text == "" {
		r.Text = s
	}
	return r
}

// SubAgent reports whether event obj is a sub-agent's (the task tool's):
// its data has a parentToolCallId, or the event an agentId (Copilot CLI
// 1.0.55 writes both on a sub-agent's messages, agentId alone on
// subagent.started and subagent.completed).
func SubAgent(obj map[string]any) bool {
	if a, _ := obj["agentId"].(string); a != "" {
		return true
	}
	d, _ := obj["data"].(map[string]any)
	p, _ := d["parentToolCallId"].(string)
	return p != ""
}
