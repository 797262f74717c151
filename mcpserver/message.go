package mcpserver

// This file is the server's whole understanding of what an entry body
// says. Issue 22 gives every format one shared understanding of its
// messages (in the format's own package, used by the viewer, show, search
// snippets and the compactor); when it lands, Understand is replaced by a
// call to it and this file is deleted. Nothing else in the package looks
// inside a body: everything goes through Options.Understand.

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
	// toolResult, …); empty when the body names none.
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
	// format's progress lines, snapshots, token counts, model changes.
	Bookkeeping bool
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
}

// Understander reads an entry of a session of the given source format
// ("claude-code", "codex", "pi", "picoclaw", "zot", "swink", or "" for a
// session an application wrote) into a Message. It must not fail: a body
// it does not understand becomes a Message with the body's text.
type Understander func(format string, e sessiondb.Entry) Message

// Understand is the default Understander. It goes by the shape of the
// body, not by the format, and knows:
//
//   - the OpenAI shape (picoclaw, zot): {"role", "content": string or
//     blocks, "tool_calls": [{"id", "function": {"name", "arguments"}}],
//     "reasoning_content"}, and {"role": "tool", "tool_call_id"} results;
//   - Anthropic content blocks, as Claude Code lines hold them under
//     "message" (and swink at the top level): text, thinking, tool_use /
//     tool_call / toolCall {id, name, input or arguments}, tool_result
//     {tool_use_id, content, is_error}, image;
//   - Codex rollout lines: {"type": "response_item", "payload": message,
//     reasoning, function_call, custom_tool_call and their *_output};
//     event_msg, turn_context, session_meta and compacted lines are
//     bookkeeping;
//   - pi entries: {"type": "message", "message": {...}} with the roles
//     user, assistant (text, thinking, toolCall blocks), toolResult
//     {toolCallId, toolName, content, isError} and bashExecution;
//     custom_message, compaction and branch_summary as text; model and
//     thinking-level changes, labels and session headers as bookkeeping;
//   - Claude Code's progress, file-history-snapshot, system, summary,
//     last-prompt and mode lines as bookkeeping.
//
// Anything else is shown as the text sessiondb.DefaultExtractor finds in
// it, under the entry's extracted role.
func Understand(format string, e sessiondb.Entry) Message {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(e.Body))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
		if text == "" {
			text = string(e.Body)
		}
		return Message{Role: e.Role, Text: text}
	}
	typ, _ := obj["type"].(string)
	if payload, ok := obj["payload"].(map[string]any); ok && typ != "" {
		return codexLine(typ, payload, e)
	}
	if inner, ok := obj["message"].(map[string]any); ok && typ != "" {
		// A Claude Code line or a pi message entry: the message is inside.
		m := openAIOrBlocks(inner)
		if m.Role == "" {
			m.Role = e.Role
		}
		return m
	}
	if _, hasRole := obj["role"]; !hasRole && typ != "" {
		if m, ok := envelopeLine(typ, obj); ok {
			return m
		}
	}
	if _, hasRole := obj["role"]; hasRole {
		return openAIOrBlocks(obj)
	}
	_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
	return Message{Role: e.Role, Text: text}
}

// bookkeepingTypes are line types of Claude Code and pi that record the
// tool's own state rather than the conversation.
var bookkeepingTypes = map[string]bool{
	// Claude Code
	"progress": true, "file-history-snapshot": true, "system": true, "summary": true,
	"last-prompt": true, "mode": true, "queue-operation": true, "attachment": true,
	// pi
	"session": true, "model_change": true, "thinking_level_change": true, "label": true,
	"session_info": true, "custom": true,
}

// envelopeLine reads a typed line without a message inside it.
func envelopeLine(typ string, obj map[string]any) (Message, bool) {
	switch typ {
	case "custom_message":
		return Message{Role: "custom", Text: contentText(obj["content"])}, true
	case "compaction", "branch_summary":
		s, _ := obj["summary"].(string)
		return Message{Role: typ, Text: s}, true
	}
	if bookkeepingTypes[typ] {
		return Message{Role: typ, Text: bookkeepingText(obj), Bookkeeping: true}, true
	}
	return Message{}, false
}

// bookkeepingText is the little a bookkeeping line says to a reader.
func bookkeepingText(obj map[string]any) string {
	for _, k := range []string{"summary", "content", "name", "label", "modelId", "thinkingLevel", "subtype", "mode"} {
		if s, ok := obj[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// codexLine reads a Codex rollout line {"type", "payload"}.
func codexLine(typ string, p map[string]any, e sessiondb.Entry) Message {
	if typ != "response_item" {
		// event_msg (echoes of the conversation, token counts),
		// turn_context, session_meta, compacted.
		text := ""
		if m, ok := p["message"].(string); ok {
			text = m
		}
		return Message{Role: typ, Text: text, Bookkeeping: true}
	}
	ptype, _ := p["type"].(string)
	id, _ := p["call_id"].(string)
	name, _ := p["name"].(string)
	switch ptype {
	case "message":
		return openAIOrBlocks(p)
	case "reasoning":
		return Message{Role: "assistant", Thinking: contentText(p["summary"])}
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call":
		args := firstOf(p, "arguments", "input", "action")
		return Message{Role: "assistant", Calls: []ToolCall{{ID: id, Name: orString(name, ptype), Arguments: argText(args)}}}
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output":
		return Message{Role: "tool", Results: []ToolResult{{CallID: id, Text: outputText(p["output"])}}}
	case "ghost_snapshot":
		return Message{Role: e.Role, Bookkeeping: true}
	}
	_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
	return Message{Role: orString(e.Role, ptype), Text: text}
}

// openAIOrBlocks reads a message object: OpenAI, Anthropic, pi or a Codex
// message payload.
func openAIOrBlocks(obj map[string]any) Message {
	var m Message
	m.Role, _ = obj["role"].(string)
	switch m.Role {
	case "tool", "function":
		id, _ := obj["tool_call_id"].(string)
		name, _ := obj["name"].(string)
		m.Results = []ToolResult{{CallID: id, Name: name, Text: contentText(obj["content"])}}
		return m
	case "toolResult":
		id, _ := obj["toolCallId"].(string)
		name, _ := obj["toolName"].(string)
		isErr, _ := obj["isError"].(bool)
		m.Results = []ToolResult{{CallID: id, Name: name, Text: contentText(obj["content"]), IsError: isErr}}
		return m
	case "tool_result":
		// swink: a result message whose id is at the top level.
		if id, ok := obj["tool_call_id"].(string); ok {
			isErr, _ := obj["is_error"].(bool)
			m.Results = []ToolResult{{CallID: id, Text: contentText(obj["content"]), IsError: isErr}}
			return m
		}
	case "bashExecution":
		cmd, _ := obj["command"].(string)
		out, _ := obj["output"].(string)
		m.Text = "$ " + cmd + "\n" + out
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
			case "tool_result", "toolResult", "function_call_output":
				isErr, _ := blk["is_error"].(bool)
				if !isErr {
					isErr, _ = blk["isError"].(bool)
				}
				m.Results = append(m.Results, ToolResult{
					CallID:  orString(str(blk, "tool_use_id"), orString(str(blk, "toolCallId"), str(blk, "call_id"))),
					Text:    contentText(firstOf(blk, "content", "output")),
					IsError: isErr,
				})
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

// outputText is a Codex tool output: a string (older rollouts wrap the
// text in a JSON document {"output": …}), or content blocks.
func outputText(v any) string {
	if s, ok := v.(string); ok {
		var wrapped struct {
			Output *string `json:"output"`
		}
		if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &wrapped) == nil && wrapped.Output != nil {
			return *wrapped.Output
		}
		return s
	}
	return contentText(v)
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
