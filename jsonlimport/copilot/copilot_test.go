package copilot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/copilot"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// testdata is what the real Copilot CLI 1.0.102 wrote (testdata/gen/copilot).
const testdata = "../../testdata/copilot"

var update = flag.Bool("copilot.update", false, "rewrite the golden files of testdata/copilot/golden")

const (
	sessionA = "11111111-1111-4111-8111-111111111111"
	sessionB = "22222222-2222-4222-8222-222222222222"
	crafted  = "33333333-3333-4333-8333-333333333333"
)

func eventsOf(id string) string {
	if id == crafted {
		return filepath.Join(testdata, "crafted", id, copilot.EventsName)
	}
	return filepath.Join(testdata, "session-state", id, copilot.EventsName)
}

func parse(t *testing.T, id string) *jsonl.Parsed {
	t.Helper()
	units, rest := copilot.Format{}.Claim([]string{eventsOf(id), filepath.Join(filepath.Dir(eventsOf(id)), copilot.WorkspaceName)})
	if len(units) != 1 {
		t.Fatalf("claim %s: %d units, rest %v", id, len(units), rest)
	}
	p, err := copilot.Format{}.Parse(context.Background(), units[0], jsonl.Resume{})
	if err != nil {
		t.Fatalf("parse %s: %v", id, err)
	}
	return p
}

// messages returns the conversation of p as the reader understands it.
func messages(p *jsonl.Parsed) []jsonl.Message {
	var out []jsonl.Message
	for _, e := range p.Entries {
		m := copilot.Format{}.Understand(e, jsonl.DecodeObject(e.Body))
		if !m.Bookkeeping && !m.Context {
			out = append(out, m)
		}
	}
	return out
}

// request is one request Copilot CLI sent the scripted model.
type request struct {
	Scenario string `json:"scenario"`
	Body     struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	} `json:"body"`
}

func requests(t *testing.T) []request {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []request
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r request
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestResumedConversation checks the reader against Copilot CLI itself:
// the first request of a resumed run holds the conversation Copilot CLI
// rebuilt from events.jsonl, followed by the new prompt. The messages the
// reader finds before that prompt must be those, in order, with the same
// roles, tool call ids and results.
func TestResumedConversation(t *testing.T) {
	reqs := requests(t)
	for _, c := range []struct{ id, scenario string }{{sessionA, "hello"}, {sessionB, "recall"}} {
		var sent *request
		for i := range reqs {
			if reqs[i].Scenario == c.scenario {
				sent = &reqs[i]
				break
			}
		}
		if sent == nil {
			t.Fatalf("no %s request in requests.jsonl", c.scenario)
		}
		var want []string
		for _, m := range sent.Body.Messages {
			s := m.Role
			for _, tc := range m.ToolCalls {
				s += " call:" + tc.ID
			}
			if m.ToolCallID != "" {
				s += " result:" + m.ToolCallID
			}
			want = append(want, s)
		}
		var got []string
		for _, m := range messages(parse(t, c.id)) {
			s := m.Role
			for _, tc := range m.Calls {
				s += " call:" + tc.ID
			}
			for _, r := range m.Results {
				s += " result:" + r.CallID
			}
			got = append(got, s)
		}
		// The store ends with the resumed run's answer, which the request
		// precedes.
		if len(got) != len(want)+1 || strings.Join(got[:len(want)], "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: the reader's conversation\n%s\nis not what Copilot CLI sent on resume (plus its answer)\n%s", c.id, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestToolCallsPaired: every tool call has its result, and every result
// its call.
func TestToolCallsPaired(t *testing.T) {
	calls, results := map[string]bool{}, map[string]bool{}
	for _, id := range []string{sessionA, sessionB, crafted} {
		for _, m := range messages(parse(t, id)) {
			for _, c := range m.Calls {
				calls[c.ID] = true
			}
			for _, r := range m.Results {
				results[r.CallID] = true
			}
		}
	}
	for id := range calls {
		if !results[id] {
			t.Errorf("call %s has no result", id)
		}
	}
	for id := range results {
		if !calls[id] {
			t.Errorf("result %s answers no call", id)
		}
	}
	if len(calls) != 4 {
		t.Errorf("%d tool calls, want the 4 of the tools scenario", len(calls))
	}
}

// TestUsageEqualsShutdown: the usage rows of each session add up to the
// totals Copilot CLI itself wrote in its last session.shutdown (per model:
// input with cache reads, output, cache reads, reasoning), for the
// usage-record files of 1.0.102 and the shutdown-only file of older
// versions alike.
func TestUsageEqualsShutdown(t *testing.T) {
	for _, id := range []string{sessionA, sessionB, crafted} {
		p := parse(t, id)
		var last map[string]any
		for _, e := range p.Entries {
			o := jsonl.DecodeObject(e.Body)
			if o["type"] == "session.shutdown" {
				last = o
			}
		}
		d, _ := last["data"].(map[string]any)
		mm, _ := d["modelMetrics"].(map[string]any)
		if snap, _ := d["accountingSnapshot"].(map[string]any); mm == nil && snap != nil {
			mm, _ = snap["modelMetrics"].(map[string]any)
		}
		if len(mm) == 0 {
			t.Fatalf("%s: no shutdown totals", id)
		}
		for model, v := range mm {
			u, _ := v.(map[string]any)["usage"].(map[string]any)
			want := [4]int64{num(u["inputTokens"]), num(u["outputTokens"]), num(u["cacheReadTokens"]), num(u["reasoningTokens"])}
			var got [4]int64
			for _, r := range p.Usage {
				if r.Model == model {
					got[0] += r.InputTokens + r.CacheReadTokens + r.CacheWriteTokens
					got[1] += r.OutputTokens
					got[2] += r.CacheReadTokens
					got[3] += r.ReasoningTokens
				}
			}
			if got != want || want[0] == 0 {
				t.Errorf("%s %s: usage rows add up to %v, Copilot's shutdown says %v", id, model, got, want)
			}
		}
	}
}

// TestResumeFromOffset: reading a file in two parts (as the importer does
// when it grew) gives the entries, usage and compactions of one read.
func TestResumeFromOffset(t *testing.T) {
	for _, id := range []string{sessionA, crafted} {
		path := eventsOf(id)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		whole := parse(t, id)
		for _, cut := range []int{1, 5, 12, 20} {
			dir := t.TempDir()
			p := filepath.Join(dir, copilot.EventsName)
			lines := bytes.SplitAfter(data, []byte("\n"))
			if cut >= len(lines) {
				continue
			}
			if err := os.WriteFile(p, bytes.Join(lines[:cut], nil), 0o644); err != nil {
				t.Fatal(err)
			}
			u := jsonl.Unit{Format: copilot.Name, Path: p}
			first, err := copilot.Format{}.Parse(context.Background(), u, jsonl.Resume{})
			if err != nil {
				t.Fatalf("%s cut %d: %v", id, cut, err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			rest, err := copilot.Format{}.Parse(context.Background(), u, jsonl.Resume{Offset: first.Offset, Entries: len(first.Entries), State: first.ResumeState})
			if err != nil {
				t.Fatalf("%s cut %d resumed: %v", id, cut, err)
			}
			got := summarize(&jsonl.Parsed{Session: rest.Session, Entries: append(first.Entries, rest.Entries...),
				Usage: append(first.Usage, rest.Usage...), Compactions: append(first.Compactions, rest.Compactions...)})
			want := summarize(&jsonl.Parsed{Session: whole.Session, Entries: whole.Entries, Usage: whole.Usage, Compactions: whole.Compactions})
			got.Title, want.Title = "", "" // the workspace.yaml is not beside the copy
			if g, w := jsonl.MustJSON(got), jsonl.MustJSON(want); !bytes.Equal(g, w) {
				t.Errorf("%s cut at line %d: two reads\n%s\none read\n%s", id, cut, g, w)
			}
		}
	}
}

// summary is what the golden files hold of a Parsed: the session, each
// entry's kind, role and message as the reader understands it, usage,
// compactions and problems.
type summary struct {
	ID, Title   string
	Attrs       json.RawMessage
	Created     string
	Updated     string
	Entries     []string
	Usage       []sessiondb.Usage
	Compactions []string
	Problems    []string
}

func summarize(p *jsonl.Parsed) summary {
	s := summary{ID: p.Session.ID, Title: p.Session.Title, Attrs: p.Session.Attrs,
		Created: p.Session.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"), Updated: p.Session.UpdatedAt.UTC().Format("2006-01-02T15:04:05.000Z"), Usage: p.Usage}
	for _, e := range p.Entries {
		m := copilot.Format{}.Understand(e, jsonl.DecodeObject(e.Body))
		line := e.Kind + " " + e.Role
		if !m.Bookkeeping {
			line += " | " + trim(m.Text)
			if m.Thinking != "" {
				line += " | thinking: " + trim(m.Thinking)
			}
			for _, c := range m.Calls {
				line += " | call " + c.ID + " " + c.Name + " " + trim(c.Arguments)
			}
			for _, r := range m.Results {
				line += " | result " + r.CallID + " " + trim(r.Text)
			}
		}
		s.Entries = append(s.Entries, line)
	}
	for _, c := range p.Compactions {
		b, _ := json.Marshal(map[string]any{"at": c.AtSeq, "keep": c.KeepFromSeq, "before": c.TokensBefore, "after": c.TokensAfter, "summary": len(c.Summary)})
		s.Compactions = append(s.Compactions, string(b))
	}
	for _, pr := range p.Problems {
		pr.Path = filepath.Base(pr.Path)
		s.Problems = append(s.Problems, pr.String())
	}
	for i := range s.Usage {
		s.Usage[i].Cost, s.Usage[i].CostEstimated = 0, false // the price list's, not the format's
	}
	return s
}

func trim(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}

// TestGolden compares what the reader makes of each file with the golden
// files (rewrite with -copilot.update and read the diff).
func TestGolden(t *testing.T) {
	for _, id := range []string{sessionA, sessionB, crafted} {
		got, err := json.MarshalIndent(summarize(parse(t, id)), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		golden := filepath.Join(testdata, "golden", id+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -copilot.update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n%s", id, golden, got)
		}
	}
}

// TestClaim: Copilot CLI's events are claimed by their first line, with
// workspace.yaml; other JSONL files are left.
func TestClaim(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte(`{"type":"session.start","data":{},"id":"x","timestamp":"t"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	units, rest := copilot.Format{}.Claim([]string{eventsOf(sessionA), filepath.Join(filepath.Dir(eventsOf(sessionA)), copilot.WorkspaceName), other})
	if len(units) != 1 || len(units[0].Extra) != 1 || len(rest) != 1 || rest[0] != other {
		t.Errorf("claim: units %+v rest %v", units, rest)
	}
}

// TestEmptyAndDamaged: an empty file is no conversation yet; a file of
// garbage is an error, never a panic.
func TestEmptyAndDamaged(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, copilot.EventsName)
	for _, c := range []struct {
		data string
		want error
	}{{"", jsonl.ErrNoConversation}, {"\x00\x00garbage\n", sessiondb.ErrInvalid}} {
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := copilot.Format{}.Parse(context.Background(), jsonl.Unit{Format: copilot.Name, Path: p}, jsonl.Resume{})
		if !errorsIs(err, c.want) {
			t.Errorf("%q: %v, want %v", c.data, err, c.want)
		}
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func num(v any) int64 {
	n, _ := v.(json.Number)
	i, _ := n.Int64()
	return i
}

// TestWorkspaceTitle: the title is the name the user gave in
// workspace.yaml (user_named: true), else its summary, else the first
// prompt (Copilot CLI's own name for a session it named is that prompt).
func TestWorkspaceTitle(t *testing.T) {
	data, err := os.ReadFile(eventsOf(sessionB))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ yaml, want string }{
		{"id: x\nname: Write a long answer [[long]]\nuser_named: false\n", "Write a long answer [[long]]"},
		{"id: x\nname: \"My own name: \\u00e9\"\nuser_named: true\n", "My own name: é"},
		{"id: x\nname: first prompt\nuser_named: false\nsummary: 'It''s the summary'\n", "It's the summary"},
		{"summary: |\n  a block\n", "Write a long answer [[long]]"},
	} {
		dir := filepath.Join(t.TempDir(), sessionB)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ev, ws := filepath.Join(dir, copilot.EventsName), filepath.Join(dir, copilot.WorkspaceName)
		if err := os.WriteFile(ev, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ws, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		units, _ := copilot.Format{}.Claim([]string{ev, ws})
		p, err := copilot.Format{}.Parse(context.Background(), units[0], jsonl.Resume{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Session.Title != c.want {
			t.Errorf("%q: title %q, want %q", c.yaml, p.Session.Title, c.want)
		}
	}
}

// TestSkipReason: the files beside a session's events.jsonl and the
// operation locks are noted as Copilot CLI's; other files are not.
func TestSkipReason(t *testing.T) {
	data, err := os.ReadFile(eventsOf(sessionB))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	files := map[string]string{
		sessionB + "/events.jsonl":                        string(data),
		sessionB + "/checkpoints/index.md":                "# checkpoints\n",
		sessionB + "/rewind-file-snapshots/tracking.json": "{}",
		sessionB + "/.workspace-fork.lock":                "",
		".session-operation-locks/" + sessionB + ".lock":  "",
		"elsewhere/notes.md":                              "x",
		"elsewhere/events.jsonl":                          `{"type":"other"}` + "\n",
		"elsewhere/checkpoints/index.md":                  "x",
	}
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel := range files {
		got := copilot.Format{}.SkipReason(filepath.Join(root, rel))
		want := !strings.HasPrefix(rel, "elsewhere/") && !strings.HasSuffix(rel, "/events.jsonl")
		if (got != "") != want {
			t.Errorf("%s: skip reason %q", rel, got)
		}
	}
}
