package jsonlimport

// The translation reader of the Cursor agent's transcripts (package
// cursoragent): their message lines as the neutral conversation.
//
// A line is {role, message: {content}}, content a string or Anthropic
// blocks. An assistant line's blocks (text, thinking, tool_use) join the
// assistant message in progress: Cursor writes one line per step of a
// response (a text and its calls, then the next text) and never the
// results between them, as the IDE spreads a response over bubbles
// (translate_cursor.go reads those so too). Read as a message each, a
// run had no shape in Codex, which merges consecutive assistant items (4
// of the 8 fixture sessions refused; none so). Its tool_use
// blocks carry no id: each gets cursoragent.CallID(seq, i), the id the
// package's message reader gives it, so that a call keeps its id through
// every target. A user line's tool_result blocks are tool results (none
// was seen in a real transcript: the format is read as Anthropic's), of
// the call their tool_use_id names, else of the earliest call still
// unanswered; its other blocks a user message, its text as Cursor sent it
// (the <timestamp> and <user_query> wrapping kept). Left out: turn_ended
// lines (the end of a turn, never sent to the model). Refused: lines of
// other shapes and roles other than user and assistant.

import (
	"bytes"
	"encoding/json"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/cursoragent"
)

func (r *xReader) cursorAgent(e sessiondb.Entry) {
	if e.Kind == cursoragent.KindTurnEnded {
		return
	}
	var line struct {
		Role    string `json:"role"`
		Message *struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(e.Body, &line); err != nil || line.Message == nil || e.Kind != sessiondb.KindMessage {
		r.loss.add(r.format + " line that is not a message")
		return
	}
	content := line.Message.Content
	switch line.Role {
	case xAssistant:
		blocks := r.blocks(cursorAgentCallIDs(content, e.Seq))
		if len(blocks) > 0 {
			r.assistantBlocks(e.CreatedAt, blocks...)
		}
	case xUser:
		r.userContent(r.cursorAgentResultIDs(content), e.CreatedAt)
	default:
		r.loss.add(r.format + " message of role " + orDefault(line.Role, "(none)"))
	}
}

// cursorAgentCallIDs gives the tool_use blocks of content that have no id
// the id cursoragent.CallID makes (content unchanged when none lacks one).
func cursorAgentCallIDs(content json.RawMessage, seq int64) json.RawMessage {
	var list []map[string]json.RawMessage
	if json.Unmarshal(content, &list) != nil {
		return content
	}
	changed, i := false, 0
	for _, b := range list {
		var typ, id string
		_ = json.Unmarshal(b["type"], &typ)
		switch typ {
		case "tool_use", "tool_call", "toolCall":
		default:
			continue
		}
		if _ = json.Unmarshal(b["id"], &id); id == "" {
			b["id"], changed = json.RawMessage(mustQuote(cursoragent.CallID(seq, i))), true
		}
		i++
	}
	if !changed {
		return content
	}
	out, err := json.Marshal(list)
	if err != nil {
		return content
	}
	return out
}

// cursorAgentResultIDs gives the tool_result blocks of content that name
// no call the earliest call of the conversation so far still unanswered.
func (r *xReader) cursorAgentResultIDs(content json.RawMessage) json.RawMessage {
	var list []map[string]json.RawMessage
	if json.Unmarshal(content, &list) != nil {
		return content
	}
	changed := false
	var taken []string
	for _, b := range list {
		var typ, id string
		_ = json.Unmarshal(b["type"], &typ)
		if typ != "tool_result" {
			continue
		}
		if _ = json.Unmarshal(b["tool_use_id"], &id); id != "" {
			taken = append(taken, id)
			continue
		}
		if open := r.openCall(taken); open != "" {
			b["tool_use_id"], changed = json.RawMessage(mustQuote(open)), true
			taken = append(taken, open)
		}
	}
	if !changed {
		return content
	}
	out, err := json.Marshal(list)
	if err != nil {
		return content
	}
	return out
}

// openCall is the earliest tool call of the messages read that no result
// answers and that is not in taken ("" when there is none).
func (r *xReader) openCall(taken []string) string {
	answered := map[string]bool{}
	for _, id := range taken {
		answered[id] = true
	}
	for _, m := range r.msgs {
		if m.Role == xToolResult {
			answered[m.CallID] = true
		}
	}
	for _, m := range r.msgs {
		for _, b := range m.Blocks {
			if b.Type == xCall && !answered[b.ID] {
				return b.ID
			}
		}
	}
	return ""
}

func mustQuote(s string) []byte {
	b, _ := json.Marshal(s)
	return bytes.TrimSpace(b)
}
