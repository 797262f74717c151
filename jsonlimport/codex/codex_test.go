package codex_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/codex"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
)

// codexTestdata holds a Codex home built line by line from the shapes of
// formats/wild.md §2 (Codex cannot be run here).
var (
	codexTestdata = filepath.Join("..", "..", "testdata", "codex")
	piTestdata    = filepath.Join("..", "..", "testdata", "pi")
)

// codexLabel names a transcript entry: the item type, role and first text.
func codexLabel(e sessiondb.Entry) string {
	var env struct {
		Payload json.RawMessage `json:"payload"`
	}
	_ = json.Unmarshal(e.Body, &env)
	item := []byte(e.Body)
	if len(env.Payload) > 0 {
		item = env.Payload
	}
	var it struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Name    string `json:"name"`
		CallID  string `json:"call_id"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(item, &it)
	l := it.Type
	if it.Role != "" {
		l += "/" + it.Role
	}
	switch {
	case len(it.Content) > 0:
		l += " " + it.Content[0].Text
	case it.Name != "":
		l += " " + it.Name
	case it.CallID != "":
		l += " " + it.CallID
	}
	if e.Summary {
		l = "(summary) " + l
	}
	return l
}

// TestCodexGolden imports the Codex fixtures and compares every session
// with testdata/codex/expected (checked by hand against codex.go's rules).
func TestCodexGolden(t *testing.T) {
	got := wildtest.Snapshot(t, codex.Name, codexTestdata, codexLabel)
	wildtest.CheckGoldens(t, filepath.Join(codexTestdata, "expected"), got, 4)
}

// TestCodexTranscripts states the expected transcripts by hand: after a
// compacted line, its replacement history and the items after it; the
// event_msg mirrors are never in it.
func TestCodexTranscripts(t *testing.T) {
	got := wildtest.Snapshot(t, codex.Name, codexTestdata, codexLabel)
	const dir = "codex-home/sessions/"
	want := map[string][]string{
		dir + "2026/01/10/rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl": {
			"(summary) message/user Add a retry to the uploader.",
			"(summary) message/user Now add jitter.",
			"(summary) message/assistant Summary: retry with backoff and jitter were added; tests pass.",
			"message/user Write the changelog.",
			"message/assistant Changelog written.",
		},
		dir + "2025/05/02/rollout-2025-05-02T10-00-00-019f26cb-0000-7000-8000-000000000002.jsonl": {
			"message/user List the files.",
			"function_call shell",
			"function_call_output call_l1",
			"message/assistant Two files: a.go and b.go.",
		},
		// The torn reasoning line is lost; the call glued after it and the
		// output behind NULs are recovered.
		dir + "2026/01/12/rollout-2026-01-12T09-00-00-019f26cb-0000-7000-8000-000000000003.jsonl": {
			"message/user Fix the flaky test.",
			"function_call exec_command",
			"function_call_output call_d1",
			"message/assistant Fixed: the test raced on a shared map.",
		},
		dir + "2026/01/10/rollout-2026-01-10T09-30-00-019f26cb-0000-7000-8000-000000000004.jsonl": {
			"message/user Review the retry change.",
			"message/assistant Looks good.",
		},
	}
	for rel, w := range want {
		g, ok := got[rel]
		if !ok {
			t.Fatalf("%s not imported", rel)
		}
		if d := cmp.Diff(w, g.Transcript); d != "" {
			t.Errorf("%s transcript (-want +got):\n%s", rel, d)
		}
	}
	main := got[dir+"2026/01/10/rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl"]
	if main.Title != "Uploader retry and jitter" {
		t.Errorf("title %q, want the last thread_name of session_index.jsonl", main.Title)
	}
	fork := got[dir+"2026/01/10/rollout-2026-01-10T09-30-00-019f26cb-0000-7000-8000-000000000004.jsonl"]
	if fork.ParentID != "019f26cb-0000-7000-8000-000000000001" {
		t.Errorf("fork parent %q", fork.ParentID)
	}
}

// TestCodexUsage checks that a rollout's usage total equals its last
// total_token_usage (repeated counts add nothing, info null is skipped),
// split by day and model in usage_daily.
func TestCodexUsage(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	path := filepath.Join(codexTestdata, "codex-home", "sessions", "2026", "01", "10", "rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl")
	if _, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	tot, err := s.UsageTotals(ctx, "019f26cb-0000-7000-8000-000000000001")
	if err != nil {
		t.Fatal(err)
	}
	// The last total_token_usage: 27500 input of which 15000 cached, 980
	// output of which 200 reasoning; the repeated count at 19545 and the
	// count with info null add nothing.
	want := sessiondb.UsageTotals{Calls: 4, InputTokens: 27500 - 15000, CacheReadTokens: 15000, OutputTokens: 980, ReasoningTokens: 200}
	if tot.Calls != want.Calls || tot.InputTokens != want.InputTokens || tot.CacheReadTokens != want.CacheReadTokens ||
		tot.OutputTokens != want.OutputTokens || tot.ReasoningTokens != want.ReasoningTokens {
		t.Fatalf("totals %+v, want %+v", tot, want)
	}
	got := wildtest.UsageDaily(t, s)
	wantDaily := map[string][4]int64{
		"2026-01-10 gpt-5-codex": {19545 - 12000, 700, 12000, 0},
		"2026-01-11 gpt-5":       {27500 - 19545 - (15000 - 12000), 980 - 700, 15000 - 12000, 0},
	}
	if d := cmp.Diff(wantDaily, got); d != "" {
		t.Fatalf("usage_daily (-want +got):\n%s", d)
	}
}

// TestCodexResume checks that a grown rollout is continued from the
// offset, with the usage counted once.
func TestCodexResume(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(codexTestdata, "codex-home", "sessions", "2026", "01", "10", "rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl")
	raw, _ := os.ReadFile(src)
	lines := bytes.SplitAfter(raw, []byte("\n"))
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(src))
	s := jsonltest.OpenStore(t)
	for _, n := range []int{10, 20, len(lines)} {
		if err := os.WriteFile(path, bytes.Join(lines[:n], nil), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	id := "019f26cb-0000-7000-8000-000000000001"
	log, _ := s.Entries(ctx, id, 1, 0)
	if len(log) != len(lines)-1 { // the last SplitAfter element is empty
		t.Fatalf("log %d entries, want %d", len(log), len(lines)-1)
	}
	tot, _ := s.UsageTotals(ctx, id)
	if tot.InputTokens+tot.CacheReadTokens != 27500 || tot.Calls != 4 {
		t.Fatalf("input after three imports: %+v", tot)
	}
	tr, _ := s.Load(ctx, id, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	if len(tr) != 5 {
		t.Fatalf("transcript %d entries, want 5", len(tr))
	}
}

// TestCodexClaim checks detection by content: a rollout under any name is
// claimed; session_index.jsonl is taken without a unit.
func TestCodexClaim(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	jsonltest.CopyFile(t, filepath.Join(codexTestdata, "codex-home", "sessions", "2025", "05", "02", "rollout-2025-05-02T10-00-00-019f26cb-0000-7000-8000-000000000002.jsonl"), a)
	idx := filepath.Join(dir, "session_index.jsonl")
	jsonltest.CopyFile(t, filepath.Join(codexTestdata, "codex-home", "session_index.jsonl"), idx)
	other := filepath.Join(dir, "z.jsonl")
	jsonltest.CopyFile(t, filepath.Join(piTestdata, "sessions", "linear.jsonl"), other)
	units, rest := codex.Format{}.Claim([]string{a, idx, other})
	if len(units) != 1 || units[0].Path != a || fmt.Sprint(rest) != fmt.Sprint([]string{other}) {
		t.Fatalf("units %v rest %v", units, rest)
	}
}

// codexRealFork returns the first rollout of testdata/codex-real that
// Codex 0.171.0 wrote for `codex exec fork` (session E of the generator, a
// fork of A: rollout names sort by creation time): its session_meta names
// the parent (forked_from_id) and the parent's history it continues
// (history_base), and holds none of the parent's lines.
func codexRealFork(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "codex-real", "codex-home", "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := bytes.Cut(raw, []byte("\n"))
		if bytes.Contains(first, []byte(`"forked_from_id"`)) {
			return f
		}
	}
	t.Fatal("no fork among the real rollouts")
	return ""
}

// TestCodexForkUsage checks that a fork counts only its own calls. Codex
// carries the parent's token totals over into the fork, so the fork's first
// total_token_usage includes every call of the parent (counted in the
// parent's session already); ccusage counts the event's last_token_usage
// there, the one call the fork made.
func TestCodexForkUsage(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	path := codexRealFork(t)
	rep, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 1 {
		t.Fatalf("imported %d sessions", rep.Sessions)
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{})
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v %v", list, err)
	}
	tot, err := s.UsageTotals(ctx, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	// The fork's one response (the fake server's "second" step): 1500
	// input of which 1024 cached, 30 output.
	want := sessiondb.UsageTotals{Calls: 1, InputTokens: 1500 - 1024, CacheReadTokens: 1024, OutputTokens: 30}
	if tot.Calls != want.Calls || tot.InputTokens != want.InputTokens || tot.CacheReadTokens != want.CacheReadTokens ||
		tot.OutputTokens != want.OutputTokens || tot.ReasoningTokens != want.ReasoningTokens {
		t.Fatalf("totals %+v, want %+v", tot, want)
	}
}

// TestCodexForkTranscript checks the transcript of a fork that Codex
// 0.171.0 wrote without the parent's lines: its session_meta history_base
// names the parent thread and the byte offset of the parent's rollout up
// to which the fork continues it, and Codex resumes the fork with the
// parent's history up to there (the request it sent for the fork's turn
// starts with it: TestCodexRealTranscriptAgainstRequests). The fork's
// transcript is the parent's at that offset (the parent's whole file
// here), then the fork's own items.
func TestCodexForkTranscript(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	fork := codexRealFork(t)
	home := filepath.Join("..", "..", "testdata", "codex-real", "codex-home")
	if _, err := jsonlimport.Import(ctx, s, []string{home}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	labels := func(id string) []string {
		t.Helper()
		tr, err := s.Load(ctx, id, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range tr {
			l := strings.TrimPrefix(codexLabel(e), "(summary) ")
			if len(l) > 60 {
				l = l[:60]
			}
			out = append(out, l)
		}
		return out
	}
	var forkID, parentID string
	list, _, err := s.List(ctx, sessiondb.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sess := range list {
		if sess.SourcePath == mustAbs(t, fork) {
			forkID, parentID = sess.ID, sess.ParentID
		}
	}
	if forkID == "" || parentID == "" {
		t.Fatalf("fork %q with parent %q not imported", forkID, parentID)
	}
	want := append(labels(parentID), "message/user [[second]] A question in the fork.", "message/assistant Second answer: 42.")
	if d := cmp.Diff(want, labels(forkID)); d != "" {
		t.Fatalf("fork transcript (-want +got):\n%s", d)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCodexForkWithoutParent checks a fork imported without its parent's
// rollout: the transcript is the fork's own items, and a problem says what
// is missing.
func TestCodexForkWithoutParent(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	path := filepath.Join(t.TempDir(), filepath.Base(codexRealFork(t)))
	jsonltest.CopyFile(t, codexRealFork(t), path)
	rep, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !jsonltest.HasProblem(rep.Problems, filepath.Base(path), -1, "its rollout is not beside this one") {
		t.Fatalf("problems %v", rep.Problems)
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{})
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v %v", list, err)
	}
	tr, err := s.Load(ctx, list[0].ID, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 2 {
		t.Fatalf("transcript %d items, want the fork's own 2", len(tr))
	}
}

// TestCodexForkParentLink checks that a fork's parent is not read through
// a symbolic link: an archive someone sent could name one of the user's own
// rollouts as the parent of its fork.
func TestCodexForkParentLink(t *testing.T) {
	ctx := context.Background()
	fork := codexRealFork(t)
	raw, err := os.ReadFile(fork)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Payload struct {
			Base struct {
				ThreadID string `json:"thread_id"`
			} `json:"history_base"`
		} `json:"payload"`
	}
	first, _, _ := bytes.Cut(raw, []byte("\n"))
	if err := json.Unmarshal(first, &meta); err != nil || meta.Payload.Base.ThreadID == "" {
		t.Fatalf("fork without history_base: %v", err)
	}
	parents, _ := filepath.Glob(filepath.Join(filepath.Dir(fork), "rollout-*-"+meta.Payload.Base.ThreadID+".jsonl"))
	if len(parents) != 1 {
		t.Fatalf("parent rollouts %v", parents)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(fork))
	jsonltest.CopyFile(t, fork, path)
	if err := os.Symlink(mustAbs(t, parents[0]), filepath.Join(dir, filepath.Base(parents[0]))); err != nil {
		t.Fatal(err)
	}
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !jsonltest.HasProblem(rep.Problems, filepath.Base(path), -1, "its rollout is not beside this one") {
		t.Fatalf("problems %v", rep.Problems)
	}
}
