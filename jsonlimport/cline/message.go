package cline

// How a task's entry reads as a message.

import (
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// An API history message is an Anthropic message (jsonl.MessageObject:
// text, thinking, tool_use calls, tool_result results, images); in a
// message without native calls or results, the XML tool calls of the
// assistant's text and the results Cline answers them with (xmltools.go)
// are calls and results too; a user
// message that is only Cline's <environment_details> (or other context
// it adds) is Context. A Roo Code reasoning item ({"type": "reasoning"})
// is thinking. A UI message (a task read from ui_messages.json alone) is
// read as Cline shows it: the task (a say "task", or before Cline 3 a
// say "text" written before the history held a message) and the user's
// feedback are the user's, the model's text, completion and questions are the
// assistant's, reasoning is thinking, and everything else (API request
// rows, tool and command rows, checkpoints, progress lists) is
// bookkeeping: those rows show what the model asked for and what ran,
// but not as calls and results the model was sent.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	if e.Kind == KindUI {
		return uiMessageOf(obj)
	}
	if _, ok := obj["role"]; !ok {
		if jsonl.Str(obj, "type") == "reasoning" {
			return jsonl.Message{Role: "assistant", Thinking: jsonl.OrString(jsonl.ContentText(obj["summary"]), jsonl.Str(obj, "text"))}
		}
		m := jsonl.Extracted(e)
		m.Bookkeeping = true
		return m
	}
	m := jsonl.MessageObject(obj)
	if m.Role == "user" {
		sdkUser(&m, e.Body)
	}
	if e.Kind == KindDisplay {
		m.Bookkeeping = true
	}
	switch {
	case m.Role == "assistant" && len(m.Calls) == 0:
		m.Calls = xmlCalls(m.Text)
	case m.Role == "user" && len(m.Results) == 0:
		m.Results = xmlResults(obj["content"])
	}
	if m.Role == "user" && len(m.Results) == 0 && onlyContext(m.Text) {
		m.Context = true
	}
	return m
}

// sdkUser reads a user message as the Cline SDK sends it: the prompt's
// <user_input mode="…"> envelope removed (normalizeUserInput), and a tool
// result whose content is not content blocks (the structured results of
// run_commands and read_files, [{"query", "result", "success", …}]) as
// the JSON text the SDK sends for it (JSON.stringify of the content, its
// members in their order).
func sdkUser(m *jsonl.Message, body []byte) {
	m.Text = SendText(m.Text)
	if len(m.Results) == 0 {
		return
	}
	var msg struct {
		Content []struct {
			Type      string            `json:"type"`
			ToolUseID string            `json:"tool_use_id"`
			Content   []json.RawMessage `json:"content"`
		} `json:"content"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return
	}
	for _, b := range msg.Content {
		if b.Type != "tool_result" || !structured(b.Content) {
			continue
		}
		for i := range m.Results {
			if m.Results[i].CallID == b.ToolUseID {
				m.Results[i].Text = string(joinArray(b.Content))
			}
		}
	}
}

// SendText is a user text as Cline sends it to the model: without the
// SDK's <user_input mode="…"> or <user_command> envelope (its
// normalizeUserInput), else as written.
func SendText(s string) string {
	if strings.Contains(s, "<user_input") || strings.Contains(s, "<user_command") {
		return normalizeUserInput(s)
	}
	return s
}

// StructuredResult returns the text Cline sends for a tool result's
// content when that content is the SDK's structured output (a list
// holding an element that is not a content block): the list's JSON, its
// members in their order. ok is false for a string or content blocks.
func StructuredResult(content json.RawMessage) (text string, ok bool) {
	var list []json.RawMessage
	if json.Unmarshal(content, &list) != nil || !structured(list) {
		return "", false
	}
	return string(joinArray(compactAll(list))), true
}

// compactAll compacts each element.
func compactAll(list []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, len(list))
	for i, e := range list {
		out[i] = compact(e)
	}
	return out
}

// structured reports whether a tool result's content list holds an
// element that is not a content block (an object without a type).
func structured(list []json.RawMessage) bool {
	for _, raw := range list {
		var b struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &b) != nil || b.Type == "" {
			return true
		}
	}
	return false
}

// contextOpeners open the text blocks Cline adds to a user message.
var contextOpeners = []string{"<environment_details>", "[TASK RESUMPTION]", "<explicit_instructions", "# task_progress", "[Response interrupted"}

// onlyContext reports whether a user text is made only of blocks Cline
// added (its environment details, resumption notices).
func onlyContext(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" {
		return false
	}
	for _, block := range strings.Split(text, "\n\n") {
		block = strings.TrimSpace(block)
		if block == "" {
			continue
		}
		ok := false
		for _, o := range contextOpeners {
			if strings.HasPrefix(block, o) {
				ok = true
				break
			}
		}
		if !ok && !strings.HasPrefix(block, "</environment_details>") && !strings.HasPrefix(block, "#") {
			return false
		}
	}
	return strings.Contains(text, "<environment_details>") || strings.HasPrefix(text, "[TASK RESUMPTION]")
}

// uiMessageOf reads a UI message.
func uiMessageOf(obj map[string]any) jsonl.Message {
	typ, say, ask := jsonl.Str(obj, "type"), jsonl.Str(obj, "say"), jsonl.Str(obj, "ask")
	text := jsonl.Str(obj, "text")
	kind := say
	if typ == "ask" {
		kind = ask
	}
	switch {
	case typ == "say" && say == "text" && jsonl.ArgText(obj["conversationHistoryIndex"]) == "-1":
		// Before Cline 3 the task was a say "text"; nothing the model
		// wrote comes before the history holds a message.
		return jsonl.Message{Role: "user", Text: text}
	case typ == "say" && (say == "task" || say == "user_feedback"):
		return jsonl.Message{Role: "user", Text: text}
	case typ == "say" && (say == "text" || say == "completion_result"):
		return jsonl.Message{Role: "assistant", Text: text}
	case typ == "say" && say == "reasoning":
		return jsonl.Message{Role: "assistant", Thinking: text}
	case typ == "ask" && (ask == "followup" || ask == "plan_mode_respond" || ask == "act_mode_respond") && text != "":
		var q struct {
			Question string `json:"question"`
			Response string `json:"response"`
		}
		if json.Unmarshal([]byte(text), &q) == nil && (q.Question != "" || q.Response != "") {
			text = jsonl.OrString(q.Question, q.Response)
		}
		return jsonl.Message{Role: "assistant", Text: text}
	}
	return jsonl.Message{Role: jsonl.OrString(kind, typ), Text: text, Bookkeeping: true}
}
