package compactor

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// Message bodies in the shapes the package understands.

func userMsg(text string) string {
	return fmt.Sprintf(`{"role":"user","content":%q}`, text)
}

func assistantMsg(text string) string {
	return fmt.Sprintf(`{"role":"assistant","content":%q}`, text)
}

// oaiCall is an OpenAI-like assistant message calling tool name once per id.
func oaiCall(name string, ids ...string) string {
	var calls []string
	for _, id := range ids {
		calls = append(calls, fmt.Sprintf(`{"id":%q,"type":"function","function":{"name":%q,"arguments":"{\"path\":\"/tmp/x\"}"}}`, id, name))
	}
	return `{"role":"assistant","content":"","tool_calls":[` + strings.Join(calls, ",") + `]}`
}

func oaiResult(id, text string) string {
	return fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":%q}`, id, text)
}

// antCall is an Anthropic-like assistant message with tool_use blocks.
func antCall(name string, ids ...string) string {
	blocks := []string{`{"type":"text","text":"Let me look."}`}
	for _, id := range ids {
		blocks = append(blocks, fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":{"q":"x"}}`, id, name))
	}
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
}

// antResult is an Anthropic-like user message carrying tool_result blocks.
func antResult(text string, ids ...string) string {
	var blocks []string
	for _, id := range ids {
		blocks = append(blocks, fmt.Sprintf(`{"type":"tool_result","tool_use_id":%q,"content":%q}`, id, text))
	}
	return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}`
}

// zotCall is a zot-like assistant message: untyped call blocks.
func zotCall(name string, ids ...string) string {
	var blocks []string
	for _, id := range ids {
		blocks = append(blocks, fmt.Sprintf(`{"id":%q,"name":%q,"arguments":{"cmd":"ls"}}`, id, name))
	}
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
}

// zotResult is a zot-like tool message: untyped result blocks.
func zotResult(text string, ids ...string) string {
	var blocks []string
	for _, id := range ids {
		blocks = append(blocks, fmt.Sprintf(`{"call_id":%q,"content":[{"text":%q}],"is_error":false}`, id, text))
	}
	return `{"role":"tool","content":[` + strings.Join(blocks, ",") + `]}`
}

func customMsg(text string) string {
	return fmt.Sprintf(`{"_custom":true,"data":{"level":"info","text":%q},"type":"ui_notice"}`, text)
}

// entries turns bodies into log entries with Seq 1, 2, … A body prefixed
// with "custom:" or "rich:" gets KindCustom or kind model_change.
func entries(bodies ...string) []sessiondb.Entry {
	out := make([]sessiondb.Entry, len(bodies))
	for i, b := range bodies {
		kind := sessiondb.KindMessage
		switch {
		case strings.HasPrefix(b, "custom:"):
			kind, b = sessiondb.KindCustom, strings.TrimPrefix(b, "custom:")
		case strings.HasPrefix(b, "rich:"):
			kind, b = "model_change", strings.TrimPrefix(b, "rich:")
		}
		if !json.Valid([]byte(b)) {
			panic("invalid test body: " + b)
		}
		out[i] = sessiondb.Entry{Seq: int64(i + 1), Kind: kind, Body: json.RawMessage(b)}
	}
	return out
}

// msgs turns bodies into entries for Append.
func msgs(bodies ...string) []sessiondb.Entry {
	es := entries(bodies...)
	for i := range es {
		es[i].Seq = 0
	}
	return es
}

// countAll is a TokenCounter that counts every entry as n tokens.
func countAll(n int) TokenCounter {
	return func(sessiondb.Entry) int { return n }
}
