package sessiondb

import (
	"encoding/json"
	"strings"
)

// Extractor derives the role and plain text of an entry body, for listing
// and search. Stores call it on every append; it must not fail: a body it
// does not understand yields an empty role and text.
type Extractor func(kind string, body json.RawMessage) (role, text string)

// maxExtractedText bounds the text extracted from one body.
const maxExtractedText = 1 << 20

// textKeys are the object keys whose values DefaultExtractor collects as
// text, in the order they are visited within one object.
//
// "message" and "payload" are the envelopes of line-shaped bodies (a Claude
// Code or pi line holds its message under "message", a Codex rollout line
// under "payload"), so that such bodies, kept whole by the importers, are
// searchable.
var textKeys = []string{"text", "thinking", "name", "arguments", "args", "input", "content", "output", "result", "summary", "label", "title", "message", "payload"}

// DefaultExtractor understands the common message shapes:
//
//	{"role": "...", "content": "text"}
//	{"role": "...", "content": [{"text": "..."}, {"name": "tool", "arguments": {...}}, ...]}
//	{"role": "...", "tool_calls": [{"function": {"name": "...", "arguments": "..."}}]}
//
// Role is the top-level "role" string. Text joins, in document order, the
// string values found under text, thinking, name, arguments, args, input,
// content, output, result, summary, label, title, message and payload at
// any depth (objects under arguments/args/input are rendered as compact
// JSON), separated by newlines and capped at 1 MiB.
func DefaultExtractor(kind string, body json.RawMessage) (role, text string) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return "", ""
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if s, ok := v.(string); ok {
			return "", capText(s)
		}
		return "", ""
	}
	if r, ok := obj["role"].(string); ok {
		role = r
	}
	var b strings.Builder
	collectText(&b, obj, 0)
	if calls, ok := obj["tool_calls"]; ok {
		collectText(&b, calls, 0)
	}
	return role, capText(b.String())
}

func collectText(b *strings.Builder, v any, depth int) {
	if depth > 64 || b.Len() > maxExtractedText {
		return
	}
	switch v := v.(type) {
	case string:
		appendText(b, v)
	case []any:
		for _, e := range v {
			collectText(b, e, depth+1)
		}
	case map[string]any:
		for _, k := range textKeys {
			e, ok := v[k]
			if !ok {
				continue
			}
			switch k {
			case "arguments", "args", "input":
				if _, isString := e.(string); !isString {
					if raw, err := json.Marshal(e); err == nil {
						appendText(b, string(raw))
					}
					continue
				}
			}
			collectText(b, e, depth+1)
		}
		if f, ok := v["function"]; ok {
			collectText(b, f, depth+1)
		}
	}
}

func appendText(b *strings.Builder, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(s)
}

func capText(s string) string {
	if len(s) <= maxExtractedText {
		return s
	}
	s = s[:maxExtractedText]
	// Do not cut a UTF-8 sequence in half.
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s
}
