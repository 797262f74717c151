package jsonlimport

// One understanding of each format's messages (issue 22). The importers
// keep every line's bytes as the entry body; Understand reads such a body
// back as a reader of the conversation sees it. It is written once per
// format, beside the format's reader (claudecode_message.go,
// codex_message.go, pi_message.go, openai_message.go for picoclaw and
// zot, swink_message.go), and used by the viewer, `sessionctl show`, the
// MCP server and the titles the readers derive: nobody else looks inside
// a body to find a tool call or a thought.

import (
	"bytes"
	"encoding/json"
	"strings"

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

// Understand reads an entry of a session of the given source format
// (FormatClaudeCode, FormatCodex, FormatPi, FormatPicoclaw, FormatZot,
// FormatSwink, or "" for a session an application wrote) into a Message.
// It never fails: a body it does not understand becomes a Message with
// the text sessiondb.DefaultExtractor finds in it, under the entry's
// role. A format it does not know is read by the shape of the body.
func Understand(format string, e sessiondb.Entry) Message {
	obj := decodeObject(e.Body)
	if obj == nil {
		_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
		if text == "" {
			text = string(e.Body)
		}
		return Message{Role: e.Role, Text: text}
	}
	switch format {
	case FormatClaudeCode:
		return understandClaudeCode(e, obj)
	case FormatCodex:
		return understandCodex(e, obj)
	case FormatPi:
		return understandPi(e, obj)
	case FormatPicoclaw, FormatZot:
		return understandOpenAI(e, obj)
	case FormatSwink:
		return understandSwink(e, obj)
	}
	return understandByShape(e, obj)
}

// understandByShape reads a body whose format is not named (a session an
// application wrote, or a copy of another format's entries) by its
// shape: a Codex envelope, a Claude Code or pi line with the message
// inside, pi's typed lines, or a message object.
func understandByShape(e sessiondb.Entry, obj map[string]any) Message {
	typ, _ := obj["type"].(string)
	_, hasRole := obj["role"]
	switch {
	case typ != "" && obj["payload"] != nil:
		return understandCodex(e, obj)
	case typ != "" && obj["message"] != nil:
		if _, ok := obj["uuid"]; ok || ccLineTypes[typ] {
			return understandClaudeCode(e, obj)
		}
		return understandPi(e, obj)
	case typ != "" && !hasRole:
		// A Claude Code line type no one else uses, or a copy of a
		// Claude Code or pi line (which name their session or parent), is
		// read as that format's bookkeeping; an application's own typed
		// entries ("label", "summary", …) are its data.
		_, cc := obj["sessionId"]
		_, pi := obj["parentId"]
		if ccBookkeeping[typ] && (cc || ccOwnTypes[typ]) {
			return understandClaudeCode(e, obj)
		}
		if piTypes[typ] && pi {
			return understandPi(e, obj)
		}
	case hasRole:
		return messageObject(obj)
	}
	return extracted(e)
}

// extracted is the fallback for a body no understanding covers: the text
// sessiondb.DefaultExtractor finds, under the entry's role.
func extracted(e sessiondb.Entry) Message {
	_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
	return Message{Role: e.Role, Text: text}
}

// decodeObject decodes a JSON object with numbers kept as written; nil
// when the body is not one.
func decodeObject(body []byte) map[string]any {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&obj) != nil {
		return nil
	}
	return obj
}

// messageObject reads a message object in any of the shapes the formats
// share: OpenAI ({"role", "content": string or blocks, "tool_calls",
// "reasoning_content"}, {"role": "tool"} results), Anthropic content
// blocks (text, thinking, tool_use, tool_result, image), pi's
// ({"role": "toolResult"}, toolCall blocks) and Codex message payloads
// (input_text, output_text).
func messageObject(obj map[string]any) Message {
	var m Message
	m.Role, _ = obj["role"].(string)
	switch m.Role {
	case "tool", "function":
		// zot answers several calls in one tool message, a result block
		// ({"call_id", "content", "is_error"}) each.
		if blocks, ok := obj["content"].([]any); ok {
			for _, b := range blocks {
				if blk, ok := b.(map[string]any); ok && resultBlock(blk) {
					m.Results = append(m.Results, blockResult(blk))
				}
			}
			if len(m.Results) > 0 {
				return m
			}
		}
		m.Results = []ToolResult{{CallID: str(obj, "tool_call_id"), Name: str(obj, "name"), Text: contentText(obj["content"])}}
		return m
	case "tool_result":
		// swink: a result message whose call id is at the top level.
		if _, ok := obj["tool_call_id"].(string); ok {
			isErr, _ := obj["is_error"].(bool)
			m.Results = []ToolResult{{CallID: str(obj, "tool_call_id"), Text: contentText(obj["content"]), IsError: isErr}}
			return m
		}
	case "toolResult":
		isErr, _ := obj["isError"].(bool)
		m.Results = []ToolResult{{CallID: str(obj, "toolCallId"), Name: str(obj, "toolName"), Text: contentText(obj["content"]), IsError: isErr}}
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
				if s := orString(str(blk, "thinking"), contentText(blk["summary"])); s != "" {
					thinking = append(thinking, s)
				}
			case "redacted_thinking":
				thinking = append(thinking, "[redacted thinking]")
			case "tool_use", "tool_call", "toolCall", "function_call", "server_tool_use":
				m.Calls = append(m.Calls, ToolCall{
					ID:        orString(str(blk, "id"), str(blk, "call_id")),
					Name:      str(blk, "name"),
					Arguments: argText(firstOf(blk, "input", "arguments", "args")),
				})
			case "tool_result", "toolResult", "function_call_output", "web_search_tool_result":
				m.Results = append(m.Results, blockResult(blk))
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
			call := ToolCall{ID: str(cm, "id")}
			if f, ok := cm["function"].(map[string]any); ok {
				call.Name, call.Arguments = str(f, "name"), argText(f["arguments"])
			} else {
				call.Name, call.Arguments = str(cm, "name"), argText(firstOf(cm, "arguments", "input", "args"))
			}
			m.Calls = append(m.Calls, call)
		}
	}
	m.Text = strings.Join(text, "\n\n")
	m.Thinking = strings.Join(thinking, "\n\n")
	return m
}

// resultBlock reports whether a content block is a tool result.
func resultBlock(blk map[string]any) bool {
	switch str(blk, "type") {
	case "tool_result", "toolResult", "function_call_output":
		return true
	case "":
		return blk["call_id"] != nil || blk["tool_use_id"] != nil || blk["tool_call_id"] != nil
	}
	return false
}

// blockResult reads a tool result block.
func blockResult(blk map[string]any) ToolResult {
	isErr, _ := blk["is_error"].(bool)
	if !isErr {
		isErr, _ = blk["isError"].(bool)
	}
	return ToolResult{
		CallID:  orString(str(blk, "tool_use_id"), orString(str(blk, "toolCallId"), orString(str(blk, "call_id"), str(blk, "tool_call_id")))),
		Text:    contentText(firstOf(blk, "content", "output")),
		IsError: isErr,
	}
}

// contentText joins the text of a content value: a string, or blocks
// with "text" (images become "[image]").
func contentText(v any) string {
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
					parts = append(parts, compactJSON(b))
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return compactJSON(v)
}

// argText renders tool arguments: a string as it is, anything else as
// compact JSON.
func argText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	return compactJSON(v)
}

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func orString(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}
