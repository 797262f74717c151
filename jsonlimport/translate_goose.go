package jsonlimport

// The translation reader of goose's messages (package goose): what goose
// sends the model when it resumes a session.

import (
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// gooseItem is one item of a goose message's content (MessageContent).
type gooseItem struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      json.RawMessage `json:"data"`
	MimeType  string          `json:"mimeType"`
	ID        string          `json:"id"`
	ToolCall  struct {
		Status string `json:"status"`
		Value  struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"value"`
	} `json:"toolCall"`
	ToolResult struct {
		Status string          `json:"status"`
		Value  json.RawMessage `json:"value"`
		Error  string          `json:"error"`
	} `json:"toolResult"`
}

// gooseContent is an MCP content item of a tool result.
type gooseContent struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	Resource struct {
		Text string `json:"text"`
	} `json:"resource"`
}

// goose reads one goose message: a user message's text and images; an
// assistant message's thinking (with its signature; redacted thinking
// with its data), text and tool calls (toolRequest and frontendToolRequest
// whose call goose parsed: name and arguments, a JSON object); the tool
// results a user message carries (toolResponse: its content's text and
// images, isError; a failed call's error as an error result), each named
// by its call. Left out without a loss, as goose leaves them out of what
// it sends: a message hidden from the model (metadata agentVisible false:
// the messages a compaction replaced, goose's notices to the user), and
// the items goose only shows (systemNotification, toolConfirmationRequest,
// actionRequired and the older notice items). A call goose could not parse
// (toolCall status error) has no shape elsewhere: a loss.
func (r *xReader) goose(e sessiondb.Entry) {
	var m struct {
		Role     string      `json:"role"`
		Content  []gooseItem `json:"content"`
		Metadata struct {
			AgentVisible *bool `json:"agentVisible"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(e.Body, &m); err != nil {
		r.loss.add("unreadable goose message")
		return
	}
	if m.Metadata.AgentVisible != nil && !*m.Metadata.AgentVisible {
		return
	}
	var blocks []xBlock
	for _, it := range m.Content {
		switch it.Type {
		case "text":
			if it.Text != "" {
				blocks = append(blocks, xBlock{Type: xText, Text: it.Text})
			}
		case "image":
			var data string
			if json.Unmarshal(it.Data, &data) == nil && data != "" && strings.HasPrefix(it.MimeType, "image/") {
				blocks = append(blocks, xBlock{Type: xImage, Data: data, MIME: it.MimeType})
			} else {
				r.loss.add("goose image without data")
			}
		case "thinking":
			if it.Thinking != "" || it.Signature != "" {
				blocks = append(blocks, xBlock{Type: xThinking, Text: it.Thinking, Signature: it.Signature})
			}
		case "reasoning":
			if it.Text != "" {
				blocks = append(blocks, xBlock{Type: xThinking, Text: it.Text})
			}
		case "redactedThinking":
			var data string
			_ = json.Unmarshal(it.Data, &data)
			blocks = append(blocks, xBlock{Type: xThinking, Signature: data, Redacted: true})
		case "toolRequest", "frontendToolRequest":
			if it.ToolCall.Status == "error" || it.ToolCall.Value.Name == "" {
				r.loss.add("goose tool call goose could not parse")
				continue
			}
			args := it.ToolCall.Value.Arguments
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			obj, ok := jsonObject(args)
			if !ok {
				r.loss.add("goose tool call whose arguments are not a JSON object")
				continue
			}
			r.names[it.ID] = it.ToolCall.Value.Name
			blocks = append(blocks, xBlock{Type: xCall, ID: it.ID, Name: it.ToolCall.Value.Name, Args: obj})
		case "toolResponse":
			r.gooseResult(e, it)
		case "systemNotification", "toolConfirmationRequest", "actionRequired",
			"conversationCompacted", "contextLengthExceeded", "summarizationRequested":
		default:
			r.loss.add("goose " + orDefault(it.Type, "untyped") + " item")
		}
	}
	if len(blocks) == 0 {
		return
	}
	switch m.Role {
	case "user":
		r.msgs = append(r.msgs, xMsg{Role: xUser, Time: e.CreatedAt, Blocks: blocks})
	case "assistant":
		r.msgs = append(r.msgs, xMsg{Role: xAssistant, Time: e.CreatedAt, Model: r.model, Blocks: blocks})
	default:
		r.loss.add("goose " + orDefault(m.Role, "untyped") + " message")
	}
}

// gooseResult reads a toolResponse item as a tool result message.
func (r *xReader) gooseResult(e sessiondb.Entry, it gooseItem) {
	res := xMsg{Role: xToolResult, Time: e.CreatedAt, CallID: it.ID, ToolName: r.names[it.ID]}
	if it.ToolResult.Status == "error" {
		res.IsError = true
		if it.ToolResult.Error != "" {
			res.Blocks = []xBlock{{Type: xText, Text: it.ToolResult.Error}}
		}
		r.msgs = append(r.msgs, res)
		return
	}
	var items []gooseContent
	var call struct {
		Content []gooseContent `json:"content"`
		IsError bool           `json:"isError"`
	}
	if json.Unmarshal(it.ToolResult.Value, &items) != nil {
		if json.Unmarshal(it.ToolResult.Value, &call) != nil {
			r.loss.add("goose tool result of no known shape")
			return
		}
		items, res.IsError = call.Content, call.IsError
	}
	for _, c := range items {
		switch c.Type {
		case "text":
			if c.Text != "" {
				res.Blocks = append(res.Blocks, xBlock{Type: xText, Text: c.Text})
			}
		case "image":
			if c.Data != "" && strings.HasPrefix(c.MimeType, "image/") {
				res.Blocks = append(res.Blocks, xBlock{Type: xImage, Data: c.Data, MIME: c.MimeType})
			} else {
				r.loss.add("goose tool result image without data")
			}
		case "resource":
			if c.Resource.Text != "" {
				res.Blocks = append(res.Blocks, xBlock{Type: xText, Text: c.Resource.Text})
			} else {
				r.loss.add("goose tool result resource without text")
			}
		default:
			r.loss.add("goose tool result " + orDefault(c.Type, "untyped") + " content")
		}
	}
	r.msgs = append(r.msgs, res)
}
