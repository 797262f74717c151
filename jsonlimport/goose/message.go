package goose

// How an entry reads as a message.

import (
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// An entry's body is one goose Message (a legacy file's line as goose
// wrote it, or a store's row in that shape): {"id", "role", "created",
// "content": [...], "metadata": {"userVisible", "agentVisible"}}. text
// items are the text, image items read "[image: type]", thinking items
// (and the older reasoning) the thinking, redactedThinking "[redacted
// thinking]"; toolRequest and frontendToolRequest items are the calls
// (toolCall.value's name, its arguments' JSON text; a call goose could not
// parse, status error, has no name and its error as arguments);
// toolResponse items the results (toolResult.value: a list of content
// items in older goose, else a CallToolResult {content, isError}; status
// error: the error, as an error). goose's notices (systemNotification and
// the older conversationCompacted, contextLengthExceeded,
// summarizationRequested) and confirmation prompts
// (toolConfirmationRequest, actionRequired) read as their text, the
// message as bookkeeping when it holds nothing else. A message hidden
// from the user but shown to the model (goose's compaction summary) reads
// as context.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	content, ok := obj["content"].([]any)
	if !ok {
		return jsonl.Extracted(e)
	}
	m := jsonl.Message{Role: jsonl.OrString(jsonl.Str(obj, "role"), e.Role)}
	var text, thinking, notices []string
	for _, c := range content {
		item, _ := c.(map[string]any)
		if item == nil {
			continue
		}
		switch jsonl.Str(item, "type") {
		case "text":
			if t := jsonl.Str(item, "text"); t != "" {
				text = append(text, t)
			}
		case "image":
			text = append(text, "[image: "+jsonl.OrString(jsonl.Str(item, "mimeType"), "image")+"]")
		case "thinking":
			if t := jsonl.Str(item, "thinking"); strings.TrimSpace(t) != "" {
				thinking = append(thinking, t)
			}
		case "reasoning":
			if t := jsonl.Str(item, "text"); strings.TrimSpace(t) != "" {
				thinking = append(thinking, t)
			}
		case "redactedThinking":
			thinking = append(thinking, "[redacted thinking]")
		case "toolRequest", "frontendToolRequest":
			m.Calls = append(m.Calls, callOf(item))
		case "toolResponse":
			m.Results = append(m.Results, resultOf(item))
		case "systemNotification", "conversationCompacted", "contextLengthExceeded", "summarizationRequested":
			if t := jsonl.Str(item, "msg"); t != "" {
				notices = append(notices, t)
			}
		case "toolConfirmationRequest":
			notices = append(notices, "[confirm "+jsonl.Str(item, "toolName")+"]")
		case "actionRequired":
			data, _ := item["data"].(map[string]any)
			notices = append(notices, "[action required: "+jsonl.OrString(jsonl.Str(data, "toolName"), jsonl.Str(data, "message"))+"]")
		}
	}
	if len(text) == 0 && len(thinking) == 0 && len(m.Calls) == 0 && len(m.Results) == 0 && len(notices) > 0 {
		m.Bookkeeping = true
	}
	m.Text = strings.Join(append(text, notices...), "\n\n")
	m.Thinking = strings.Join(thinking, "\n\n")
	if meta, _ := obj["metadata"].(map[string]any); meta != nil {
		if v, ok := meta["userVisible"].(bool); ok && !v {
			if a, ok := meta["agentVisible"].(bool); !ok || a {
				m.Context = true
			}
		}
	}
	return m
}

// callOf reads a toolRequest item.
func callOf(item map[string]any) jsonl.ToolCall {
	c := jsonl.ToolCall{ID: jsonl.Str(item, "id")}
	tc, _ := item["toolCall"].(map[string]any)
	if v, ok := tc["value"].(map[string]any); ok && jsonl.Str(tc, "status") != "error" {
		c.Name = jsonl.Str(v, "name")
		if args, ok := v["arguments"]; ok && args != nil {
			c.Arguments = jsonl.ArgText(args)
		}
		return c
	}
	c.Arguments = jsonl.Str(tc, "error")
	return c
}

// resultOf reads a toolResponse item.
func resultOf(item map[string]any) jsonl.ToolResult {
	r := jsonl.ToolResult{CallID: jsonl.Str(item, "id")}
	tr, _ := item["toolResult"].(map[string]any)
	if jsonl.Str(tr, "status") == "error" {
		r.IsError = true
		r.Text = jsonl.Str(tr, "error")
		return r
	}
	switch v := tr["value"].(type) {
	case []any:
		r.Text = contentText(v)
	case map[string]any:
		list, _ := v["content"].([]any)
		r.Text = contentText(list)
		r.IsError, _ = v["isError"].(bool)
	}
	return r
}

// contentText joins the text of MCP content items (text, a resource's
// text; "[image: type]" for an image).
func contentText(items []any) string {
	var out []string
	for _, it := range items {
		c, _ := it.(map[string]any)
		switch jsonl.Str(c, "type") {
		case "text":
			out = append(out, jsonl.Str(c, "text"))
		case "image":
			out = append(out, "[image: "+jsonl.OrString(jsonl.Str(c, "mimeType"), "image")+"]")
		case "resource":
			res, _ := c["resource"].(map[string]any)
			out = append(out, jsonl.OrString(jsonl.Str(res, "text"), "[resource: "+jsonl.Str(res, "uri")+"]"))
		}
	}
	return strings.Join(out, "\n")
}
