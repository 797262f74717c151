package jsonlimport

// The pi writer of the neutral conversation (translate.go): a session of
// another format becomes a version 3 pi file, one entry per message,
// chained by parentId, in pi's own shapes (pi-ai's message types):
//
//   - user: {"role":"user","content":[text | image{data,mimeType}],"timestamp"}
//   - assistant: {"role":"assistant","content":[text | thinking{thinking,
//     thinkingSignature?,redacted?} | toolCall{id,name,arguments}],"api",
//     "provider","model","usage","stopReason","timestamp"}; usage is zero
//     (the session's usage stays in the store; pi uses a message's usage
//     for its footer only) and stopReason is "toolUse" when the message
//     ends in tool calls, else "stop";
//   - tool result: {"role":"toolResult","toolCallId","toolName","content":
//     [text | image],"isError","timestamp"};
//   - a context message (Codex developer or system instructions): a
//     custom_message entry {"customType": the source role, "content",
//     "display": false}, which pi gives the model as a user message and
//     does not show.
//
// A session whose content cannot all be read into the neutral
// conversation is refused with ErrUntranslatable, naming what.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/pi"
)

// piBlock is a pi content block (TextContent, ThinkingContent,
// ImageContent, ToolCall), members in pi's order.
type piBlock struct {
	Type              string          `json:"type"`
	Text              *string         `json:"text,omitempty"`
	Thinking          *string         `json:"thinking,omitempty"`
	ThinkingSignature string          `json:"thinkingSignature,omitempty"`
	Redacted          bool            `json:"redacted,omitempty"`
	Data              string          `json:"data,omitempty"`
	MimeType          string          `json:"mimeType,omitempty"`
	ID                string          `json:"id,omitempty"`
	Name              string          `json:"name,omitempty"`
	Arguments         json.RawMessage `json:"arguments,omitempty"`
}

type piZeroCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

type piZeroUsage struct {
	Input       int64      `json:"input"`
	Output      int64      `json:"output"`
	CacheRead   int64      `json:"cacheRead"`
	CacheWrite  int64      `json:"cacheWrite"`
	TotalTokens int64      `json:"totalTokens"`
	Cost        piZeroCost `json:"cost"`
}

// piTranslated renders session sess (of another format) as the lines of
// a pi file, header first.
func piTranslated(ctx context.Context, s sessiondb.Store, sess sessiondb.Session, cwd string) ([]byte, error) {
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export pi %s: %w", sess.ID, err)
	}
	if !loss.empty() {
		return nil, untranslatable(FormatPi, sess, "no pi shape for "+loss.String()+"; nothing was written for this session")
	}
	var buf bytes.Buffer
	var bad xLoss // values that cannot be encoded
	line := func(v any) error {
		buf.Write(noEscapeJSON(v, &bad))
		buf.WriteByte('\n')
		if !bad.empty() {
			return fmt.Errorf("%s: %w", bad.String(), ErrUntranslatable)
		}
		return nil
	}
	hdr := struct {
		Type      string `json:"type"`
		Version   int    `json:"version"`
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		CWD       string `json:"cwd"`
	}{"session", 3, sess.ID, pi.Timestamp(sess.CreatedAt), cwd}
	if err := line(hdr); err != nil {
		return nil, fmt.Errorf("export pi %s: %w", sess.ID, err)
	}
	var parent *string
	for i, m := range msgs {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", sess.ID, i)))
		id := hex.EncodeToString(sum[:4])
		ts := pi.Timestamp(m.Time)
		var entry any
		if m.Role == xContext {
			entry = struct {
				Type       string    `json:"type"`
				ID         string    `json:"id"`
				ParentID   *string   `json:"parentId"`
				Timestamp  string    `json:"timestamp"`
				CustomType string    `json:"customType"`
				Content    []piBlock `json:"content"`
				Display    bool      `json:"display"`
			}{"custom_message", id, parent, ts, m.Name, piBlocks(m.Blocks), false}
		} else {
			entry = struct {
				Type      string  `json:"type"`
				ID        string  `json:"id"`
				ParentID  *string `json:"parentId"`
				Timestamp string  `json:"timestamp"`
				Message   any     `json:"message"`
			}{"message", id, parent, ts, piMessageOf(m)}
		}
		if err := line(entry); err != nil {
			return nil, fmt.Errorf("export pi %s: message %d: %w", sess.ID, i+1, err)
		}
		parent = &id
	}
	return buf.Bytes(), nil
}

// piMessageOf is the pi message object of m.
func piMessageOf(m xMsg) any {
	ms := piMillis(m.Time)
	switch m.Role {
	case xAssistant:
		stop := "stop"
		if n := len(m.Blocks); n > 0 && m.Blocks[n-1].Type == xCall {
			stop = "toolUse"
		}
		return struct {
			Role       string      `json:"role"`
			Content    []piBlock   `json:"content"`
			API        string      `json:"api"`
			Provider   string      `json:"provider"`
			Model      string      `json:"model"`
			Usage      piZeroUsage `json:"usage"`
			StopReason string      `json:"stopReason"`
			Timestamp  int64       `json:"timestamp"`
		}{"assistant", piBlocks(m.Blocks), m.API, m.Provider, m.Model, piZeroUsage{}, stop, ms}
	case xToolResult:
		return struct {
			Role       string    `json:"role"`
			ToolCallID string    `json:"toolCallId"`
			ToolName   string    `json:"toolName"`
			Content    []piBlock `json:"content"`
			IsError    bool      `json:"isError"`
			Timestamp  int64     `json:"timestamp"`
		}{"toolResult", m.CallID, m.ToolName, piBlocks(m.Blocks), m.IsError, ms}
	}
	return struct {
		Role      string    `json:"role"`
		Content   []piBlock `json:"content"`
		Timestamp int64     `json:"timestamp"`
	}{"user", piBlocks(m.Blocks), ms}
}

// piBlocks renders neutral blocks as pi content blocks (never nil: pi
// expects a list).
func piBlocks(blocks []xBlock) []piBlock {
	out := make([]piBlock, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case xText:
			out = append(out, piBlock{Type: "text", Text: &b.Text})
		case xThinking:
			out = append(out, piBlock{Type: "thinking", Thinking: &b.Text, ThinkingSignature: b.Signature, Redacted: b.Redacted})
		case xImage:
			out = append(out, piBlock{Type: "image", Data: b.Data, MimeType: b.MIME})
		case xCall:
			out = append(out, piBlock{Type: "toolCall", ID: b.ID, Name: b.Name, Arguments: b.Args})
		}
	}
	return out
}

func piMillis(t time.Time) int64 { return t.UnixMilli() }
