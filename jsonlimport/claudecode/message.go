package claudecode

// How a Claude Code line reads as a message. The reader stores every line
// as its own entry: a streamed response is several "assistant" lines of
// one message.id (Kind "message-part" after the first), each holding one
// content block, and each tool result is a "user" line of its own. So one
// line is one Message here; a reader of the transcript folds a call with
// its result by the call ID, and the parts of a response simply follow
// each other.

import (
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// ccLineTypes are the Claude Code line types that hold a message.
var ccLineTypes = map[string]bool{"user": true, "assistant": true}

// ccBookkeeping are the Claude Code line types that record the tool's
// own state, not the conversation.
var ccBookkeeping = map[string]bool{
	"progress": true, "file-history-snapshot": true, "system": true, "summary": true,
	"last-prompt": true, "mode": true, "permission-mode": true, "queue-operation": true,
	"attachment": true, "ai-title": true, "custom-title": true, "agent-name": true,
	"bridge-session": true, "file-history-delta": true, "pr-link": true, "tag": true,
	KindToolFile: true,
}

// ccRecordTypes are Claude Code 2.1's records of what it sent and spent:
// the request (api-request, its shape and content blobs), cost-state,
// atis-latch and tools-used. None goes into the messages it sends: they
// are bookkeeping (and line types that recognise a transcript, ccTypes).
var ccRecordTypes = []string{"api-request", "api-request-blob", "api-request-shape", "cost-state", "atis-latch", "tools-used"}

func init() {
	for _, t := range ccRecordTypes {
		ccBookkeeping[t], ccTypes[t] = true, true
	}
}

// ccOwnTypes are the bookkeeping line types whose names only Claude Code
// uses: a body of one is Claude Code's even when the session's format is
// not recorded.
var ccOwnTypes = map[string]bool{
	"progress": true, "file-history-snapshot": true, "queue-operation": true, "last-prompt": true,
	"ai-title": true, "custom-title": true, "permission-mode": true, "agent-name": true,
	"bridge-session": true, "file-history-delta": true, "pr-link": true,
}

// LineType reports whether typ is a Claude Code line type that holds a
// message (user, assistant).
func LineType(typ string) bool { return ccLineTypes[typ] }

// BookkeepingType reports whether a line of type typ, with no format
// recorded, is Claude Code's bookkeeping: a type that records the tool's
// own state, either one only Claude Code uses or in a line that names its
// session (namesSession: it has a sessionId).
func BookkeepingType(typ string, namesSession bool) bool {
	return ccBookkeeping[typ] && (namesSession || ccOwnTypes[typ])
}

// AgentSession returns the ID the importer gives the sub-agent
// agentID of session parent (see the reader's notes on sub-agents).
func AgentSession(parent, agentID string) string {
	return parent + ":agent-" + agentID
}

// Understand implements jsonl.MessageReader.
//
// It reads one Claude Code line. user and assistant
// lines are their message (Anthropic content blocks); a user line with
// isMeta, or whose text is only a slash command's wrapper or its local
// output, is bookkeeping; a user line that is only injected context
// (<system-reminder>, <ide_opened_file>, the summary that continues a
// compacted conversation) is Context. A tool result line names the
// sub-agent its call started (toolUseResult.agentId). Every other line
// type is bookkeeping.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	typ, _ := obj["type"].(string)
	inner, _ := obj["message"].(map[string]any)
	if !ccLineTypes[typ] || inner == nil {
		if e.Kind == KindToolFile {
			return jsonl.Message{Role: "tool-result-file", Text: jsonl.Str(obj, "file"), Bookkeeping: true}
		}
		if typ == "" && obj["role"] != nil {
			// A bare message (a summary copy, an application's entry).
			return jsonl.MessageObject(obj)
		}
		return jsonl.Message{Role: jsonl.OrString(typ, e.Role), Text: ccBookkeepingText(obj), Bookkeeping: true}
	}
	m := jsonl.MessageObject(inner)
	if m.Role == "" {
		m.Role = jsonl.OrString(e.Role, typ)
	}
	if m.Role != "user" {
		return m
	}
	if tr, ok := obj["toolUseResult"].(map[string]any); ok && len(m.Results) == 1 {
		m.Results[0].Agent = jsonl.Str(tr, "agentId")
	}
	if meta, _ := obj["isMeta"].(bool); meta {
		m.Bookkeeping = true
		return m
	}
	if len(m.Results) > 0 || m.Text == "" {
		return m
	}
	if compact, _ := obj["isCompactSummary"].(bool); compact {
		m.Context = true
		return m
	}
	if ccCommandText(m.Text) != "" {
		m.Bookkeeping = true
		return m
	}
	if jsonl.StripContext(m.Text) == "" {
		m.Context = true
	}
	return m
}

// ccCommandText reports whether a user text is a slash command's wrapper
// or the output of a local command: it returns the command ("" when it is
// neither).
func ccCommandText(text string) string {
	t := strings.TrimSpace(text)
	for _, tag := range []string{"command-name", "command-message", "local-command-stdout", "local-command-stderr", "local-command-caveat", "bash-stdout", "bash-stderr"} {
		if strings.HasPrefix(t, "<"+tag+">") {
			return tag
		}
	}
	if strings.HasPrefix(t, "Caveat: The messages below were generated by the user while running local commands") {
		return "local-command-caveat"
	}
	return ""
}

// ccBookkeepingText is the little a bookkeeping line says to a reader.
func ccBookkeepingText(obj map[string]any) string {
	for _, k := range []string{"summary", "aiTitle", "customTitle", "content", "lastPrompt", "subtype", "mode", "permissionMode", "agentName", "operation"} {
		if s, ok := obj[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
