package compactor

import (
	"encoding/json"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// ownShape reports whether sessions of the source format keep each line of
// an agent's own file, or each message of its store, as an entry (Claude
// Code, Codex, pi, Gemini CLI, Qwen Code, opencode, crush, the Go
// opencode): their entries
// are read through jsonlimport.Understand, the one understanding of those
// formats, and their summary message is written in the format's shape.
// Every other format (picoclaw, zot, swink, sessions an application wrote)
// stores message objects, which inspectBody reads.
func ownShape(format string) bool {
	switch format {
	case jsonlimport.FormatClaudeCode, jsonlimport.FormatCodex, jsonlimport.FormatPi,
		jsonlimport.FormatGemini, jsonlimport.FormatQwen, jsonlimport.FormatOpencode,
		jsonlimport.FormatCrush, jsonlimport.FormatOpencodeGo, jsonlimport.FormatCopilot:
		return true
	}
	return false
}

// inspectEntry is what the policy needs to know about entry e of a session
// of the given source format.
func inspectEntry(format string, e sessiondb.Entry) bodyInfo {
	if !ownShape(format) {
		return inspectBody(e.Body)
	}
	m := jsonlimport.Understand(format, e)
	info := bodyInfo{role: m.Role, understood: true, text: m.Text}
	seenCall := map[string]bool{}
	for _, c := range m.Calls {
		info.names = append(info.names, c.Name)
		if c.ID != "" && !seenCall[c.ID] {
			seenCall[c.ID] = true
			info.calls = append(info.calls, c.ID)
		}
	}
	seenResult := map[string]bool{}
	for _, r := range m.Results {
		if r.CallID != "" && !seenResult[r.CallID] {
			seenResult[r.CallID] = true
			info.results = append(info.results, r.CallID)
		}
	}
	info.result = len(m.Results) > 0
	// A later line of one streamed Claude Code response: no cut goes
	// between the lines of one API response.
	info.part = e.Kind == sessiondb.KindMessagePart
	info.request = m.Role == "user" && !m.Bookkeeping && !m.Context && len(m.Results) == 0 &&
		strings.TrimSpace(m.Text) != "" && !strings.HasPrefix(m.Text, SummaryPrefix)
	if m.Bookkeeping {
		// A bookkeeping line (an event_msg echo of a prompt, a command
		// wrapper) is neither a request nor an answer for the summary.
		info.role = ""
	}
	return info
}

// inspectAll reads every entry of a transcript.
func inspectAll(format string, t []sessiondb.Entry) []bodyInfo {
	infos := make([]bodyInfo, len(t))
	for i, e := range t {
		infos[i] = inspectEntry(format, e)
	}
	return infos
}

// FormatSummaryMessage returns the body of the summary message for a
// session of the given source format (the names of jsonlimport), in that
// format's own shape, so that every reader of the format (the viewer,
// `sessionctl show`, search, cross-format export) reads it as a message:
//
//   - Claude Code: a "user" line whose message is the summary, marked
//     isCompactSummary as Claude Code marks the summary that continues a
//     compacted conversation.
//   - Codex: a response_item user message with one input_text block, as
//     Codex itself puts its summary into the replacement history of a
//     compacted thread.
//   - pi: a "message" line with a user message of one text block.
//   - Gemini CLI: a user message record with one text part, whose id is
//     "sessiondb-summary" (Gemini CLI's records need one).
//   - Qwen Code: a "user" record whose message is a user Content of one
//     text part.
//   - opencode: a message as opencode exports one, {"info": {"role":
//     "user"}, "parts": [a text part]}.
//   - crush and the Go opencode: a message row, {"role": "user",
//     "parts": [{"type": "text", "data": {"text": …}}]}.
//   - GitHub Copilot CLI: a user.message event {"type": "user.message",
//     "data": {"content": …, "source": "compaction"}, "id":
//     "sessiondb-summary", "parentId": null} (the shape of the events
//     Copilot CLI writes; source as for the summary of its own
//     compactions, which jsonlimport's reader records the same way).
//   - Any other format: DefaultSummaryMessage.
//
// The text is SummaryPrefix + text in every shape.
func FormatSummaryMessage(format, text string) json.RawMessage {
	text = SummaryPrefix + text
	var v any
	switch format {
	case jsonlimport.FormatClaudeCode:
		v = struct {
			Type             string `json:"type"`
			Message          any    `json:"message"`
			IsCompactSummary bool   `json:"isCompactSummary"`
		}{"user", struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}{"user", text}, true}
	case jsonlimport.FormatCodex:
		v = struct {
			Type    string `json:"type"`
			Payload any    `json:"payload"`
		}{"response_item", struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []any  `json:"content"`
		}{"message", "user", []any{typedText{"input_text", text}}}}
	case jsonlimport.FormatPi:
		v = struct {
			Type    string `json:"type"`
			Message any    `json:"message"`
		}{"message", struct {
			Role    string `json:"role"`
			Content []any  `json:"content"`
		}{"user", []any{typedText{"text", text}}}}
	case jsonlimport.FormatGemini:
		v = struct {
			ID      string     `json:"id"`
			Type    string     `json:"type"`
			Content []textPart `json:"content"`
		}{"sessiondb-summary", "user", []textPart{{text}}}
	case jsonlimport.FormatQwen:
		v = struct {
			Type    string `json:"type"`
			Message any    `json:"message"`
		}{"user", struct {
			Role  string     `json:"role"`
			Parts []textPart `json:"parts"`
		}{"user", []textPart{{text}}}}
	case jsonlimport.FormatOpencode:
		v = struct {
			Info  any   `json:"info"`
			Parts []any `json:"parts"`
		}{struct {
			Role string `json:"role"`
		}{"user"}, []any{typedText{"text", text}}}
	case jsonlimport.FormatCrush, jsonlimport.FormatOpencodeGo:
		type data struct {
			Text string `json:"text"`
		}
		type part struct {
			Type string `json:"type"`
			Data data   `json:"data"`
		}
		v = struct {
			Role  string `json:"role"`
			Parts []part `json:"parts"`
		}{"user", []part{{"text", data{text}}}}
	case jsonlimport.FormatCopilot:
		v = struct {
			Type     string `json:"type"`
			Data     any    `json:"data"`
			ID       string `json:"id"`
			ParentID any    `json:"parentId"`
		}{"user.message", struct {
			Content string `json:"content"`
			Source  string `json:"source"`
		}{text, "compaction"}, "sessiondb-summary", nil}
	default:
		return DefaultSummaryMessage(strings.TrimPrefix(text, SummaryPrefix))
	}
	b, _ := json.Marshal(v)
	return b
}

// textPart is a @google/genai text part.
type textPart struct {
	Text string `json:"text"`
}

type typedText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// infoText is the plain text of an entry for summaries: what Understand
// reads for the formats it reads, else entryText.
func infoText(info bodyInfo, body json.RawMessage) string {
	if info.understood {
		return info.text
	}
	return entryText(body)
}
