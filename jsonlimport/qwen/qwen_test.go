package qwen_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
	"github.com/sessiondb/sessiondb/jsonlimport/qwen"
	"github.com/sessiondb/sessiondb/sqlstore"
)

var (
	// qwenReal holds a Qwen home written by Qwen Code 0.15.10 and 0.1.3
	// themselves (testdata/gen/geminiqwen/gen.sh), with the requests each
	// run sent (requests.jsonl) and the result it printed (runs.jsonl).
	qwenTestdata = filepath.Join("..", "..", "testdata", "qwen")
	qwenReal     = filepath.Join(qwenTestdata, "qwen-home")
	// qwenCrafted holds chats written by hand after Qwen Code's source: a
	// rewind with a title, a chat compression with a uuid written twice,
	// damage, a background sub-agent.
	qwenCrafted = filepath.Join(qwenTestdata, "crafted")
)

// label names a transcript entry: its type, and its first words or
// calls or results.
func label(e sessiondb.Entry) string {
	m := jsonlimport.Understand(qwen.Name, e)
	var obj struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(e.Body, &obj)
	l := obj.Type
	if e.Kind == sessiondb.KindMessagePart {
		l += "+"
	}
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

// TestQwenGolden imports the real and the crafted trees and compares every
// session with testdata/qwen/expected (rewrite with -wild.update).
func TestQwenGolden(t *testing.T) {
	wildtest.CheckGoldens(t, filepath.Join(qwenTestdata, "expected", "real"), wildtest.Snapshot(t, qwen.Name, qwenReal, label), 3)
	wildtest.CheckGoldens(t, filepath.Join(qwenTestdata, "expected", "crafted"), wildtest.Snapshot(t, qwen.Name, qwenCrafted, label), 4)
}

// TestQwenTranscripts states the crafted chats' transcripts by hand.
func TestQwenTranscripts(t *testing.T) {
	got := wildtest.Snapshot(t, qwen.Name, qwenCrafted, label)
	const dir = ".qwen/projects/-home-dev-crafted/"
	want := map[string][]string{
		// The rewound turn hangs off a dead branch: the path is copied.
		dir + "chats/7e570000-0000-4000-8000-000000000001.jsonl": {
			"(summary) user First question about the parser",
			"(summary) assistant First answer.",
			"(summary) user The question instead",
			"(summary) assistant The answer kept.",
		},
		// The compressed history, then the records after the compression
		// (the second record of one uuid, a message-part, is not a message
		// of its own: TestQwenMessageParts).
		dir + "chats/7e570000-0000-4000-8000-000000000002.jsonl": {
			"(summary) user <state_snapshot>part one done</state_sna",
			"(summary) assistant Got it. Thanks for the additional contex",
			"user Part two",
			"assistant Checking.",
			"tool_result results read_file",
			"assistant Done: a.go is package a.",
		},
		// A torn copy of the answer's start glued onto the next record:
		// that record is recovered; the invalid line and the torn tail are
		// not read.
		dir + "chats/7e570000-0000-4000-8000-000000000003.jsonl": {
			"user Hello",
			"assistant Hi.",
			"user Again",
			"assistant Hi again.",
		},
		dir + "subagents/7e570000-0000-4000-8000-000000000004/agent-a1b2c3.jsonl": {
			"user Find the parser",
			"assistant calls glob",
			"tool_result results glob",
			"assistant The parser is a.go.",
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
	if g := got[dir+"chats/7e570000-0000-4000-8000-000000000001.jsonl"]; g.Title != "Parser questions" {
		t.Errorf("title %q, want the custom_title", g.Title)
	}
	if g := got[dir+"chats/7e570000-0000-4000-8000-000000000002.jsonl"]; g.Title != "Long work, part one" {
		t.Errorf("title %q, want the file's first prompt", g.Title)
	}
	sub := got[dir+"subagents/7e570000-0000-4000-8000-000000000004/agent-a1b2c3.jsonl"]
	if sub.ID != "7e570000-0000-4000-8000-000000000004:agent-a1b2c3" || sub.ParentID != "7e570000-0000-4000-8000-000000000004" {
		t.Errorf("sub-agent %q parent %q", sub.ID, sub.ParentID)
	}
	var attrs map[string]string
	_ = json.Unmarshal(sub.Attrs, &attrs)
	if attrs["agentType"] != "explorer" || attrs["description"] != "Find the parser" {
		t.Errorf("sub-agent attrs %s: want its meta file's agentType and description", sub.Attrs)
	}
}

// TestQwenNotClaudeCode: a Qwen Code chat is Qwen Code's, even offered to
// Claude Code alone, whose envelope it wears; a sub-agent's
// agent-<id>.jsonl and .meta.json pair is not taken for a picoclaw
// session.
func TestQwenNotClaudeCode(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(ctx, s, []string{qwenReal}, jsonlimport.Options{Format: jsonlimport.FormatClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 0 {
		t.Errorf("Claude Code took %d Qwen Code chats", rep.Sessions)
	}
	s = jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(ctx, s, []string{qwenReal, qwenCrafted}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range list {
		if in.SourceFormat != qwen.Name {
			t.Errorf("session %s imported as %s", in.ID, in.SourceFormat)
		}
	}
	if len(list) != 7 {
		t.Errorf("%d sessions, want 7", len(list))
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

func importTree(t *testing.T, root string) (*sqlstore.Store, []sessiondb.Session) {
	t.Helper()
	s := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(context.Background(), s, []string{root}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	list, _, err := s.List(context.Background(), sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	var out []sessiondb.Session
	for _, in := range list {
		out = append(out, in.Session)
	}
	return s, out
}

// TestQwenUsageEqualsStats: the usage of every chat Qwen Code wrote equals
// the token stats of its last run (runs.jsonl, --output-format json: after
// a resume Qwen Code replays the chat's recorded telemetry, so the last
// run's stats are the chat's, its background memory agent's request
// included), model by model: prompt = input + cache reads, cached = cache
// reads, candidates = output, thoughts = reasoning, requests = calls.
func TestQwenUsageEqualsStats(t *testing.T) {
	ctx := context.Background()
	s, list := importTree(t, qwenReal)
	type counts struct{ Requests, Prompt, Candidates, Cached, Thoughts int64 }
	want := map[string]counts{}
	for _, line := range readLines(t, filepath.Join(qwenTestdata, "runs.jsonl")) {
		var run struct {
			Version string `json:"version"`
			Result  struct {
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
						} `json:"tokens"`
					} `json:"models"`
				} `json:"stats"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &run); err != nil {
			t.Fatal(err)
		}
		id := run.Result.SessionID
		if id == "" && run.Version == "0.1.3" {
			id = "legacy" // Qwen Code 0.1.3 prints no session id
		}
		var c counts // the last run's stats replace the earlier ones
		for _, m := range run.Result.Stats.Models {
			c.Requests += m.API.TotalRequests
			c.Prompt += m.Tokens.Prompt
			c.Candidates += m.Tokens.Candidates
			c.Cached += m.Tokens.Cached
			c.Thoughts += m.Tokens.Thoughts
		}
		want[id] = c
	}
	if len(want) != 3 {
		t.Fatalf("runs.jsonl names %d chats", len(want))
	}
	for _, sess := range list {
		id := sess.ID
		if strings.HasSuffix(sess.SourcePath, ".json") {
			id = "legacy"
		}
		w, ok := want[id]
		if !ok {
			t.Errorf("session %s: no run", sess.ID)
			continue
		}
		tot, err := s.UsageTotals(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := counts{Requests: tot.Calls, Prompt: tot.InputTokens + tot.CacheReadTokens, Candidates: tot.OutputTokens,
			Cached: tot.CacheReadTokens, Thoughts: tot.ReasoningTokens}
		if got != w {
			t.Errorf("session %s: usage %+v, Qwen Code's stats %+v", sess.ID, got, w)
		}
	}
}

// TestQwenExportBytes: every chat of the real tree comes back byte for
// byte from an export in its own format, at its path below ~/.qwen.
func TestQwenExportBytes(t *testing.T) {
	s, list := importTree(t, qwenReal)
	var ids []string
	for _, sess := range list {
		ids = append(ids, sess.ID)
	}
	out := t.TempDir()
	files, err := jsonlimport.Export(context.Background(), s, ids, qwen.Name, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(ids) {
		t.Fatalf("%d files for %d sessions", len(files), len(ids))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(out, f)
		want, err := os.ReadFile(filepath.Join(qwenReal, ".qwen", rel))
		if err != nil {
			t.Errorf("%s: not a file of the source tree: %v", rel, err)
			continue
		}
		if got, _ := os.ReadFile(f); !bytes.Equal(got, want) {
			t.Errorf("%s: export differs from the file (%d bytes, want %d)", rel, len(got), len(want))
		}
	}
}

// events flattens a conversation into what the model is sent: "prompt:",
// "answer:", "call NAME ARGS", "result NAME: TEXT" (thinking left out:
// Qwen Code does not send it back).
type events []string

func (ev *events) add(kind, s string) { *ev = append(*ev, kind+clip(s)) }

// requestEvents flattens the messages of a Chat Completions request,
// without the system prompt and the context Qwen Code sends but does not
// write: the context exchange before the conversation ("This is the Qwen
// Code…" and its "Got it", 0.15) and the <system-reminder> parts of a
// user message (0.24).
func requestEvents(msgs []map[string]any) events {
	var ev events
	names := map[string]string{}
	text := func(c any) string {
		if s, ok := c.(string); ok {
			return s
		}
		var parts []string
		list, _ := c.([]any)
		for _, p := range list {
			if pm, ok := p.(map[string]any); ok {
				if s, ok := pm["text"].(string); ok && !strings.HasPrefix(s, "<system-reminder>") {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n\n")
	}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m["role"] {
		case "user":
			s := text(m["content"])
			if strings.HasPrefix(s, "This is the Qwen Code.") {
				i++ // and the assistant's acknowledgement
				continue
			}
			if s != "" {
				ev.add("prompt: ", s)
			}
		case "assistant":
			if s := text(m["content"]); s != "" {
				ev.add("answer: ", s)
			}
			calls, _ := m["tool_calls"].([]any)
			for _, c := range calls {
				cm := c.(map[string]any)
				fn := cm["function"].(map[string]any)
				var args any
				_ = json.Unmarshal([]byte(fn["arguments"].(string)), &args)
				a, _ := json.Marshal(args)
				names[cm["id"].(string)] = fn["name"].(string)
				ev.add("call "+fn["name"].(string)+" ", string(a))
			}
		case "tool":
			ev.add("result "+names[m["tool_call_id"].(string)]+": ", text(m["content"]))
		}
	}
	return ev
}

// transcriptEvents flattens a transcript read by Understand.
func transcriptEvents(tr []sessiondb.Entry) events {
	var ev events
	for _, e := range tr {
		m := jsonlimport.Understand(qwen.Name, e)
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

// TestQwenResumeRequests: the request Qwen Code sent after --resume holds
// the history it rebuilt from its file: event for event, the start of our
// transcript of that chat, followed by the new prompt.
func TestQwenResumeRequests(t *testing.T) {
	ctx := context.Background()
	s, list := importTree(t, qwenReal)
	chats := map[string]events{}
	for _, sess := range list {
		tr, err := s.Load(ctx, sess.ID, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage, sessiondb.KindMessagePart}})
		if err != nil {
			t.Fatal(err)
		}
		chats[sess.ID] = transcriptEvents(tr)
	}
	checked := 0
	for i, line := range readLines(t, filepath.Join(qwenTestdata, "requests.jsonl")) {
		var req struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		ev := requestEvents(req.Messages)
		if len(ev) < 2 || ev[len(ev)-1] != "prompt: A second, plain question" {
			continue
		}
		var match []string
		for id, c := range chats {
			if len(c) >= len(ev) && strings.Join(c[:len(ev)], "\n") == strings.Join(ev, "\n") {
				match = append(match, id)
			}
		}
		if len(match) != 1 {
			t.Errorf("request %d: %d chats start with its history and prompt:\n  %s", i+1, len(match), strings.Join(ev, "\n  "))
			for id, c := range chats {
				t.Logf("%s:\n  %s", id, strings.Join(c, "\n  "))
			}
			continue
		}
		checked++
	}
	if checked != 1 {
		t.Errorf("checked %d requests after a resume, want 1", checked)
	}
}

// TestQwenMessageParts: a record written again under its uuid is a
// message-part entry whose parts Understand reads (Qwen Code appends them
// to the first record's): the transcript holds the call and its result.
func TestQwenMessageParts(t *testing.T) {
	ctx := context.Background()
	s, _ := importTree(t, qwenCrafted)
	tr, err := s.Load(ctx, "7e570000-0000-4000-8000-000000000002", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tr {
		if e.Kind == sessiondb.KindMessage || e.Kind == sessiondb.KindMessagePart {
			got = append(got, label(e))
		}
	}
	want := []string{
		"(summary) user <state_snapshot>part one done</state_sna",
		"(summary) assistant Got it. Thanks for the additional contex",
		"user Part two",
		"assistant Checking.",
		"assistant+ calls read_file",
		"tool_result results read_file",
		"assistant Done: a.go is package a.",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("transcript (-want +got):\n%s", d)
	}
}
