package jsonlimport

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/internal/scriptmodel"
	"github.com/sessiondb/sessiondb/jsonlimport/copilot"
)

// copilotBinary is the Copilot CLI to run: $SESSIONDB_COPILOT, else the
// install testdata/gen/copilot/gen.sh keeps in its default cache.
func copilotBinary() string {
	if p := os.Getenv("SESSIONDB_COPILOT"); p != "" {
		return p
	}
	return "/tmp/sessiondb-copilot-cache/node_modules/.bin/copilot"
}

// TestCopilotWrittenResumes checks the Copilot CLI writer against Copilot
// CLI itself: a Qwen Code session the real Qwen Code wrote
// (testdata/agents/qwen) is exported as a Copilot CLI session, which the
// real Copilot CLI (offline, against the scripted model) resumes with a
// new prompt. Its request must hold the translated history: the same
// roles, tool call ids and texts as the session's messages, then the new
// prompt; and the scripted model's answer quotes the session's first
// prompt back.
func TestCopilotWrittenResumes(t *testing.T) {
	longtest.Skip(t, "runs the real Copilot CLI (~10 s)")
	bin := copilotBinary()
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("Copilot CLI not installed at %s (sh testdata/gen/copilot/gen.sh installs it; SESSIONDB_COPILOT names another)", bin)
	}
	ctx := context.Background()
	s := openStore(t)
	if _, err := Import(ctx, s, []string{"../testdata/agents/qwen/home"}, Options{Format: FormatQwen}); err != nil {
		t.Fatal(err)
	}
	var id string
	for _, sess := range allSessions(t, s) {
		if strings.Contains(sess.Title, "[[tools]]") {
			id = sess.ID
		}
	}
	if id == "" {
		t.Fatal("no tools session in testdata/agents/qwen")
	}
	sess, err := s.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	msgs, _, err := readForeign(ctx, s, sess)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if _, err := Export(ctx, s, []string{id}, FormatCopilot, filepath.Join(home, ".copilot")); err != nil {
		t.Fatal(err)
	}
	sid := copilot.SessionID(id)

	srv, err := scriptmodel.Start(scriptmodel.Options{IdleTimeout: 5 * time.Minute, MaxRequests: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	work := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, "--allow-all-tools", "--no-auto-update", "--resume="+sid, "-p", "What did I ask first? [[recall]]")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TZ=UTC", "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
		"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false", "COPILOT_PROVIDER_BASE_URL=" + srv.URL() + "/v1",
		"COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_API_KEY=offline", "COPILOT_MODEL=gpt-4.1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("copilot: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatalf("Copilot CLI sent no request\n%s", out)
	}
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, m := range body.Messages {
		if m.Role == "system" {
			continue
		}
		line := m.Role
		for _, c := range m.ToolCalls {
			line += " call:" + c.ID
		}
		if m.ToolCallID != "" {
			line += " result:" + m.ToolCallID
		}
		got = append(got, line)
	}
	for _, m := range msgs {
		line := map[string]string{xUser: "user", xAssistant: "assistant", xToolResult: "tool", xContext: "user"}[m.Role]
		for _, b := range m.Blocks {
			if b.Type == xCall {
				line += " call:" + b.ID
			}
		}
		if m.Role == xToolResult {
			line += " result:" + m.CallID
		}
		want = append(want, line)
	}
	want = append(want, "user")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Copilot CLI resumed\n%s\nwant the translated history and the new prompt\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if first := firstUserText(msgs); !strings.Contains(string(out), first) {
		t.Errorf("the answer does not quote the first prompt %q:\n%s", first, out)
	}
}

func firstUserText(msgs []xMsg) string {
	for _, m := range msgs {
		if m.Role == xUser {
			for _, b := range m.Blocks {
				if b.Type == xText {
					return b.Text
				}
			}
		}
	}
	return ""
}
