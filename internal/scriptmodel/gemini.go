package scriptmodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// geminiRequest is the part of a Gemini generateContent request the
// server reads.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             *string         `json:"text"`
			Thought          bool            `json:"thought"`
			FunctionCall     json.RawMessage `json:"functionCall"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Parameters           json.RawMessage `json:"parameters"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig *struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

func parseGemini(body []byte, model string, stream bool) (*Conversation, error) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	c := &Conversation{Model: model, Stream: stream}
	for _, ct := range req.Contents {
		role := ct.Role
		if role == "model" {
			role = "assistant"
		}
		m := Message{Role: role}
		for _, p := range ct.Parts {
			switch {
			case len(p.FunctionCall) > 0:
				m.Calls++
			case len(p.FunctionResponse) > 0:
				m.Results++
			case p.Text != nil && !p.Thought:
				m.Texts = append(m.Texts, *p.Text)
			}
		}
		c.Messages = append(c.Messages, m)
	}
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			sc := f.ParametersJSONSchema
			if len(sc) == 0 {
				sc = f.Parameters
			}
			c.Tools = append(c.Tools, Tool{Name: f.Name, Schema: sc})
		}
	}
	if g := req.GenerationConfig; g != nil && g.ResponseMimeType == "application/json" {
		switch {
		case len(g.ResponseJSONSchema) > 0:
			c.JSONSchema = g.ResponseJSONSchema
		case len(g.ResponseSchema) > 0:
			c.JSONSchema = g.ResponseSchema
		default:
			c.JSONMode = true
		}
	}
	return c, nil
}

// geminiUsage is a Usage in Gemini's usageMetadata: promptTokenCount
// includes the cached tokens, candidatesTokenCount excludes the thoughts
// (thoughtsTokenCount).
func geminiUsage(u Usage) map[string]any {
	m := map[string]any{
		"promptTokenCount":     u.Input + u.CacheRead,
		"candidatesTokenCount": u.Output - u.Reasoning,
		"totalTokenCount":      u.Input + u.CacheRead + u.Output,
	}
	if u.CacheRead > 0 {
		m["cachedContentTokenCount"] = u.CacheRead
	}
	if u.Reasoning > 0 {
		m["thoughtsTokenCount"] = u.Reasoning
	}
	return m
}

// geminiModel is MODEL of /v1beta/models/MODEL:method.
func geminiModel(path string) string {
	name := path[strings.LastIndex(path, "/")+1:]
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	return name
}

func (x *exchange) gemini(stream bool) {
	model := geminiModel(x.r.URL.Path)
	c, err := parseGemini(x.body, model, stream)
	if err != nil {
		x.fail(http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	r := x.s.script.Play(c)
	x.played(r)
	var parts []map[string]any
	if r.Thinking != "" {
		parts = append(parts, map[string]any{"text": r.Thinking, "thought": true})
	}
	if r.Text != "" {
		parts = append(parts, map[string]any{"text": r.Text})
	}
	for i, call := range r.Calls {
		p := map[string]any{"functionCall": map[string]any{"id": "sm" + call.ID, "name": call.Name, "args": json.RawMessage(call.Args)}}
		if i == 0 {
			p["thoughtSignature"] = "c2NyaXB0ZWQtc2lnbmF0dXJl"
		}
		parts = append(parts, p)
	}
	chunk := func(parts []map[string]any, final bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		out := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": "sm-" + r.id()}
		if final {
			cand["finishReason"] = "STOP"
			out["usageMetadata"] = geminiUsage(r.Usage)
		}
		return out
	}
	if !stream {
		x.write(http.StatusOK, chunk(parts, true))
		return
	}
	e := x.startSSE()
	// One chunk per thought or text half and per call; the last chunk
	// carries the finish reason and the usage.
	var chunks [][]map[string]any
	for _, p := range parts {
		if t, ok := p["text"].(string); ok {
			for _, h := range halves(t) {
				q := map[string]any{"text": h}
				if p["thought"] == true {
					q["thought"] = true
				}
				chunks = append(chunks, []map[string]any{q})
			}
			continue
		}
		chunks = append(chunks, []map[string]any{p})
	}
	if len(chunks) == 0 {
		chunks = append(chunks, []map[string]any{{"text": ""}})
	}
	for i, ch := range chunks {
		e.pause()
		e.event("", chunk(ch, i == len(chunks)-1))
	}
	e.end()
}
