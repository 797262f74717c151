package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
)

var update = flag.Bool("update", false, "rewrite testdata/understand.golden")

// TestUnderstandGolden reads every line of the repository's Claude Code,
// Codex, pi and picoclaw fixtures (a body is a whole line, as the
// importers store it) and compares what Understand makes of each with
// testdata/understand.golden. Run with -update after a deliberate change
// and read the diff.
func TestUnderstandGolden(t *testing.T) {
	var files []string
	for _, root := range []string{"../testdata/claudecode/projects", "../testdata/codex/codex-home/sessions", "../testdata/pi/sessions", "../testdata/samples/picoclaw"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
	}
	slices.Sort(files)
	if len(files) < 15 {
		t.Fatalf("found %d fixture files", len(files))
	}
	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetEscapeHTML(false)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			m := Understand("", sessiondb.Entry{Kind: "message", Body: bytes.Clone(sc.Bytes())})
			m.Text, _ = clip(m.Text, 200)
			for i := range m.Results {
				m.Results[i].Text, _ = clip(m.Results[i].Text, 200)
			}
			enc.Encode(struct {
				Line string
				Message
			}{strings.TrimPrefix(f, "../testdata/") + ":" + itoa(n), m})
		}
	}
	golden := "testdata/understand.golden"
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestUnderstandGolden -update)", err)
	}
	if d := cmp.Diff(string(want), got.String()); d != "" {
		t.Errorf("Understand changed (-golden +got):\n%s", d)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestUnderstandShapes pins the shapes the server folds: each format's
// tool call and result, thinking and bookkeeping.
func TestUnderstandShapes(t *testing.T) {
	for _, c := range []struct {
		name string
		body string
		want Message
	}{
		{"openai call", `{"role":"assistant","content":"Let me look.","reasoning_content":"hm","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"p\":1}"}}]}`,
			Message{Role: "assistant", Text: "Let me look.", Thinking: "hm", Calls: []ToolCall{{ID: "c1", Name: "read", Arguments: `{"p":1}`}}}},
		{"openai result", `{"role":"tool","tool_call_id":"c1","content":"done"}`,
			Message{Role: "tool", Results: []ToolResult{{CallID: "c1", Text: "done"}}}},
		{"claude code tool_use", `{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}`,
			Message{Role: "assistant", Text: "x", Thinking: "t", Calls: []ToolCall{{ID: "toolu_1", Name: "Bash", Arguments: `{"command":"ls"}`}}}},
		{"claude code tool_result", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a"},{"type":"image"}],"is_error":true}]}}`,
			Message{Role: "user", Results: []ToolResult{{CallID: "toolu_1", Text: "a\n[image]", IsError: true}}}},
		{"claude code progress", `{"type":"progress","data":{"type":"hook_progress"}}`,
			Message{Role: "progress", Bookkeeping: true}},
		{"codex function_call", `{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"call_1"}}`,
			Message{Role: "assistant", Calls: []ToolCall{{ID: "call_1", Name: "exec_command", Arguments: `{"cmd":"ls"}`}}}},
		{"codex custom output", `{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_2","output":"{\"output\":\"Success.\",\"metadata\":{}}"}}`,
			Message{Role: "tool", Results: []ToolResult{{CallID: "call_2", Text: "Success."}}}},
		{"codex reasoning", `{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"plan"}]}}`,
			Message{Role: "assistant", Thinking: "plan"}},
		{"codex message", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`,
			Message{Role: "user", Text: "hi"}},
		{"codex event", `{"type":"event_msg","payload":{"type":"user_message","message":"hi"}}`,
			Message{Role: "event_msg", Text: "hi", Bookkeeping: true}},
		{"pi toolCall", `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"ls"}}]}}`,
			Message{Role: "assistant", Calls: []ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"ls"}`}}}},
		{"pi toolResult", `{"type":"message","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false}}`,
			Message{Role: "toolResult", Results: []ToolResult{{CallID: "call_1", Name: "bash", Text: "ok"}}}},
		{"pi model change", `{"type":"model_change","provider":"openai","modelId":"gpt-4o"}`,
			Message{Role: "model_change", Text: "gpt-4o", Bookkeeping: true}},
		{"swink result", `{"role":"tool_result","tool_call_id":"t1","content":[{"type":"text","text":"out"}],"is_error":true}`,
			Message{Role: "tool_result", Results: []ToolResult{{CallID: "t1", Text: "out", IsError: true}}}},
		{"not JSON", `not json`, Message{Role: "r", Text: "not json"}},
	} {
		got := Understand("", sessiondb.Entry{Role: "r", Body: json.RawMessage(c.body)})
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// FuzzUnderstand: any body, valid JSON or not, is understood without a
// panic, and the same way twice.
func FuzzUnderstand(f *testing.F) {
	for _, s := range []string{
		`{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"n","arguments":{}}}]}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[1,{"a":null}]}]}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"x":[]}}}`,
		`{"type":"message","message":{"role":"toolResult","content":null}}`,
		`{"type":"custom_message","content":[{"type":"image"}]}`,
		`[1,2]`, `"s"`, `{"role":5,"content":{"text":1}}`, `{`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		e := sessiondb.Entry{Kind: "message", Body: json.RawMessage(body)}
		a, b := Understand("", e), Understand("", e)
		if !cmp.Equal(a, b) {
			t.Fatalf("Understand is not deterministic on %q", body)
		}
	})
}
