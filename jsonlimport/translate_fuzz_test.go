package jsonlimport

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
)

// FuzzTranslate feeds one body, as an entry of each source format, to the
// neutral reader and every writer: nothing panics, every body written is
// valid JSON, and a body read without loss and written as pi reads back
// from the pi lines to the same conversation.
func FuzzTranslate(f *testing.F) {
	for _, seed := range []string{
		`{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"hi"},{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"ok"}],"is_error":true}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}}`,
		`{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"r"}],"encrypted_content":"x"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"cmd\":[\"ls\"]}","call_id":"c"}}`,
		`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}`,
		`{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false}}`,
		`{"role":"assistant","content":"x","reasoning_content":"r","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		`{"role":"tool","content":[{"call_id":"c","content":[{"text":"ok"}],"is_error":false}],"time":"2026-01-01T00:00:00Z"}`,
		`{"role":"tool_result","tool_call_id":"c","content":[{"type":"text","text":"ok"}],"is_error":false}`,
		`{"role":"assistant","content":[{"summary":"s"},{"id":"c","name":"n","arguments":{"a":1}}]}`,
		`{"info":{"role":"assistant","providerID":"p","modelID":"m"},"parts":[{"type":"reasoning","text":"r","metadata":{"anthropic":{"signature":"s"}}},{"type":"text","text":"t"},{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls"},"output":"ok"}},{"type":"tool","tool":"read","callID":"d","state":{"status":"error","input":{},"error":"no"}}]}`,
		`{"info":{"role":"user"},"parts":[{"type":"text","text":"hi"},{"type":"file","mime":"image/png","url":"data:image/png;base64,AAAA"},{"type":"compaction"}]}`,
		`{"role":"assistant","message":{"content":[{"type":"text","text":"t"},{"type":"tool_use","name":"Shell","input":{"command":"ls"}}]}}`,
		`{"role":"user","message":{"content":[{"type":"tool_result","content":"ok"},{"type":"text","text":"<user_query>q</user_query>"}]}}`,
	} {
		f.Add([]byte(seed))
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, format := range []string{FormatClaudeCode, FormatCodex, FormatPi, FormatPicoclaw, FormatOpencode, FormatCursorAgent, ""} {
			r := &xReader{format: format, names: map[string]string{}}
			r.entry(sessiondb.Entry{Kind: sessiondb.KindMessage, Body: body, CreatedAt: t0})
			for _, write := range []func([]xMsg, *xLoss) []sessiondb.Entry{picoclawBodies, zotBodies, swinkBodies} {
				for _, e := range write(r.msgs, &xLoss{}) {
					if !json.Valid(e.Body) {
						t.Fatalf("%s: invalid body written: %s", format, e.Body)
					}
				}
			}
			if !r.loss.empty() || !utf8.Valid(body) || strings.Contains(string(body), `\u`) {
				continue
			}
			back := &xReader{format: FormatPi, names: map[string]string{}}
			for i, m := range r.msgs {
				var line []byte
				if m.Role == xContext {
					line = noEscapeJSON(map[string]any{"type": "custom_message", "customType": m.Name, "content": piBlocks(m.Blocks)}, &xLoss{})
				} else {
					line = noEscapeJSON(map[string]any{"type": "message", "id": i, "message": piMessageOf(m)}, &xLoss{})
				}
				back.entry(sessiondb.Entry{Kind: sessiondb.KindMessage, Body: line, CreatedAt: t0})
			}
			if !back.loss.empty() {
				t.Fatalf("%s: pi lines we wrote read back with loss %s", format, &back.loss)
			}
			if w, g := strings.Join(xDigest(r.msgs), "\n"), strings.Join(xDigest(back.msgs), "\n"); w != g {
				t.Fatalf("%s: pi round trip:\n%s\n%s", format, w, g)
			}
		}
	})
}
