package swink

// How a swink session entry reads as a message.

import (
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader. It reads one swink entry: a
// message body is the message
// itself ({"role", "content": Anthropic-like blocks}; a "tool_result"
// role carries its call's id at the top level); rich entries
// {"entry_type", "data"} other than messages (model and thinking-level
// changes, compaction markers, labels) and _custom records are
// bookkeeping.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	if obj["role"] != nil {
		return jsonl.MessageObject(obj)
	}
	typ := jsonl.OrString(jsonl.Str(obj, "entry_type"), jsonl.Str(obj, "type"))
	text := ""
	if d, ok := obj["data"].(map[string]any); ok {
		text = jsonl.OrString(jsonl.Str(d, "text"), jsonl.Str(d, "summary"))
	}
	return jsonl.Message{Role: jsonl.OrString(typ, e.Role), Text: text, Bookkeeping: true}
}
