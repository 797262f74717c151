package jsonlimport

// Translation of Cline (and Roo Code) tasks into the neutral
// conversation (translate.go).
//
// A task's API history is Anthropic's messages API's conversation: an
// assistant message's blocks (text, thinking with its signature,
// redacted_thinking, tool_use) are one assistant message, a user
// message's tool_result blocks tool results and its other blocks (text,
// with the environment details Cline adds, images) one user message.
// Refused: Roo Code's reasoning items (OpenAI's encrypted reasoning, kept
// in the history without a role), and the UI messages of a task whose API
// history is gone (what Cline showed, not what the model was sent).
// Writing into Cline's format is refused for every other format
// (foreignFile): a task Cline resumes needs its UI messages.

import (
	"encoding/json"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/cline"
)

func (r *xReader) cline(e sessiondb.Entry) {
	if e.Kind == cline.KindUI {
		r.loss.add("Cline UI message (a task read without its API history)")
		return
	}
	var m struct {
		Role    string          `json:"role"`
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(e.Body, &m); err != nil {
		r.loss.add("unreadable message")
		return
	}
	switch m.Role {
	case xAssistant:
		blocks := r.blocks(m.Content)
		if len(blocks) == 0 {
			return
		}
		r.msgs = append(r.msgs, xMsg{Role: xAssistant, Time: e.CreatedAt, Model: r.model, Blocks: blocks})
	case xUser:
		r.userContent(m.Content, e.CreatedAt)
	case "":
		r.loss.add(orDefault(m.Type, "untyped") + " item without a role")
	default:
		r.loss.add("message of role " + m.Role)
	}
}
