package sessiondb

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDefaultExtractor(t *testing.T) {
	for _, tc := range []struct {
		name, body, role, text string
	}{
		{"string content", `{"role":"user","content":"hello there"}`, "user", "hello there"},
		{"blocks", `{"role":"assistant","content":[{"type":"text","text":"a"},{"text":"b"}]}`, "assistant", "a\nb"},
		{"tool call object args", `{"role":"assistant","content":[{"id":"c1","name":"read","arguments":{"path":"x.go"}}]}`, "assistant", "read\n{\"path\":\"x.go\"}"},
		{"openai tool_calls", `{"role":"assistant","content":"","tool_calls":[{"id":"1","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}]}`, "assistant", "bash\n{\"cmd\":\"ls\"}"},
		{"tool result", `{"role":"tool","tool_call_id":"1","content":"file list"}`, "tool", "file list"},
		{"cjk and emoji", `{"role":"user","content":"你好 🚀"}`, "user", "你好 🚀"},
		{"not an object", `"just text"`, "", "just text"},
		{"number", `42`, "", ""},
		{"invalid", `{`, "", ""},
		{"rich entry", `{"entry_type":"label","label":"checkpoint A"}`, "", "checkpoint A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			role, text := DefaultExtractor(KindMessage, json.RawMessage(tc.body))
			if role != tc.role || text != tc.text {
				t.Fatalf("got (%q, %q), want (%q, %q)", role, text, tc.role, tc.text)
			}
		})
	}
}

func TestDefaultExtractorCapsText(t *testing.T) {
	big := strings.Repeat("é", maxExtractedText) // 2 bytes each
	body, _ := json.Marshal(map[string]string{"role": "user", "content": big})
	_, text := DefaultExtractor(KindMessage, body)
	if len(text) > maxExtractedText || !utf8.ValidString(text) {
		t.Fatalf("text is %d bytes (valid UTF-8: %v), want at most %d and valid", len(text), utf8.ValidString(text), maxExtractedText)
	}
}

func FuzzDefaultExtractor(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hi"}`,
		`{"role":"assistant","content":[{"text":"a"},{"name":"t","input":{"a":[1,2]}}]}`,
		`{"tool_calls":[{"function":{"name":"x","arguments":"{}"}}]}`,
		`[[[[[[[[[[]]]]]]]]]]`,
		`"\ud800"`,
		`{"text":"a","text":"b","input":{"z":1e3,"a":"<"},"n":1e400}`,
		`{"te\u0078t":"\ud83d\ude80 \"q\"","function":{"arguments":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAgainstReference(t, "fuzz", body)
		role, text := DefaultExtractor(KindMessage, body)
		if len(text) > maxExtractedText {
			t.Fatalf("text of %d bytes exceeds the cap", len(text))
		}
		if !json.Valid(body) && (role != "" || text != "") {
			t.Fatalf("invalid JSON yielded (%q, %q)", role, text)
		}
	})
}

// TestExtractorKeepsCommandText: tool arguments rendered as JSON keep &,
// < and > as written, so that a snippet shows the command a tool ran and
// search finds it by what the user saw (issue 39).
func TestExtractorKeepsCommandText(t *testing.T) {
	body := []byte(`{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"cd web && npm test > out.txt"}},{"type":"tool_use","name":"Write","input":{"content":"<template>x</template>"}}]}`)
	_, text := DefaultExtractor(KindMessage, body)
	for _, want := range []string{`{"command":"cd web && npm test > out.txt"}`, `{"content":"<template>x</template>"}`} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q lacks %q", text, want)
		}
	}
	if strings.Contains(text, `\u00`) {
		t.Errorf("text holds JSON escapes: %q", text)
	}
}
