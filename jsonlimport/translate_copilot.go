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
// Writing another format's session as a Copilot CLI events.jsonl is
// refused (foreignFile's default): a file Copilot CLI resumes carries its
// own event ids, turn ids, interaction ids and per-call accounting that
// a translation would have to invent, and whether it resumes one has not
// been checked against Copilot CLI yet.

import (
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
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
			r.msgs = append(r.msgs, xMsg{Role: xContext, Name: orDefault(d.Source, "autopilot"), Time: e.CreatedAt, Blocks: b})
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
		msg := xMsg{Role: xAssistant, Time: e.CreatedAt, Model: r.model, Blocks: blocks}
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
			msg.Blocks = append(msg.Blocks, xBlock{Type: xCall, ID: tr.ToolCallID, Name: tr.Name, Args: args})
		}
		if len(msg.Blocks) > 0 {
			r.msgs = append(r.msgs, msg)
		}
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
