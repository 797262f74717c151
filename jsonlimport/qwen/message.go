package qwen

// How a Qwen Code chat line (or an entry of an old whole-JSON chat) reads
// as a message.

import (
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/geminichat"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// A record {uuid, type, message: {role, parts}} is read through its parts
// (geminichat.Read): "user" records are the user's (a notification or a
// cron prompt, which Qwen Code injects, is Context), "tool_result" records
// the results of the function responses they carry, "assistant" records
// the model's text, thought parts as thinking, and function calls; a user
// text that is all context (jsonl.StripContext) is Context.
// System records (telemetry, titles, snapshots, compressions, slash
// commands, rewinds) are bookkeeping. An old whole-JSON chat's entries are
// Gemini CLI's message records (type "qwen" for the model), read by
// geminichat.UnderstandRecord.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	typ, _ := obj["type"].(string)
	if msg, ok := obj["message"].(map[string]any); ok {
		m := geminichat.Read(geminichat.Parts(msg["parts"]))
		switch typ {
		case "assistant":
			m.Role = "assistant"
		default:
			m.Role = "user"
			switch jsonl.Str(obj, "subtype") {
			case "notification", "cron":
				m.Context = true
			}
			// All context (a summary sessiondb's compactor wrote).
			m.Context = m.Context || len(m.Results) == 0 && m.Text != "" && jsonl.StripContext(m.Text) == ""
		}
		return m
	}
	switch {
	case typ == KindSystem:
		text := jsonl.Str(obj, "subtype")
		if pl, ok := obj["systemPayload"].(map[string]any); ok {
			if t := jsonl.Str(pl, "customTitle"); t != "" {
				text += ": " + t
			}
		}
		return jsonl.Message{Role: KindSystem, Text: text, Bookkeeping: true}
	case jsonl.Str(obj, "id") != "" && obj["uuid"] == nil:
		return geminichat.UnderstandRecord(obj, assistant)
	case obj["sessionId"] != nil && obj["projectHash"] != nil:
		return jsonl.Message{Role: geminichat.KindSession, Text: jsonl.Str(obj, "sessionId"), Bookkeeping: true}
	case typ != "":
		return jsonl.Message{Role: typ, Bookkeeping: true}
	}
	return jsonl.Extracted(e)
}
