package scriptmodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// event is one Server-Sent Event.
type event struct {
	Name string
	Data string
}

// post sends body to the server and returns the status and, for an
// event stream, its events (else the body as one event's data).
func post(t *testing.T, url string, body any) (int, []event) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, []event{{Data: string(data)}}
	}
	var evs []event
	var cur event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Data != "" || cur.Name != "" {
				evs = append(evs, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data += strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("not an SSE line: %q", line)
		}
	}
	return resp.StatusCode, evs
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return m
}

// shellSchema is a shell tool's schema as Claude Code sends it.
var shellSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}`)

// answer is a streamed reply put back together by a client.
type answer struct {
	thinking, text, signature string
	calls                     []struct{ id, name, args string }
	usage                     map[string]any
	stop                      string
}

// readAnthropic puts a Messages stream back together, checking the
// order of its events.
func readAnthropic(t *testing.T, evs []event) answer {
	t.Helper()
	var a answer
	if evs[0].Name != "message_start" || evs[len(evs)-1].Name != "message_stop" {
		t.Fatalf("stream starts with %s, ends with %s", evs[0].Name, evs[len(evs)-1].Name)
	}
	open := -1
	for _, e := range evs {
		d := decode(t, e.Data)
		if d["type"] != e.Name {
			t.Fatalf("event %s carries type %v", e.Name, d["type"])
		}
		switch e.Name {
		case "content_block_start":
			if open != -1 {
				t.Fatalf("block %v started inside block %d", d["index"], open)
			}
			open = int(d["index"].(float64))
			cb := d["content_block"].(map[string]any)
			if cb["type"] == "tool_use" {
				a.calls = append(a.calls, struct{ id, name, args string }{cb["id"].(string), cb["name"].(string), ""})
			}
		case "content_block_delta":
			if int(d["index"].(float64)) != open {
				t.Fatalf("delta for block %v while %d is open", d["index"], open)
			}
			dl := d["delta"].(map[string]any)
			switch dl["type"] {
			case "thinking_delta":
				a.thinking += dl["thinking"].(string)
			case "signature_delta":
				a.signature += dl["signature"].(string)
			case "text_delta":
				a.text += dl["text"].(string)
			case "input_json_delta":
				a.calls[len(a.calls)-1].args += dl["partial_json"].(string)
			}
		case "content_block_stop":
			open = -1
		case "message_delta":
			a.usage = d["usage"].(map[string]any)
			a.stop = d["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	return a
}

func TestAnthropicScript(t *testing.T) {
	s := start(t, Options{})
	tools := []any{map[string]any{"name": "Bash", "input_schema": shellSchema}, map[string]any{"name": "Read", "input_schema": json.RawMessage(`{}`)}}
	msgs := []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "<system-reminder>ignore me [[long]]</system-reminder>"},
		map[string]any{"type": "text", "text": "Run the tools [[tools]]"},
	}}}
	req := map[string]any{"model": "claude-sonnet-4-5", "stream": true, "messages": msgs, "tools": tools}
	status, evs := post(t, s.URL()+"/v1/messages", req)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	a := readAnthropic(t, evs)
	if a.stop != "tool_use" || len(a.calls) != 2 || a.thinking == "" || a.signature == "" || a.text != "Running two commands in parallel." {
		t.Fatalf("first step: %+v", a)
	}
	var args struct{ Command, Description string }
	if err := json.Unmarshal([]byte(a.calls[1].args), &args); err != nil || args.Command != "echo beta" || args.Description == "" {
		t.Fatalf("second call %q: %+v %v", a.calls[1].args, args, err)
	}
	if a.calls[0].id == a.calls[1].id || a.calls[0].name != "Bash" {
		t.Fatalf("calls %+v", a.calls)
	}
	// The results of both calls (and a reminder beside them) move the
	// script to the failing call.
	msgs = append(msgs,
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": a.calls[0].id, "name": "Bash", "input": map[string]any{}},
			map[string]any{"type": "tool_use", "id": a.calls[1].id, "name": "Bash", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": a.calls[0].id, "content": "alpha"},
			map[string]any{"type": "tool_result", "tool_use_id": a.calls[1].id, "content": "beta"},
			map[string]any{"type": "text", "text": "a note of the agent's"}}})
	req["messages"] = msgs
	_, evs = post(t, s.URL()+"/v1/messages", req)
	b := readAnthropic(t, evs)
	if len(b.calls) != 1 || !strings.Contains(b.calls[0].args, "nonexistent") {
		t.Fatalf("second step: %+v", b)
	}
	// Usage: input excludes cache reads, output the whole answer.
	if a.usage["input_tokens"].(float64) <= 0 || a.usage["output_tokens"].(float64) <= 0 {
		t.Fatalf("usage %v", a.usage)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Scenario != "tools" || reqs[0].Step != 0 || reqs[1].Step != 1 || reqs[1].Status != 200 {
		t.Fatalf("log %+v", reqs)
	}
	// Not streamed: the same reply as one message.
	req["stream"] = false
	_, evs = post(t, s.URL()+"/v1/messages", req)
	m := decode(t, evs[0].Data)
	if m["stop_reason"] != "tool_use" || len(m["content"].([]any)) != 2 {
		t.Fatalf("not streamed: %v", m)
	}
}

func TestResponsesScript(t *testing.T) {
	s := start(t, Options{})
	tools := []any{map[string]any{"type": "function", "name": "exec_command", "parameters": json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"},"workdir":{"type":"string"}},"required":["cmd"]}`)}}
	input := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "rules [[long]]"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "<environment_context>cwd</environment_context>"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "Run the tools [[tools]]"}}},
	}
	_, evs := post(t, s.URL()+"/v1/responses", map[string]any{"model": "gpt-5.1-codex", "stream": true, "input": input, "tools": tools})
	var items []map[string]any
	var text, reasoning string
	var final map[string]any
	for i, e := range evs {
		d := decode(t, e.Data)
		if d["type"] != e.Name || int(d["sequence_number"].(float64)) != i {
			t.Fatalf("event %d: %s %v", i, e.Name, d)
		}
		switch e.Name {
		case "response.output_item.done":
			items = append(items, d["item"].(map[string]any))
		case "response.output_text.delta":
			text += d["delta"].(string)
		case "response.reasoning_summary_text.delta":
			reasoning += d["delta"].(string)
		case "response.completed":
			final = d["response"].(map[string]any)
		}
	}
	if evs[0].Name != "response.created" || final == nil {
		t.Fatalf("events %v", evs)
	}
	if len(items) != 4 || items[0]["type"] != "reasoning" || items[2]["type"] != "function_call" || reasoning == "" || text == "" {
		t.Fatalf("items %v", items)
	}
	var args map[string]any
	json.Unmarshal([]byte(items[2]["arguments"].(string)), &args)
	if args["cmd"] != "echo alpha" || len(args) != 1 {
		t.Fatalf("arguments %v", args)
	}
	u := final["usage"].(map[string]any)
	cached := u["input_tokens_details"].(map[string]any)["cached_tokens"].(float64)
	if u["total_tokens"].(float64) != u["input_tokens"].(float64)+u["output_tokens"].(float64) || cached > u["input_tokens"].(float64) {
		t.Fatalf("usage %v", u)
	}
	// With the two outputs the script moves on; the call ids come back.
	for _, it := range items[2:] {
		input = append(input, it, map[string]any{"type": "function_call_output", "call_id": it["call_id"], "output": "ok"})
	}
	_, evs = post(t, s.URL()+"/v1/responses", map[string]any{"model": "gpt-5.1-codex", "stream": true, "input": input, "tools": tools})
	if r := s.Requests()[1]; r.Scenario != "tools" || r.Step != 1 || r.Turn != 1 {
		t.Fatalf("second request played %+v", r)
	}
}

func TestChatScript(t *testing.T) {
	s := start(t, Options{})
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "run_shell_command",
		"parameters": json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"is_background":{"type":"boolean"}},"required":["command","is_background"]}`)}}}
	msgs := []any{
		map[string]any{"role": "system", "content": "You are an agent [[long]]"},
		map[string]any{"role": "user", "content": "Run the tools [[tools]]"},
	}
	req := map[string]any{"model": "qwen3-coder-plus", "stream": true, "messages": msgs, "tools": tools}
	_, evs := post(t, s.URL()+"/v1/chat/completions", req)
	if evs[len(evs)-1].Data != "[DONE]" {
		t.Fatalf("last event %q", evs[len(evs)-1].Data)
	}
	var reasoning, content, finish string
	calls := map[int]map[string]string{}
	var usage map[string]any
	for _, e := range evs[:len(evs)-1] {
		d := decode(t, e.Data)
		if d["usage"] != nil {
			usage = d["usage"].(map[string]any)
		}
		for _, c := range d["choices"].([]any) {
			c := c.(map[string]any)
			if f, ok := c["finish_reason"].(string); ok {
				finish = f
			}
			delta := c["delta"].(map[string]any)
			if v, ok := delta["reasoning_content"].(string); ok {
				reasoning += v
			}
			if v, ok := delta["content"].(string); ok {
				content += v
			}
			if tcs, ok := delta["tool_calls"].([]any); ok {
				for _, tc := range tcs {
					tc := tc.(map[string]any)
					i := int(tc["index"].(float64))
					if calls[i] == nil {
						calls[i] = map[string]string{}
					}
					if id, ok := tc["id"].(string); ok {
						calls[i]["id"] = id
					}
					fn := tc["function"].(map[string]any)
					if n, ok := fn["name"].(string); ok {
						calls[i]["name"] = n
					}
					calls[i]["args"] += fn["arguments"].(string)
				}
			}
		}
	}
	if finish != "tool_calls" || len(calls) != 2 || reasoning == "" || content != "Running two commands in parallel." {
		t.Fatalf("finish %q calls %v reasoning %q content %q", finish, calls, reasoning, content)
	}
	if calls[0]["args"] != `{"command":"echo alpha","description":"Run echo alpha","is_background":false}` &&
		calls[0]["args"] != `{"command":"echo alpha","is_background":false}` {
		t.Fatalf("args %s", calls[0]["args"])
	}
	if usage == nil || usage["prompt_tokens"].(float64) <= 0 {
		t.Fatalf("usage %v", usage)
	}
	// Tool results as role tool messages.
	msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{calls[0], calls[1]}},
		map[string]any{"role": "tool", "tool_call_id": calls[0]["id"], "content": "alpha"},
		map[string]any{"role": "tool", "tool_call_id": calls[1]["id"], "content": "beta"})
	req["messages"] = msgs
	post(t, s.URL()+"/v1/chat/completions", req)
	if r := s.Requests()[1]; r.Step != 1 {
		t.Fatalf("second request played %+v", r)
	}
}

func TestGeminiScript(t *testing.T) {
	s := start(t, Options{})
	tools := []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "run_shell_command",
		"parametersJsonSchema": shellSchema}}}}
	contents := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "<session_context>This is the Gemini CLI</session_context>"}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Hi [[hello]]"}}},
	}
	url := s.URL() + "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
	_, evs := post(t, url, map[string]any{"contents": contents, "tools": tools})
	var thought, text string
	var usage map[string]any
	for i, e := range evs {
		d := decode(t, e.Data)
		cand := d["candidates"].([]any)[0].(map[string]any)
		for _, p := range cand["content"].(map[string]any)["parts"].([]any) {
			p := p.(map[string]any)
			if p["thought"] == true {
				thought += p["text"].(string)
			} else if s, ok := p["text"].(string); ok {
				text += s
			}
		}
		last := i == len(evs)-1
		if (cand["finishReason"] == "STOP") != last || (d["usageMetadata"] != nil) != last {
			t.Fatalf("chunk %d of %d: %v", i, len(evs), d)
		}
		if last {
			usage = d["usageMetadata"].(map[string]any)
		}
	}
	if !strings.Contains(text, Marker) || !strings.Contains(text, "你好") || !strings.Contains(text, "🌏") || thought == "" {
		t.Fatalf("text %q thought %q", text, thought)
	}
	if usage["totalTokenCount"].(float64) != usage["promptTokenCount"].(float64)+usage["candidatesTokenCount"].(float64)+usage["thoughtsTokenCount"].(float64) {
		t.Fatalf("usage %v", usage)
	}
	if r := s.Requests()[0]; r.Protocol != "gemini" || r.Query != "alt=sse" || r.Scenario != "hello" || r.Turn != 1 {
		t.Fatalf("logged %+v", r)
	}
	// A structured side request (Gemini CLI's next-speaker check) gets a
	// document of its schema that hands the turn to the user.
	status, evs := post(t, s.URL()+"/v1beta/models/gemini-2.5-flash:generateContent", map[string]any{
		"contents": contents,
		"generationConfig": map[string]any{"responseMimeType": "application/json", "responseJsonSchema": map[string]any{
			"type": "object", "properties": map[string]any{"reasoning": map[string]any{"type": "string"},
				"next_speaker": map[string]any{"type": "string", "enum": []string{"model", "user"}}}, "required": []string{"reasoning", "next_speaker"}}},
	})
	d := decode(t, evs[0].Data)
	part := d["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)
	doc := decode(t, part["text"].(string))
	if status != 200 || doc["next_speaker"] != "user" || doc["reasoning"] == nil {
		t.Fatalf("structured answer %d %v", status, doc)
	}
	// countTokens and the model list.
	_, evs = post(t, s.URL()+"/v1beta/models/gemini-2.5-pro:countTokens", map[string]any{"contents": contents})
	if decode(t, evs[0].Data)["totalTokens"].(float64) <= 0 {
		t.Fatalf("countTokens %s", evs[0].Data)
	}
}

// TestRecallAfterEdit: the answer quotes the first tagged prompt of the
// history the request holds, so an edited history shows in the answer.
func TestRecallAfterEdit(t *testing.T) {
	c := &Conversation{Tools: []Tool{{Name: "bash"}}, Messages: []Message{
		{Role: "user", Texts: []string{"<context>"}},
		{Role: "user", Texts: []string{"Edited first prompt [[tools]]"}},
		{Role: "assistant", Texts: []string{"done"}, Calls: 2},
		{Role: "tool", Results: 2},
		{Role: "user", Texts: []string{"What did I ask? [[recall]]"}},
	}}
	r := DefaultScript().Play(c)
	if r.Scenario != "recall" || r.Turn != 2 || !strings.Contains(r.Text, "«Edited first prompt [[tools]]»") || !strings.Contains(r.Text, "seen 2 prompts") {
		t.Fatalf("%+v", r)
	}
}

// TestDeterministic: two servers answer the same request with the same
// bytes (ids and usage do not depend on time or order).
func TestDeterministic(t *testing.T) {
	req := map[string]any{"model": "m", "stream": true, "messages": []any{map[string]any{"role": "user", "content": "x [[tools]]"}},
		"tools": []any{map[string]any{"name": "Bash", "input_schema": shellSchema}}}
	var got []string
	for i := 0; i < 2; i++ {
		s := start(t, Options{})
		post(t, s.URL()+"/v1/messages", map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "side"}}})
		_, evs := post(t, s.URL()+"/v1/messages", req)
		var b strings.Builder
		for _, e := range evs {
			b.WriteString(e.Name + e.Data)
		}
		got = append(got, b.String())
	}
	if got[0] != got[1] {
		t.Fatalf("two servers differ:\n%s\n%s", got[0], got[1])
	}
}

func TestSideAndOtherRoutes(t *testing.T) {
	dir := t.TempDir()
	s := start(t, Options{LogDir: dir})
	// No tools: a title request.
	_, evs := post(t, s.URL()+"/v1/chat/completions", map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "Generate a title [[tools]]"}}})
	m := decode(t, evs[0].Data)
	if msg := m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any); msg["content"] != "Scripted session title" {
		t.Fatalf("title %v", msg)
	}
	_, evs = post(t, s.URL()+"/v1/messages/count_tokens", map[string]any{"messages": []any{}})
	if decode(t, evs[0].Data)["input_tokens"] == nil {
		t.Fatal(evs[0].Data)
	}
	resp, err := http.Get(s.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Data []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Data) == 0 || resp.StatusCode != 200 {
		t.Fatalf("models %d %v", resp.StatusCode, list)
	}
	status, _ := post(t, s.URL()+"/v2/unknown", map[string]any{})
	if status != 404 {
		t.Fatalf("unknown route: %d", status)
	}
	// A body that is not JSON is logged as a string and refused.
	resp, _ = http.Post(s.URL()+"/v1/messages", "text/plain", strings.NewReader("not json"))
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("bad body: %d", resp.StatusCode)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines logged:\n%s", len(lines), data)
	}
	var last Request
	json.Unmarshal([]byte(lines[4]), &last)
	if string(last.Body) != `"not json"` || last.Status != 400 || last.Seq != 5 {
		t.Fatalf("last logged %+v", last)
	}
}

func TestBounds(t *testing.T) {
	s := start(t, Options{MaxBody: 100, MaxRequests: 2})
	status, _ := post(t, s.URL()+"/v1/messages", map[string]any{"pad": strings.Repeat("x", 200)})
	if status != http.StatusRequestEntityTooLarge {
		t.Fatalf("large body: %d", status)
	}
	post(t, s.URL()+"/v1/models", nil)
	status, _ = post(t, s.URL()+"/v1/messages", map[string]any{})
	if status != http.StatusTooManyRequests {
		t.Fatalf("past the limit: %d", status)
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop after its request limit")
	}
	if !errors.Is(s.Err(), ErrStopped) {
		t.Fatalf("Err = %v", s.Err())
	}
	if _, err := http.Get(s.URL() + "/v1/models"); err == nil {
		t.Fatal("server still answers after stopping")
	}
}

func TestIdleTimeout(t *testing.T) {
	s := start(t, Options{IdleTimeout: 200 * time.Millisecond})
	post(t, s.URL()+"/v1/models", nil)
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop when idle")
	}
	if !errors.Is(s.Err(), ErrStopped) {
		t.Fatalf("Err = %v", s.Err())
	}
}

func TestLoopbackOnly(t *testing.T) {
	s := start(t, Options{})
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %s", s.URL())
	}
}

// TestSubAgent: [[agent]] calls the sub-agent tool with a prompt that
// plays [[sub]] in the sub-agent's own conversation, which ends with a
// call of complete_task where one is offered (Gemini CLI's sub-agents).
func TestSubAgent(t *testing.T) {
	script := DefaultScript()
	parent := &Conversation{
		Tools: []Tool{{Name: "invoke_agent", Schema: json.RawMessage(`{"type":"object","properties":{"agent_name":{"type":"string"},"prompt":{"type":"string"},"wait_for_previous":{"type":"boolean"}},"required":["agent_name","prompt"]}`)},
			{Name: "run_shell_command", Schema: shellSchema}},
		Messages: []Message{{Role: "user", Texts: []string{"Delegate [[agent]]"}}},
	}
	r := script.Play(parent)
	if len(r.Calls) != 1 || r.Calls[0].Name != "invoke_agent" {
		t.Fatalf("parent: %+v", r)
	}
	var args map[string]any
	json.Unmarshal(r.Calls[0].Args, &args)
	if args["agent_name"] != "generalist" || !strings.Contains(args["prompt"].(string), "[[sub]]") {
		t.Fatalf("sub-agent call %s", r.Calls[0].Args)
	}
	complete := Tool{Name: "complete_task", Schema: json.RawMessage(`{"type":"object","properties":{"result":{"type":"object","properties":{"response":{"type":"string"}},"required":["response"]},"wait_for_previous":{"type":"boolean"}},"required":["result"]}`)}
	sub := &Conversation{Tools: []Tool{{Name: "run_shell_command", Schema: shellSchema}, complete},
		Messages: []Message{{Role: "user", Texts: []string{args["prompt"].(string)}}}}
	s0 := script.Play(sub)
	if s0.Scenario != "sub" || len(s0.Calls) != 1 || !strings.HasPrefix(s0.Calls[0].ID, "sub") || s0.Calls[0].ID == r.Calls[0].ID {
		t.Fatalf("sub-agent step 0: %+v", s0)
	}
	sub.Messages = append(sub.Messages, Message{Role: "assistant", Calls: 1}, Message{Role: "user", Results: 1})
	s1 := script.Play(sub)
	if len(s1.Calls) != 1 || s1.Calls[0].Name != "complete_task" || string(s1.Calls[0].Args) != `{"result":{"response":"Sub-agent finished: it printed sub."}}` {
		t.Fatalf("sub-agent step 1: %+v %s", s1, s1.Calls[0].Args)
	}
	// Claude Code's Agent tool: a general-purpose agent in the foreground.
	claude := &Conversation{Tools: []Tool{{Name: "Agent", Schema: json.RawMessage(`{"type":"object","properties":{"description":{"type":"string"},"prompt":{"type":"string"},"subagent_type":{"type":"string"},"run_in_background":{"type":"boolean"}},"required":["description","prompt"]}`)}},
		Messages: []Message{{Role: "user", Texts: []string{"Delegate [[agent]]"}}}}
	c := script.Play(claude)
	if len(c.Calls) != 1 || string(c.Calls[0].Args) != `{"description":"Run a sub-agent","prompt":"Run echo sub and report [[sub]]","run_in_background":false,"subagent_type":"general-purpose"}` {
		t.Fatalf("Agent call %+v", c)
	}
}
