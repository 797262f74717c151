package jsonlimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

var understandUpdate = flag.Bool("understand.update", false, "rewrite testdata/understand.golden")

// understandCorpus is the selection of real corpus files the golden file
// covers beside the fixtures: Claude Code sessions and sub-agents with
// tool calls, Codex rollouts of several versions.
var understandCorpus = []string{
	"claude-code/projects/-home-nadia/820ad459-988a-497a-957d-2dd4d24c3526.jsonl",
	"claude-code/projects/-Users-juno-Desktop-project-ember-topaz/6bff27da-cebb-48c0-94cf-c35682ae1e1f.jsonl",
	"claude-code/projects/-home-ivo-work-maple-border/c6750359-31f3-4563-a2a2-395f1b356729.jsonl",
	"claude-code/projects/-Users-hana-alpha-iris-topaz-prairie-client/agent-8df344cd.jsonl",
	"claude-code/projects/-home-kai/14a6d808-84f5-46ad-9992-9a1774ea50e9.jsonl",
	"codex/sessions/2026/03/15/rollout-2026-03-15T18-28-28-019cf2c1-ba25-7a51-aa46-b41ecb1ca94b.jsonl",
	"codex/sessions/2026/01/12/rollout-2026-01-12T23-12-06-019bb2fa-9aa3-7652-8354-6bb6fce60314.jsonl",
	"codex/sessions/2025/12/26/rollout-2025-12-26T01-48-36-019b5669-8da8-7bc3-bed8-e1c1b805dad5.jsonl",
	"codex/sessions/2026/03/05/rollout-2026-03-05T22-50-24-019cc1e9-6537-70a3-a8cd-d2957e043dd4.jsonl",
}

// TestUnderstandGolden reads every line of the repository's Claude Code,
// Codex, pi, Gemini CLI, Qwen Code, picoclaw, zot and swink fixtures and of a selection of real
// corpus files (a body is what the reader stores: the whole line, the
// inner message of a zot row, the data of a swink message entry) and
// compares what Understand makes of each, under its format, with
// testdata/understand.golden. Run with -understand.update after a
// deliberate change and read the diff.
func TestUnderstandGolden(t *testing.T) {
	type source struct{ path, format string }
	var files []source
	for _, r := range []struct{ root, format string }{
		{"../testdata/claudecode/projects", FormatClaudeCode},
		{"../testdata/codex/codex-home/sessions", FormatCodex},
		{"../testdata/pi/sessions", FormatPi},
		{"../testdata/samples/picoclaw", FormatPicoclaw},
		{"../testdata/samples/zot", FormatZot},
		{"../testdata/samples/swink", FormatSwink},
		{"../testdata/gemini/gemini-home", FormatGemini},
		{"../testdata/gemini/crafted", FormatGemini},
		{"../testdata/qwen/qwen-home", FormatQwen},
		{"../testdata/qwen/crafted", FormatQwen},
	} {
		filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, source{p, r.format})
			}
			return nil
		})
	}
	slices.SortFunc(files, func(a, b source) int { return strings.Compare(a.path, b.path) })
	if len(files) < 20 {
		t.Fatalf("found %d fixture files", len(files))
	}
	for _, c := range understandCorpus {
		f := FormatClaudeCode
		if strings.HasPrefix(c, "codex/") {
			f = FormatCodex
		}
		files = append(files, source{"../testdata/corpus/" + c, f})
	}
	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetEscapeHTML(false)
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			body := storedBody(f.format, bytes.Clone(sc.Bytes()))
			m := Understand(f.format, sessiondb.Entry{Kind: "message", Body: body})
			m.Text = clipGolden(m.Text)
			m.Thinking = clipGolden(m.Thinking)
			for i := range m.Results {
				m.Results[i].Text = clipGolden(m.Results[i].Text)
			}
			for i := range m.Calls {
				m.Calls[i].Arguments = clipGolden(m.Calls[i].Arguments)
			}
			enc.Encode(struct {
				Line string
				Message
			}{strings.TrimPrefix(f.path, "../testdata/") + ":" + strconv.Itoa(n), m})
		}
	}
	golden := "testdata/understand.golden"
	if *understandUpdate {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestUnderstandGolden -understand.update)", err)
	}
	if d := cmp.Diff(string(want), got.String()); d != "" {
		t.Errorf("Understand changed (-golden +got):\n%s", d)
	}
}

// storedBody is the body the reader of format stores for a line: zot
// keeps a message row's inner message, swink a message entry's data.
func storedBody(format string, line []byte) []byte {
	var row map[string]json.RawMessage
	if json.Unmarshal(line, &row) != nil {
		return line
	}
	switch {
	case format == FormatZot && string(row["type"]) == `"message"` && row["message"] != nil:
		return row["message"]
	case format == FormatSwink && string(row["entry_type"]) == `"message"` && row["data"] != nil:
		return row["data"]
	}
	return line
}

func clipGolden(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// TestUnderstandShapes pins each format's tool call and result, thinking,
// context and bookkeeping.
func TestUnderstandShapes(t *testing.T) {
	for _, c := range []struct {
		name, format, body string
		want               Message
	}{
		{"openai call", FormatPicoclaw, `{"role":"assistant","content":"Let me look.","reasoning_content":"hm","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"p\":1}"}}]}`,
			Message{Role: "assistant", Text: "Let me look.", Thinking: "hm", Calls: []ToolCall{{ID: "c1", Name: "read", Arguments: `{"p":1}`}}}},
		{"openai result", FormatPicoclaw, `{"role":"tool","tool_call_id":"c1","content":"done"}`,
			Message{Role: "tool", Results: []ToolResult{{CallID: "c1", Text: "done"}}}},
		{"zot call", FormatZot, `{"role":"assistant","content":[{"text":"x"},{"id":"t1","name":"bash","arguments":{"command":"ls"}}]}`,
			Message{Role: "assistant", Text: "x", Calls: []ToolCall{{ID: "t1", Name: "bash", Arguments: `{"command":"ls"}`}}}},
		{"zot results", FormatZot, `{"role":"tool","content":[{"call_id":"t1","content":[{"text":"a"}],"is_error":false},{"call_id":"t2","content":[{"text":"b"}],"is_error":true}]}`,
			Message{Role: "tool", Results: []ToolResult{{CallID: "t1", Text: "a"}, {CallID: "t2", Text: "b", IsError: true}}}},
		{"claude code tool_use", FormatClaudeCode, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}`,
			Message{Role: "assistant", Text: "x", Thinking: "t", Calls: []ToolCall{{ID: "toolu_1", Name: "Bash", Arguments: `{"command":"ls"}`}}}},
		{"claude code tool_result", FormatClaudeCode, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a"},{"type":"image"}],"is_error":true}]}}`,
			Message{Role: "user", Results: []ToolResult{{CallID: "toolu_1", Text: "a\n[image]", IsError: true}}}},
		{"claude code sub-agent result", FormatClaudeCode, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"done"}]},"toolUseResult":{"status":"completed","agentId":"a1b2"}}`,
			Message{Role: "user", Results: []ToolResult{{CallID: "toolu_2", Text: "done", Agent: "a1b2"}}}},
		{"claude code progress", FormatClaudeCode, `{"type":"progress","data":{"type":"hook_progress"}}`,
			Message{Role: "progress", Bookkeeping: true}},
		{"claude code ai-title", FormatClaudeCode, `{"type":"ai-title","aiTitle":"Fix the uploader"}`,
			Message{Role: "ai-title", Text: "Fix the uploader", Bookkeeping: true}},
		{"claude code isMeta", FormatClaudeCode, `{"type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>x</local-command-caveat>"}}`,
			Message{Role: "user", Text: "<local-command-caveat>x</local-command-caveat>", Bookkeeping: true}},
		{"claude code command", FormatClaudeCode, `{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\n<command-message>clear</command-message>"}}`,
			Message{Role: "user", Text: "<command-name>/clear</command-name>\n<command-message>clear</command-message>", Bookkeeping: true}},
		{"claude code reminder", FormatClaudeCode, `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>be brief</system-reminder>"}]}}`,
			Message{Role: "user", Text: "<system-reminder>be brief</system-reminder>", Context: true}},
		{"claude code prompt with ide context", FormatClaudeCode, `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>a.go</ide_opened_file>"},{"type":"text","text":"fix it"}]}}`,
			Message{Role: "user", Text: "<ide_opened_file>a.go</ide_opened_file>\n\nfix it"}},
		{"codex function_call", FormatCodex, `{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"call_1"}}`,
			Message{Role: "assistant", Calls: []ToolCall{{ID: "call_1", Name: "exec_command", Arguments: `{"cmd":"ls"}`}}}},
		{"codex custom output", FormatCodex, `{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_2","output":"{\"output\":\"Success.\",\"metadata\":{}}"}}`,
			Message{Role: "tool", Results: []ToolResult{{CallID: "call_2", Text: "Success."}}}},
		{"codex reasoning", FormatCodex, `{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"plan"}]}}`,
			Message{Role: "assistant", Thinking: "plan"}},
		{"codex message", FormatCodex, `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`,
			Message{Role: "user", Text: "hi"}},
		{"codex environment", FormatCodex, `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"}]}}`,
			Message{Role: "user", Text: "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>", Context: true}},
		{"codex developer", FormatCodex, `{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}`,
			Message{Role: "developer", Text: "rules", Context: true}},
		{"codex event", FormatCodex, `{"type":"event_msg","payload":{"type":"user_message","message":"hi"}}`,
			Message{Role: "event_msg", Text: "hi", Bookkeeping: true}},
		{"codex token_count", FormatCodex, `{"type":"event_msg","payload":{"type":"token_count","info":null}}`,
			Message{Role: "event_msg", Text: "token_count", Bookkeeping: true}},
		{"codex turn_context", FormatCodex, `{"type":"turn_context","payload":{"model":"gpt-5"}}`,
			Message{Role: "turn_context", Bookkeeping: true}},
		{"pi toolCall", FormatPi, `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"ls"}}]}}`,
			Message{Role: "assistant", Calls: []ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"ls"}`}}}},
		{"pi toolResult", FormatPi, `{"type":"message","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false}}`,
			Message{Role: "toolResult", Results: []ToolResult{{CallID: "call_1", Name: "bash", Text: "ok"}}}},
		{"pi model change", FormatPi, `{"type":"model_change","provider":"openai","modelId":"gpt-4o"}`,
			Message{Role: "model_change", Text: "gpt-4o", Bookkeeping: true}},
		{"swink result", FormatSwink, `{"role":"tool_result","tool_call_id":"t1","content":[{"type":"text","text":"out"}],"is_error":true}`,
			Message{Role: "tool_result", Results: []ToolResult{{CallID: "t1", Text: "out", IsError: true}}}},
		{"application", "", `{"role":"user","content":"hello"}`, Message{Role: "user", Text: "hello"}},
		{"application by shape", "", `{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"plan"}]}}`,
			Message{Role: "assistant", Thinking: "plan"}},
		{"application progress-like line", "", `{"type":"progress","data":{"type":"hook_progress"}}`, Message{Role: "progress", Bookkeeping: true}},
		{"application label", "", `{"type":"label","label":"v1.2 shipped"}`, Message{Role: "r", Text: "v1.2 shipped"}},
		{"not JSON", "", `not json`, Message{Role: "r", Text: "not json"}},
	} {
		got := Understand(c.format, sessiondb.Entry{Role: "r", Kind: "message", Body: json.RawMessage(c.body)})
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// TestPromptTitle pins how a prompt becomes a title.
func TestPromptTitle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Fix the uploader", "Fix the uploader"},
		{"<environment_context>\n<cwd>/x</cwd>\n</environment_context>", ""},
		{"<ide_opened_file>The user opened a.go</ide_opened_file>\nWhy does **this** fail?", "Why does this fail?"},
		{"# Context from my IDE setup:\n\n## Active file: a.go\n\n## My request for Codex:\nAdd a `retry` to [the uploader](http://x)\n", "Add a retry to the uploader"},
		{"## Plan\n\n- first\n- second", "Plan first second"},
		{"use the <background_information> below", "use the below"},
		{"<command-name>/clear</command-name>", ""},
		{"# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>…</INSTRUCTIONS>", ""},
		{strings.Repeat("word ", 40), strings.TrimSpace(strings.Repeat("word ", 16)) + "…"},
	} {
		if got := jsonl.TitleOf(c.in); got != c.want {
			t.Errorf("TitleOf(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzUnderstand: any body, valid JSON or not, is understood under every
// format without a panic, and the same way twice.
func FuzzUnderstand(f *testing.F) {
	for _, s := range []string{
		`{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"n","arguments":{}}}]}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[1,{"a":null}]}]},"toolUseResult":{"agentId":5}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"x":[]}}}`,
		`{"type":"message","message":{"role":"toolResult","content":null}}`,
		`{"type":"custom_message","content":[{"type":"image"}]}`,
		`{"role":"tool","content":[{"call_id":3}]}`,
		`[1,2]`, `"s"`, `{"role":5,"content":{"text":1}}`, `{`,
		`{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>x</timestamp>\n<user_query>\nq\n</user_query>"}]}}`,
		`{"type":"turn_ended","status":"error","error":{"a":[1]}}`,
	} {
		f.Add(s)
	}
	formats := []string{"", FormatClaudeCode, FormatCodex, FormatPi, FormatPicoclaw, FormatZot, FormatSwink, FormatCursorAgent}
	f.Fuzz(func(t *testing.T, body string) {
		e := sessiondb.Entry{Kind: "message", Body: json.RawMessage(body)}
		for _, format := range formats {
			a, b := Understand(format, e), Understand(format, e)
			if !cmp.Equal(a, b) {
				t.Fatalf("Understand(%q) is not deterministic on %q", format, body)
			}
			_ = jsonl.TitleOf(a.Text)
		}
	})
}

// TestUnderstandRegistry: every format of the registry reads its own
// messages (Understand looks the reader up by name), so that none of them
// falls back to reading its bodies by shape; and a name no format has is
// read by shape.
func TestUnderstandRegistry(t *testing.T) {
	for _, f := range Formats() {
		if _, ok := f.(jsonl.MessageReader); !ok {
			t.Errorf("format %s has no message reader", f.Name())
		}
		if messageReaders()[f.Name()] == nil {
			t.Errorf("Understand does not look up %s", f.Name())
		}
	}
	e := sessiondb.Entry{Kind: sessiondb.KindMessage, Role: "assistant", Body: []byte(`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}`)}
	if m := Understand("no-such-format", e); len(m.Calls) != 1 || m.Calls[0].Name != "shell" {
		t.Errorf("unknown format read by shape: %+v, want the Codex call", m)
	}
	if m := Understand(FormatPicoclaw, e); len(m.Calls) != 0 {
		t.Errorf("picoclaw's reader read a Codex envelope: %+v", m)
	}
}

// TestCompactionSummaryIsContext: the summary message sessiondb's
// compactor writes into a Codex or pi session (a user message opened by
// jsonl.SummaryHeading) is context, not a prompt the user typed; a
// prompt that merely quotes the heading further on stays a prompt.
func TestCompactionSummaryIsContext(t *testing.T) {
	summary := jsonl.SummaryHeading + "\n\nThe user asked for a parser; it was written."
	lines := map[string]string{
		FormatCodex: `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}}`,
		FormatPi:    `{"type":"message","message":{"role":"user","content":[{"type":"text","text":%q}]}}`,
	}
	for format, line := range lines {
		for _, c := range []struct {
			text    string
			context bool
		}{
			{summary, true},
			{"please fix the parser", false},
			{"quote: " + summary, false},
		} {
			body := fmt.Sprintf(line, c.text)
			m := Understand(format, sessiondb.Entry{Kind: "message", Role: "user", Body: []byte(body)})
			if m.Role != "user" || m.Context != c.context {
				t.Errorf("%s %q: role %q context %v, want user context %v", format, c.text, m.Role, m.Context, c.context)
			}
		}
	}
}
