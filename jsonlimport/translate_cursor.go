package jsonlimport

// The translation reader of Cursor's bubbles (package cursor): what the
// IDE shows of a composer and sends the model when it continues.

import (
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// cursor reads one bubble (type 1 or "user", 2 or "ai" in the older chat
// pane): a user bubble's text; an assistant bubble's
// thinking (with its signature), text and tool call (toolFormerData:
// rawArgs, else params, a JSON object) followed by the call's result
// (result, status "error" or "cancelled" an error), which Cursor keeps in
// the same bubble. Assistant bubbles in a row (Cursor spreads one
// response over several: a text, then a tool step) are one assistant
// message. Refused: images a user bubble attached (Cursor keeps a
// path on the user's disk, not the image), a call whose arguments are not
// a JSON object, a bubble of another type. Left out: bookkeeping Cursor
// keeps beside the conversation (context, code blocks, timings, usage,
// the rich-text copy of the text), a toolFormerData without a tool name
// (a capability that never ran) and empty placeholder bubbles.
func (r *xReader) cursor(e sessiondb.Entry) {
	var b struct {
		Type     json.RawMessage `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
		Context  struct {
			SelectedImages []json.RawMessage `json:"selectedImages"`
		} `json:"context"`
		Images    []json.RawMessage `json:"images"`
		ModelInfo struct {
			ModelName string `json:"modelName"`
		} `json:"modelInfo"`
		Tool *struct {
			Name       string `json:"name"`
			ToolCallID string `json:"toolCallId"`
			RawArgs    string `json:"rawArgs"`
			Params     string `json:"params"`
			Result     string `json:"result"`
			Status     string `json:"status"`
		} `json:"toolFormerData"`
		BubbleID string `json:"bubbleId"`
	}
	if err := json.Unmarshal(e.Body, &b); err != nil {
		r.loss.add("unreadable " + r.format + " bubble")
		return
	}
	var blocks []xBlock
	switch strings.TrimSpace(string(b.Type)) {
	case "1", `"user"`:
		if len(b.Context.SelectedImages) > 0 || len(b.Images) > 0 {
			r.loss.add(r.format + " image attached by its path")
		}
		if strings.TrimSpace(b.Text) != "" {
			blocks = append(blocks, xBlock{Type: xText, Text: b.Text})
		}
		if len(blocks) > 0 {
			r.msgs = append(r.msgs, xMsg{Role: xUser, Time: e.CreatedAt, Blocks: blocks})
		}
	case "2", `"ai"`:
		var th struct {
			Text      string `json:"text"`
			Signature string `json:"signature"`
		}
		var s string
		if json.Unmarshal(b.Thinking, &s) == nil {
			th.Text = s
		} else {
			_ = json.Unmarshal(b.Thinking, &th)
		}
		if strings.TrimSpace(th.Text) != "" || th.Signature != "" {
			blocks = append(blocks, xBlock{Type: xThinking, Text: th.Text, Signature: th.Signature})
		}
		if strings.TrimSpace(b.Text) != "" {
			blocks = append(blocks, xBlock{Type: xText, Text: b.Text})
		}
		var result *xMsg
		if t := b.Tool; t != nil && t.Name != "" {
			args := t.RawArgs
			if strings.TrimSpace(args) == "" {
				args = t.Params
			}
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			obj, ok := jsonObject([]byte(args))
			if !ok {
				r.loss.add(r.format + " tool call whose arguments are not a JSON object")
			} else {
				id := orDefault(t.ToolCallID, b.BubbleID)
				r.names[id] = t.Name
				blocks = append(blocks, xBlock{Type: xCall, ID: id, Name: t.Name, Args: obj})
				if t.Result != "" || t.Status == "completed" || t.Status == "error" || t.Status == "cancelled" {
					isErr := t.Status == "error" || t.Status == "cancelled"
					res := xMsg{Role: xToolResult, Time: e.CreatedAt, CallID: id, ToolName: t.Name, IsError: isErr}
					text := t.Result
					if text == "" && isErr {
						text = "[" + t.Status + "]"
					}
					if text != "" {
						res.Blocks = []xBlock{{Type: xText, Text: text}}
					}
					result = &res
				}
			}
		}
		if n := len(r.msgs); len(blocks) > 0 && n > 0 && r.msgs[n-1].Role == xAssistant {
			// Cursor spreads one response over bubbles (a text, then
			// a tool step): bubbles in a row are one assistant message.
			r.msgs[n-1].Blocks = append(r.msgs[n-1].Blocks, blocks...)
		} else if len(blocks) > 0 {
			r.msgs = append(r.msgs, xMsg{Role: xAssistant, Time: e.CreatedAt, Provider: r.format, Model: b.ModelInfo.ModelName, Blocks: blocks})
		}
		if result != nil {
			r.msgs = append(r.msgs, *result)
		}
	default:
		r.loss.add(r.format + " bubble of another type")
	}
}
