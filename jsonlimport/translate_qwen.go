package jsonlimport

// The Qwen Code writer of the neutral conversation (translate.go): a
// session of another format becomes a Qwen Code chat file (JSONL, as Qwen
// Code 0.24 writes it, testdata/agents/qwen), which `qwen --resume ID`
// lists and resumes. Every record carries uuid, parentUuid (the record
// before it: one chain, which Qwen Code follows back from the last
// record), sessionId (qwen.SessionID: the session's ID when it is a UUID
// of a version Qwen Code takes, else one made from it), timestamp, type, cwd (Qwen Code resumes only a
// session of the directory it runs in) and version; its message is
// {role, parts} in Gemini's shapes, as translate_gemini.go writes them:
//
//   - a user message: a "user" record, role "user", its text and image parts;
//   - an assistant message: an "assistant" record, role "model", its parts
//     in block order (thought parts, text, images, function calls), and
//     the message's model;
//   - each tool result: a "tool_result" record, role "user", one
//     functionResponse part ({"output": text}, or {"error": text} for a
//     failed call) and toolCallResult {callId, status};
//   - a context message: a "user" record of its text with
//     "sessiondbContext": the source's role (sent as a user turn; our
//     reader gives it back as the context message).
//
// What is carried of thinking and text is geminiCarried's rule (another
// vendor's signatures cleared, redacted thinking and empty text left out);
// refused are the same things as for Gemini CLI.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/qwen"
)

// qwenVersion is the Qwen Code version written into the records (the one
// whose files testdata/agents/qwen holds).
const qwenVersion = "0.24.4"

// qwenTranslated renders session sess (of another format) as a Qwen Code
// chat file; cwd is the session's working directory.
func qwenTranslated(ctx context.Context, s sessiondb.Store, sess sessiondb.Session, cwd string) ([]byte, error) {
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", FormatQwen, sess.ID, err)
	}
	geminiUnwritable(msgs, loss)
	if !loss.empty() {
		return nil, untranslatable(FormatQwen, sess, "no Qwen Code shape for "+loss.String()+"; nothing was written for this session")
	}
	carried := geminiCarried(msgs)
	if len(carried) == 0 {
		return nil, untranslatable(FormatQwen, sess, "no message a Qwen Code chat could hold; nothing was written for this session")
	}
	return qwenFile(sess, cwd, carried)
}

type qwenMessage struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type qwenCallResult struct {
	CallID string `json:"callId"`
	Status string `json:"status"`
}

type qwenRecordOut struct {
	UUID           string          `json:"uuid"`
	ParentUUID     *string         `json:"parentUuid"`
	SessionID      string          `json:"sessionId"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	CWD            string          `json:"cwd"`
	Version        string          `json:"version"`
	Model          string          `json:"model,omitempty"`
	Context        string          `json:"sessiondbContext,omitempty"`
	Message        qwenMessage     `json:"message"`
	ToolCallResult *qwenCallResult `json:"toolCallResult,omitempty"`
}

// qwenFile writes the carried conversation msgs of sess as the lines of a
// Qwen Code chat file.
func qwenFile(sess sessiondb.Session, cwd string, msgs []xMsg) ([]byte, error) {
	var buf bytes.Buffer
	var bad xLoss
	var parent *string
	sid := qwen.SessionID(sess.ID)
	for i, m := range msgs {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s/qwen/%d", sess.ID, i)))
		h := hex.EncodeToString(sum[:16])
		id := h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
		t := m.Time
		if t.IsZero() {
			t = sess.CreatedAt
		}
		rec := qwenRecordOut{UUID: id, ParentUUID: parent, SessionID: sid, Timestamp: qwenTime(t), CWD: cwd, Version: qwenVersion}
		switch m.Role {
		case xAssistant:
			rec.Type, rec.Model = "assistant", m.Model
			rec.Message = qwenMessage{"model", geminiParts(m.Blocks)}
		case xToolResult:
			rec.Type = "tool_result"
			rec.Message = qwenMessage{"user", []geminiPart{geminiResultPart(m)}}
			status := "success"
			if m.IsError {
				status = "error"
			}
			rec.ToolCallResult = &qwenCallResult{m.CallID, status}
		case xContext:
			rec.Type, rec.Context = "user", orDefault(m.Name, "context")
			rec.Message = qwenMessage{"user", geminiParts(m.Blocks)}
		default:
			rec.Type = "user"
			rec.Message = qwenMessage{"user", geminiParts(m.Blocks)}
		}
		buf.Write(noEscapeJSON(rec, &bad))
		buf.WriteByte('\n')
		if !bad.empty() {
			return nil, fmt.Errorf("export %s %s: message %d: %s: %w", FormatQwen, sess.ID, i+1, bad.String(), ErrUntranslatable)
		}
		parent = &id
	}
	return buf.Bytes(), nil
}

func qwenTime(t time.Time) string { return geminiTime(t) }
