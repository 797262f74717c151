package geminichat

// Reading @google/genai parts (a Content's "parts", a record's "content").

import (
	"strings"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Parts returns a PartListUnion as a list of parts: a string is one text
// part, an object one part, a list its members (strings among them text
// parts); anything else is no part.
func Parts(v any) []map[string]any {
	switch v := v.(type) {
	case string:
		return []map[string]any{{"text": v}}
	case map[string]any:
		return []map[string]any{v}
	case []any:
		out := make([]map[string]any, 0, len(v))
		for _, p := range v {
			switch p := p.(type) {
			case string:
				out = append(out, map[string]any{"text": p})
			case map[string]any:
				out = append(out, p)
			}
		}
		return out
	}
	return nil
}

// Read reads parts into the text, thinking, tool calls and tool results of
// a message (Role and the flags are the caller's). Text parts are joined
// by blank lines; a thought part ("thought": true) is thinking; inline
// data is "[image]" (or "[<media type>]"), a file "[file <uri>]".
func Read(parts []map[string]any) jsonl.Message {
	var m jsonl.Message
	var text, thinking []string
	for _, p := range parts {
		switch {
		case p["functionCall"] != nil:
			fc, _ := p["functionCall"].(map[string]any)
			m.Calls = append(m.Calls, jsonl.ToolCall{ID: jsonl.Str(fc, "id"), Name: jsonl.Str(fc, "name"), Arguments: jsonl.ArgText(fc["args"])})
		case p["functionResponse"] != nil:
			fr, _ := p["functionResponse"].(map[string]any)
			m.Results = append(m.Results, Response(fr))
		case p["text"] != nil:
			s, _ := p["text"].(string)
			if thought, _ := p["thought"].(bool); thought {
				if s != "" {
					thinking = append(thinking, s)
				}
			} else if s != "" {
				text = append(text, s)
			}
		case p["inlineData"] != nil:
			text = append(text, mediaText(p["inlineData"]))
		case p["fileData"] != nil:
			fd, _ := p["fileData"].(map[string]any)
			text = append(text, "[file "+jsonl.Str(fd, "fileUri")+"]")
		case p["executableCode"] != nil:
			ec, _ := p["executableCode"].(map[string]any)
			text = append(text, jsonl.Str(ec, "code"))
		case p["codeExecutionResult"] != nil:
			cr, _ := p["codeExecutionResult"].(map[string]any)
			text = append(text, jsonl.Str(cr, "output"))
		}
	}
	m.Text = strings.Join(text, "\n\n")
	m.Thinking = strings.Join(thinking, "\n\n")
	return m
}

// mediaText names inline data: "[image]" for an image, else its media type.
func mediaText(v any) string {
	d, _ := v.(map[string]any)
	mime := jsonl.Str(d, "mimeType")
	if mime == "" || strings.HasPrefix(mime, "image/") {
		return "[image]"
	}
	return "[" + mime + "]"
}

// Response reads a functionResponse {id, name, response}: the text is the
// response's "output" when it is a string, its "error" (the result is
// then an error), else the response as JSON; parts a tool returned beside
// it (functionResponse.parts, images) are named after it.
func Response(fr map[string]any) jsonl.ToolResult {
	r := jsonl.ToolResult{CallID: jsonl.Str(fr, "id"), Name: jsonl.Str(fr, "name")}
	resp, _ := fr["response"].(map[string]any)
	switch {
	case resp == nil:
		r.Text = jsonl.ArgText(fr["response"])
	case resp["error"] != nil && resp["output"] == nil:
		r.IsError = true
		r.Text = jsonl.ArgText(resp["error"])
	default:
		if s, ok := resp["output"].(string); ok {
			r.Text = s
		} else {
			r.Text = jsonl.CompactJSON(resp)
		}
	}
	if extra := Read(Parts(fr["parts"])); extra.Text != "" {
		r.Text = strings.TrimSpace(r.Text + "\n" + extra.Text)
	}
	return r
}

// ThoughtText is the text Gemini CLI makes of a recorded thought
// {subject, description} when it rebuilds a legacy record's parts on
// resume: "**subject** description", or the description alone.
func ThoughtText(t map[string]any) string {
	subject, desc := jsonl.Str(t, "subject"), jsonl.Str(t, "description")
	if subject != "" {
		return "**" + subject + "** " + desc
	}
	return desc
}
