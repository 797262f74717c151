package compactor

import (
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// ToolIDs returns, for an entry body, the IDs of the tool calls it opens and
// the IDs of the tool results it answers, each in document order without
// duplicates. It understands these shapes (see the package doc):
//
//   - OpenAI-like: {"role":"assistant","tool_calls":[{"id":…,"function":{…}}]}
//     opens calls; {"role":"tool","tool_call_id":…} answers one.
//   - Anthropic-like content blocks: {"type":"tool_use","id":…} opens,
//     {"type":"tool_result","tool_use_id":…} answers.
//   - Typed blocks of other providers: type tool_call, server_tool_use,
//     function_call (ID from call_id, else id) open; type
//     function_call_output answers.
//   - Blocks without a type tag (zot, swink): a block with id and name and
//     arguments or input opens a call; a block with tool_call_id, call_id or
//     tool_use_id answers one.
//   - A swink rich entry {"entry_type":"message","data":{…}} is read through
//     its data.
//
// A body that is not a JSON object opens and answers nothing.
func ToolIDs(body json.RawMessage) (calls, results []string) {
	info := inspectBody(body)
	return info.calls, info.results
}

// bodyInfo is what the policy needs to know about one entry.
type bodyInfo struct {
	role    string
	calls   []string
	results []string
	// names are the tool names of the calls, one per call block.
	names []string

	// The fields below are set for the formats read through
	// jsonlimport.Understand (ownShape); inspectBody leaves them zero.

	// understood: the entry was read by Understand; result, request and
	// text are its reading.
	understood bool
	// result: the entry carries a tool result.
	result bool
	// request: the entry is a user prompt that starts a turn (not a tool
	// result, bookkeeping, injected context or a summary).
	request bool
	// part: the entry continues the message of the entry before it (a
	// later line of one streamed response); no cut goes before it.
	part bool
	// text is the entry's text as Understand reads it.
	text string
}

// toolResult reports whether the entry is (or carries) a tool result: it
// answers a call ID, or its role says it is a tool result even without one.
func (b bodyInfo) toolResult() bool {
	if b.understood {
		return b.result
	}
	if len(b.results) > 0 {
		return true
	}
	switch b.role {
	case "tool", "tool_result", "function":
		return true
	}
	return false
}

// userRequest reports whether the entry starts a turn: a user message that
// is not a tool result (Anthropic-like results travel in user messages).
func (b bodyInfo) userRequest() bool {
	if b.understood {
		return b.request
	}
	return b.role == "user" && !b.toolResult()
}

func inspectBody(body json.RawMessage) bodyInfo {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return bodyInfo{}
	}
	if et, _ := obj["entry_type"].(string); et == "message" {
		if data, ok := obj["data"].(map[string]any); ok {
			obj = data
		}
	}
	var info bodyInfo
	info.role, _ = obj["role"].(string)
	seenCall := map[string]bool{}
	seenResult := map[string]bool{}
	add := func(block map[string]any) {
		callID, resultID := classifyBlock(block)
		if callID != "" {
			name, _ := block["name"].(string)
			info.names = append(info.names, name)
		}
		if callID != "" && !seenCall[callID] {
			seenCall[callID] = true
			info.calls = append(info.calls, callID)
		}
		if resultID != "" && !seenResult[resultID] {
			seenResult[resultID] = true
			info.results = append(info.results, resultID)
		}
	}
	// The message object itself can be a block (an OpenAI tool message, a
	// Responses API item).
	add(obj)
	if calls, ok := obj["tool_calls"].([]any); ok {
		for _, c := range calls {
			if c, ok := c.(map[string]any); ok {
				id, _ := c["id"].(string)
				var name string
				if f, ok := c["function"].(map[string]any); ok {
					name, _ = f["name"].(string)
				}
				if id != "" || name != "" {
					info.names = append(info.names, name)
				}
				if id != "" && !seenCall[id] {
					seenCall[id] = true
					info.calls = append(info.calls, id)
				}
			}
		}
	}
	if content, ok := obj["content"].([]any); ok {
		for _, c := range content {
			if c, ok := c.(map[string]any); ok {
				add(c)
			}
		}
	}
	return info
}

// classifyBlock returns the call ID a block opens or the result ID it
// answers ("" for neither).
func classifyBlock(b map[string]any) (callID, resultID string) {
	str := func(k string) string { s, _ := b[k].(string); return s }
	switch str("type") {
	case "tool_use", "server_tool_use", "tool_call", "mcp_tool_use":
		return str("id"), ""
	case "function_call", "custom_tool_call":
		if id := str("call_id"); id != "" {
			return id, ""
		}
		return str("id"), ""
	case "tool_result", "function_call_output", "custom_tool_call_output", "mcp_tool_result":
		return "", firstNonEmpty(str("tool_use_id"), str("tool_call_id"), str("call_id"))
	case "message", "text", "image", "thinking":
		// A typed block of another kind; an Anthropic API message object
		// also has an id but is not a call.
		return "", ""
	}
	if id, name := str("id"), str("name"); id != "" && name != "" {
		if _, ok := b["arguments"]; ok {
			return id, ""
		}
		if _, ok := b["input"]; ok {
			return id, ""
		}
	}
	return "", firstNonEmpty(str("tool_call_id"), str("call_id"), str("tool_use_id"))
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// A TokenCounter estimates how many tokens an entry costs in a model's
// context. It must be cheap, deterministic and never negative.
type TokenCounter func(e sessiondb.Entry) int

// Token estimate constants; see the package doc.
const (
	// BytesPerToken is the divisor of the default estimate.
	BytesPerToken = 4
	// ImageTokens is what one image block counts, whatever its size.
	ImageTokens = 1000
	// MessageOverheadTokens is added per entry for role and framing.
	MessageOverheadTokens = 4
)

// EstimateTokens is the default TokenCounter: MessageOverheadTokens, plus
// one token per BytesPerToken bytes (rounded up) of the text in the body,
// plus ImageTokens per image block. Text is every JSON string value in the
// body — message text, reasoning, tool-call names and arguments, tool
// results, custom and rich entry payloads — except opaque values (keys
// signature, thought_signature, encrypted_content, data of an image) and
// timestamps (created_at, timestamp, time). Tool-call arguments given as a
// JSON object count as their compact JSON text. A body that is not JSON
// counts its raw length.
func EstimateTokens(e sessiondb.Entry) int {
	var v any
	if err := json.Unmarshal(e.Body, &v); err != nil {
		return MessageOverheadTokens + ceilDiv(len(e.Body), BytesPerToken)
	}
	var c tokenTally
	c.walk(v, 0)
	return MessageOverheadTokens + ceilDiv(c.bytes, BytesPerToken) + c.images*ImageTokens
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

type tokenTally struct {
	bytes  int
	images int
}

var skippedKeys = map[string]bool{
	"signature": true, "thought_signature": true, "encrypted_content": true,
	"created_at": true, "timestamp": true, "time": true,
}

func (c *tokenTally) walk(v any, depth int) {
	if depth > 128 {
		return
	}
	switch v := v.(type) {
	case string:
		c.bytes += len(v)
	case []any:
		for _, e := range v {
			c.walk(e, depth+1)
		}
	case map[string]any:
		if isImageBlock(v) {
			c.images++
			return
		}
		for k, e := range v {
			if skippedKeys[k] {
				continue
			}
			switch k {
			case "arguments", "args", "input":
				if _, isString := e.(string); !isString {
					if raw, err := json.Marshal(e); err == nil {
						c.bytes += len(raw)
					}
					continue
				}
			}
			c.walk(e, depth+1)
		}
	}
}

// isImageBlock recognises image content blocks: a type of image, image_url
// or input_image (Anthropic, OpenAI, swink), or an untyped block with an
// image/* mime_type or media_type and data (zot).
func isImageBlock(b map[string]any) bool {
	switch t, _ := b["type"].(string); t {
	case "image", "image_url", "input_image":
		return true
	case "":
		for _, k := range []string{"mime_type", "media_type"} {
			if m, _ := b[k].(string); strings.HasPrefix(m, "image/") {
				if _, ok := b["data"]; ok {
					return true
				}
			}
		}
	}
	return false
}
