package viewer

import (
	"bytes"
	"encoding/json"
	"html/template"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// maxShown bounds the text of one entry rendered into a page. A 10 MB
// tool result is clipped with a link to its raw body, so that a page stays
// small whatever a transcript holds.
const maxShown = 64 << 10

// block is one piece of a rendered entry.
type block struct {
	Kind    string        // text, thinking, call, result, image, json
	HTML    template.HTML // text and thinking: rendered markdown
	Text    string        // result, json: plain text (escaped by the template)
	Name    string        // call: tool name
	Args    string        // call: arguments, indented JSON when possible
	CallID  string        // call, result: the tool call ID
	IsError bool          // result
	Result  *block        // call: its result, when on the same page
	Clipped bool          // the text was cut at maxShown
}

// entryView is one entry of a transcript page.
type entryView struct {
	Seq        int64
	Summary    bool
	Superseded bool
	Role       string
	Kind       string
	Time       string
	Blocks     []block
	Size       int
	// Paired: a tool-result entry whose results are all shown inside their
	// calls; the page shows it as a one-line reference.
	Paired bool
	// Cut: a compaction starts the transcript at this entry.
	Cut *cutView
}

// cutView is a compaction marker.
type cutView struct {
	ID           int64
	KeepFromSeq  int64
	AtSeq        int64
	TokensBefore int64
	TokensAfter  int64
	Time         string
	Latest       bool
	Summary      []entryView
}

// viewEntry turns a stored entry into blocks. The body is parsed with the
// shapes the CLI's renderer understands (content string or blocks,
// OpenAI-style tool_calls, tool messages); anything else is shown as JSON
// text.
func viewEntry(e sessiondb.Entry) entryView {
	v := entryView{Seq: e.Seq, Summary: e.Summary, Role: e.Role, Kind: e.Kind, Size: len(e.Body)}
	if !e.CreatedAt.IsZero() {
		v.Time = e.CreatedAt.UTC().Format("2006-01-02 15:04:05")
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(e.Body))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		v.Blocks = []block{jsonBlock(string(e.Body))}
		return v
	}
	if v.Role == "" {
		v.Role, _ = obj["role"].(string)
	}
	switch v.Role {
	case "tool", "tool_result", "function":
		id, _ := obj["tool_call_id"].(string)
		if blocks, ok := obj["content"].([]any); ok {
			for _, b := range blocks {
				if m, ok := b.(map[string]any); ok {
					if cid, ok := resultID(m); ok {
						v.Blocks = append(v.Blocks, resultBlock(cid, m))
					}
				}
			}
			if len(v.Blocks) > 0 {
				return v
			}
		}
		v.Blocks = []block{resultBlock(id, obj)}
		return v
	}
	if rc, ok := obj["reasoning_content"].(string); ok && rc != "" {
		v.Blocks = append(v.Blocks, textBlock("thinking", rc))
	}
	content, hasContent := obj["content"]
	switch c := content.(type) {
	case string:
		if c != "" {
			v.Blocks = append(v.Blocks, textBlock("text", c))
		}
	case []any:
		for _, b := range c {
			v.Blocks = append(v.Blocks, contentBlock(b))
		}
	}
	if calls, ok := obj["tool_calls"].([]any); ok {
		for _, call := range calls {
			m, ok := call.(map[string]any)
			if !ok {
				continue
			}
			id, _ := m["id"].(string)
			if f, ok := m["function"].(map[string]any); ok {
				v.Blocks = append(v.Blocks, callBlock(id, f["name"], f["arguments"]))
			} else {
				v.Blocks = append(v.Blocks, callBlock(id, m["name"], firstOf(m, "arguments", "input", "args")))
			}
		}
	}
	if len(v.Blocks) == 0 && !hasContent {
		_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
		if text != "" {
			v.Blocks = append(v.Blocks, textBlock("text", text))
		} else {
			v.Blocks = append(v.Blocks, jsonBlock(string(e.Body)))
		}
	}
	return v
}

func contentBlock(b any) block {
	m, ok := b.(map[string]any)
	if !ok {
		if s, ok := b.(string); ok {
			return textBlock("text", s)
		}
		return jsonBlock(compactJSON(b))
	}
	typ, _ := m["type"].(string)
	switch {
	case typ == "thinking" || (typ == "" && m["thinking"] != nil):
		t, _ := m["thinking"].(string)
		return textBlock("thinking", t)
	case typ == "reasoning" || m["reasoning_id"] != nil:
		s, _ := m["summary"].(string)
		return textBlock("thinking", s)
	case typ == "tool_call" || typ == "tool_use" || typ == "toolCall" || typ == "function_call" ||
		(typ == "" && m["name"] != nil && (m["arguments"] != nil || m["input"] != nil || m["id"] != nil)):
		id, _ := m["id"].(string)
		if id == "" {
			id, _ = m["call_id"].(string)
		}
		return callBlock(id, m["name"], firstOf(m, "arguments", "input", "args"))
	case typ == "tool_result" || (typ == "" && m["call_id"] != nil):
		id, _ := resultID(m)
		return resultBlock(id, m)
	case typ == "image" || typ == "image_url" || m["mime_type"] != nil || m["image_url"] != nil:
		// Images are never loaded (no data: or remote URLs in the page):
		// only their type is shown.
		mime, _ := m["mime_type"].(string)
		if mime == "" {
			mime, _ = m["media_type"].(string)
		}
		return block{Kind: "image", Text: mime}
	}
	if t, ok := m["text"].(string); ok {
		return textBlock("text", t)
	}
	return jsonBlock(compactJSON(m))
}

func textBlock(kind, s string) block {
	s, cut := clip(s, maxShown)
	return block{Kind: kind, HTML: renderMarkdown(s), Clipped: cut}
}

func jsonBlock(s string) block {
	s, cut := clip(s, maxShown)
	return block{Kind: "json", Text: visible(s), Clipped: cut}
}

func callBlock(id string, name, args any) block {
	n, _ := name.(string)
	var a string
	switch v := args.(type) {
	case string:
		var buf bytes.Buffer
		if json.Indent(&buf, []byte(v), "", "  ") == nil {
			a = buf.String()
		} else {
			a = v
		}
	case nil:
	default:
		// Not json.MarshalIndent: it would turn < > & into \u003c…, and
		// the page escapes them anyway.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if enc.Encode(v) == nil {
			a = strings.TrimSuffix(buf.String(), "\n")
		}
	}
	a, cut := clip(a, maxShown)
	return block{Kind: "call", Name: visible(n), Args: visible(a), CallID: visible(id), Clipped: cut}
}

func resultBlock(id string, m map[string]any) block {
	isErr, _ := m["is_error"].(bool)
	text, cut := clip(contentText(m["content"]), maxShown)
	if text == "" {
		if o, ok := m["output"].(string); ok {
			text, cut = clip(o, maxShown)
		}
	}
	return block{Kind: "result", Text: visible(text), CallID: visible(id), IsError: isErr, Clipped: cut}
}

func resultID(m map[string]any) (string, bool) {
	for _, k := range []string{"call_id", "tool_use_id", "tool_call_id", "toolCallId"} {
		if v, ok := m[k].(string); ok {
			return v, true
		}
	}
	if t, _ := m["type"].(string); t == "tool_result" {
		return "", true
	}
	return "", false
}

// contentText joins the text found in a content value (string or blocks).
func contentText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, b := range v {
			switch b := b.(type) {
			case string:
				parts = append(parts, b)
			case map[string]any:
				if t, ok := b["text"].(string); ok {
					parts = append(parts, t)
				} else if t, _ := b["type"].(string); t == "image" {
					parts = append(parts, "[image]")
				}
			}
		}
		return strings.Join(parts, "\n")
	case nil:
		return ""
	}
	return compactJSON(v)
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// pairCalls moves each tool result into the block of its call when both
// are on the page, so a call and its result open and close together. A
// result entry whose results all found their call is marked Paired.
func pairCalls(entries []entryView) {
	calls := map[string]*block{}
	for i := range entries {
		for j := range entries[i].Blocks {
			b := &entries[i].Blocks[j]
			if b.Kind == "call" && b.CallID != "" {
				calls[b.CallID] = b
			}
		}
	}
	for i := range entries {
		e := &entries[i]
		paired, results := 0, 0
		for j := range e.Blocks {
			b := e.Blocks[j]
			if b.Kind != "result" {
				continue
			}
			results++
			if c := calls[b.CallID]; c != nil && b.CallID != "" && c.Result == nil {
				r := b
				c.Result = &r
				paired++
			}
		}
		e.Paired = results > 0 && paired == results && len(e.Blocks) == results
	}
}
