package jsonlimport

// The translation reader of crush's and the Go opencode's message rows
// (package crush): what the program sends the model when it resumes.

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/crush"
)

// crush reads one message row: a user message's text, images (image_url
// data URLs, binary parts of an image type) and, refused, other binary
// attachments; an assistant message's reasoning (thinking with its
// signature), text and tool calls (input, a JSON object); a tool
// message's results (content, is_error), each named by its call. The
// summary message is the user message the program resumes from. Left
// out: finish parts (bookkeeping of the call), result metadata (shown,
// never sent), abandoned messages (crush.KindAbandoned: no content).
func (r *xReader) crush(e sessiondb.Entry) {
	if e.Kind == crush.KindAbandoned {
		return
	}
	var m struct {
		Role     string `json:"role"`
		Model    string `json:"model"`
		Provider string `json:"provider"`
		Summary  bool   `json:"summary"`
		Parts    []struct {
			Type string `json:"type"`
			Data struct {
				Text       string          `json:"text"`
				Thinking   string          `json:"thinking"`
				Signature  string          `json:"signature"`
				ID         string          `json:"id"`
				Name       string          `json:"name"`
				Input      string          `json:"input"`
				ToolCallID string          `json:"tool_call_id"`
				Content    string          `json:"content"`
				IsError    bool            `json:"is_error"`
				URL        string          `json:"url"`
				Path       string          `json:"path"`
				MimeType   string          `json:"mime_type"`
				Data       json.RawMessage `json:"data"`
			} `json:"data"`
		} `json:"parts"`
	}
	if err := json.Unmarshal(e.Body, &m); err != nil {
		r.loss.add("unreadable " + r.format + " message")
		return
	}
	var blocks []xBlock
	msg := xMsg{Role: xAssistant, Time: e.CreatedAt, Provider: m.Provider, Model: m.Model}
	for _, p := range m.Parts {
		d := p.Data
		switch p.Type {
		case "text":
			if d.Text != "" {
				blocks = append(blocks, xBlock{Type: xText, Text: d.Text})
			}
		case "reasoning":
			if d.Thinking != "" || d.Signature != "" {
				blocks = append(blocks, xBlock{Type: xThinking, Text: d.Thinking, Signature: d.Signature})
			}
		case "image_url":
			if mime, data, ok := dataURL(d.URL); ok && strings.HasPrefix(mime, "image/") {
				blocks = append(blocks, xBlock{Type: xImage, Data: data, MIME: mime})
			} else {
				r.loss.add(r.format + " image given by URL")
			}
		case "binary":
			var data string
			if strings.HasPrefix(d.MimeType, "image/") && json.Unmarshal(d.Data, &data) == nil && data != "" {
				blocks = append(blocks, xBlock{Type: xImage, Data: data, MIME: d.MimeType})
			} else {
				r.loss.add(r.format + " binary attachment")
			}
		case "tool_call":
			args := []byte(d.Input)
			if len(bytes.TrimSpace(args)) == 0 {
				args = []byte("{}")
			}
			obj, ok := jsonObject(args)
			if !ok {
				r.loss.add(r.format + " tool call whose input is not a JSON object")
				continue
			}
			r.names[d.ID] = d.Name
			blocks = append(blocks, xBlock{Type: xCall, ID: d.ID, Name: d.Name, Args: obj})
		case "tool_result":
			name := d.Name
			if name == "" {
				name = r.names[d.ToolCallID]
			}
			res := xMsg{Role: xToolResult, Time: e.CreatedAt, CallID: d.ToolCallID, ToolName: name, IsError: d.IsError}
			if d.Content != "" {
				res.Blocks = []xBlock{{Type: xText, Text: d.Content}}
			}
			r.msgs = append(r.msgs, res)
		case "finish":
		default:
			r.loss.add(r.format + " " + orDefault(p.Type, "untyped") + " part")
		}
	}
	switch {
	case m.Role == "tool":
		if len(blocks) > 0 {
			r.loss.add(r.format + " tool message content that is not a result")
		}
	case m.Role == "user" || m.Summary:
		if len(blocks) > 0 {
			r.msgs = append(r.msgs, xMsg{Role: xUser, Time: e.CreatedAt, Blocks: blocks})
		}
	case m.Role == "assistant":
		if len(blocks) > 0 {
			msg.Blocks = blocks
			r.msgs = append(r.msgs, msg)
		}
	default:
		r.loss.add(r.format + " " + orDefault(m.Role, "untyped") + " message")
	}
}
