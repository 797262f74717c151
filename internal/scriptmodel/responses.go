package scriptmodel

import (
	"encoding/json"
	"net/http"
)

// responsesRequest is the part of an OpenAI Responses request the server
// reads.
type responsesRequest struct {
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	Input  json.RawMessage `json:"input"`
	Tools  []struct {
		Type       string          `json:"type"`
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"tools"`
	Text *struct {
		Format *struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func parseResponses(body []byte) (*Conversation, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	c := &Conversation{Model: req.Model, Stream: req.Stream}
	var s string
	if json.Unmarshal(req.Input, &s) == nil {
		c.Messages = append(c.Messages, Message{Role: "user", Texts: []string{s}})
	} else {
		var items []responsesItem
		if err := json.Unmarshal(req.Input, &items); err != nil && len(req.Input) > 0 {
			return nil, err
		}
		for _, it := range items {
			switch it.Type {
			case "message", "":
				m := Message{Role: it.Role}
				for _, b := range blocksOf(it.Content) {
					if b.Text != "" {
						m.Texts = append(m.Texts, b.Text)
					}
				}
				c.Messages = append(c.Messages, m)
			case "function_call", "custom_tool_call", "local_shell_call":
				c.Messages = append(c.Messages, Message{Role: "assistant", Calls: 1})
			case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
				c.Messages = append(c.Messages, Message{Role: "tool", Results: 1})
			}
		}
	}
	for _, t := range req.Tools {
		if t.Name != "" {
			c.Tools = append(c.Tools, Tool{Name: t.Name, Schema: t.Parameters})
		}
	}
	if req.Text != nil && req.Text.Format != nil {
		switch req.Text.Format.Type {
		case "json_schema":
			c.JSONSchema = req.Text.Format.Schema
		case "json_object":
			c.JSONMode = true
		}
	}
	return c, nil
}

// responsesUsage is a Usage in the Responses API's fields: input_tokens
// includes the cached tokens, output_tokens the reasoning.
func responsesUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.Input + u.CacheRead,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":          u.Input + u.CacheRead + u.Output,
	}
}

// responsesOutput is the reply's output items.
func responsesOutput(r Reply) []map[string]any {
	var out []map[string]any
	id := r.id()
	if r.Thinking != "" {
		out = append(out, map[string]any{"type": "reasoning", "id": "rs_sm_" + id,
			"summary":           []any{map[string]any{"type": "summary_text", "text": r.Thinking}},
			"encrypted_content": "c2NyaXB0ZWQtcmVhc29uaW5n"})
	}
	if r.Text != "" {
		out = append(out, map[string]any{"type": "message", "id": "msg_sm_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}}})
	}
	for _, c := range r.Calls {
		out = append(out, map[string]any{"type": "function_call", "id": "fc_sm" + c.ID, "call_id": "call_sm" + c.ID,
			"name": c.Name, "arguments": string(c.Args), "status": "completed"})
	}
	return out
}

func (x *exchange) responses() {
	c, err := parseResponses(x.body)
	if err != nil {
		x.fail(http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	r := x.s.script.Play(c)
	x.played(r)
	base := map[string]any{"id": "resp_sm_" + r.id(), "object": "response", "created_at": 1767225600, "model": c.Model}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	output := responsesOutput(r)
	final := with(map[string]any{"status": "completed", "output": output, "usage": responsesUsage(r.Usage)})
	if !c.Stream {
		x.write(http.StatusOK, final)
		return
	}
	e := x.startSSE()
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		e.event(typ, fields)
	}
	ev("response.created", map[string]any{"response": with(map[string]any{"status": "in_progress", "output": []any{}})})
	ev("response.in_progress", map[string]any{"response": with(map[string]any{"status": "in_progress", "output": []any{}})})
	for i, it := range output {
		e.pause()
		itemID := it["id"]
		switch it["type"] {
		case "reasoning":
			ev("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"type": "reasoning", "id": itemID, "summary": []any{}}})
			ev("response.reasoning_summary_part.added", map[string]any{"item_id": itemID, "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
			for _, h := range halves(r.Thinking) {
				ev("response.reasoning_summary_text.delta", map[string]any{"item_id": itemID, "output_index": i, "summary_index": 0, "delta": h})
			}
			ev("response.reasoning_summary_text.done", map[string]any{"item_id": itemID, "output_index": i, "summary_index": 0, "text": r.Thinking})
			ev("response.reasoning_summary_part.done", map[string]any{"item_id": itemID, "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": r.Thinking}})
		case "message":
			ev("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"type": "message", "id": itemID, "role": "assistant", "status": "in_progress", "content": []any{}}})
			ev("response.content_part.added", map[string]any{"item_id": itemID, "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, h := range halves(r.Text) {
				ev("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": i, "content_index": 0, "delta": h})
			}
			ev("response.output_text.done", map[string]any{"item_id": itemID, "output_index": i, "content_index": 0, "text": r.Text})
			ev("response.content_part.done", map[string]any{"item_id": itemID, "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}})
		case "function_call":
			added := map[string]any{}
			for k, v := range it {
				added[k] = v
			}
			added["arguments"], added["status"] = "", "in_progress"
			ev("response.output_item.added", map[string]any{"output_index": i, "item": added})
			args := it["arguments"].(string)
			for _, h := range halves(args) {
				ev("response.function_call_arguments.delta", map[string]any{"item_id": itemID, "output_index": i, "delta": h})
			}
			ev("response.function_call_arguments.done", map[string]any{"item_id": itemID, "output_index": i, "arguments": args})
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	e.pause()
	ev("response.completed", map[string]any{"response": final})
	e.end()
}
