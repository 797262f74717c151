package jsonlimport

// One understanding of each format's messages (issue 22). The importers
// keep every line's bytes as the entry body; Understand reads such a body
// back as a reader of the conversation sees it. It is written once per
// format, beside the format's reader (a jsonl.MessageReader: the Understand
// method of ClaudeCode, Codex and Pi here, of picoclaw, zot and swink in
// their packages; the shared helpers are in jsonl/message.go), and used by the viewer, `sessionctl show`, the
// MCP server and the titles the readers derive: nobody else looks inside
// a body to find a tool call or a thought.

import (
	"sync"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
	"github.com/sessiondb/sessiondb/jsonlimport/codex"
	"github.com/sessiondb/sessiondb/jsonlimport/gemini"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/pi"
	"github.com/sessiondb/sessiondb/jsonlimport/qwen"
)

// The message types live in package jsonl, beside the helpers the formats'
// message readers share; these names keep them where the callers of this
// package know them.
type (
	// Message is jsonl.Message.
	Message = jsonl.Message
	// ToolCall is jsonl.ToolCall.
	ToolCall = jsonl.ToolCall
	// ToolResult is jsonl.ToolResult.
	ToolResult = jsonl.ToolResult
)

// Understand reads an entry of a session of the given source format
// (FormatClaudeCode, FormatCodex, FormatPi, FormatGemini, FormatQwen,
// FormatPicoclaw, FormatZot, FormatSwink, or "" for a session an
// application wrote) into a Message.
// It never fails: a body it does not understand becomes a Message with
// the text sessiondb.DefaultExtractor finds in it, under the entry's
// role. A format it does not know is read by the shape of the body.
func Understand(format string, e sessiondb.Entry) Message {
	return jsonl.ReadMessage(messageReader(format), e)
}

// messageReader returns the message reader of format: the registry's, or
// the reading by shape for a format it does not know.
func messageReader(format string) jsonl.MessageReader {
	if r := messageReaders()[format]; r != nil {
		return r
	}
	return byShape{}
}

// byShape is the message reader of a format that is not named
// (understandByShape).
type byShape struct{}

func (byShape) Understand(e sessiondb.Entry, obj map[string]any) Message {
	return understandByShape(e, obj)
}

// messageReaders maps the name of every format of the registry that
// reads its messages back (jsonl.MessageReader) to its reader.
var messageReaders = sync.OnceValue(func() map[string]jsonl.MessageReader {
	m := map[string]jsonl.MessageReader{}
	for _, f := range Formats() {
		if r, ok := f.(jsonl.MessageReader); ok {
			m[f.Name()] = r
		}
	}
	return m
})

// understandByShape reads a body whose format is not named (a session an
// application wrote, or a copy of another format's entries) by its
// shape: a Codex envelope, a Qwen Code line (a message with Gemini's
// parts), a Claude Code or pi line with the message inside, a Gemini CLI
// message record, pi's typed lines, or a message object.
func understandByShape(e sessiondb.Entry, obj map[string]any) Message {
	typ, _ := obj["type"].(string)
	_, hasRole := obj["role"]
	msg, _ := obj["message"].(map[string]any)
	switch {
	case typ != "" && obj["payload"] != nil:
		return codex.Format{}.Understand(e, obj)
	case typ != "" && msg != nil && msg["parts"] != nil:
		return qwen.Format{}.Understand(e, obj)
	case (typ == "user" || typ == "gemini") && jsonl.Str(obj, "id") != "" && obj["content"] != nil && !hasRole:
		return gemini.Format{}.Understand(e, obj)
	case typ != "" && obj["message"] != nil:
		if _, ok := obj["uuid"]; ok || claudecode.LineType(typ) {
			return claudecode.Format{}.Understand(e, obj)
		}
		return pi.Format{}.Understand(e, obj)
	case typ != "" && !hasRole:
		// A Claude Code line type no one else uses, or a copy of a
		// Claude Code or pi line (which name their session or parent), is
		// read as that format's bookkeeping; an application's own typed
		// entries ("label", "summary", …) are its data.
		_, cc := obj["sessionId"]
		_, piParent := obj["parentId"]
		if claudecode.BookkeepingType(typ, cc) {
			return claudecode.Format{}.Understand(e, obj)
		}
		if pi.LineType(typ) && piParent {
			return pi.Format{}.Understand(e, obj)
		}
	case hasRole:
		return jsonl.MessageObject(obj)
	}
	return jsonl.Extracted(e)
}
