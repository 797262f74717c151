package scriptmodel

import (
	"encoding/json"
	"net/http"
)

// chatRequest is the part of an OpenAI Chat Completions request the
// server reads.
type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role       string            `json:"role"`
		Content    json.RawMessage   `json:"content"`
		ToolCalls  []json.RawMessage `json:"tool_calls"`
		ToolCallID string            `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func parseChat(body []byte) (*Conversation, error) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	c := &Conversation{Model: req.Model, Stream: req.Stream}
	for _, m := range req.Messages {
		msg := Message{Role: m.Role, Calls: len(m.ToolCalls)}
		if m.Role == "tool" {
			msg.Results = 1
		}
		if len(m.Content) > 0 && string(m.Content) != "null" {
			for _, b := range blocksOf(m.Content) {
				if b.Text != "" {
					msg.Texts = append(msg.Texts, b.Text)
				}
			}
		}
		c.Messages = append(c.Messages, msg)
	}
	for _, t := range req.Tools {
		c.Tools = append(c.Tools, Tool{Name: t.Function.Name, Schema: t.Function.Parameters})
	}
	if f := req.ResponseFormat; f != nil {
		switch {
		case f.Type == "json_schema" && f.JSONSchema != nil:
			c.JSONSchema = f.JSONSchema.Schema
		case f.Type == "json_object":
			c.JSONMode = true
		}
	}
	return c, nil
}

// chatUsage is a Usage in Chat Completions' fields: prompt_tokens
// includes the cached tokens, completion_tokens the reasoning.
func chatUsage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":             u.Input + u.CacheRead,
		"completion_tokens":         u.Output,
		"total_tokens":              u.Input + u.CacheRead + u.Output,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CacheRead},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
	}
}

func chatToolCalls(r Reply) []map[string]any {
	var out []map[string]any
	for i, c := range r.Calls {
		out = append(out, map[string]any{"index": i, "id": "call_sm" + c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(c.Args)}})
	}
	return out
}

func (x *exchange) chat() {
	c, err := parseChat(x.body)
	if err != nil {
		x.fail(http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	r := x.s.script.Play(c)
	x.played(r)
	id := "chatcmpl-sm-" + r.id()
	finish := r.stopReason("tool_calls", "stop")
	if !c.Stream {
		msg := map[string]any{"role": "assistant", "content": r.Text}
		if r.Thinking != "" {
			msg["reasoning_content"] = r.Thinking
		}
		if calls := chatToolCalls(r); len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		x.write(http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": 1767225600, "model": c.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": chatUsage(r.Usage)})
		return
	}
	e := x.startSSE()
	chunk := func(delta map[string]any, finish any) {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": c.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if r.Thinking != "" {
		e.pause()
		for _, h := range halves(r.Thinking) {
			chunk(map[string]any{"reasoning_content": h}, nil)
		}
	}
	if r.Text != "" {
		e.pause()
		for _, h := range halves(r.Text) {
			chunk(map[string]any{"content": h}, nil)
		}
	}
	for i, call := range chatToolCalls(r) {
		e.pause()
		fn := call["function"].(map[string]any)
		args := fn["arguments"].(string)
		parts := halves(args)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": call["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": parts[0]}}}}, nil)
		for _, p := range parts[1:] {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil)
		}
	}
	e.pause()
	chunk(map[string]any{}, finish)
	// The usage comes in a last chunk of its own, with no choices, as
	// OpenAI sends it with stream_options.include_usage (sent whether or
	// not it was asked for: every client seen reads it).
	e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": c.Model,
		"choices": []any{}, "usage": chatUsage(r.Usage)})
	e.event("", "[DONE]")
	e.end()
}
