package opencode

// How an opencode message entry reads as a message.

import (
	"fmt"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// An entry's body is one message as `opencode export` writes it:
// {"info": {role, …}, "parts": [...]}. Its text parts are the text (a
// user's synthetic parts, which opencode adds, such as a file it read for
// the prompt, make the message Context when they are all it has), its
// reasoning parts the thinking, and each tool part both a call (its
// callID, tool name and state.input) and, once it ran, its result: the
// output (completed), the error (error), or, for a call still pending or
// running, "[Tool execution was interrupted]", which is what opencode
// sends the model for it. A task tool's result names the sub-agent's
// session (state.metadata.sessionId). File parts read as "[file: name]";
// a compaction request as opencode words it to the model ("What did we do
// so far?", Context); step, snapshot and patch parts are bookkeeping of
// the message and are not read. A message opencode does not send back
// (KindUnsent: a failed call) is Bookkeeping, its text the error.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	info, _ := obj["info"].(map[string]any)
	parts, _ := obj["parts"].([]any)
	if info == nil {
		return jsonl.Extracted(e)
	}
	m := jsonl.Message{Role: jsonl.OrString(jsonl.Str(info, "role"), e.Role)}
	var text, thinking []string
	typed, synthetic := false, false
	for _, p := range parts {
		part, ok := p.(map[string]any)
		if !ok {
			continue
		}
		switch jsonl.Str(part, "type") {
		case "text":
			t := jsonl.Str(part, "text")
			if t == "" {
				continue
			}
			if syn, _ := part["synthetic"].(bool); syn {
				synthetic = true
			} else if ign, _ := part["ignored"].(bool); !ign {
				typed = true
			}
			text = append(text, t)
		case "reasoning":
			if t := jsonl.Str(part, "text"); strings.TrimSpace(t) != "" {
				thinking = append(thinking, t)
			}
		case "file":
			name := jsonl.OrString(jsonl.Str(part, "filename"), jsonl.Str(part, "url"))
			text = append(text, "[file: "+name+"]")
			typed = true
		case "compaction":
			text = append(text, "What did we do so far?")
			synthetic = true
		case "subtask":
			text = append(text, jsonl.OrString(jsonl.Str(part, "prompt"), "The following tool was executed by the user"))
			typed = true
		case "agent":
			if n := jsonl.Str(part, "name"); n != "" {
				text = append(text, "@"+n)
				typed = true
			}
		case "tool":
			call, res, ok := toolPart(part)
			if !ok {
				continue
			}
			m.Calls = append(m.Calls, call)
			if res != nil {
				m.Results = append(m.Results, *res)
			}
		}
	}
	m.Text = strings.Join(text, "\n\n")
	m.Thinking = strings.Join(thinking, "\n\n")
	if m.Role == "user" && synthetic && !typed {
		m.Context = true
	}
	if e.Kind == KindUnsent {
		m.Bookkeeping = true
		if errObj, ok := info["error"].(map[string]any); ok && m.Text == "" {
			name := jsonl.Str(errObj, "name")
			msg := ""
			if d, ok := errObj["data"].(map[string]any); ok {
				msg = jsonl.Str(d, "message")
			}
			m.Text = strings.TrimSpace(name + ": " + msg)
		}
	}
	return m
}

// toolPart reads a tool part as a call and, once the tool ran (or was
// cut off), its result.
func toolPart(part map[string]any) (jsonl.ToolCall, *jsonl.ToolResult, bool) {
	id, name := jsonl.Str(part, "callID"), jsonl.Str(part, "tool")
	state, _ := part["state"].(map[string]any)
	if state == nil {
		return jsonl.ToolCall{}, nil, false
	}
	call := jsonl.ToolCall{ID: id, Name: name, Arguments: jsonl.ArgText(state["input"])}
	r := &jsonl.ToolResult{CallID: id, Name: name}
	switch jsonl.Str(state, "status") {
	case "completed":
		r.Text = outputText(state["output"])
	case "error":
		r.Text, r.IsError = jsonl.Str(state, "error"), true
	case "pending", "running":
		r.Text, r.IsError = "[Tool execution was interrupted]", true
	default:
		return call, nil, true
	}
	if md, ok := state["metadata"].(map[string]any); ok && name == "task" {
		r.Agent = jsonl.Str(md, "sessionId")
	}
	return call, r, true
}

// outputText is a completed tool's output: a string, or an object whose
// text opencode sends ({text, attachments}).
func outputText(v any) string {
	switch o := v.(type) {
	case string:
		return o
	case map[string]any:
		if t, ok := o["text"].(string); ok {
			return t
		}
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(jsonl.CompactJSON(v))
}
