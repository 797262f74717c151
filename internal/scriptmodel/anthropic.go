package scriptmodel

import (
	"encoding/json"
	"net/http"
)

// anthropicRequest is the part of a Messages API request the server reads.
type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	OutputFormat *struct {
		Schema json.RawMessage `json:"schema"`
	} `json:"output_format"`
}

// block is a content block of any protocol that has typed blocks.
type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// blocksOf reads content that is a string or a list of typed blocks.
func blocksOf(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	return bs
}

func parseAnthropic(body []byte) (*Conversation, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	c := &Conversation{Model: req.Model, Stream: req.Stream}
	for _, m := range req.Messages {
		msg := Message{Role: m.Role}
		for _, b := range blocksOf(m.Content) {
			switch b.Type {
			case "text":
				msg.Texts = append(msg.Texts, b.Text)
			case "tool_use":
				msg.Calls++
			case "tool_result":
				msg.Results++
			}
		}
		c.Messages = append(c.Messages, msg)
	}
	for _, t := range req.Tools {
		c.Tools = append(c.Tools, Tool{Name: t.Name, Schema: t.InputSchema})
	}
	if req.OutputFormat != nil {
		c.JSONSchema = req.OutputFormat.Schema
	}
	return c, nil
}

// anthropicUsage is a Usage in the Messages API's fields: input_tokens
// excludes the cached tokens, output_tokens includes thinking.
func anthropicUsage(u Usage, output int) map[string]any {
	return map[string]any{
		"input_tokens":                u.Input,
		"cache_creation_input_tokens": u.CacheWrite,
		"cache_read_input_tokens":     u.CacheRead,
		"output_tokens":               output,
	}
}

// anthropicBlocks are the reply's content blocks.
func anthropicBlocks(r Reply) []map[string]any {
	var out []map[string]any
	if r.Thinking != "" {
		out = append(out, map[string]any{"type": "thinking", "thinking": r.Thinking, "signature": "sig-" + r.id()})
	}
	if r.Text != "" {
		out = append(out, map[string]any{"type": "text", "text": r.Text})
	}
	for _, c := range r.Calls {
		out = append(out, map[string]any{"type": "tool_use", "id": "toolu_sm" + c.ID, "name": c.Name, "input": json.RawMessage(c.Args)})
	}
	return out
}

// id is a deterministic id for a reply: its scenario, turn and step.
func (r Reply) id() string {
	return r.Scenario + "-" + itoa(r.Turn) + "-" + itoa(r.Step)
}

func (r Reply) stopReason(tool, end string) string {
	if len(r.Calls) > 0 {
		return tool
	}
	return end
}

func (x *exchange) anthropic() {
	c, err := parseAnthropic(x.body)
	if err != nil {
		x.fail(http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	r := x.s.script.Play(c)
	x.played(r)
	id := "msg_sm_" + r.id()
	model := c.Model
	if !c.Stream {
		x.write(http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": anthropicBlocks(r), "stop_reason": r.stopReason("tool_use", "end_turn"),
			"stop_sequence": nil, "usage": anthropicUsage(r.Usage, r.Usage.Output),
		})
		return
	}
	e := x.startSSE()
	start := anthropicUsage(r.Usage, 1)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": start,
	}})
	e.event("ping", map[string]any{"type": "ping"})
	for i, b := range anthropicBlocks(r) {
		e.pause()
		delta := func(d map[string]any) {
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		switch b["type"] {
		case "thinking":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			for _, h := range halves(r.Thinking) {
				delta(map[string]any{"type": "thinking_delta", "thinking": h})
			}
			delta(map[string]any{"type": "signature_delta", "signature": b["signature"]})
		case "text":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, h := range halves(r.Text) {
				delta(map[string]any{"type": "text_delta", "text": h})
			}
		case "tool_use":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			for _, h := range halves(string(b["input"].(json.RawMessage))) {
				delta(map[string]any{"type": "input_json_delta", "partial_json": h})
			}
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.pause()
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": r.stopReason("tool_use", "end_turn"), "stop_sequence": nil},
		"usage": anthropicUsage(r.Usage, r.Usage.Output)})
	e.event("message_stop", map[string]any{"type": "message_stop"})
	e.end()
}
