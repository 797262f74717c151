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
// The Cline SDK's messages are read the same way, with the SDK's own
// shapes (translate's clineUser): the prompt's <user_input> envelope
// removed, structured tool results as their JSON text, the SDK's image
// blocks; a display-only message (never sent) is left out.
// Writing into Cline's format is refused for every other format
// (foreignFile): a task Cline resumes needs its UI messages.

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/cline"
)

func (r *xReader) cline(e sessiondb.Entry) {
	if e.Kind == cline.KindUI {
		r.loss.add("Cline UI message (a task read without its API history)")
		return
	}
	if e.Kind == cline.KindDisplay {
		// Shown to the user, never sent to the model: not part of the
		// conversation (as Claude Code's own state lines).
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
		r.clineUser(m.Content, e.CreatedAt)
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

// clineUser reads a user message as Cline sends it: tool_result blocks
// are tool results (a result whose content is the Cline SDK's structured
// output, [{"query", "result", "success", …}], is the JSON text the SDK
// sends for it), the rest one user message: text without the SDK's
// <user_input> envelope, images (Anthropic's source or the SDK's data
// and mediaType).
func (r *xReader) clineUser(raw json.RawMessage, t time.Time) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			raw, _ = json.Marshal(cline.SendText(s))
		}
		r.userContent(raw, t)
		return
	}
	var rest []xBlock
	for _, b := range list {
		var blk struct {
			Type      string          `json:"type"`
			Text      *string         `json:"text"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
			Data      string          `json:"data"`
			MediaType string          `json:"mediaType"`
		}
		if json.Unmarshal(b, &blk) != nil {
			r.loss.add("unreadable content block")
			continue
		}
		switch {
		case blk.Type == "tool_result":
			content := blk.Content
			if text, ok := cline.StructuredResult(content); ok {
				content, _ = json.Marshal(text)
			}
			r.result(t, blk.ToolUseID, content, blk.IsError)
		case blk.Type == "text" && blk.Text != nil:
			rest = append(rest, xBlock{Type: xText, Text: cline.SendText(*blk.Text)})
		case blk.Type == "image" && blk.Data != "" && blk.MediaType != "":
			rest = append(rest, xBlock{Type: xImage, Data: blk.Data, MIME: blk.MediaType})
		default:
			rest = append(rest, r.blockList([]json.RawMessage{b})...)
		}
	}
	if len(rest) > 0 {
		r.msgs = append(r.msgs, xMsg{Role: xUser, Time: t, Blocks: rest})
	}
}
