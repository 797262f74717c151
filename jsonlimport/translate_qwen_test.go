package jsonlimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/qwen"
)

// TestQwenTranslated writes Codex sessions (UUIDv7 ids, reasoning, tool
// calls and results) as Qwen Code chats and checks what Qwen Code needs
// to resume them: a file projects/<cwd folder>/chats/<id>.jsonl whose id
// is a UUIDv4 (Qwen Code takes no v7), one parentUuid chain from null,
// the cwd and sessionId on every record, each call answered by a later
// tool_result record of its id.
func TestQwenTranslated(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if _, err := Import(ctx, s, []string{filepath.Join("..", "testdata", "agents", "codex")}, Options{Format: FormatCodex}); err != nil {
		t.Fatal(err)
	}
	written, calls := 0, 0
	for _, sess := range allSessions(t, s) {
		out := t.TempDir()
		files, err := Export(ctx, s, []string{sess.ID}, FormatQwen, out)
		if err != nil {
			if !errors.Is(err, ErrUntranslatable) {
				t.Errorf("%s: %v", sess.ID, err)
			}
			continue
		}
		written++
		sid := qwen.SessionID(sess.ID)
		if sid == sess.ID {
			t.Fatalf("%s: a UUIDv7 kept as Qwen Code's session id", sess.ID)
		}
		var attrs struct {
			CWD string `json:"cwd"`
		}
		_ = json.Unmarshal(sess.Attrs, &attrs)
		want := filepath.Join(out, "projects", qwen.ProjectFolder(attrs.CWD), "chats", sid+".jsonl")
		if len(files) != 1 || files[0] != want {
			t.Fatalf("%s: files %v, want %s", sess.ID, files, want)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		var prev *string
		pending := map[string]bool{}
		for i, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var r struct {
				UUID       string  `json:"uuid"`
				ParentUUID *string `json:"parentUuid"`
				SessionID  string  `json:"sessionId"`
				Type       string  `json:"type"`
				CWD        string  `json:"cwd"`
				Message    struct {
					Role  string                       `json:"role"`
					Parts []map[string]json.RawMessage `json:"parts"`
				} `json:"message"`
				ToolCallResult *struct {
					CallID string `json:"callId"`
				} `json:"toolCallResult"`
			}
			if err := json.Unmarshal(l, &r); err != nil {
				t.Fatalf("%s line %d: %v", sess.ID, i+1, err)
			}
			if (prev == nil) != (r.ParentUUID == nil) || prev != nil && *prev != *r.ParentUUID {
				t.Errorf("%s line %d: parentUuid %v, want the previous record's uuid", sess.ID, i+1, r.ParentUUID)
			}
			u := r.UUID
			prev = &u
			if r.SessionID != sid || r.CWD != attrs.CWD {
				t.Errorf("%s line %d: sessionId %q cwd %q", sess.ID, i+1, r.SessionID, r.CWD)
			}
			switch r.Type {
			case "assistant":
				for _, p := range r.Message.Parts {
					var fc struct{ ID string }
					if p["functionCall"] != nil && json.Unmarshal(p["functionCall"], &fc) == nil {
						pending[fc.ID] = true
						calls++
					}
				}
			case "tool_result":
				if r.ToolCallResult == nil || !pending[r.ToolCallResult.CallID] {
					t.Errorf("%s line %d: a result of no call before it", sess.ID, i+1)
				} else {
					delete(pending, r.ToolCallResult.CallID)
				}
			case "user":
			default:
				t.Errorf("%s line %d: type %q", sess.ID, i+1, r.Type)
			}
		}
		if len(pending) > 0 {
			t.Errorf("%s: calls without a result: %v", sess.ID, pending)
		}
	}
	if written == 0 || calls == 0 {
		t.Fatalf("%d sessions written, %d calls: the fixtures have both", written, calls)
	}
}
