package viewer

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// FuzzTranscriptPage renders arbitrary entry bodies and roles through the
// whole transcript path (viewEntry, pairCalls, the session template and
// the final visible pass) and checks the markup structurally: whatever a
// body holds, the page has only the viewer's own tags, attributes and
// links.
func FuzzTranscriptPage(f *testing.F) {
	for _, h := range hostile {
		b, _ := json.Marshal(map[string]any{"role": "assistant", "content": h})
		f.Add(string(b), "assistant")
		b, _ = json.Marshal(map[string]any{"role": "tool", "tool_call_id": h, "content": []any{map[string]any{"type": "text", "text": h}}})
		f.Add(string(b), "tool")
		b, _ = json.Marshal(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": h, "function": map[string]any{"name": h, "arguments": h}}}})
		f.Add(string(b), h)
	}
	f.Add(`{"role":"user","content":[{"type":"image","mime_type":"image/svg+xml\"><script>"}]}`, "user")
	f.Add(`not json <script>`, "")
	f.Add(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]},"toolUseResult":{"agentId":"\"><script>"}}`, "user")
	f.Add(`{"type":"user","message":{"role":"user","content":"<system-reminder>\"><img src=x></system-reminder>"}}`, "user")
	h, err := New(nil, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body, role string) {
		var es []entryView
		for _, format := range []string{"", "claude-code", "codex", "pi", "zot"} {
			es = append(es,
				viewEntry(format, sessiondb.Entry{Seq: 1, Kind: sessiondb.KindMessage, Role: role, Body: json.RawMessage(body)}),
				viewEntry(format, sessiondb.Entry{Seq: 2, Kind: role, Body: json.RawMessage(body)}))
		}
		for i := range es {
			for j := range es[i].Blocks {
				if b := &es[i].Blocks[j]; b.Agent != "" {
					b.AgentLink = "/s/" + urlPathEscape(role+":agent-"+b.Agent)
				}
			}
		}
		pairCalls(es)
		d := sessionData{Title: role, S: sessiondb.Session{ID: role, Title: role, Aliases: []string{role}}, Entries: es, Attrs: body}
		var b strings.Builder
		if err := h.pages["session"].Execute(&b, d); err != nil {
			t.Fatal(err)
		}
		if err := checkHTML(visible(b.String())); err != nil {
			t.Fatalf("body %q role %q: %v", body, role, err)
		}
	})
}
