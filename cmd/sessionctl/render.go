package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// Rendering of transcripts for people. The shapes understood are those of
// the formats sessiondb imports: content as a string or as a list of blocks
// (text, thinking, tool calls, tool results, images, reasoning), OpenAI-style
// tool_calls, and tool/tool_result messages. Text is shown in full; tool
// calls, tool results, thinking and images are folded to one line each.
// Anything else falls back to the text sessiondb.DefaultExtractor finds, or
// to the compact JSON.

// foldWidth is the width, in runes, of a folded line's payload.
const foldWidth = 120

func renderEntry(w io.Writer, e sessiondb.Entry) {
	label := fmt.Sprintf("[%d]", e.Seq)
	if e.Summary {
		label = "[summary]"
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(e.Body))
	dec.UseNumber()
	_ = dec.Decode(&obj)

	role := e.Role
	if role == "" {
		role, _ = obj["role"].(string)
	}
	head := label
	if role != "" {
		head += " " + role
	}
	if e.Kind != "" && e.Kind != sessiondb.KindMessage {
		head += " (" + e.Kind + ")"
	}
	if !e.CreatedAt.IsZero() {
		head += "  " + tableTime(e.CreatedAt)
	}

	if obj != nil && isToolResultMessage(role, obj) {
		fmt.Fprintf(w, "%s  %s\n", visible(head), visible(toolResultLine(obj)))
		return
	}
	fmt.Fprintln(w, visible(head))
	lines := bodyLines(e, obj)
	for _, l := range lines {
		for _, sub := range strings.Split(l, "\n") {
			fmt.Fprintf(w, "    %s\n", visible(strings.TrimRight(sub, " \t\r")))
		}
	}
}

func isToolResultMessage(role string, obj map[string]any) bool {
	switch role {
	case "tool", "tool_result", "function":
		return true
	}
	return false
}

// toolResultLine folds a whole tool-result message to one line. A message
// that answers several calls (zot's parallel calls) lists each.
func toolResultLine(obj map[string]any) string {
	id, _ := obj["tool_call_id"].(string)
	if blocks, ok := obj["content"].([]any); ok {
		var parts []string
		for _, b := range blocks {
			m, ok := b.(map[string]any)
			if !ok {
				continue
			}
			if cid, ok := resultID(m); ok {
				parts = append(parts, resultPart(cid, m))
			}
		}
		if len(parts) > 0 {
			return "← " + fold(strings.Join(parts, " | "))
		}
	}
	s := resultPart(id, obj)
	return "← " + fold(s)
}

func resultID(m map[string]any) (string, bool) {
	for _, k := range []string{"call_id", "tool_use_id", "tool_call_id"} {
		if v, ok := m[k].(string); ok {
			return v, true
		}
	}
	if t, _ := m["type"].(string); t == "tool_result" {
		return "", true
	}
	return "", false
}

func resultPart(id string, m map[string]any) string {
	var b strings.Builder
	if id != "" {
		b.WriteString("[" + id + "] ")
	}
	if isErr, _ := m["is_error"].(bool); isErr {
		b.WriteString("(error) ")
	}
	b.WriteString(contentText(m["content"]))
	return b.String()
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
				} else if isImage(b) {
					parts = append(parts, imageLine(b))
				}
			}
		}
		return strings.Join(parts, " ")
	case nil:
		return ""
	}
	return compactJSON(v)
}

func bodyLines(e sessiondb.Entry, obj map[string]any) []string {
	if obj == nil {
		_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
		if text == "" {
			return []string{fold(string(e.Body))}
		}
		return []string{text}
	}
	var lines []string
	if rc, ok := obj["reasoning_content"].(string); ok && rc != "" {
		lines = append(lines, "(reasoning) "+fold(rc))
	}
	content, hasContent := obj["content"]
	switch c := content.(type) {
	case string:
		if c != "" {
			lines = append(lines, c)
		}
	case []any:
		for _, b := range c {
			lines = append(lines, blockLines(b)...)
		}
	}
	if calls, ok := obj["tool_calls"].([]any); ok {
		for _, call := range calls {
			m, ok := call.(map[string]any)
			if !ok {
				continue
			}
			if f, ok := m["function"].(map[string]any); ok {
				lines = append(lines, toolCallLine(f["name"], f["arguments"]))
			} else {
				lines = append(lines, toolCallLine(m["name"], firstOf(m, "arguments", "input", "args")))
			}
		}
	}
	if len(lines) == 0 && !hasContent {
		// Not a message shape: a custom or rich entry. Show the text the
		// extractor finds, else the JSON, on one line.
		_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
		if text == "" {
			text = compactJSON(obj)
		}
		lines = append(lines, fold(text))
	}
	return lines
}

func blockLines(b any) []string {
	m, ok := b.(map[string]any)
	if !ok {
		if s, ok := b.(string); ok {
			return []string{s}
		}
		return []string{fold(compactJSON(b))}
	}
	typ, _ := m["type"].(string)
	switch {
	case typ == "thinking" || (typ == "" && m["thinking"] != nil):
		t, _ := m["thinking"].(string)
		if t == "" {
			return nil
		}
		return []string{"(thinking) " + fold(t)}
	case typ == "reasoning" || m["reasoning_id"] != nil:
		s, _ := m["summary"].(string)
		if s == "" {
			return []string{"(reasoning)"}
		}
		return []string{"(reasoning) " + fold(s)}
	case typ == "tool_call" || typ == "tool_use" || typ == "function_call" ||
		(typ == "" && m["name"] != nil && (m["arguments"] != nil || m["input"] != nil || m["id"] != nil)):
		return []string{toolCallLine(m["name"], firstOf(m, "arguments", "input", "args"))}
	case typ == "tool_result":
		id, _ := resultID(m)
		return []string{"← " + fold(resultPart(id, m))}
	case typ == "" && m["call_id"] != nil:
		id, _ := m["call_id"].(string)
		return []string{"← " + fold(resultPart(id, m))}
	case isImage(m):
		return []string{imageLine(m)}
	}
	if t, ok := m["text"].(string); ok {
		if t == "" {
			return nil
		}
		return []string{t}
	}
	return []string{fold(compactJSON(m))}
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

func toolCallLine(name, args any) string {
	n, _ := name.(string)
	var a string
	switch v := args.(type) {
	case string:
		a = v
	case nil:
	default:
		a = compactJSON(v)
	}
	return "→ " + fold(n+"("+a+")")
}

func isImage(m map[string]any) bool {
	typ, _ := m["type"].(string)
	return typ == "image" || typ == "image_url" || m["mime_type"] != nil || m["image_url"] != nil
}

func imageLine(m map[string]any) string {
	mime, _ := m["mime_type"].(string)
	if mime == "" {
		mime, _ = m["media_type"].(string)
	}
	if mime == "" {
		return "[image]"
	}
	return "[image " + mime + "]"
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// fold collapses whitespace to single spaces and cuts s to foldWidth runes.
func fold(s string) string {
	return cell(strings.Join(strings.Fields(s), " "), foldWidth)
}
