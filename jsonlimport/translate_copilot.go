package jsonlimport

// The GitHub Copilot CLI reader of the neutral conversation (translate.go):
// a session imported from Copilot CLI's events.jsonl becomes messages of
// other formats. What Copilot CLI sends its model on resume
// (testdata/copilot/requests.jsonl) is the conversation read here:
//
//   - user.message: a user message of its content (the text the person
//     typed; the model got it after a <current_datetime> block, which is
//     not carried); one a skill or autopilot injected (data.source other
//     than "user", isAutopilotContinuation) is a context message;
//   - assistant.message: an assistant message of its reasoningText (a
//     thinking block; reasoningOpaque and encryptedContent are bound to
//     the Copilot session and left out, as Copilot CLI itself strips them
//     on resume), its content and a tool call per toolRequests item (its
//     arguments object), with its model;
//   - tool.execution_complete: the result of the call it names
//     (result.content, or error.message for a failed call);
//   - system.message: a context message of the system prompt.
//
// Every other event is bookkeeping, which Copilot CLI does not send its
// model (turns, usage records, tool starts, hooks, shutdowns, resumes,
// compaction markers: the compaction's summary is in the transcript as a
// summary message); an event of a sub-agent (parentToolCallId, or the agentId of 1.0.55) is the
// sub-agent's conversation and is left out.
//
// The writer (copilotTranslated) makes another format's session a Copilot
// CLI events.jsonl under copilot.SessionID(session ID): a session.start
// (version 1, producer copilot-agent, the copilotVersion of testdata, the
// session's cwd and model), then per message, each event's parentId the
// one before it and its id a UUID made from the session ID and position:
//
//   - a user message: user.message {content};
//   - a context message: user.message {content, source "sessiondb:<role>"}
//     (Copilot CLI sends a user message's content whatever its source;
//     our reader gives it back as the context message);
//   - an assistant message: assistant.turn_start, then one
//     assistant.message per run of blocks in Copilot's order (reasoningText,
//     content, toolRequests: a block that comes after a later kind starts a
//     new message, numbered by chunkIndex and chunkCount as Copilot CLI
//     numbers the messages of one split response, which the reader joins
//     again), then a
//     tool.execution_start per call; the turn's assistant.turn_end comes
//     after the results that follow it, as Copilot CLI writes it;
//   - a tool result: tool.execution_complete {toolCallId, success,
//     result {content}} (error {message} too for a failed call).
//
// Refused: images (no event carries one), signed or redacted thinking
// (another vendor's signature, which Copilot CLI could not send back),
// tool-call arguments that are not a JSON object, an empty conversation.
// Checked against Copilot CLI itself: TestCopilotWrittenResumes (long run,
// the CLI installed) resumes a translated session and finds its history
// in the request Copilot CLI sends.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/copilot"
)

func (r *xReader) copilot(e sessiondb.Entry) {
	var ev struct {
		Type    string `json:"type"`
		AgentID string `json:"agentId"`
		Data    *struct {
			Content       string `json:"content"`
			Source        string `json:"source"`
			Autopilot     bool   `json:"isAutopilotContinuation"`
			Model         string `json:"model"`
			ReasoningText string `json:"reasoningText"`
			ChunkIndex    int    `json:"chunkIndex"`
			ToolRequests  []struct {
				ToolCallID string          `json:"toolCallId"`
				Name       string          `json:"name"`
				Arguments  json.RawMessage `json:"arguments"`
			} `json:"toolRequests"`
			ToolCallID string `json:"toolCallId"`
			Success    bool   `json:"success"`
			Result     *struct {
				Content json.RawMessage `json:"content"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
			// ParentToolCallID marks a sub-agent's event.
			ParentToolCallID string `json:"parentToolCallId"`
			SelectedModel    string `json:"selectedModel"`
			NewModel         string `json:"newModel"`
		} `json:"data"`
	}
	if err := json.Unmarshal(e.Body, &ev); err != nil {
		r.loss.add("unreadable line")
		return
	}
	d := ev.Data
	if d == nil || d.ParentToolCallID != "" || ev.AgentID != "" {
		return
	}
	switch ev.Type {
	case "session.start", "session.resume":
		if d.SelectedModel != "" {
			r.model = d.SelectedModel
		}
	case "session.model_change":
		if d.NewModel != "" {
			r.model = d.NewModel
		}
	case "user.message":
		if strings.TrimSpace(d.Content) == "" {
			return
		}
		b := []xBlock{{Type: xText, Text: d.Content}}
		if (d.Source != "" && d.Source != "user" && d.Source != "compaction") || d.Autopilot {
			name := strings.TrimPrefix(orDefault(d.Source, "autopilot"), copilotContextSource)
			r.msgs = append(r.msgs, xMsg{Role: xContext, Name: name, Time: e.CreatedAt, Blocks: b})
			return
		}
		r.msgs = append(r.msgs, xMsg{Role: xUser, Time: e.CreatedAt, Blocks: b})
	case "system.message":
		if d.Content != "" {
			r.msgs = append(r.msgs, xMsg{Role: xContext, Name: "system", Time: e.CreatedAt, Blocks: []xBlock{{Type: xText, Text: d.Content}}})
		}
	case "assistant.message":
		if d.Model != "" {
			r.model = d.Model
		}
		var blocks []xBlock
		if d.ReasoningText != "" {
			blocks = append(blocks, xBlock{Type: xThinking, Text: d.ReasoningText})
		}
		if d.Content != "" {
			blocks = append(blocks, xBlock{Type: xText, Text: d.Content})
		}
		for _, tr := range d.ToolRequests {
			args, ok := jsonObject(tr.Arguments)
			if !ok {
				if len(tr.Arguments) > 0 && string(tr.Arguments) != "null" {
					r.loss.add("tool request whose arguments are not a JSON object")
					continue
				}
				args = json.RawMessage(`{}`)
			}
			r.names[tr.ToolCallID] = tr.Name
			blocks = append(blocks, xBlock{Type: xCall, ID: tr.ToolCallID, Name: tr.Name, Args: args})
		}
		if len(blocks) == 0 {
			return
		}
		if n := len(r.msgs); n > 0 && r.msgs[n-1].Role == xAssistant && d.ChunkIndex > 0 {
			// A later chunk of one response split into several messages
			// (at reasoning boundaries, or the writer's runs below): one
			// message, as the model wrote it.
			r.msgs[n-1].Blocks = append(r.msgs[n-1].Blocks, blocks...)
			return
		}
		r.msgs = append(r.msgs, xMsg{Role: xAssistant, Time: e.CreatedAt, Model: r.model, Blocks: blocks})
	case "tool.execution_complete":
		var content json.RawMessage
		if d.Result != nil {
			content = d.Result.Content
		}
		if len(content) == 0 || string(content) == "null" {
			var em struct {
				Message string `json:"message"`
			}
			var es string
			switch {
			case json.Unmarshal(d.Error, &em) == nil && em.Message != "":
				content = mustJSONString(em.Message)
			case json.Unmarshal(d.Error, &es) == nil && es != "":
				content = mustJSONString(es)
			}
		}
		r.result(e.CreatedAt, d.ToolCallID, content, !d.Success)
	}
}

func mustJSONString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// copilotContextSource prefixes the source of a user.message the writer
// makes of a context message; the rest is the context's role.
const copilotContextSource = "sessiondb:"

// copilotVersion is the Copilot CLI version written into session.start
// (the one whose files testdata/copilot holds).
const copilotVersion = "1.0.102"

// copilotTranslated renders session sess (of another format) as a Copilot
// CLI events.jsonl; cwd is the session's working directory.
func copilotTranslated(ctx context.Context, s sessiondb.Store, sess sessiondb.Session, cwd string) ([]byte, error) {
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", FormatCopilot, sess.ID, err)
	}
	for _, m := range msgs {
		if m.Role == xAssistant && len(copilotRuns(m.Blocks)) == 0 {
			loss.add("assistant message without content")
		}
		for _, b := range m.Blocks {
			switch {
			case b.Type == xImage:
				loss.add("image")
			case b.Type == xThinking && (b.Redacted || b.Signature != ""):
				loss.add("signed or redacted thinking block")
			}
		}
	}
	if !loss.empty() {
		return nil, untranslatable(FormatCopilot, sess, "no Copilot CLI event for "+loss.String()+"; nothing was written for this session")
	}
	if len(msgs) == 0 {
		return nil, untranslatable(FormatCopilot, sess, "no message a Copilot CLI session could hold; nothing was written for this session")
	}
	w := &copilotWriter{sid: copilot.SessionID(sess.ID), names: map[string]string{}}
	model := ""
	for _, m := range msgs {
		if m.Role == xAssistant && m.Model != "" {
			model = m.Model
		}
	}
	start := map[string]any{"sessionId": w.sid, "version": 1, "producer": "copilot-agent", "copilotVersion": copilotVersion,
		"startTime": geminiTime(sess.CreatedAt), "context": map[string]any{"cwd": cwd}}
	if model != "" {
		start["selectedModel"] = model
	}
	w.event("session.start", sess.CreatedAt, start)
	turn := 0
	open := "" // the turn whose tool results may follow
	var openAt time.Time
	closeTurn := func() {
		if open != "" {
			w.event("assistant.turn_end", openAt, map[string]any{"turnId": open})
			open = ""
		}
	}
	for _, m := range msgs {
		t := m.Time
		if t.IsZero() {
			t = sess.CreatedAt
		}
		if m.Role != xToolResult {
			closeTurn()
		}
		switch m.Role {
		case xUser, xContext:
			d := map[string]any{"content": copilotText(m.Blocks)}
			if m.Role == xContext {
				d["source"] = copilotContextSource + orDefault(m.Name, "context")
			}
			w.event("user.message", t, d)
			turn = 0
		case xAssistant:
			tid := fmt.Sprint(turn)
			turn++
			w.event("assistant.turn_start", t, map[string]any{"turnId": tid})
			runs := copilotRuns(m.Blocks)
			for i, run := range runs {
				d := map[string]any{"messageId": w.id("message"), "content": "", "toolRequests": []any{}, "turnId": tid}
				if len(runs) > 1 {
					d["chunkIndex"], d["chunkCount"] = i, len(runs)
				}
				var reqs []any
				for _, b := range run {
					switch b.Type {
					case xThinking:
						d["reasoningText"] = b.Text
					case xText:
						d["content"] = b.Text
					case xCall:
						w.names[b.ID] = b.Name
						reqs = append(reqs, map[string]any{"toolCallId": b.ID, "name": b.Name, "arguments": b.Args, "type": "function"})
					}
				}
				if reqs != nil {
					d["toolRequests"] = reqs
				}
				if m.Model != "" {
					d["model"] = m.Model
				}
				w.event("assistant.message", t, d)
				for _, b := range run {
					if b.Type == xCall {
						w.event("tool.execution_start", t, map[string]any{"toolCallId": b.ID, "toolName": b.Name, "arguments": b.Args, "turnId": tid})
					}
				}
			}
			open, openAt = tid, t
		case xToolResult:
			text := copilotText(m.Blocks)
			d := map[string]any{"toolCallId": m.CallID, "success": !m.IsError, "result": map[string]any{"content": text}}
			if m.IsError {
				d["error"] = map[string]any{"message": text}
			}
			w.event("tool.execution_complete", t, d)
		}
		if !w.bad.empty() {
			return nil, fmt.Errorf("export %s %s: %s: %w", FormatCopilot, sess.ID, w.bad.String(), ErrUntranslatable)
		}
	}
	closeTurn()
	return w.buf.Bytes(), nil
}

// copilotText joins a message's text blocks by blank lines.
func copilotText(blocks []xBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == xText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// copilotRuns cuts an assistant message's blocks into runs that one
// assistant.message holds in its order: thinking, then text, then calls;
// a block of an earlier kind than the one before it starts a new run, and
// so does a second thinking or text block.
func copilotRuns(blocks []xBlock) [][]xBlock {
	rank := map[string]int{xThinking: 0, xText: 1, xCall: 2}
	var runs [][]xBlock
	last := -1
	for _, b := range blocks {
		r, ok := rank[b.Type]
		if !ok {
			continue
		}
		if len(runs) == 0 || r < last || (r == last && r < 2) {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], b)
		last = r
	}
	return runs
}

// copilotWriter writes events, each chained to the one before.
type copilotWriter struct {
	sid    string
	buf    bytes.Buffer
	parent any
	n      int
	names  map[string]string
	bad    xLoss
}

// id is a UUID made from the session and the position of what it names.
func (w *copilotWriter) id(what string) string {
	w.n++
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/copilot/%s/%d", w.sid, what, w.n)))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

func (w *copilotWriter) event(typ string, t time.Time, data map[string]any) {
	id := w.id("event")
	type ev struct {
		Type      string         `json:"type"`
		Data      map[string]any `json:"data"`
		ID        string         `json:"id"`
		Timestamp string         `json:"timestamp"`
		ParentID  any            `json:"parentId"`
	}
	w.buf.Write(noEscapeJSON(ev{typ, data, id, geminiTime(t), w.parent}, &w.bad))
	w.buf.WriteByte('\n')
	w.parent = id
}
