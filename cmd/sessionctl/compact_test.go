package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// seedLong creates session "long": six turns of long user and assistant
// messages, so that a summary is much shorter than what it replaces.
func seedLong(t *testing.T, db string) []string {
	t.Helper()
	var bodies []string
	for i := 1; i <= 6; i++ {
		q := fmt.Sprintf("Question %d: %s", i, strings.Repeat("please explain the write-ahead log in detail ", 20))
		a := fmt.Sprintf("Answer %d: %s", i, strings.Repeat("the WAL appends pages and checkpoints them later ", 20))
		for _, b := range []map[string]string{{"role": "user", "content": q}, {"role": "assistant", "content": a}} {
			raw, _ := json.Marshal(b)
			bodies = append(bodies, string(raw))
		}
	}
	withStore(t, db, func(st *sqlstore.Store) {
		var entries []sessiondb.Entry
		for _, b := range bodies {
			entries = append(entries, sessiondb.Message(b))
		}
		if _, err := st.Commit(context.Background(), "long", sessiondb.Commit{Create: &sessiondb.Session{Title: "WAL lecture"}, Append: entries}); err != nil {
			t.Fatal(err)
		}
	})
	return bodies
}

func TestCompactOffline(t *testing.T) {
	db := tempDB(t)
	bodies := seedLong(t, db)

	// --dry-run: the cut, and nothing written.
	var plan compactReport
	sessionctl(t, db, "compact", "long", "--keep", "1", "--dry-run", "--json").mustSucceed(t).decode(t, &plan)
	if !plan.DryRun || plan.Dropped != 10 || plan.Kept != 2 || plan.TokensBefore <= 0 || plan.Compacted {
		t.Errorf("dry run: %+v", plan)
	}
	r := sessionctl(t, db, "compact", "long", "--keep", "1", "--dry-run").mustSucceed(t)
	if !strings.Contains(r.stdout, "would summarize 10 of 12 messages, keeping 2 verbatim") {
		t.Errorf("dry run: %q", r.stdout)
	}
	if got := transcriptBodies(t, db, "long"); len(got) != 12 {
		t.Fatalf("dry run changed the transcript: %d messages", len(got))
	}

	r = sessionctl(t, db, "compact", "long", "--keep", "1").mustSucceed(t)
	if !strings.HasPrefix(r.stdout, "compacted long: summarized 10 messages") {
		t.Errorf("compact: %q", r.stdout)
	}
	got := transcriptBodies(t, db, "long")
	if len(got) != 3 || got[1] != bodies[10] || got[2] != bodies[11] {
		t.Fatalf("after compact --keep 1: %d messages: %v", len(got), got)
	}
	var summary struct{ Role, Content string }
	if err := json.Unmarshal([]byte(got[0]), &summary); err != nil || !strings.HasPrefix(summary.Content, "[Summary of the earlier conversation]") {
		t.Errorf("first message is not the summary: %s", got[0])
	}
	var raw []json.RawMessage
	sessionctl(t, db, "show", "long", "--json", "--all-entries").mustSucceed(t).decode(t, &raw)
	if len(raw) != 12 {
		t.Errorf("the summarized entries left the log before prune: %d", len(raw))
	}

	// Nothing left to drop: exit 0 with the reason.
	var res compactReport
	sessionctl(t, db, "compact", "long", "--keep", "1", "--json").mustSucceed(t).decode(t, &res)
	if res.Compacted || res.Reason == "" {
		t.Errorf("second compact: %+v", res)
	}
	// Below the threshold: nothing done.
	res = compactReport{}
	sessionctl(t, db, "compact", "long", "--threshold", "1000000", "--json").mustSucceed(t).decode(t, &res)
	if res.Compacted || !strings.Contains(res.Reason, "below the threshold") {
		t.Errorf("--threshold: %+v", res)
	}

	sessionctl(t, db, "compact", "nope").mustFail(t, exitError, `no session "nope"`)
	sessionctl(t, db, "compact", "long", "--summarizer", "magic").mustFail(t, exitUsage, `unknown --summarizer "magic"`)
	sessionctl(t, db, "compact", "long", "--keep", "-1").mustFail(t, exitUsage, "--keep must be >= 0")
	sessionctl(t, db, "compact", "long", "--model", "x").mustFail(t, exitUsage, "--model needs --summarizer openai")
}

func TestCompactOpenAI(t *testing.T) {
	db := tempDB(t)
	seedLong(t, db)
	var gotModel, gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct{ Model string }
		_ = json.Unmarshal(body, &req)
		gotModel, gotAuth = req.Model, r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"model":"tiny","choices":[{"message":{"role":"assistant","content":"The user asked six questions about the WAL."}}],"usage":{"prompt_tokens":900,"completion_tokens":12}}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("SESSIONDB_SUMMARY_MODEL", "")

	sessionctl(t, db, "compact", "long", "--summarizer", "openai").mustFail(t, exitError, "model")
	sessionctl(t, db, "compact", "long", "--summarizer", "openai", "--model", "tiny", "--keep", "2").mustSucceed(t)
	if gotModel != "tiny" || gotAuth != "Bearer sk-test" {
		t.Errorf("request: model %q, auth %q", gotModel, gotAuth)
	}
	got := transcriptBodies(t, db, "long")
	if len(got) != 5 || !strings.Contains(got[0], "The user asked six questions about the WAL.") {
		t.Errorf("after openai compact: %v", got)
	}
	// The model call is accounted in the usage ledger.
	var st statsReport
	sessionctl(t, db, "stats", "--json").mustSucceed(t).decode(t, &st)
	if st.Usage.Calls != 1 || st.Usage.InputTokens != 900 || st.Usage.OutputTokens != 12 {
		t.Errorf("usage after openai compact: %+v", st.Usage)
	}
}

// TestCompactClaudeCodeCorpus compacts a real Claude Code session of 707
// messages from the corpus (issue 22: it said "nothing to compact"): exit
// 0, what was dropped reported, the transcript starting again at a user
// prompt after the summary, and the session still exporting.
func TestCompactClaudeCodeCorpus(t *testing.T) {
	const id = "13f6131f-3289-46a0-9662-a2a36f544e35"
	file := filepath.Join(testdata, "corpus", "claude-code", "projects",
		"-home-lena-lava-hazel-home-lena-glacier-dune-walnut-cipher-saffron-canyon", id+".jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Skipf("no corpus: %v", err)
	}
	db := tempDB(t)
	sessionctl(t, db, "import", file).mustSucceed(t)
	before := transcriptBodies(t, db, id)

	var plan compactReport
	sessionctl(t, db, "compact", id, "--keep", "2", "--dry-run", "--json").mustSucceed(t).decode(t, &plan)
	if plan.Dropped == 0 || plan.Reason != "" {
		t.Fatalf("dry run: %+v", plan)
	}
	r := sessionctl(t, db, "compact", id, "--keep", "2", "--summarizer", "offline").mustSucceed(t)
	want := fmt.Sprintf("compacted %s: summarized %d messages", id, plan.Dropped)
	if !strings.HasPrefix(r.stdout, want) {
		t.Fatalf("compact: %q, want it to start with %q", r.stdout, want)
	}
	after := transcriptBodies(t, db, id)
	if len(after) >= len(before) {
		t.Fatalf("transcript %d -> %d entries", len(before), len(after))
	}
	var summary struct {
		Type             string `json:"type"`
		IsCompactSummary bool   `json:"isCompactSummary"`
		Message          struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal([]byte(after[0]), &summary); err != nil || summary.Type != "user" || !summary.IsCompactSummary ||
		!strings.HasPrefix(summary.Message.Content, "[Summary of the earlier conversation]\n\n[Offline summary of ") {
		t.Errorf("first entry is not a Claude Code compact summary: %.300s", after[0])
	}
	var first struct {
		Type    string `json:"type"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal([]byte(after[1]), &first); err != nil || first.Type != "user" || strings.Contains(string(first.Message.Content), "tool_result") {
		t.Errorf("kept tail does not start at a user prompt: %.300s", after[1])
	}
	out := t.TempDir()
	sessionctl(t, db, "export", id, "--format", "claude-code", "--out", out).mustSucceed(t)
}

// TestCompactBudgetSplitTurn: `compact --budget 20000` on the corpus's
// longest Claude Code session (a few prompts, hundreds of tool calls)
// keeps at most 20000 tokens by cutting inside the last turn (issue 38:
// it kept the whole turn before), says which turn, and `show` lists the
// turn and the files the summarized part read and changed.
func TestCompactBudgetSplitTurn(t *testing.T) {
	const id = "13f6131f-3289-46a0-9662-a2a36f544e35"
	file := filepath.Join(testdata, "corpus", "claude-code", "projects",
		"-home-lena-lava-hazel-home-lena-glacier-dune-walnut-cipher-saffron-canyon", id+".jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Skipf("no corpus: %v", err)
	}
	db := tempDB(t)
	sessionctl(t, db, "import", file).mustSucceed(t)
	var rep compactReport
	sessionctl(t, db, "compact", id, "--budget", "20000", "--json").mustSucceed(t).decode(t, &rep)
	if !rep.Compacted || rep.SplitTurn == nil || rep.SplitTurn.Prompt == "" || len(rep.ReadFiles) == 0 || len(rep.ModifiedFiles) == 0 {
		t.Fatalf("compact --budget: %+v", rep)
	}
	show := sessionctl(t, db, "show", id).mustSucceed(t).stdout
	for _, want := range []string{"The kept part starts inside the turn begun by the user prompt", "files read:    " + rep.ReadFiles[0], "files changed: " + rep.ModifiedFiles[0]} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%.2000s", want, show)
		}
	}
}
