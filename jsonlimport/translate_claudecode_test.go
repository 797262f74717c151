package jsonlimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
)

// ccPiSession is a pi session holding what the Claude Code writer must
// tell apart: thinking Anthropic's API signed (kept), thinking OpenAI's
// signed (left out or refused), an instruction message of pi's
// (custom_message: left out or refused), parallel tool calls (one with an
// id Anthropic's API rejects), an error result and an image.
const ccPiSession = `{"type":"session","version":3,"id":"pi-not-a-uuid","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/home/u/app"}
{"type":"custom_message","id":"c1","parentId":null,"timestamp":"2026-01-02T03:04:05.500Z","customType":"developer","content":"Be brief.","display":false}
{"type":"message","id":"m1","parentId":"c1","timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":[{"type":"text","text":"List files ✍ <b>"},{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}],"timestamp":1}}
{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-01-02T03:04:07.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"plan","thinkingSignature":"sig-anthropic"},{"type":"text","text":"Running."},{"type":"toolCall","id":"toolu_1","name":"bash","arguments":{"command":"ls"}},{"type":"toolCall","id":"call_2|fc_2","name":"bash","arguments":{"command":"false"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":2}}
{"type":"message","id":"m3","parentId":"m2","timestamp":"2026-01-02T03:04:08.000Z","message":{"role":"toolResult","toolCallId":"toolu_1","toolName":"bash","content":[{"type":"text","text":"a.go"}],"isError":false,"timestamp":3}}
{"type":"message","id":"m4","parentId":"m3","timestamp":"2026-01-02T03:04:09.000Z","message":{"role":"toolResult","toolCallId":"call_2|fc_2","toolName":"bash","content":[{"type":"text","text":"exit 1"}],"isError":true,"timestamp":4}}
{"type":"message","id":"m5","parentId":"m4","timestamp":"2026-01-02T03:04:10.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"done","thinkingSignature":"{\"type\":\"reasoning\"}"},{"type":"text","text":"One file."}],"api":"openai-responses","provider":"openai","model":"gpt-5","stopReason":"stop","timestamp":5}}
`

// TestClaudeCodeTranslated: a plain export refuses what Claude Code
// cannot send its model, naming it; under LeaveOutUnsendable the file is
// a chained Claude Code transcript under a UUID made from the session's
// id, the left-out content counted, and our reader reads back the same
// conversation less what was left out.
func TestClaudeCodeTranslated(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "--home-u-app--")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "2026-01-02T03-04-05-000Z_pi-not-a-uuid.jsonl"), []byte(ccPiSession), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, err := Import(ctx, s, []string{dir}, Options{Format: FormatPi}); err != nil {
		t.Fatal(err)
	}
	sessions := allSessions(t, s)
	if len(sessions) != 1 {
		t.Fatalf("%d sessions", len(sessions))
	}
	sess := sessions[0]

	out := t.TempDir()
	_, err := Export(ctx, s, []string{sess.ID}, FormatClaudeCode, out)
	if !errors.Is(err, ErrUntranslatable) || !strings.Contains(err.Error(), "1 developer message") ||
		!strings.Contains(err.Error(), "1 thinking block not signed by Anthropic's API") {
		t.Fatalf("plain export: %v, want a refusal naming the instruction and the thinking", err)
	}
	if len(treeOf(t, out)) > 0 {
		t.Fatalf("the refused export wrote %v", treeOf(t, out))
	}

	var lo LeftOut
	files, err := Export(LeaveOutUnsendable(ctx, &lo), s, []string{sess.ID}, FormatClaudeCode, out)
	if err != nil {
		t.Fatal(err)
	}
	sid := claudecode.ForeignSessionID(sess.ID)
	if sid == sess.ID || len(sid) != 36 || claudecode.ForeignSessionID(sess.ID) != sid {
		t.Fatalf("session id %q for %q: want a stable UUID", sid, sess.ID)
	}
	if want := filepath.Join(out, "projects", "-home-u-app", sid+".jsonl"); len(files) != 1 || files[0] != want {
		t.Fatalf("files %v, want %s", files, want)
	}
	if lo.Thinking["openai"] != 1 || lo.Context["developer"] != 1 || len(lo.Thinking) != 1 || len(lo.Context) != 1 || lo.AsBash["bash"] != 2 || lo.IDs != 1 {
		t.Errorf("left out %+v, want 1 OpenAI thinking block and 1 developer message", lo)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var parent *string
	types := ""
	for i, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var line struct {
			ParentUUID *string `json:"parentUuid"`
			UUID       string  `json:"uuid"`
			SessionID  string  `json:"sessionId"`
			CWD        string  `json:"cwd"`
			Type       string  `json:"type"`
			Message    struct {
				Content []struct {
					Type string `json:"type"`
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(l, &line); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if line.SessionID != sid || line.CWD != "/home/u/app" || len(line.UUID) != 36 ||
			(parent == nil) != (line.ParentUUID == nil) || parent != nil && *parent != *line.ParentUUID {
			t.Errorf("line %d: envelope %s", i+1, l)
		}
		u := line.UUID
		parent = &u
		types += line.Type + "("
		for _, b := range line.Message.Content {
			types += b.Type + " "
		}
		types = strings.TrimSpace(types) + ") "
	}
	// Both results in the one user line after the calls; the OpenAI
	// thinking and the instruction left out, Anthropic's thinking kept.
	if want := "user(text image) assistant(thinking text tool_use tool_use) user(tool_result tool_result) assistant(text)"; strings.TrimSpace(types) != want {
		t.Errorf("lines %s\nwant  %s", types, want)
	}
	if bytes.Contains(data, []byte(`|fc_2`)) {
		t.Errorf("a tool call id Anthropic's API rejects is kept:\n%s", data)
	}
	if !bytes.Contains(data, []byte(`"signature":"sig-anthropic"`)) || !bytes.Contains(data, []byte(`✍ <b>`)) {
		t.Errorf("the signature or the text is not kept as is:\n%s", data)
	}

	srcMsgs, _, err := readForeign(ctx, s, sess)
	if err != nil {
		t.Fatal(err)
	}
	var want []xMsg
	for _, m := range srcMsgs {
		if m.Role == xContext {
			continue
		}
		var blocks []xBlock
		for _, b := range m.Blocks {
			if b.Type == xCall {
				b.Name = "Bash" // written as Claude Code's own shell tool
				b.ID, _ = ccCallID(b.ID)
			}
			if b.Type != xThinking || m.Provider == "anthropic" {
				blocks = append(blocks, b)
			}
		}
		if m.Role == xToolResult {
			m.ToolName = "Bash"
			m.CallID, _ = ccCallID(m.CallID)
		}
		m.Blocks = blocks
		want = append(want, m)
	}
	s2 := openStore(t)
	if _, err := Import(ctx, s2, []string{out}, Options{Format: FormatClaudeCode}); err != nil {
		t.Fatal(err)
	}
	back := allSessions(t, s2)
	if len(back) != 1 || back[0].ID != sid {
		t.Fatalf("read back %+v", back)
	}
	got, loss, err := readForeign(ctx, s2, back[0])
	if err != nil || !loss.empty() {
		t.Fatalf("read back: %v %v", err, loss)
	}
	if w, g := strings.Join(xDigest(want), "\n"), strings.Join(xDigest(got), "\n"); w != g {
		t.Errorf("read back:\n%s\nwant\n%s", g, w)
	}
}

// FuzzClaudeCodeTranscript feeds one body, as an entry of each source
// format, to the neutral reader and the Claude Code writer: nothing
// panics, every line written is valid JSON, and a body read without loss
// reads back from the lines to the same conversation, less the thinking
// and context messages the writer counted as left out.
func FuzzClaudeCodeTranscript(f *testing.F) {
	for _, seed := range []string{
		`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"s"},{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls"}}],"provider":"anthropic","api":"anthropic-messages","model":"m"}}`,
		`{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":true}}`,
		`{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"r"}],"encrypted_content":"x"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}`,
		`{"role":"assistant","content":"x","reasoning_content":"r","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		`{"role":"user","content":[{"type":"text","text":"<b>✍</b>"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}`,
	} {
		f.Add([]byte(seed))
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, format := range []string{FormatCodex, FormatPi, FormatPicoclaw, FormatOpencode, ""} {
			r := &xReader{format: format, names: map[string]string{}}
			r.entry(sessiondb.Entry{Kind: sessiondb.KindMessage, Body: body, CreatedAt: t0})
			var lo LeftOut
			data, _, err := ccTranscript(context.Background(), r.msgs, format, "00000000-0000-4000-8000-000000000000", "/p", &lo)
			if err != nil {
				continue // a value JSON cannot encode, refused
			}
			back := &xReader{format: FormatClaudeCode, names: map[string]string{}}
			for _, l := range bytes.Split(data, []byte("\n")) {
				if len(l) == 0 {
					continue
				}
				if !json.Valid(l) {
					t.Fatalf("%s: invalid line written: %s", format, l)
				}
				back.entry(sessiondb.Entry{Kind: sessiondb.KindMessage, Body: l, CreatedAt: t0})
			}
			if !r.loss.empty() || !utf8.Valid(body) || strings.Contains(string(body), `\u`) {
				continue
			}
			if !back.loss.empty() {
				t.Fatalf("%s: lines we wrote read back with loss %s", format, &back.loss)
			}
			var want []xMsg
			left := 0
			called, bash := map[string]bool{}, map[string]bool{}
			for _, m := range r.msgs {
				for _, b := range m.Blocks {
					if b.Type == xCall {
						called[b.ID] = true
					}
				}
			}
			for _, m := range r.msgs {
				if m.Role == xToolResult && !called[m.CallID] {
					m.ToolName = "" // Claude Code names a result by its call
				}
				if m.Role == xToolResult && bash[m.CallID] {
					m.ToolName = "Bash"
				}
				if m.Role == xToolResult {
					m.CallID, _ = ccCallID(m.CallID)
				}
				if m.Role == xContext {
					left++
					continue
				}
				var blocks []xBlock
				for _, b := range m.Blocks {
					if b.Type == xThinking && !ccSendable(m, b) {
						left++
						continue
					}
					if args, ok := ccBashArgs(b.Name, b.Args); ok && b.Type == xCall {
						b.Name, b.Args = "Bash", args
						bash[b.ID] = true
					}
					if b.Type == xCall {
						b.ID, _ = ccCallID(b.ID)
					}
					blocks = append(blocks, b)
				}
				if len(blocks) == 0 && len(m.Blocks) > 0 && m.Role == xAssistant {
					continue
				}
				m.Blocks = blocks
				want = append(want, m)
			}
			counted := 0
			for _, n := range lo.Thinking {
				counted += n
			}
			for _, n := range lo.Context {
				counted += n
			}
			if counted != left {
				t.Fatalf("%s: %d left out, %d counted (%+v)", format, left, counted, lo)
			}
			if w, g := strings.Join(xDigest(want), "\n"), strings.Join(xDigest(back.msgs), "\n"); w != g {
				t.Fatalf("%s: Claude Code round trip:\n%s\n%s", format, w, g)
			}
		}
	})
}

// TestCCBashArgs: which shell calls are written as Claude Code's Bash.
func TestCCBashArgs(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"bash", `{"command":"ls -l"}`, `{"command":"ls -l"}`},
		{"run_shell_command", `{"command":"ls","description":"List"}`, `{"command":"ls","description":"List"}`},
		{"exec_command", `{"cmd":"echo \"a\""}`, `{"command":"echo \"a\""}`},
		{"exec_command", `{"cmd":"ls","workdir":"/x"}`, ""}, // a directory Bash has no place for
		{"bash", `{"command":"sleep 9","timeout":5}`, ""},   // seconds, not Bash's milliseconds
		{"run_shell_command", `{"command":"ls","directory":"x"}`, ""},
		{"exec_command", `{"description":"d","cmd":"ls"}`, ""}, // Codex has no description
		{"bash", `{"command":""}`, ""},
		{"bash", `{"command":["ls"]}`, ""},
		{"shell", `{"command":["ls"]}`, ""},
		{"Read", `{"command":"ls"}`, ""},
	} {
		got, ok := ccBashArgs(c.name, json.RawMessage(c.args))
		if ok != (c.want != "") || ok && string(got) != c.want {
			t.Errorf("%s %s: %s %v, want %q", c.name, c.args, got, ok, c.want)
		}
	}
}

// TestCCCallID: ids Anthropic's API accepts are kept; others get one it
// accepts, the same for the same id.
func TestCCCallID(t *testing.T) {
	for _, id := range []string{"toolu_01A", "call_sm010001", "run_shell_command__sm010002", "a-b"} {
		if got, ok := ccCallID(id); !ok || got != id {
			t.Errorf("%q: %q %v, want it kept", id, got, ok)
		}
	}
	seen := map[string]bool{}
	for _, id := range []string{"call_1|fc_1", "call_2|fc_2", "", "a.b", strings.Repeat("x", 65), "ü"} {
		got, ok := ccCallID(id)
		again, _ := ccCallID(id)
		if ok || got != again || seen[got] {
			t.Errorf("%q: %q %v (again %q)", id, got, ok, again)
		}
		if kept, ok := ccCallID(got); !ok || kept != got {
			t.Errorf("%q: the new id %q is not accepted", id, got)
		}
		seen[got] = true
	}
}
