package qwen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/qwen"
)

// The corpus the agents' generator committed (testdata/agents/qwen, run by
// internal/agentrun against internal/scriptmodel): session A resumed
// twice, the last time after its first prompt was edited by hand; B
// resumed once; C (subagent/) delegating to a sub-agent, resumed once.
var agentsCorpus = filepath.Join("..", "..", "testdata", "agents", "qwen")

type manifest struct {
	InstalledVersion string            `json:"installed_version"`
	Sessions         map[string]string `json:"sessions"`
	Runs             []struct {
		Name      string   `json:"name"`
		SessionID string   `json:"session_id"`
		Args      []string `json:"args"`
		Exit      int      `json:"exit"`
		Stdout    string   `json:"stdout"`
		Log       string   `json:"request_log"`
		Edit      *struct {
			Old string `json:"old"`
			New string `json:"new"`
		} `json:"edit"`
	} `json:"runs"`
}

func readManifest(t *testing.T, dir string) manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAgentsCorpus imports every chat Qwen Code wrote in the corpus and
// checks it against what Qwen Code itself did: no problem (sessionctl
// exits 0); every tool call has its result; each session's usage equals
// Qwen Code's stats after its last run (a sub-agent's session its source
// in bySource, the session the rest); the history Qwen Code sent after
// every --resume starts our transcript, followed by the new prompt (the
// hand edit applied to the requests of the runs before it). It logs the
// figures.
func TestAgentsCorpus(t *testing.T) {
	ctx := context.Background()
	dirs := []string{agentsCorpus, filepath.Join(agentsCorpus, "subagent")}
	var homes []string
	for _, d := range dirs {
		homes = append(homes, filepath.Join(d, "home"))
	}
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(ctx, s, homes, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("problem: %s", p)
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	chats := map[string]events{}
	calls, answered := 0, 0
	for _, in := range list {
		tr, err := s.Load(ctx, in.ID, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage, sessiondb.KindMessagePart}})
		if err != nil {
			t.Fatal(err)
		}
		chats[in.ID] = transcriptEvents(tr)
		results := map[string]bool{}
		var ids []string
		for _, e := range tr {
			m := jsonlimport.Understand(qwen.Name, e)
			for _, c := range m.Calls {
				ids = append(ids, c.ID)
			}
			for _, r := range m.Results {
				results[r.CallID] = true
			}
		}
		for _, id := range ids {
			calls++
			if results[id] {
				answered++
			} else {
				t.Errorf("session %s: tool call %s has no result in the transcript", in.ID, id)
			}
		}
	}
	var runs, resumes, resumesEqual, sessions, tokensEqual int
	version := ""
	for _, d := range dirs {
		man := readManifest(t, d)
		version = man.InstalledVersion
		last := map[string]string{} // session → stdout of its last run
		type change struct{ session, old, repl string }
		var later []change
		for i := len(man.Runs) - 1; i >= 0; i-- {
			r := man.Runs[i]
			runs++
			if r.Exit != 0 {
				t.Errorf("%s: run %s exited %d", d, r.Name, r.Exit)
			}
			if last[r.SessionID] == "" {
				last[r.SessionID] = r.Stdout
			}
			edits := later
			if r.Edit != nil {
				later = append(later, change{r.SessionID, r.Edit.Old, r.Edit.New})
			}
			if !slices.Contains(r.Args, "--resume") {
				continue
			}
			resumes++
			line := readLines(t, filepath.Join(d, r.Log))[0]
			for _, c := range edits {
				if c.session == r.SessionID {
					line = strings.ReplaceAll(line, c.old, c.repl)
				}
			}
			var req struct {
				Body struct {
					Messages []map[string]any `json:"messages"`
				} `json:"body"`
			}
			if err := json.Unmarshal([]byte(line), &req); err != nil {
				t.Fatal(err)
			}
			ev := requestEvents(req.Body.Messages)
			c := chats[r.SessionID]
			if len(c) < len(ev) || strings.Join(c[:len(ev)], "\n") != strings.Join(ev, "\n") {
				t.Errorf("%s run %s: our transcript does not start with the history Qwen Code sent:\n  %s\nours:\n  %s", d, r.Name, strings.Join(ev, "\n  "), strings.Join(c, "\n  "))
				continue
			}
			resumesEqual++
		}
		for id, stdout := range last {
			sessions++
			if checkCorpusTokens(t, s, list, id, filepath.Join(d, stdout)) {
				tokensEqual++
			}
		}
	}
	if len(list) != 4 {
		t.Errorf("%d sessions imported, want 4 (A, B, C and C's sub-agent)", len(list))
	}
	subs := 0
	for _, in := range list {
		if in.ParentID != "" {
			subs++
			if !jsonlimport.SubAgent(in.Session) {
				t.Errorf("session %s (parent %s) is not told a sub-agent", in.ID, in.ParentID)
			}
		}
	}
	if subs != 1 {
		t.Errorf("%d sessions with a parent, want C's sub-agent", subs)
	}
	// Exported in its own format, every chat comes back byte for byte.
	var ids []string
	for _, in := range list {
		ids = append(ids, in.ID)
	}
	out := t.TempDir()
	files, err := jsonlimport.Export(ctx, s, ids, qwen.Name, out)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for _, f := range files {
		rel, _ := filepath.Rel(out, f)
		got, _ := os.ReadFile(f)
		for _, h := range homes {
			if want, err := os.ReadFile(filepath.Join(h, ".qwen", rel)); err == nil && bytes.Equal(got, want) {
				same++
				break
			}
		}
	}
	if same != len(ids) {
		t.Errorf("%d of %d chats come back byte for byte from an export", same, len(ids))
	}
	t.Logf("Qwen Code %s corpus: %d runs, %d sessions imported, tool calls with results %d/%d, tokens equal %d/%d sessions, resumed histories equal %d/%d, import problems %d, exported byte for byte %d/%d",
		version, runs, len(list), answered, calls, tokensEqual, sessions, resumesEqual, resumes, len(rep.Problems), same, len(ids))
}

// checkCorpusTokens compares the usage of session id and of its sub-agents
// with the stats of the run whose --output-format json answer is stdout:
// each sub-agent's with the source of its agentType in bySource, the
// session's with the rest.
func checkCorpusTokens(t *testing.T, s interface {
	UsageTotals(context.Context, string) (sessiondb.UsageTotals, error)
}, list []sessiondb.SessionInfo, id, stdout string) bool {
	t.Helper()
	b, err := os.ReadFile(stdout)
	if err != nil {
		t.Fatal(err)
	}
	type tokens struct {
		Prompt, Candidates, Cached, Thoughts int64
	}
	type source struct {
		API struct {
			TotalRequests int64 `json:"totalRequests"`
		} `json:"api"`
		Tokens tokens `json:"tokens"`
	}
	var events []struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		Stats     struct {
			Models map[string]struct {
				source
				BySource map[string]source `json:"bySource"`
			} `json:"models"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(b, &events); err != nil {
		t.Fatalf("%s: %v", stdout, err)
	}
	type counts struct{ Requests, Prompt, Candidates, Cached, Thoughts int64 }
	add := func(c *counts, src source, sign int64) {
		c.Requests += sign * src.API.TotalRequests
		c.Prompt += sign * src.Tokens.Prompt
		c.Candidates += sign * src.Tokens.Candidates
		c.Cached += sign * src.Tokens.Cached
		c.Thoughts += sign * src.Tokens.Thoughts
	}
	ok := true
	for _, ev := range events {
		if ev.Type != "result" {
			continue
		}
		want := map[string]counts{}
		for _, m := range ev.Stats.Models {
			main := want[id]
			add(&main, m.source, 1)
			for _, in := range list {
				if in.ParentID != id {
					continue
				}
				var attrs struct {
					AgentType string `json:"agentType"`
				}
				_ = json.Unmarshal(in.Attrs, &attrs)
				src, found := m.BySource[attrs.AgentType]
				if !found {
					t.Errorf("%s: no source %q in the stats of %s", in.ID, attrs.AgentType, stdout)
					continue
				}
				sub := want[in.ID]
				add(&sub, src, 1)
				want[in.ID] = sub
				add(&main, src, -1)
			}
			want[id] = main
		}
		for sid, w := range want {
			u, err := s.UsageTotals(context.Background(), sid)
			if err != nil {
				t.Fatal(err)
			}
			got := counts{u.Calls, u.InputTokens + u.CacheReadTokens, u.OutputTokens, u.CacheReadTokens, u.ReasoningTokens}
			if got != w {
				t.Errorf("session %s: usage %+v, Qwen Code's stats %+v (%s)", sid, got, w, stdout)
				ok = false
			}
		}
	}
	return ok
}
