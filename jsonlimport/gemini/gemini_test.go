package gemini_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/gemini"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

var (
	// geminiReal holds a Gemini home written by Gemini CLI 0.61.0 and
	// 0.38.2 themselves (testdata/gen/geminiqwen/gen.sh), with the
	// requests each run sent (requests.jsonl) and the stats it printed
	// (runs.jsonl).
	geminiTestdata = filepath.Join("..", "..", "testdata", "gemini")
	geminiReal     = filepath.Join(geminiTestdata, "gemini-home")
	// geminiCrafted holds chats written by hand after Gemini CLI's source:
	// a rewind, damage, a header carrying the list, a migrated .json, a
	// devtools log.
	geminiCrafted = filepath.Join(geminiTestdata, "crafted")
)

// label names a transcript entry: the record's type and its first words,
// or its calls.
func label(e sessiondb.Entry) string {
	m := jsonlimport.Understand(gemini.Name, e)
	var obj struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(e.Body, &obj)
	l := obj.Type
	switch {
	case m.Text != "":
		l += " " + clip(m.Text)
	case len(m.Calls) > 0:
		l += " calls " + m.Calls[0].Name
	case len(m.Results) > 0:
		l += " results " + m.Results[0].Name
	}
	if e.Summary {
		l = "(summary) " + l
	}
	return l
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 40 {
		return string(r[:40])
	}
	return s
}

// TestGeminiGolden imports the real and the crafted trees and compares
// every session with testdata/gemini/expected (checked by hand against
// the package doc's rules; rewrite with -wild.update).
func TestGeminiGolden(t *testing.T) {
	wildtest.CheckGoldens(t, filepath.Join(geminiTestdata, "expected", "real"), wildtest.Snapshot(t, gemini.Name, geminiReal, label), 5)
	wildtest.CheckGoldens(t, filepath.Join(geminiTestdata, "expected", "crafted"), wildtest.Snapshot(t, gemini.Name, geminiCrafted, label), 4)
}

// TestGeminiTranscripts states the crafted chats' transcripts by hand: a
// rewind drops the rewound turn; a torn line glued to the next append
// gives back that append, the NUL-padded rewrite wins; a header's list and
// the messages after it; the chat Gemini CLI migrated is read from its
// .jsonl only.
func TestGeminiTranscripts(t *testing.T) {
	got := wildtest.Snapshot(t, gemini.Name, geminiCrafted, label)
	const dir = ".gemini/tmp/crafted/chats/"
	want := map[string][]string{
		dir + "session-2026-11-20T10-00-c0ffee00.jsonl": {
			"(summary) user First question about the parser",
			"(summary) gemini First answer.",
			"user The question instead",
			"gemini The answer kept.",
		},
		dir + "session-2026-11-20T10-01-c0ffee00.jsonl": {
			"(summary) user Read a.go please",
			"gemini Reading it.",
			"user And b.go?",
			"gemini Reading b.go.",
		},
		dir + "session-2026-11-20T10-02-c0ffee00.jsonl": {
			"(summary) user /help",
			"(summary) user What is a sessiondb?",
			"(summary) gemini A store of agent sessions.",
			"user Thanks",
			"gemini You are welcome.",
		},
		dir + "session-2026-11-20T10-03-c0ffee00.jsonl": {
			"user Old question",
			"gemini Old answer.",
			"user New question",
			"gemini New answer.",
		},
	}
	for rel, w := range want {
		g, ok := got[rel]
		if !ok {
			t.Fatalf("%s not imported (have %v)", rel, keys(got))
		}
		if d := cmp.Diff(w, g.Transcript); d != "" {
			t.Errorf("%s transcript (-want +got):\n%s", rel, d)
		}
	}
	if n := len(got); n != len(want) {
		t.Errorf("%d sessions, want %d (the migrated .json and the devtools log are skipped)", n, len(want))
	}
	rw := got[dir+"session-2026-11-20T10-00-c0ffee00.jsonl"]
	if rw.Title != "Parser questions, one rewound" {
		t.Errorf("title %q, want the summary of the last $set", rw.Title)
	}
	if len(rw.Usage) != 3 {
		t.Errorf("usage %v: want the rewound answer's call counted too (3 rows)", rw.Usage)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestGeminiCraftedProblems: the damage of the crafted chat is reported
// line by line, and the migrated .json and the devtools log are notes.
func TestGeminiCraftedProblems(t *testing.T) {
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, []string{geminiCrafted}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range rep.Problems {
		lines = append(lines, filepath.Base(p.Path)+":"+itoa(p.Line)+": "+firstWords(p.Reason))
	}
	want := []string{
		"session-2026-11-20T10-01-c0ffee00.jsonl:3: invalid JSON: torn line",
		"session-2026-11-20T10-01-c0ffee00.jsonl:4: NUL bytes: 1 JSON",
		"session-2026-11-20T10-01-c0ffee00.jsonl:5: invalid JSON (torn or",
		"session-2026-11-20T10-01-c0ffee00.jsonl:6: line of no known",
		"session-2026-11-20T10-01-c0ffee00.jsonl:11: torn last line (17",
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
	notes := 0
	for _, n := range rep.Notes {
		if strings.Contains(n.Reason, "migrated to session-2026-11-20T10-03-c0ffee00.jsonl") || strings.Contains(n.Reason, "devtools log") {
			notes++
		}
	}
	if notes != 2 {
		t.Errorf("notes %v: want the migrated .json and the devtools log", rep.Notes)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func firstWords(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(4, len(f))], " ")
}

// TestGeminiClaim: a Gemini CLI chat is claimed by content; a Qwen Code
// chat (the same message shapes) and a Qwen Code whole-JSON chat are not;
// a whole-JSON chat Gemini CLI migrated is left for its note.
func TestGeminiClaim(t *testing.T) {
	chats := filepath.Join(geminiCrafted, ".gemini", "tmp", "crafted", "chats")
	jsonlChat := filepath.Join(chats, "session-2026-11-20T10-00-c0ffee00.jsonl")
	migratedJSON := filepath.Join(chats, "session-2026-11-20T10-03-c0ffee00.json")
	qwenHome := filepath.Join("..", "..", "testdata", "qwen", "qwen-home", ".qwen")
	qwenChat := filepath.Join(qwenHome, "projects", "-tmp-sdb-gq-proj", "chats", "5b0a3c1e-0000-4000-8000-000000000001.jsonl")
	qwenLegacy, _ := filepath.Glob(filepath.Join(qwenHome, "tmp", "*", "chats", "*.json"))
	legacy, _ := filepath.Glob(filepath.Join(geminiReal, ".gemini", "tmp", "proj", "chats", "*.json"))
	if len(qwenLegacy) != 1 || len(legacy) != 1 {
		t.Fatalf("fixtures: %v %v", qwenLegacy, legacy)
	}
	in := []string{jsonlChat, migratedJSON, qwenChat, qwenLegacy[0], legacy[0]}
	units, rest := gemini.Format{}.Claim(in)
	var claimed []string
	for _, u := range units {
		claimed = append(claimed, u.Path)
	}
	if d := cmp.Diff([]string{jsonlChat, legacy[0]}, claimed); d != "" {
		t.Errorf("claimed (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{migratedJSON, qwenChat, qwenLegacy[0]}, rest); d != "" {
		t.Errorf("rest (-want +got):\n%s", d)
	}
}

// sessions imports root and returns its sessions by ID.
func sessions(t *testing.T, root string) (*sqlstore.Store, map[string]sessiondb.Session) {
	t.Helper()
	s := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(context.Background(), s, []string{root}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	list, _, err := s.List(context.Background(), sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]sessiondb.Session{}
	for _, in := range list {
		out[in.ID] = in.Session
	}
	return s, out
}

// TestGeminiUsageEqualsStats: the usage of every chat Gemini CLI wrote,
// its sub-agent's included, equals the token stats Gemini CLI printed for
// its runs (runs.jsonl: one line per run, --output-format json), model by
// model: prompt = input + cache reads, cached = cache reads, candidates +
// thoughts = output, thoughts = reasoning, requests = calls.
func TestGeminiUsageEqualsStats(t *testing.T) {
	ctx := context.Background()
	s, byID := sessions(t, geminiReal)
	type counts struct{ Requests, Prompt, Candidates, Cached, Thoughts, Tool, Total int64 }
	want := map[string]counts{} // session id → model-summed stats
	for _, line := range readLines(t, filepath.Join(geminiTestdata, "runs.jsonl")) {
		var run struct {
			SessionID string `json:"session_id"`
			Stats     struct {
				Models map[string]struct {
					API struct {
						TotalRequests int64 `json:"totalRequests"`
					} `json:"api"`
					Tokens struct {
						Prompt     int64 `json:"prompt"`
						Candidates int64 `json:"candidates"`
						Cached     int64 `json:"cached"`
						Thoughts   int64 `json:"thoughts"`
						Tool       int64 `json:"tool"`
						Total      int64 `json:"total"`
					} `json:"tokens"`
				} `json:"models"`
			} `json:"stats"`
		}
		if err := json.Unmarshal([]byte(line), &run); err != nil {
			t.Fatal(err)
		}
		c := want[run.SessionID]
		for _, m := range run.Stats.Models {
			c.Requests += m.API.TotalRequests
			c.Prompt += m.Tokens.Prompt
			c.Candidates += m.Tokens.Candidates
			c.Cached += m.Tokens.Cached
			c.Thoughts += m.Tokens.Thoughts
			c.Tool += m.Tokens.Tool
			c.Total += m.Tokens.Total
		}
		want[run.SessionID] = c
	}
	if len(want) != 4 {
		t.Fatalf("runs.jsonl names %d sessions", len(want))
	}
	for id, w := range want {
		// A run's stats count its sub-agents' calls; their usage is in
		// their own sessions.
		var tot sessiondb.UsageTotals
		for sid, sess := range byID {
			if sid == id || sess.ParentID == id {
				u, err := s.UsageTotals(ctx, sid)
				if err != nil {
					t.Fatal(err)
				}
				tot.Calls += u.Calls
				tot.InputTokens += u.InputTokens
				tot.CacheReadTokens += u.CacheReadTokens
				tot.OutputTokens += u.OutputTokens
				tot.ReasoningTokens += u.ReasoningTokens
			}
		}
		got := counts{Requests: tot.Calls, Prompt: tot.InputTokens + tot.CacheReadTokens, Candidates: tot.OutputTokens - tot.ReasoningTokens,
			Cached: tot.CacheReadTokens, Thoughts: tot.ReasoningTokens, Total: tot.InputTokens + tot.CacheReadTokens + tot.OutputTokens}
		if got != w {
			t.Errorf("session %s: usage %+v, Gemini CLI's stats %+v", id, got, w)
		}
	}
}

// TestGeminiExportBytes: every chat of the real tree, JSONL and whole
// JSON, comes back byte for byte from an export in its own format, at its
// path below ~/.gemini.
func TestGeminiExportBytes(t *testing.T) {
	ctx := context.Background()
	s, byID := sessions(t, geminiReal)
	out := t.TempDir()
	var ids []string
	for id := range byID {
		ids = append(ids, id)
	}
	files, err := jsonlimport.Export(ctx, s, ids, gemini.Name, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(ids) {
		t.Fatalf("%d files for %d sessions", len(files), len(ids))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(out, f)
		want, err := os.ReadFile(filepath.Join(geminiReal, ".gemini", rel))
		if err != nil {
			t.Errorf("%s: not a file of the source tree: %v", rel, err)
			continue
		}
		got, _ := os.ReadFile(f)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: export differs from the file (%d bytes, want %d)", rel, len(got), len(want))
		}
	}
}

// TestGeminiOrphanResume: a --resume in another minute than the chat
// began leaves a file of a header and Gemini CLI's context; it is skipped
// with a note (no prompt yet), and the chat it resumed holds the new turn.
func TestGeminiOrphanResume(t *testing.T) {
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, []string{geminiReal}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range rep.Notes {
		if strings.HasSuffix(n.Path, "session-2026-12-06T11-49-8dfc7eaf.jsonl") && strings.Contains(n.Reason, "no prompt or answer yet") {
			found = true
		}
	}
	if !found {
		t.Errorf("no note for the file a resume in another minute left: %v", rep.Notes)
	}
	tr, err := s.Load(context.Background(), "8dfc7eaf-4e6a-4714-89ca-7932adf9507b", sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	if err != nil {
		t.Fatal(err)
	}
	if l := label(tr[len(tr)-2]); l != "user A second, plain question" {
		t.Errorf("the resumed turn is not in the chat it resumed: %q", l)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, sc.Text())
		}
	}
	return out
}

// events flattens a conversation into what the model is sent, in order:
// "prompt: …", "answer: …", "call NAME ARGS", "result NAME: …" (tool call
// ids differ between a file and a request, and thinking is left out: Gemini
// CLI 0.61 does not send its thoughts back).
type events []string

func (ev *events) add(kind, s string) { *ev = append(*ev, kind+clip(s)) }

// requestEvents flattens a request's contents; the context Gemini CLI
// injects (<session_context>, written anew on every start) is left out.
func requestEvents(contents []map[string]any) events {
	var ev events
	for _, c := range contents {
		parts, _ := c["parts"].([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			switch {
			case part["functionCall"] != nil:
				fc := part["functionCall"].(map[string]any)
				a, _ := json.Marshal(fc["args"])
				ev.add("call "+fc["name"].(string)+" ", string(a))
			case part["functionResponse"] != nil:
				fr := part["functionResponse"].(map[string]any)
				resp, _ := fr["response"].(map[string]any)
				text, _ := resp["output"].(string)
				if e, ok := resp["error"].(string); ok && text == "" {
					text = e
				}
				ev.add("result "+fr["name"].(string)+": ", text)
			case part["thought"] == true:
			case part["text"] != nil:
				text := part["text"].(string)
				if strings.HasPrefix(text, "<session_context>") {
					continue
				}
				if c["role"] == "model" {
					ev.add("answer: ", text)
				} else {
					ev.add("prompt: ", text)
				}
			}
		}
	}
	return ev
}

// transcriptEvents flattens a transcript read by Understand.
func transcriptEvents(tr []sessiondb.Entry) events {
	var ev events
	for _, e := range tr {
		m := jsonlimport.Understand(gemini.Name, e)
		if m.Bookkeeping || m.Context {
			continue
		}
		if m.Text != "" {
			if m.Role == "user" {
				ev.add("prompt: ", m.Text)
			} else {
				ev.add("answer: ", m.Text)
			}
		}
		for _, c := range m.Calls {
			var args any
			_ = json.Unmarshal([]byte(c.Arguments), &args)
			a, _ := json.Marshal(args)
			ev.add("call "+c.Name+" ", string(a))
		}
		for _, r := range m.Results {
			ev.add("result "+r.Name+": ", r.Text)
		}
	}
	return ev
}

// resumedPrompts are the prompts gen.sh gives with --resume.
var resumedPrompts = map[string]bool{"prompt: Do ERRTOOL now": true, "prompt: A second, plain question": true}

// beforeResume returns, for the chat at path, its transcript events as
// Gemini CLI read the file when each --resume began: the file cut before
// every line a resume starts with (a header after the first, or a $set of
// the sessionId), imported alone. A whole-JSON chat, rewritten in place,
// gives its whole file's events only.
func beforeResume(t *testing.T, path string) []events {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cuts []int
	if strings.HasSuffix(path, ".jsonl") {
		at := 0
		for n, line := range bytes.SplitAfter(data, []byte("\n")) {
			if n > 0 && (bytes.HasPrefix(line, []byte(`{"sessionId":`)) || bytes.HasPrefix(line, []byte(`{"$set":{"sessionId":`))) {
				cuts = append(cuts, at)
			}
			at += len(line)
		}
	}
	cuts = append(cuts, len(data))
	var out []events
	for _, cut := range cuts {
		dir := t.TempDir()
		p := filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(p, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		s := jsonltest.OpenStore(t)
		if _, err := jsonlimport.Import(ctx, s, []string{p}, jsonlimport.Options{}); err != nil {
			t.Fatal(err)
		}
		list, _, err := s.List(ctx, sessiondb.ListOptions{})
		if err != nil || len(list) != 1 {
			continue // no conversation yet
		}
		tr, err := s.Load(ctx, list[0].ID, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, transcriptEvents(tr))
	}
	return out
}

// TestGeminiResumeRequests: for every request Gemini CLI sent after
// --resume, the history it sent with the new prompt (rebuilt from its file
// by Gemini CLI itself) is, event for event, our transcript of that file as
// it was when the resume began: every prompt, answer, tool call and tool
// result, in order (each result twice where Gemini CLI sends it twice).
// Our transcript of the whole file then holds that history too.
func TestGeminiResumeRequests(t *testing.T) {
	chatFiles, _ := filepath.Glob(filepath.Join(geminiReal, ".gemini", "tmp", "proj", "chats", "session-*"))
	states := map[string][]events{}
	for _, f := range chatFiles {
		states[filepath.Base(f)] = beforeResume(t, f)
	}
	checked := 0
	for i, line := range readLines(t, filepath.Join(geminiTestdata, "requests.jsonl")) {
		var req struct {
			URL      string           `json:"url"`
			Contents []map[string]any `json:"contents"`
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		ev := requestEvents(req.Contents)
		if !strings.Contains(req.URL, "streamGenerateContent") || len(ev) < 2 || !resumedPrompts[ev[len(ev)-1]] {
			continue
		}
		history := strings.Join(ev[:len(ev)-1], "\n")
		var match []string
		for name, st := range states {
			for k, e := range st {
				last := k == len(st)-1
				switch {
				case !last && strings.Join(e, "\n") == history:
					match = append(match, name)
				case last && strings.HasSuffix(name, ".json") && len(e) >= len(ev) && strings.Join(e[:len(ev)], "\n") == strings.Join(ev, "\n"):
					// A whole-JSON chat: its file before the resume is gone;
					// its whole transcript goes on with the new prompt.
					match = append(match, name)
				}
			}
		}
		if len(match) != 1 {
			t.Errorf("request %d: %d chat files read before a resume give its history %v:\n  %s", i+1, len(match), match, strings.Join(ev, "\n  "))
			for name, st := range states {
				for _, e := range st {
					t.Logf("%s:\n  %s", name, strings.Join(e, "\n  "))
				}
			}
			continue
		}
		checked++
	}
	if checked != 3 {
		t.Errorf("checked %d requests after a resume, want 3", checked)
	}
}
