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
	"testing"
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
