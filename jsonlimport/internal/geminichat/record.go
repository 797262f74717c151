package geminichat

// Reading one MessageRecord (Gemini CLI's chat files, and Qwen Code's old
// whole-JSON chats) as a message, and its usage.

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Record types that are not the user's or the assistant's: shown to the
// user, never sent to the model.
var uiTypes = map[string]bool{"info": true, "error": true, "warning": true}

// UITypes reports whether typ is a record type Gemini CLI shows the user
// but leaves out of what it sends the model on resume (info, error,
// warning).
func UITypes(typ string) bool { return uiTypes[typ] }

// IgnoredUserText reports whether a user record's text (trimmed) is one
// Gemini CLI leaves out when it rebuilds the model's history on resume
// (sessionUtils isIgnoredUserContent): empty, a slash command ("/…"), a
// help request ("?…"), or the context it injects itself
// (<session_context>, <hook_context>).
func IgnoredUserText(trimmed string) bool {
	return trimmed == "" || strings.HasPrefix(trimmed, "/") || strings.HasPrefix(trimmed, "?") ||
		strings.HasPrefix(trimmed, "<session_context>") || strings.HasPrefix(trimmed, "<hook_context>")
}

// UnderstandRecord reads a MessageRecord (decoded with numbers kept) whose
// assistant type is assistant ("gemini" or "qwen"):
//
//   - user: its content parts; function responses are tool results; a
//     record Gemini CLI leaves out on resume (IgnoredUserText) is Context
//     when it is injected context, Bookkeeping when it is a slash command
//     or empty; a text that is all context (jsonl.StripContext: a
//     sessiondb summary, tag blocks) is Context;
//   - the assistant: its content parts (thought parts are thinking, as
//     are its recorded thoughts when the content has none), its tool
//     calls (function calls in the content, else toolCalls), and the
//     results of toolCalls, which Gemini CLI sends back after the
//     message when it resumes (a "<id>_response" turn of those results);
//   - info, error, warning and other types: Bookkeeping under their type.
func UnderstandRecord(obj map[string]any, assistant string) jsonl.Message {
	typ, _ := obj["type"].(string)
	parts := Parts(obj["content"])
	switch typ {
	case "user":
		m := Read(parts)
		m.Role = "user"
		if len(m.Calls) == 0 && len(m.Results) == 0 && !hasMedia(parts) {
			if t := strings.TrimSpace(m.Text); IgnoredUserText(t) {
				if strings.HasPrefix(t, "<") {
					m.Context = true
				} else {
					m.Bookkeeping = true
				}
			}
		}
		// All context (a summary sessiondb's compactor wrote, a block of
		// tags), as in the other formats.
		m.Context = m.Context || !m.Bookkeeping && m.Text != "" && jsonl.StripContext(m.Text) == ""
		return m
	case assistant:
		m := Read(parts)
		m.Role = "assistant"
		if m.Thinking == "" {
			var th []string
			if list, ok := obj["thoughts"].([]any); ok {
				for _, t := range list {
					if tm, ok := t.(map[string]any); ok {
						if s := ThoughtText(tm); s != "" {
							th = append(th, s)
						}
					}
				}
			}
			m.Thinking = strings.Join(th, "\n\n")
		}
		calls, _ := obj["toolCalls"].([]any)
		inContent := len(m.Calls) > 0
		for _, c := range calls {
			tc, ok := c.(map[string]any)
			if !ok {
				continue
			}
			if !inContent {
				m.Calls = append(m.Calls, jsonl.ToolCall{ID: jsonl.Str(tc, "id"), Name: jsonl.Str(tc, "name"), Arguments: jsonl.ArgText(tc["args"])})
			}
			m.Results = append(m.Results, CallResults(tc)...)
		}
		return m
	}
	m := Read(parts)
	m.Role = jsonl.OrString(typ, "record")
	m.Bookkeeping = true
	return m
}

// hasMedia reports whether parts carry something other than text.
func hasMedia(parts []map[string]any) bool {
	for _, p := range parts {
		if p["inlineData"] != nil || p["fileData"] != nil {
			return true
		}
	}
	return false
}

// CallResults reads the result a ToolCallRecord holds, as Gemini CLI sends
// it back on resume: a string is the output of a function response named
// after the call, a list its parts' function responses, an object one
// part. A call whose status is "error" or "cancelled" gives error results.
// The results of a call that ran a sub-agent (invoke_agent) name it
// (agentId: the sub-agent chat's session id).
// No result (a call still running when the file was written): none.
func CallResults(tc map[string]any) []jsonl.ToolResult {
	id, name := jsonl.Str(tc, "id"), jsonl.Str(tc, "name")
	status := jsonl.Str(tc, "status")
	var out []jsonl.ToolResult
	switch r := tc["result"].(type) {
	case nil:
		return nil
	case string:
		out = []jsonl.ToolResult{{CallID: id, Name: name, Text: r}}
	default:
		m := Read(Parts(r))
		out = m.Results
		if len(out) == 0 && m.Text != "" {
			out = []jsonl.ToolResult{{CallID: id, Name: name, Text: m.Text}}
		}
	}
	agent := jsonl.Str(tc, "agentId")
	for i := range out {
		if out[i].CallID == "" {
			out[i].CallID = id
		}
		out[i].Agent = agent
		if status == "error" || status == "cancelled" {
			out[i].IsError = true
		}
	}
	return out
}

// TokenCounts are an agent's counts of one model response.
type TokenCounts struct {
	// Input is the prompt's tokens, cached ones included.
	Input, Output, Cached, Thoughts, Tool, Total int64
}

// RecordTokens reads a record's tokens {input, output, cached, thoughts,
// tool, total}; ok is false when it has none (absent or null).
func RecordTokens(raw json.RawMessage) (TokenCounts, bool) {
	var t *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
		Total    int64 `json:"total"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &t) != nil || t == nil {
		return TokenCounts{}, false
	}
	return TokenCounts{t.Input, t.Output, t.Cached, t.Thoughts, t.Tool, t.Total}, true
}

// Usage is the usage row of one response whose counts are c: input
// without the cached tokens (and with the tool-use prompt), cache reads,
// output with the thoughts when the total shows they are not in it
// (separate says which to assume when the total does not tell), and the
// thoughts as reasoning tokens.
func Usage(c TokenCounts, separate bool) sessiondb.Usage {
	out := c.Output
	switch {
	case c.Total > 0 && c.Input+c.Output+c.Thoughts+c.Tool == c.Total:
		out += c.Thoughts
	case c.Total > 0 && c.Input+c.Output+c.Tool == c.Total:
	case separate:
		out += c.Thoughts
	}
	return sessiondb.Usage{
		InputTokens:     max(c.Input-c.Cached, 0) + c.Tool,
		CacheReadTokens: c.Cached,
		OutputTokens:    out,
		ReasoningTokens: c.Thoughts,
	}
}

// RecordTime is a record's timestamp (zero when it has none).
func RecordTime(raw json.RawMessage) time.Time {
	var s string
	_ = json.Unmarshal(raw, &s)
	return jsonl.ParseTime(s)
}
