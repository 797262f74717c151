package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

func TestRenderTranscriptEntry(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format string
		e      sessiondb.Entry
		want   string
	}{
		{
			"text", "",
			sessiondb.Entry{Seq: 1, Role: "user", Body: json.RawMessage(`{"role":"user","content":"line one\nline two"}`)},
			"[1] user\n    line one\n    line two\n",
		},
		{
			"zot tool call and parallel results", "",
			sessiondb.Entry{Seq: 2, Body: json.RawMessage(`{"role":"assistant","content":[{"text":"Reading."},{"id":"toolu_1","name":"read","arguments":{"path":"a.go"}}]}`)},
			"[2] assistant\n    Reading.\n    → read: a.go\n",
		},
		{
			"zot tool results folded", "",
			sessiondb.Entry{Seq: 3, Body: json.RawMessage(`{"role":"tool","content":[{"call_id":"toolu_1","content":[{"text":"package a\n\nfunc A() {}"}],"is_error":false},{"call_id":"toolu_2","content":null,"is_error":true}]}`)},
			"[3] tool  ← [toolu_1] package a func A() {}\n    ← [toolu_2] (error)\n",
		},
		{
			"swink tool_result role", "",
			sessiondb.Entry{Seq: 4, Body: json.RawMessage(`{"role":"tool_result","tool_call_id":"toolu_9","content":[{"type":"text","text":"ok"}],"is_error":false}`)},
			"[4] tool_result  ← [toolu_9] ok\n",
		},
		{
			"anthropic blocks, thinking, image", "",
			sessiondb.Entry{Seq: 5, Body: json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm\nwell"},{"type":"tool_use","id":"t1","name":"bash","input":{"cmd":"ls"}},{"type":"image","mime_type":"image/png","data":"AAAA"}]}`)},
			"[5] assistant\n    (thinking) hmm well\n    [image]\n    → bash: ls\n",
		},
		{
			"tool result block inside a user message", "",
			sessiondb.Entry{Seq: 6, Body: json.RawMessage(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go b.go"}]}`)},
			"[6] user  ← [t1] a.go b.go\n",
		},
		{
			"reasoning summary", "",
			sessiondb.Entry{Seq: 7, Body: json.RawMessage(`{"role":"assistant","content":[{"reasoning_id":"rs_1","summary":"think","encrypted_content":"gAAA"},{"text":"Done."}]}`)},
			"[7] assistant\n    (thinking) think\n    Done.\n",
		},
		{
			"summary message", "",
			sessiondb.Entry{Summary: true, Role: "user", Body: json.RawMessage(`{"role":"user","content":"Earlier: greetings."}`)},
			"[summary] user\n    Earlier: greetings.\n",
		},
		{
			"rich entry without message shape", "",
			sessiondb.Entry{Seq: 8, Kind: "model_change", Body: json.RawMessage(`{"provider":"openai","modelId":"gpt-5"}`)},
			"[8] (model_change)\n    {\"provider\":\"openai\",\"modelId\":\"gpt-5\"}\n",
		},
		{
			"not an object", "",
			sessiondb.Entry{Seq: 9, Kind: "custom", Body: json.RawMessage(`"just a string"`)},
			"[9] (custom)\n    just a string\n",
		},
		{
			"claude code sub-agent result",
			"claude-code",
			sessiondb.Entry{Seq: 10, Role: "user", Body: json.RawMessage(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"found it"}]},"toolUseResult":{"agentId":"a1"}}`)},
			"[10] user  ← [toolu_1] (sub-agent a1) found it\n",
		},
		{
			"claude code progress hidden",
			"claude-code",
			sessiondb.Entry{Seq: 11, Kind: "progress", Body: json.RawMessage(`{"type":"progress","data":{"type":"hook_progress"}}`)},
			"",
		},
		{
			"codex echo hidden",
			"codex",
			sessiondb.Entry{Seq: 12, Kind: "event_msg", Body: json.RawMessage(`{"type":"event_msg","payload":{"type":"user_message","message":"hi"}}`)},
			"",
		},
		{
			"codex environment folded",
			"codex",
			sessiondb.Entry{Seq: 13, Role: "user", Body: json.RawMessage(`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"}]}}`)},
			"[13] user\n    (context) <environment_context> <cwd>/x</cwd> </environment_context>\n",
		},
		{
			"codex call",
			"codex",
			sessiondb.Entry{Seq: 14, Role: "assistant", Body: json.RawMessage(`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}`)},
			"[14] assistant\n    → exec_command: ls\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			renderTranscript(&b, tc.format, []sessiondb.Entry{tc.e}, false)
			if b.String() != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestFold(t *testing.T) {
	long := strings.Repeat("é", 200)
	got := fold(long)
	if r := []rune(got); len(r) != foldWidth || !strings.HasSuffix(got, "…") {
		t.Errorf("fold of 200 runes: %d runes", len(r))
	}
	if got := fold("a \n\t b"); got != "a b" {
		t.Errorf("fold = %q", got)
	}
}

// TestRenderOneResponseOneMessage: the lines of one Claude Code API
// response (a message entry and its message-part entries, a progress line
// between them) are one message under one header, each tool call with
// what it ran; their parallel results are one message too.
func TestRenderOneResponseOneMessage(t *testing.T) {
	line := func(seq int64, kind, role, body string) sessiondb.Entry {
		return sessiondb.Entry{Seq: seq, Kind: kind, Role: role, Body: json.RawMessage(body)}
	}
	entries := []sessiondb.Entry{
		line(1, "message", "user", `{"type":"user","message":{"role":"user","content":"Run the checks."}}`),
		line(2, "message", "assistant", `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Running them."}]}}`),
		line(3, "message-part", "assistant", `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go vet ./... && go test ./..."}}]}}`),
		line(4, "progress", "", `{"type":"progress","data":{"type":"hook_progress"}}`),
		line(5, "message-part", "assistant", `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/src/go.mod"}}]}}`),
		line(6, "message", "user", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`),
		line(7, "message-part", "user", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"module x"}]}}`),
	}
	var b strings.Builder
	hidden := renderTranscript(&b, "claude-code", entries, false)
	want := "[1] user\n    Run the checks.\n" +
		"[2-5] assistant\n    Running them.\n    → Bash: go vet ./... && go test ./...\n    → Read: /src/go.mod\n" +
		"[6-7] user  ← [t1] ok\n    ← [t2] module x\n"
	if b.String() != want || hidden != 1 {
		t.Errorf("got (%d hidden):\n%s\nwant:\n%s", hidden, b.String(), want)
	}
}
