package pi

// How a pi session line reads as a message.

import (
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// piTypes are pi's line types without a message inside.
var piTypes = map[string]bool{
	"session": true, "model_change": true, "thinking_level_change": true, "label": true,
	"session_info": true, "custom": true, "custom_message": true, "compaction": true,
	"branch_summary": true,
}

// LineType reports whether typ is one of pi's line types without a
// message inside (jsonlimport reads a body of no named format whose type
// is one of them, and that names a parentId, as a pi line).
func LineType(typ string) bool { return piTypes[typ] }

// Understand implements jsonl.MessageReader.
//
// It reads one pi line: {"type": "message", "message": {...}}
// with the roles user, assistant (text, thinking, toolCall blocks),
// toolResult {toolCallId, toolName, content, isError}, bashExecution and
// custom (hookMessage before version 3); custom_message, compaction and
// branch_summary lines as the text pi puts into the context (Context);
// model and thinking-level changes, labels, session_info, custom lines and
// the session header as bookkeeping.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	typ, _ := obj["type"].(string)
	if inner, ok := obj["message"].(map[string]any); ok && typ == "message" {
		return piMessageObject(inner, e)
	}
	switch typ {
	case "custom_message":
		return jsonl.Message{Role: "custom", Text: jsonl.ContentText(obj["content"]), Context: true}
	case "compaction", "branch_summary":
		return jsonl.Message{Role: typ, Text: jsonl.Str(obj, "summary"), Context: true}
	}
	if obj["role"] != nil {
		return piMessageObject(obj, e)
	}
	for _, k := range []string{"name", "label", "modelId", "thinkingLevel", "customType", "cwd"} {
		if s := jsonl.Str(obj, k); s != "" {
			return jsonl.Message{Role: jsonl.OrString(typ, e.Role), Text: s, Bookkeeping: true}
		}
	}
	return jsonl.Message{Role: jsonl.OrString(typ, e.Role), Bookkeeping: true}
}

// piMessageObject reads pi's message object.
func piMessageObject(inner map[string]any, e sessiondb.Entry) jsonl.Message {
	switch role, _ := inner["role"].(string); role {
	case "bashExecution":
		return jsonl.Message{Role: role, Text: "$ " + jsonl.Str(inner, "command") + "\n" + jsonl.Str(inner, "output")}
	case "custom", "hookMessage", "branchSummary", "compactionSummary":
		m := jsonl.MessageObject(inner)
		if m.Text == "" {
			m.Text = jsonl.Str(inner, "summary")
		}
		m.Context = true
		return m
	}
	m := jsonl.MessageObject(inner)
	if m.Role == "" {
		m.Role = e.Role
	}
	if m.Role == "user" {
		// All context (an AGENTS.md preamble, sessiondb's compaction
		// summary), as in Codex and Claude Code.
		m.Context = m.Text != "" && jsonl.StripContext(m.Text) == ""
	}
	return m
}
