package jsonlimport

// How a picoclaw or zot message reads. Both store one message object per
// entry. picoclaw's is OpenAI's: {"role", "content", "tool_calls": [{"id",
// "function": {"name", "arguments"}}], "reasoning_content"}, and
// {"role": "tool", "tool_call_id"} results. zot's content blocks are
// untyped: {"text"}, a call {"id", "name", "arguments"}, and a tool
// message answers several calls with {"call_id", "content", "is_error"}
// blocks.

import "github.com/sessiondb/sessiondb"

// understandOpenAI reads a picoclaw or zot entry.
func understandOpenAI(e sessiondb.Entry, obj map[string]any) Message {
	if obj["role"] == nil {
		return extracted(e)
	}
	return messageObject(obj)
}
