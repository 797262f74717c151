package jsonlimport

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/codex"
)

// The rollouts of testdata/codex-real were written by the real Codex CLI
// (0.171.0) against a fake Responses API (testdata/gen/codex-real/README.md
// says how and which scenarios). Three oracles check their import:
// ccusage's reports on the same tree (usage), the requests Codex sent when
// it resumed a session (how Codex itself reads its rollout), and the
// export (the same bytes back).

// codexRealRoot is the copy of the Codex home the generator wrote.
var codexRealRoot = filepath.Join("..", "testdata", "codex-real")

// importCodexReal imports testdata/codex-real/codex-home into a new store.
func importCodexReal(t *testing.T) (sessiondb.Store, Report) {
	t.Helper()
	s := openStore(t)
	rep, err := Import(context.Background(), s, []string{filepath.Join(codexRealRoot, "codex-home")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Errorf("problems: %v", rep.Problems)
	}
	if rep.Sessions != 10 {
		t.Fatalf("imported %d sessions, want the 10 the generator made", rep.Sessions)
	}
	return s, rep
}

// ccCodexModel is one model of a row of ccusage's Codex reports.
type ccCodexModel struct {
	Input     int64 `json:"inputTokens"`
	Output    int64 `json:"outputTokens"`
	CacheRead int64 `json:"cacheReadTokens"`
	Reasoning int64 `json:"reasoningOutputTokens"`
	Total     int64 `json:"totalTokens"`
	Fallback  bool  `json:"isFallback"`
}

// readCodexReport reads a ccusage Codex report: its rows (under list),
// each keyed by key, with the tokens per model.
func readCodexReport(t *testing.T, name, list, key string) map[string]map[string]ccCodexModel {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(codexRealRoot, "ccusage", name))
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]json.RawMessage
	var rows []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(rep[list], &rows); err != nil {
		t.Fatalf("%s: %s: %v", name, list, err)
	}
	out := map[string]map[string]ccCodexModel{}
	for _, row := range rows {
		var k string
		var models map[string]ccCodexModel
		if json.Unmarshal(row[key], &k) != nil || json.Unmarshal(row["models"], &models) != nil {
			t.Fatalf("%s: unreadable row", name)
		}
		out[k] = models
	}
	if len(out) == 0 {
		t.Fatalf("%s: no %s", name, list)
	}
	return out
}

// codexTokensOf is a usage row as ccusage reports Codex usage.
func codexTokensOf(r sessiondb.UsageRow) ccCodexModel {
	return ccCodexModel{Input: r.InputTokens, Output: r.OutputTokens, CacheRead: r.CacheReadTokens,
		Reasoning: r.ReasoningTokens, Total: r.InputTokens + r.CacheReadTokens + r.OutputTokens}
}

// addCodexTokens adds two rows (a report groups by provider too).
func addCodexTokens(a, b ccCodexModel) ccCodexModel {
	return ccCodexModel{Input: a.Input + b.Input, Output: a.Output + b.Output, CacheRead: a.CacheRead + b.CacheRead,
		Reasoning: a.Reasoning + b.Reasoning, Total: a.Total + b.Total}
}

// TestCodexRealUsageAgainstCcusage checks the usage imported from the real
// rollouts against ccusage 20.0.24's reports on them, per UTC day and model
// and per session and model, token for token (reasoning included).
func TestCodexRealUsageAgainstCcusage(t *testing.T) {
	ctx := context.Background()
	s, _ := importCodexReal(t)
	compare := func(what string, want map[string]map[string]ccCodexModel, got map[string]map[string]ccCodexModel) {
		t.Helper()
		rows := 0
		for k, models := range want {
			for model, w := range models {
				rows++
				w.Fallback = false
				if g := got[k][model]; g != w {
					t.Errorf("%s %s %s: sessiondb %+v, ccusage %+v", what, k, model, g, w)
				}
			}
		}
		for k, models := range got {
			for model, g := range models {
				if _, ok := want[k][model]; !ok && g != (ccCodexModel{}) {
					t.Errorf("%s %s %s: sessiondb %+v, ccusage has no row", what, k, model, g)
				}
			}
		}
		t.Logf("%s: %d rows compared", what, rows)
	}

	days, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByDay: true, ByModel: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]ccCodexModel{}
	for _, r := range days {
		if got[r.Day] == nil {
			got[r.Day] = map[string]ccCodexModel{}
		}
		got[r.Day][r.Model] = addCodexTokens(got[r.Day][r.Model], codexTokensOf(r)) // one row per provider
	}
	compare("day", readCodexReport(t, "codex-daily.json", "daily", "date"), got)

	// ccusage names a session by its file's path under sessions/ (or
	// archived_sessions/), without .jsonl.
	got = map[string]map[string]ccCodexModel{}
	home, err := filepath.Abs(filepath.Join(codexRealRoot, "codex-home"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sess := range allSessions(t, s) {
		rel, err := filepath.Rel(home, sess.SourcePath)
		if err != nil {
			t.Fatal(err)
		}
		_, rel, _ = strings.Cut(filepath.ToSlash(rel), "/")
		key := strings.TrimSuffix(rel, ".jsonl")
		rows, err := s.UsageReport(ctx, sessiondb.UsageQuery{SessionID: sess.ID, ByModel: true})
		if err != nil {
			t.Fatal(err)
		}
		got[key] = map[string]ccCodexModel{}
		for _, r := range rows {
			got[key][r.Model] = addCodexTokens(got[key][r.Model], codexTokensOf(r))
		}
	}
	compare("session", readCodexReport(t, "codex-session.json", "sessions", "sessionId"), got)
}

// codexRequest is a request the fake server logged.
type codexRequest struct {
	N        int    `json:"n"`
	Scenario string `json:"scenario"`
	Body     struct {
		Model  string            `json:"model"`
		Thread string            `json:"prompt_cache_key"`
		Input  []json.RawMessage `json:"input"`
	} `json:"body"`
}

// codexRealRequests reads requests.jsonl.
func codexRealRequests(t *testing.T) []codexRequest {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(codexRealRoot, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []codexRequest
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var r codexRequest
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("requests.jsonl: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// codexItem is a response item as compared: its JSON object.
type codexItem map[string]any

func (it codexItem) str(k string) string { s, _ := it[k].(string); return s }

// codexTranscriptItems returns the response items of the effective
// transcript of session id, in order.
func codexTranscriptItems(t *testing.T, s sessiondb.Store, id string) []codexItem {
	t.Helper()
	entries, err := s.Load(context.Background(), id, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	if err != nil {
		t.Fatal(err)
	}
	var out []codexItem
	for _, e := range entries {
		var env struct {
			Payload codexItem `json:"payload"`
		}
		if err := json.Unmarshal(e.Body, &env); err != nil || env.Payload == nil {
			t.Fatalf("%s: message entry %d is not a response_item envelope: %s", id, e.Seq, e.Body)
		}
		out = append(out, env.Payload)
	}
	return out
}

// codexInternalKeys are keys of Codex's own bookkeeping in a rollout's
// items: Codex strips them from the items it sends to a custom provider and
// sends a part of them to OpenAI's.
var codexInternalKeys = map[string]bool{"internal_chat_message_metadata_passthrough": true}

// sameCodexItem reports how a transcript item differs from the item Codex
// sent ("" when it does not): every key of the sent item with an equal
// value, and no other key but Codex's internal ones.
func sameCodexItem(sent, ours codexItem) string {
	for k, v := range sent {
		if codexInternalKeys[k] {
			continue
		}
		if !reflect.DeepEqual(ours[k], v) {
			return "key " + k + " differs"
		}
	}
	for k := range ours {
		if _, ok := sent[k]; !ok && !codexInternalKeys[k] {
			return "key " + k + " is not sent"
		}
	}
	return ""
}

// codexItemLabel names an item in failure messages.
func codexItemLabel(it codexItem) string {
	b, _ := json.Marshal(it)
	if len(b) > 160 {
		b = append(b[:160], "…"...)
	}
	return string(b)
}

// TestCodexRealTranscriptAgainstRequests checks the effective transcript of
// every imported session against the last request Codex sent for it: the
// input of that request is the rollout as Codex itself reads it back (a
// resumed session's history, a compaction's replacement history, a fork's
// parent history), plus the turn's new user message. The transcript must
// hold the same items in the same order, then the last response's output
// (written after the request), and nothing else; and every function_call
// must be answered by one function_call_output with its call_id.
//
// The request's first item, a developer message with the base instructions
// of session_meta, is not a response item of the rollout: it is checked
// against the session_meta line instead.
func TestCodexRealTranscriptAgainstRequests(t *testing.T) {
	s, _ := importCodexReal(t)
	last := map[string]codexRequest{}
	for _, r := range codexRealRequests(t) {
		if r.Body.Thread == "" || len(r.Body.Input) == 0 {
			continue
		}
		if codexCompactionRequest(r) {
			continue // not the conversation: the history and Codex's compaction prompt
		}
		last[r.Body.Thread] = r
	}
	if len(last) != 10 {
		t.Fatalf("requests name %d threads, want 10", len(last))
	}
	var threads []string
	for id := range last {
		threads = append(threads, id)
	}
	sort.Strings(threads)
	for _, id := range threads {
		req := last[id]
		t.Run(req.Scenario+"-"+id[len(id)-4:], func(t *testing.T) {
			sess, err := s.Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			var sent []codexItem
			for _, raw := range req.Body.Input {
				var it codexItem
				if err := json.Unmarshal(raw, &it); err != nil {
					t.Fatal(err)
				}
				sent = append(sent, it)
			}
			// The base instructions.
			meta := codexSessionMeta(t, sess.SourcePath)
			if len(sent) == 0 || sent[0].str("role") != "developer" || codexText(sent[0]) != meta {
				t.Fatalf("request %d does not start with the base instructions %q", req.N, meta)
			}
			sent = sent[1:]
			ours := codexTranscriptItems(t, s, id)
			for i, it := range sent {
				if i >= len(ours) {
					t.Fatalf("request %d item %d %s: the transcript ends at %d items", req.N, i, codexItemLabel(it), len(ours))
				}
				if d := sameCodexItem(it, ours[i]); d != "" {
					t.Fatalf("request %d item %d: %s\n sent %s\n ours %s", req.N, i, d, codexItemLabel(it), codexItemLabel(ours[i]))
				}
			}
			if len(ours) == len(sent) {
				t.Errorf("the transcript ends with request %d: the answer to it is missing", req.N)
			}
			for _, it := range ours[len(sent):] {
				if it.str("role") == "user" || strings.HasSuffix(it.str("type"), "_output") {
					t.Errorf("after request %d the transcript holds %s, not the model's output", req.N, codexItemLabel(it))
				}
			}
			calls, outputs := map[string]int{}, map[string]int{}
			for _, it := range ours {
				switch it.str("type") {
				case "function_call":
					calls[it.str("call_id")]++
				case "function_call_output":
					if calls[it.str("call_id")] == 0 {
						t.Errorf("output of call %s before its call", it.str("call_id"))
					}
					outputs[it.str("call_id")]++
				}
			}
			for c, n := range calls {
				if n != 1 || outputs[c] != 1 {
					t.Errorf("call %s: %d calls, %d outputs", c, n, outputs[c])
				}
			}
			t.Logf("request %d: %d items sent, transcript %d items (%d calls)", req.N, len(sent), len(ours), len(calls))
		})
	}
}

// codexCompactionPrompt starts the user message Codex 0.171 appends to the
// history when it asks the model for a compaction summary.
const codexCompactionPrompt = "You are performing a CONTEXT CHECKPOINT COMPACTION."

// codexCompactionRequest reports whether r is Codex's request for a
// compaction summary: its input ends with the compaction prompt.
func codexCompactionRequest(r codexRequest) bool {
	in := r.Body.Input
	if len(in) == 0 {
		return false
	}
	var it codexItem
	if json.Unmarshal(in[len(in)-1], &it) != nil {
		return false
	}
	return it.str("role") == "user" && strings.HasPrefix(codexText(it), codexCompactionPrompt)
}

// codexText joins the texts of a message item's content.
func codexText(it codexItem) string {
	parts, _ := it["content"].([]any)
	var b strings.Builder
	for _, p := range parts {
		if m, ok := p.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// codexSessionMeta returns the base instructions of a rollout's
// session_meta line.
func codexSessionMeta(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(raw, []byte("\n"))
	var meta struct {
		Type    string `json:"type"`
		Payload struct {
			Base struct {
				Text string `json:"text"`
			} `json:"base_instructions"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(first, &meta); err != nil || meta.Type != "session_meta" {
		t.Fatalf("%s: first line is not a session_meta", path)
	}
	return meta.Payload.Base.Text
}

// TestCodexRealExportBytes exports every session imported from the real
// rollouts and checks that each comes back byte for byte, at the path
// Codex gave it (an archived rollout goes back under sessions/, by the date
// in its name: the codex package notes say why).
func TestCodexRealExportBytes(t *testing.T) {
	ctx := context.Background()
	s, _ := importCodexReal(t)
	sessions := allSessions(t, s)
	var ids []string
	for _, sess := range sessions {
		ids = append(ids, sess.ID)
	}
	out := t.TempDir()
	if _, err := Export(ctx, s, ids, FormatCodex, out); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(codexRealRoot, "codex-home")
	for _, sess := range sessions {
		want, err := os.ReadFile(sess.SourcePath)
		if err != nil {
			t.Fatal(err)
		}
		rel := codex.ExportPath(sess)
		if filepath.Base(rel) != filepath.Base(sess.SourcePath) {
			t.Errorf("%s: exported as %s, not under the name Codex gave it", sess.ID, rel)
		}
		if !strings.Contains(sess.SourcePath, "archived_sessions") {
			if _, err := os.Stat(filepath.Join(home, filepath.FromSlash(rel))); err != nil {
				t.Errorf("%s: exported to %s, not where Codex wrote it", sess.ID, rel)
			}
		}
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("%s: %v", sess.ID, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: export differs from %s", sess.ID, sess.SourcePath)
		}
	}
}

// TestCodexRealGrowth grows every real rollout line by line (as Codex
// appends to it, resumes and all) and checks that each result equals one
// import of the whole file, with and without a Follow: the fork's
// inherited history, read only on its first import, included.
func TestCodexRealGrowth(t *testing.T) {
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	longtest.Skip(t, "imports every rollout once per line")
	roots := []string{filepath.Join(codexRealRoot, "codex-home")}
	cases := growthCases(t, roots, true)
	for _, c := range growthCases(t, roots, true) {
		c.follow = true
		cases = append(cases, c)
	}
	counts, diffs := growthReport(t, cases)
	t.Logf("growth equality: %s", formatCounts(counts))
	for _, d := range diffs {
		t.Error(d)
	}
}
