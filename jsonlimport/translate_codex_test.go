package jsonlimport

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/codex"
)

// piSessionA is session A of the real pi corpus (testdata/agents/pi):
// thinking, two parallel calls, a failing call, a 1,500-line output.
const piSessionA = "01a24b2d-7e36-705c-94df-d753808818ac"

// TestCodexTranslatedPi: a pi session exported as Codex is refused by a
// plain export (a rollout has no shape for its thinking and its error
// flag: named, nothing written); under LeaveOutUncarried it is written
// as a rollout named after its thread id, the left-out kinds named, and
// our Codex reader reads back every prompt, text, call with its
// arguments and result, in order.
func TestCodexTranslatedPi(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	if _, err := Import(ctx, s, []string{filepath.Join("..", "testdata", "agents", "pi", "home")}, Options{Format: FormatPi}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, err := Export(ctx, s, []string{piSessionA}, FormatCodex, out)
	if !errors.Is(err, ErrUntranslatable) || !strings.Contains(err.Error(), "thinking block") || !strings.Contains(err.Error(), "error flag") {
		t.Fatalf("plain export: %v, want ErrUntranslatable naming the thinking and the error flag", err)
	}
	if tree := treeOf(t, out); len(tree) > 0 {
		t.Fatalf("refused but wrote %v", tree)
	}

	var lost []string
	files, err := Export(LeaveOutUncarried(ctx, &lost), s, []string{piSessionA}, FormatCodex, out)
	if err != nil || len(files) != 1 {
		t.Fatalf("export: %v %v", files, err)
	}
	joined := strings.Join(lost, "; ")
	if len(lost) != 3 || !strings.Contains(joined, "3 thinking blocks") || !strings.Contains(joined, "1 error flag") ||
		!strings.Contains(joined, "4 bash calls written as Codex's exec_command") {
		t.Errorf("lost = %q, want the 3 thinking blocks, 1 error flag and 4 bash calls named", lost)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if id := codex.ThreadID(data); id != piSessionA || !strings.HasSuffix(files[0], "-"+piSessionA+".jsonl") || !codex.RolloutName(filepath.Base(files[0])) {
		t.Errorf("thread id %q, file %s", id, files[0])
	}

	src, _, err := readForeign(ctx, s, mustGet(t, s, piSessionA))
	if err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t)
	if _, err := Import(ctx, s2, []string{out}, Options{Format: FormatCodex}); err != nil {
		t.Fatal(err)
	}
	back := allSessions(t, s2)
	if len(back) != 1 || back[0].ID != piSessionA {
		t.Fatalf("read back %d sessions: %+v", len(back), back)
	}
	got, gotLoss, err := readForeign(ctx, s2, back[0])
	if err != nil || !gotLoss.empty() {
		t.Fatalf("read back: %v %v", err, gotLoss)
	}
	// The source without its thinking and error flags, its bash calls as
	// exec_command calls, is what comes back.
	var want []xMsg
	mapped := map[string]bool{}
	for _, m := range src {
		var blocks []xBlock
		for _, b := range m.Blocks {
			if b.Type == xCall {
				if n, a, _, ok := CodexCall(b.Name, b.Args); ok {
					b.Name, b.Args, mapped[b.ID] = n, a, true
				}
			}
			if b.Type != xThinking {
				blocks = append(blocks, b)
			}
		}
		if m.Role == xToolResult && mapped[m.CallID] {
			m.ToolName = "exec_command"
		}
		m.Blocks, m.IsError = blocks, false
		if m.Role == xAssistant && len(blocks) == 0 {
			continue
		}
		want = append(want, m)
	}
	w, g := xDigest(want), xDigest(got)
	if strings.Join(w, "\n") != strings.Join(g, "\n") {
		t.Errorf("the rollout does not carry the conversation:\n%s", firstDiff(w, g))
	}
	for _, p := range []string{"echo alpha", "seq 1 1500", "nonexistent-sessiondb-path", "edited by hand"} {
		if !strings.Contains(strings.Join(g, "\n"), p) {
			t.Errorf("%q not read back", p)
		}
	}
}

func mustGet(t *testing.T, s sessiondb.Store, id string) sessiondb.Session {
	t.Helper()
	sess, err := s.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// TestCodexThreadID: a UUID session ID is kept; any other (opencode's
// ses_…) becomes a UUIDv7 of the session's creation time, the same one
// each time, different for different IDs.
func TestCodexThreadID(t *testing.T) {
	at := time.Date(2026, 12, 6, 11, 46, 32, 365e6, time.UTC)
	keep := "01a24b2d-56b0-7ef2-a254-f50b64f4f6df"
	if got := codexThreadID(sessiondb.Session{ID: keep, CreatedAt: at}); got != keep {
		t.Errorf("UUID %s became %s", keep, got)
	}
	a := codexThreadID(sessiondb.Session{ID: "ses_db4d609d9ffei6zjaIrZe0O5hA", CreatedAt: at})
	u, err := uuid.Parse(a)
	if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
		t.Fatalf("%s: %v, version %d", a, err, u.Version())
	}
	if sec, nsec := u.Time().UnixTime(); time.Unix(sec, nsec).UnixMilli() != at.UnixMilli() {
		t.Errorf("%s holds %v, want %v", a, time.Unix(sec, nsec).UTC(), at)
	}
	if b := codexThreadID(sessiondb.Session{ID: "ses_db4d609d9ffei6zjaIrZe0O5hA", CreatedAt: at}); b != a {
		t.Errorf("not stable: %s, %s", a, b)
	}
	if c := codexThreadID(sessiondb.Session{ID: "ses_other", CreatedAt: at}); c == a {
		t.Errorf("two IDs, one thread id %s", c)
	}
}

// TestCodexCall: the other agents' shell calls become exec_command
// calls keeping the command and the directory, naming what they drop;
// other calls, and shell calls without a command, are not mapped.
func TestCodexCall(t *testing.T) {
	for _, c := range []struct {
		name, args, want, dropped string
		ok                        bool
	}{
		{"Bash", `{"command":"ls -la","description":"List","timeout":5}`, `{"cmd":"ls -la"}`, "description,timeout", true},
		{"run_shell_command", `{"command":"make <x>","directory":"/src"}`, `{"cmd":"make <x>","workdir":"/src"}`, "", true},
		{"bash", `{"command":"echo 你好"}`, `{"cmd":"echo 你好"}`, "", true},
		{"bash", `{"command":""}`, "", "", false},
		{"bash", `{"command":["ls"]}`, "", "", false},
		{"Read", `{"file_path":"/a"}`, "", "", false},
		{"Bash", `not json`, "", "", false},
	} {
		n, a, d, ok := CodexCall(c.name, []byte(c.args))
		if ok != c.ok || ok && (n != "exec_command" || string(a) != c.want || strings.Join(d, ",") != c.dropped) {
			t.Errorf("%s %s: %s %s %q %v", c.name, c.args, n, a, d, ok)
		}
	}
}

// FuzzCodexItems feeds one body, as an entry of each source format, to
// the neutral reader, and its messages (shell calls mapped by CodexCall)
// to the Codex item writer: nothing panics, every line written is valid
// JSON, and our Codex reader reads the lines back without loss, with as
// many tool calls and results.
func FuzzCodexItems(f *testing.F) {
	for _, seed := range []string{
		`{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls","description":"d"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"ok"},{"type":"text","text":"two"}]}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}}`,
		`{"role":"assistant","content":"x","tool_calls":[{"id":"c","type":"function","function":{"name":"run_shell_command","arguments":"{\"command\":\"ls\",\"directory\":\"/d\"}"}}]}`,
		`{"role":"system","content":"rules"}`,
	} {
		f.Add([]byte(seed))
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, format := range []string{FormatClaudeCode, FormatPi, FormatOpencode, ""} {
			r := &xReader{format: format, names: map[string]string{}}
			r.entry(sessiondb.Entry{Kind: sessiondb.KindMessage, Body: body, CreatedAt: t0})
			if hard, _ := codexUncarried(r.msgs); !r.loss.empty() || !hard.empty() {
				continue
			}
			back := &xReader{format: FormatCodex, names: map[string]string{}}
			var calls, results int
			for _, m := range r.msgs {
				if m.Role == xToolResult {
					results++
				}
				for j, b := range m.Blocks {
					if b.Type == xCall {
						calls++
						if n, a, _, ok := CodexCall(b.Name, b.Args); ok {
							m.Blocks[j].Name, m.Blocks[j].Args = n, a
						}
					}
				}
				for _, it := range codexItems(m) {
					line := noEscapeJSON(map[string]any{"type": "response_item", "payload": it}, &xLoss{})
					if !json.Valid(line) {
						t.Fatalf("%s: invalid line %s", format, line)
					}
					back.entry(sessiondb.Entry{Kind: sessiondb.KindMessage, Body: line, CreatedAt: t0})
				}
			}
			if !back.loss.empty() {
				t.Fatalf("%s: the items read back with loss %s", format, &back.loss)
			}
			var gotCalls, gotResults int
			for _, m := range back.msgs {
				if m.Role == xToolResult {
					gotResults++
				}
				for _, b := range m.Blocks {
					if b.Type == xCall {
						gotCalls++
					}
				}
			}
			if gotCalls != calls || gotResults != results {
				t.Fatalf("%s: %d calls and %d results written, %d and %d read back", format, calls, results, gotCalls, gotResults)
			}
		}
	})
}

// FuzzCodexCall: CodexCall never panics, and a call it maps is an
// exec_command call whose arguments are a JSON object with a command.
func FuzzCodexCall(f *testing.F) {
	f.Add("Bash", []byte(`{"command":"ls","description":"d"}`))
	f.Add("run_shell_command", []byte(`{"command":"ls","directory":"/d"}`))
	f.Add("bash", []byte(`{"command":1}`))
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		n, a, _, ok := CodexCall(name, args)
		if !ok {
			return
		}
		var out struct {
			Cmd string `json:"cmd"`
		}
		if n != "exec_command" || json.Unmarshal(a, &out) != nil || out.Cmd == "" {
			t.Fatalf("%s %s: %s %s", name, args, n, a)
		}
	})
}
