package jsonlimport

// Translation of Cline (and Roo Code) tasks into the neutral
// conversation (translate.go).
//
// A task's API history is Anthropic's messages API's conversation: an
// assistant message's blocks (text, thinking with its signature,
// redacted_thinking, tool_use) are one assistant message, a user
// message's tool_result blocks tool results and its other blocks (text,
// with the environment details Cline adds, images) one user message.
// Roo Code's reasoning items (OpenAI Responses reasoning, kept in the
// history without a role before the answer) become thinking of the answer
// whose text is their summary and whose signature is the item's JSON, as
// Codex's reasoning items do. Refused: the UI messages of a task whose API
// history is gone (what Cline showed, not what the model was sent).
// Writing into Cline's format is refused for every other format
// (foreignFile): a task Cline resumes needs its UI messages.

import (
	"encoding/json"
	"strings"

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
		// After a reasoning item: the same response.
		r.assistantBlocks(e.CreatedAt, blocks...)
	case xUser:
		r.userContent(m.Content, e.CreatedAt)
	case "":
		if m.Type == "reasoning" {
			r.clineReasoning(e)
			return
		}
		r.loss.add(orDefault(m.Type, "untyped") + " item without a role")
	default:
		r.loss.add("message of role " + m.Role)
	}
}

// clineReasoning reads a Roo Code reasoning item.
func (r *xReader) clineReasoning(e sessiondb.Entry) {
	var it struct {
		Summary []struct {
			Text string `json:"text"`
		} `json:"summary"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(e.Body, &it); err != nil {
		r.loss.add("unreadable reasoning item")
		return
	}
	var parts []string
	for _, b := range it.Summary {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	if it.Text != "" {
		parts = append(parts, it.Text)
	}
	r.assistantBlocks(e.CreatedAt, xBlock{Type: xThinking, Text: strings.Join(parts, "\n\n"), Signature: string(compactRaw(e.Body))})
}
