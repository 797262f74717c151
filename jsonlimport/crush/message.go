package crush

// How an entry reads as a message.

import (
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// An entry's body is one message row: {"id", "role", "parts": [...],
// "model", "provider", "created_at", "finished_at", "summary"}. Text
// parts are the text, reasoning parts the thinking, tool_call parts the
// calls (their input is the arguments' JSON text), tool_result parts (in
// a message of role "tool") the results, an agent tool's result naming
// the sub-agent's session (the program gives it the call's id). binary
// and image_url parts read as "[file: path]" and "[image: url]". A
// finish part ending a call in error or cancelled adds its reason when
// the message says nothing else. The summary message, which the program
// sends as a user message when it resumes, reads as Context; an
// abandoned message (KindAbandoned) as bookkeeping.
func (st Store) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	parts, ok := obj["parts"].([]any)
	if !ok {
		return jsonl.Extracted(e)
	}
	m := jsonl.Message{Role: jsonl.OrString(jsonl.Str(obj, "role"), e.Role)}
	var text, thinking []string
	var finish map[string]any
	for _, p := range parts {
		part, _ := p.(map[string]any)
		data, _ := part["data"].(map[string]any)
		if data == nil {
			continue
		}
		switch jsonl.Str(part, "type") {
		case "text":
			if t := jsonl.Str(data, "text"); t != "" {
				text = append(text, t)
			}
		case "reasoning":
			if t := jsonl.Str(data, "thinking"); strings.TrimSpace(t) != "" {
				thinking = append(thinking, t)
			}
		case "binary":
			text = append(text, "[file: "+jsonl.OrString(jsonl.Str(data, "path"), jsonl.Str(data, "mime_type"))+"]")
		case "image_url":
			text = append(text, "[image: "+jsonl.Str(data, "url")+"]")
		case "tool_call":
			m.Calls = append(m.Calls, jsonl.ToolCall{ID: jsonl.Str(data, "id"), Name: jsonl.Str(data, "name"), Arguments: jsonl.Str(data, "input")})
		case "tool_result":
			r := jsonl.ToolResult{CallID: jsonl.Str(data, "tool_call_id"), Name: jsonl.Str(data, "name"), Text: jsonl.Str(data, "content")}
			r.IsError, _ = data["is_error"].(bool)
			if r.Name == "agent" {
				r.Agent = r.CallID
			}
			m.Results = append(m.Results, r)
		case "finish":
			finish = data
		}
	}
	if finish != nil && len(text) == 0 && len(m.Calls) == 0 {
		switch reason := jsonl.Str(finish, "reason"); reason {
		case "error", "canceled", "permission_denied":
			text = append(text, strings.TrimSpace("["+reason+"] "+jsonl.Str(finish, "message")+" "+jsonl.Str(finish, "details")))
		}
	}
	m.Text = strings.Join(text, "\n\n")
	m.Thinking = strings.Join(thinking, "\n\n")
	if s, _ := obj["summary"].(bool); s {
		m.Context = true
	}
	if e.Kind == KindAbandoned {
		m.Bookkeeping = true
	}
	return m
}
