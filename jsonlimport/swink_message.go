package jsonlimport

// How a swink session entry reads as a message.

import "github.com/sessiondb/sessiondb"

// understandSwink reads one swink entry: a message body is the message
// itself ({"role", "content": Anthropic-like blocks}; a "tool_result"
// role carries its call's id at the top level); rich entries
// {"entry_type", "data"} other than messages (model and thinking-level
// changes, compaction markers, labels) and _custom records are
// bookkeeping.
func understandSwink(e sessiondb.Entry, obj map[string]any) Message {
	if obj["role"] != nil {
		return messageObject(obj)
	}
	typ := orString(str(obj, "entry_type"), str(obj, "type"))
	text := ""
	if d, ok := obj["data"].(map[string]any); ok {
		text = orString(str(d, "text"), str(d, "summary"))
	}
	return Message{Role: orString(typ, e.Role), Text: text, Bookkeeping: true}
}
