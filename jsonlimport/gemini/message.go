package gemini

// How a Gemini CLI chat line (or a whole-JSON chat's entry) reads as a
// message.

import (
	"sort"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/geminichat"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// A message record {id, type, content, …} is read by
// geminichat.UnderstandRecord: the user's (function responses are tool
// results; the context Gemini CLI injects is Context, slash commands are
// bookkeeping), the model's ("gemini": text, thoughts as thinking, tool
// calls, and the results its toolCalls hold, which Gemini CLI sends back
// after it on resume), info, error and warning records as bookkeeping.
// Header lines, $set patches, $rewindTo lines and lines of no known shape
// are bookkeeping.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	switch {
	case obj["$rewindTo"] != nil:
		return jsonl.Message{Role: KindRewind, Text: jsonl.Str(obj, "$rewindTo"), Bookkeeping: true}
	case jsonl.Str(obj, "id") != "":
		return geminichat.UnderstandRecord(obj, assistant)
	case obj["$set"] != nil:
		set, _ := obj["$set"].(map[string]any)
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return jsonl.Message{Role: KindSet, Text: strings.Join(keys, ", "), Bookkeeping: true}
	case obj["sessionId"] != nil:
		return jsonl.Message{Role: KindSession, Text: jsonl.Str(obj, "sessionId"), Bookkeeping: true}
	}
	// A line of no known shape, which Gemini CLI's loader ignores.
	m := jsonl.Extracted(e)
	m.Bookkeeping = true
	return m
}
