package jsonl

// The shared reading of a stored body as a message (issue 22): the types
// Understand returns, the reading of a message object in the shapes the
// formats share (MessageObject), and the helpers each format's message
// reader (a MessageReader) is written with.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
)

// Message is one log entry as a reader of the conversation sees it: who
// spoke, what was said, the model's thinking, the tool calls it made and
// the tool results it carries.
type Message struct {
	// Role is the speaker as the format names it (user, assistant, tool,
	// toolResult, …); for a bookkeeping line, its type.
	Role string
	// Text is what was said, blocks joined by blank lines.
	Text string
	// Thinking is reasoning or thinking text, when the format records it.
	Thinking string
	// Calls are the tool calls made in this entry, in order.
	Calls []ToolCall
	// Results are the tool results this entry carries, in order.
	Results []ToolResult
	// Bookkeeping marks an entry that is not part of the conversation: a
	// format's progress lines, snapshots, token counts, model changes,
	// echoes of messages the log holds elsewhere.
	Bookkeeping bool
	// Context marks a message no person typed and no model wrote but that
	// the tool put into the conversation: environment and instruction
	// preambles, command wrappers, system reminders, developer messages.
	// It is part of what the model saw, so it is not bookkeeping, but it
	// is neither a prompt nor a title.
	Context bool `json:",omitempty"`
}

// ToolCall is one tool call.
type ToolCall struct {
	ID   string
	Name string
	// Arguments as the model wrote them: a JSON text, or plain text for
	// tools that take free text (Codex custom tools).
	Arguments string
}

// ToolResult is the result of one tool call.
type ToolResult struct {
	// CallID names the call it answers ("" when the format does not say).
	CallID string
	// Name is the tool's name when the result records it (pi does).
	Name    string
	Text    string
	IsError bool
	// Agent is the sub-agent the call ran, when the result names it
	// (Claude Code's Task and Agent tools: toolUseResult.agentId); see
	// ClaudeCodeAgentSession for its session.
	Agent string `json:",omitempty"`
}

// MessageReader is implemented by a format that reads its entries back as
// messages (jsonlimport.Understand looks the reader up by format name).
// Understand reads entry e, whose body decoded to the JSON object obj
// (numbers kept as written, DecodeObject), into a Message; it never fails.
type MessageReader interface {
	Understand(e sessiondb.Entry, obj map[string]any) Message
}

// ReadMessage reads entry e with r: its body decoded (DecodeObject) and
// given to r.Understand, or, when the body is not a JSON object, the text
// sessiondb.DefaultExtractor finds in it (the body itself when none) under
// the entry's role. It never fails.
func ReadMessage(r MessageReader, e sessiondb.Entry) Message {
	obj := DecodeObject(e.Body)
	if obj == nil {
		_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
		if text == "" {
			text = string(e.Body)
		}
		return Message{Role: e.Role, Text: text}
	}
	return r.Understand(e, obj)
}

// Extracted is the fallback for a body no understanding covers: the text
// sessiondb.DefaultExtractor finds, under the entry's role.
func Extracted(e sessiondb.Entry) Message {
	_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
	return Message{Role: e.Role, Text: text}
}

// DecodeObject decodes a JSON object with numbers kept as written; nil
// when the body is not one.
func DecodeObject(body []byte) map[string]any {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&obj) != nil {
		return nil
	}
	return obj
}

// MessageObject reads a message object in any of the shapes the formats
// share: OpenAI ({"role", "content": string or blocks, "tool_calls",
// "reasoning_content"}, {"role": "tool"} results), Anthropic content
// blocks (text, thinking, tool_use, tool_result, image), pi's
// ({"role": "toolResult"}, toolCall blocks) and Codex message payloads
// (input_text, output_text).
func MessageObject(obj map[string]any) Message {
	var m Message
	m.Role, _ = obj["role"].(string)
	switch m.Role {
	case "tool", "function":
		// zot answers several calls in one tool message, a result block
		// ({"call_id", "content", "is_error"}) each.
		if blocks, ok := obj["content"].([]any); ok {
			for _, b := range blocks {
				if blk, ok := b.(map[string]any); ok && ResultBlock(blk) {
					m.Results = append(m.Results, BlockResult(blk))
				}
			}
			if len(m.Results) > 0 {
				return m
			}
		}
		m.Results = []ToolResult{{CallID: Str(obj, "tool_call_id"), Name: Str(obj, "name"), Text: ContentText(obj["content"])}}
		return m
	case "tool_result":
		// swink: a result message whose call id is at the top level.
		if _, ok := obj["tool_call_id"].(string); ok {
			isErr, _ := obj["is_error"].(bool)
			m.Results = []ToolResult{{CallID: Str(obj, "tool_call_id"), Text: ContentText(obj["content"]), IsError: isErr}}
			return m
		}
	case "toolResult":
		isErr, _ := obj["isError"].(bool)
		m.Results = []ToolResult{{CallID: Str(obj, "toolCallId"), Name: Str(obj, "toolName"), Text: ContentText(obj["content"]), IsError: isErr}}
		return m
	}
	var text, thinking []string
	if rc, ok := obj["reasoning_content"].(string); ok && rc != "" {
		thinking = append(thinking, rc)
	}
	switch c := obj["content"].(type) {
	case string:
		if c != "" {
			text = append(text, c)
		}
	case []any:
		for _, b := range c {
			blk, ok := b.(map[string]any)
			if !ok {
				if s, ok := b.(string); ok {
					text = append(text, s)
				}
				continue
			}
			btyp, _ := blk["type"].(string)
			if btyp == "" {
				// zot's blocks are untyped: a call has a name, a
				// result a call_id.
				switch {
				case blk["name"] != nil && (blk["arguments"] != nil || blk["input"] != nil || blk["id"] != nil):
					btyp = "tool_call"
				case blk["call_id"] != nil:
					btyp = "tool_result"
				case blk["reasoning_id"] != nil || blk["thinking"] != nil:
					btyp = "thinking"
				case blk["mime_type"] != nil || blk["image_url"] != nil:
					btyp = "image"
				}
			}
			switch btyp {
			case "thinking", "reasoning":
				if s := OrString(Str(blk, "thinking"), ContentText(blk["summary"])); s != "" {
					thinking = append(thinking, s)
				}
			case "redacted_thinking":
				thinking = append(thinking, "[redacted thinking]")
			case "tool_use", "tool_call", "toolCall", "function_call", "server_tool_use":
				m.Calls = append(m.Calls, ToolCall{
					ID:        OrString(Str(blk, "id"), Str(blk, "call_id")),
					Name:      Str(blk, "name"),
					Arguments: ArgText(FirstOf(blk, "input", "arguments", "args")),
				})
			case "tool_result", "toolResult", "function_call_output", "web_search_tool_result":
				m.Results = append(m.Results, BlockResult(blk))
			case "image", "image_url", "input_image":
				text = append(text, "[image]")
			default:
				if s, ok := blk["text"].(string); ok {
					text = append(text, s)
				}
			}
		}
	}
	if calls, ok := obj["tool_calls"].([]any); ok {
		for _, c := range calls {
			cm, ok := c.(map[string]any)
			if !ok {
				continue
			}
			call := ToolCall{ID: Str(cm, "id")}
			if f, ok := cm["function"].(map[string]any); ok {
				call.Name, call.Arguments = Str(f, "name"), ArgText(f["arguments"])
			} else {
				call.Name, call.Arguments = Str(cm, "name"), ArgText(FirstOf(cm, "arguments", "input", "args"))
			}
			m.Calls = append(m.Calls, call)
		}
	}
	m.Text = strings.Join(text, "\n\n")
	m.Thinking = strings.Join(thinking, "\n\n")
	return m
}

// ResultBlock reports whether a content block is a tool result.
func ResultBlock(blk map[string]any) bool {
	switch Str(blk, "type") {
	case "tool_result", "toolResult", "function_call_output":
		return true
	case "":
		return blk["call_id"] != nil || blk["tool_use_id"] != nil || blk["tool_call_id"] != nil
	}
	return false
}

// BlockResult reads a tool result block.
func BlockResult(blk map[string]any) ToolResult {
	isErr, _ := blk["is_error"].(bool)
	if !isErr {
		isErr, _ = blk["isError"].(bool)
	}
	return ToolResult{
		CallID:  OrString(Str(blk, "tool_use_id"), OrString(Str(blk, "toolCallId"), OrString(Str(blk, "call_id"), Str(blk, "tool_call_id")))),
		Text:    ContentText(FirstOf(blk, "content", "output")),
		IsError: isErr,
	}
}

// ContentText joins the text of a content value: a string, or blocks
// with "text" (images become "[image]").
func ContentText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	case []any:
		var parts []string
		for _, b := range v {
			switch b := b.(type) {
			case string:
				parts = append(parts, b)
			case map[string]any:
				if t, ok := b["text"].(string); ok {
					parts = append(parts, t)
				} else if t, _ := b["type"].(string); strings.Contains(t, "image") {
					parts = append(parts, "[image]")
				} else {
					parts = append(parts, CompactJSON(b))
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return CompactJSON(v)
}

// ArgText renders tool arguments: a string as it is, anything else as
// compact JSON.
func ArgText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	return CompactJSON(v)
}

// CompactJSON renders v as compact JSON without HTML escapes ("" when it
// cannot).
func CompactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// FirstOf returns the first of m's keys whose value is not null.
func FirstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

// Str returns m[k] when it is a string, else "".
func Str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// OrString returns s, or alt when s is empty.
func OrString(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

// Summary says in one line what the call ran, for a reader who has not
// opened it: the command of a shell call, the path of a file tool, the
// pattern of a search, the URL of a fetch, the description of a task;
// else its arguments on one line. It is cut to max runes (0: no limit).
func (c ToolCall) Summary(max int) string {
	s := callSummary(c)
	s = strings.Join(strings.Fields(s), " ")
	if max > 0 && utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max-1]) + "…"
	}
	return s
}

// summaryKeys are the argument members that say what a call ran, in the
// order they are looked for.
var summaryKeys = []string{"command", "cmd", "file_path", "notebook_path", "pattern", "path", "url", "query", "q",
	"description", "prompt", "skill", "subject", "todos", "plan"}

func callSummary(c ToolCall) string {
	a := strings.TrimSpace(c.Arguments)
	if a == "" {
		return ""
	}
	var obj map[string]any
	if a[0] != '{' || json.Unmarshal([]byte(a), &obj) != nil {
		// Free text (a Codex custom tool such as apply_patch): its first
		// line that says something.
		for _, l := range strings.Split(a, "\n") {
			l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "***"))
			if l != "" && !strings.EqualFold(l, "Begin Patch") {
				return l
			}
		}
		return a
	}
	for _, k := range summaryKeys {
		v, ok := obj[k]
		if !ok {
			continue
		}
		switch v := v.(type) {
		case string:
			if v == "" {
				continue
			}
			if k == "pattern" {
				if p, ok := obj["path"].(string); ok && p != "" {
					return v + " in " + p
				}
			}
			return v
		case []any:
			// Codex: ["bash", "-lc", "npm test"] runs the last argument.
			var parts []string
			for _, x := range v {
				if s, ok := x.(string); ok {
					parts = append(parts, s)
				}
			}
			if len(parts) == len(v) && len(parts) > 0 {
				if n := len(parts); n >= 3 && (parts[n-2] == "-lc" || parts[n-2] == "-c") {
					return parts[n-1]
				}
				if k == "command" || k == "cmd" {
					return strings.Join(parts, " ")
				}
			}
			if k == "todos" {
				return fmt.Sprintf("%d todos", len(v))
			}
		}
	}
	return a
}
