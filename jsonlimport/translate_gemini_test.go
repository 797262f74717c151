package jsonlimport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
)

// TestGeminiTranslated writes Codex sessions (reasoning signed by
// OpenAI, tool calls and results) as Gemini CLI
// chats and checks the shapes Gemini CLI resumes: the header (sessionId,
// the cwd's projectHash, kind main), records with fresh UUID ids, every
// functionCall answered by a functionResponse of its id in the next
// record, thinking as thought parts without the foreign signature.
func TestGeminiTranslated(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if _, err := Import(ctx, s, []string{filepath.Join("..", "testdata", "agents", "codex")}, Options{Format: FormatCodex}); err != nil {
		t.Fatal(err)
	}
	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$`)
	calls, thoughts, written := 0, 0, 0
	for _, sess := range allSessions(t, s) {
		out := t.TempDir()
		files, err := Export(ctx, s, []string{sess.ID}, FormatGemini, out)
		if err != nil {
			if !errors.Is(err, ErrUntranslatable) {
				t.Errorf("%s: %v", sess.ID, err)
			}
			continue
		}
		written++
		if len(files) != 1 || !regexp.MustCompile(`/tmp/sessiondb/chats/session-\d{4}-\d\d-\d\dT\d\d-\d\d-[^/]{1,8}\.jsonl$`).MatchString(filepath.ToSlash(files[0])) {
			t.Fatalf("%s: files %v, want one tmp/sessiondb/chats/session-<minute>-<id8>.jsonl", sess.ID, files)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		type record struct {
			ID      string                       `json:"id"`
			Type    string                       `json:"type"`
			Content []map[string]json.RawMessage `json:"content"`
		}
		var hdr map[string]any
		var recs []record
		for i, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if i == 0 {
				if err := json.Unmarshal(l, &hdr); err != nil {
					t.Fatal(err)
				}
				continue
			}
			var r record
			if err := json.Unmarshal(l, &r); err != nil {
				t.Fatalf("%s line %d: %v", sess.ID, i+1, err)
			}
			recs = append(recs, r)
		}
		var attrs struct {
			CWD string `json:"cwd"`
		}
		_ = json.Unmarshal(sess.Attrs, &attrs)
		sum := sha256.Sum256([]byte(attrs.CWD))
		if hdr["sessionId"] != sess.ID || hdr["projectHash"] != hex.EncodeToString(sum[:]) || hdr["kind"] != "main" || hdr["startTime"] == nil {
			t.Fatalf("%s: header %v", sess.ID, hdr)
		}
		seen := map[string]bool{}
		for i, r := range recs {
			if !uuidRE.MatchString(r.ID) || seen[r.ID] {
				t.Errorf("%s record %d: id %q is not a fresh UUID", sess.ID, i, r.ID)
			}
			seen[r.ID] = true
			if r.Type != "user" && r.Type != "gemini" {
				t.Errorf("%s record %d: type %q", sess.ID, i, r.Type)
			}
			for _, p := range r.Content {
				if p["thought"] != nil {
					thoughts++
					if p["thoughtSignature"] != nil {
						t.Errorf("%s record %d: an OpenAI signature written as a thoughtSignature", sess.ID, i)
					}
				}
				var fc struct{ ID string }
				if p["functionCall"] == nil || json.Unmarshal(p["functionCall"], &fc) != nil {
					continue
				}
				calls++
				answered := false
				if i+1 < len(recs) && recs[i+1].Type == "user" {
					for _, q := range recs[i+1].Content {
						var fr struct{ ID string }
						if q["functionResponse"] != nil && json.Unmarshal(q["functionResponse"], &fr) == nil && fr.ID == fc.ID {
							answered = true
						}
					}
				}
				if !answered {
					t.Errorf("%s record %d: call %s not answered in the next record", sess.ID, i, fc.ID)
				}
			}
		}
	}
	if written == 0 || calls == 0 || thoughts == 0 {
		t.Fatalf("%d sessions written, %d calls, %d thought parts: the fixtures have all", written, calls, thoughts)
	}
}

// TestGeminiCarried: another vendor's signature is cleared, Google's
// kept, redacted thinking and empty text left out, and a message left
// empty dropped (a tool result stays, even empty).
func TestGeminiCarried(t *testing.T) {
	in := []xMsg{
		{Role: xAssistant, API: "anthropic-messages", Blocks: []xBlock{{Type: xThinking, Text: "t", Signature: "sig"}, {Type: xText, Text: ""}}},
		{Role: xAssistant, API: "google-generative-ai", Blocks: []xBlock{{Type: xThinking, Text: "g", Signature: "gsig"}}},
		{Role: xAssistant, Blocks: []xBlock{{Type: xThinking, Redacted: true, Signature: "data"}}},
		{Role: xToolResult, CallID: "c1"},
	}
	got := xDigest(geminiCarried(in))
	want := []string{
		`assistant thinking"t" sig"" redacted=false`,
		`assistant thinking"g" sig"gsig" redacted=false`,
		`toolResult[c1  err=false]`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d: got %s, want %s", i, got[i], want[i])
		}
	}
	if in[0].Blocks[0].Signature != "sig" {
		t.Error("geminiCarried changed its input")
	}
}

// FuzzGeminiQwenWriters reads a fuzzed line of several source formats
// into the neutral conversation, writes it as a Gemini CLI and as a Qwen
// Code chat, and reads every line written back with our readers: the
// lines are valid JSON and, when the source read without loss, hold the
// conversation geminiCarried says they carry (context messages
// included).
func FuzzGeminiQwenWriters(f *testing.F) {
	for _, seed := range []string{
		`{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"hi"},{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"ok"}],"is_error":true},{"type":"text","text":"next"}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"application/pdf","data":"AAAA"}}]}}`,
		`{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"redacted_thinking","data":"x"},{"type":"text","text":""}]}}`,
		`{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"r"}],"encrypted_content":"x"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}`,
		`{"role":"assistant","content":"x","reasoning_content":"r","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		`{"info":{"role":"assistant","providerID":"p","modelID":"m"},"parts":[{"type":"reasoning","text":"r","metadata":{"anthropic":{"signature":"s"}}},{"type":"text","text":"t"},{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls"},"output":"ok"}},{"type":"tool","tool":"read","callID":"d","state":{"status":"error","input":{},"error":"no"}}]}`,
	} {
		f.Add([]byte(seed))
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sess := sessiondb.Session{ID: "01a24b2d-56b0-7ef2-a254-f50b64f4f6df", CreatedAt: t0}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, format := range []string{FormatClaudeCode, FormatCodex, FormatOpencode, ""} {
			r := &xReader{format: format, names: map[string]string{}}
			r.entry(sessiondb.Entry{Kind: sessiondb.KindMessage, Body: body, CreatedAt: t0})
			carried := geminiCarried(r.msgs)
			if len(carried) == 0 {
				continue // refused by geminiTranslated and qwenTranslated
			}
			for _, target := range []string{FormatGemini, FormatQwen} {
				write := geminiFile
				if target == FormatQwen {
					write = qwenFile
				}
				data, err := write(sess, "/p", carried)
				if err != nil {
					if !errors.Is(err, ErrUntranslatable) {
						t.Fatalf("%s→%s: %v", format, target, err)
					}
					continue
				}
				back := &xReader{format: target, names: map[string]string{}}
				for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
					if !json.Valid(l) {
						t.Fatalf("%s→%s: invalid line %s", format, target, l)
					}
					back.entry(sessiondb.Entry{Kind: sessiondb.KindMessage, Body: l, CreatedAt: t0})
				}
				var unwritable xLoss
				geminiUnwritable(carried, &unwritable)
				if !r.loss.empty() || !unwritable.empty() || !utf8.Valid(body) || strings.Contains(string(body), `\u`) || geminiDupResults(carried) {
					continue
				}
				if !back.loss.empty() {
					t.Fatalf("%s→%s: lines we wrote read back with loss %s", format, target, &back.loss)
				}
				if w, g := strings.Join(xDigest(carried), "\n"), strings.Join(xDigest(back.msgs), "\n"); w != g {
					t.Fatalf("%s→%s round trip:\n%s\n---\n%s", format, target, w, g)
				}
			}
		}
	})
}

// geminiDupResults reports whether msgs holds two results of one call
// with the same text, which our Gemini reader reads as one (Gemini CLI
// keeps a copy of each result).
func geminiDupResults(msgs []xMsg) bool {
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Role != xToolResult {
			continue
		}
		k := m.CallID + "\x00" + geminiResultPart(m).FunctionResponse.Response["output"] + "\x00" + geminiResultPart(m).FunctionResponse.Response["error"]
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}
