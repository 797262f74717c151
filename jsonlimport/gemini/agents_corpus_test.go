package gemini_test

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
	"github.com/sessiondb/sessiondb/jsonlimport/gemini"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// The corpus the agents' generator committed (testdata/agents/gemini, run
// by internal/agentrun against internal/scriptmodel): session A (parallel
// calls, a failing one, a long output) resumed twice, the last time after
// its first prompt was edited by hand; B (a long answer) resumed once; C
// (subagent/) delegating to a sub-agent, resumed once.
var agentsCorpus = filepath.Join("..", "..", "testdata", "agents", "gemini")

// manifest is what the generator says of its runs.
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

// TestAgentsCorpus imports every chat Gemini CLI wrote in the corpus and
// checks it against what Gemini CLI itself did: the import has no
// problem (sessionctl exits 0); every tool call has its result; each
// session's usage (its sub-agent's added) equals the token stats Gemini
// CLI printed for its runs; and the history Gemini CLI sent after every
// --resume is our transcript of the file as it was then (the hand edit
// applied to the requests of the runs before it). It logs the figures.
func TestAgentsCorpus(t *testing.T) {
	ctx := context.Background()
	dirs := []string{agentsCorpus, filepath.Join(agentsCorpus, "subagent")}
	s := jsonltest.OpenStore(t)
	var homes []string
	for _, d := range dirs {
		homes = append(homes, filepath.Join(d, "home"))
	}
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
	byID := map[string]sessiondb.Session{}
	calls, answered := 0, 0
	for _, in := range list {
		byID[in.ID] = in.Session
		tr, err := s.Load(ctx, in.ID, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
		if err != nil {
			t.Fatal(err)
		}
		results := map[string]bool{}
		var ids []string
		for _, e := range tr {
			m := jsonlimport.Understand(gemini.Name, e)
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
	var runs, resumes, resumesEqual, tokenSessions, tokensEqual int
	version := ""
	for _, d := range dirs {
		man := readManifest(t, d)
		version = man.InstalledVersion
		for _, r := range man.Runs {
			runs++
			if r.Exit != 0 {
				t.Errorf("%s: run %s exited %d", d, r.Name, r.Exit)
			}
		}
		tokenSessions += len(man.Sessions)
		tokensEqual += checkCorpusTokens(t, s, byID, d, man)
		n, eq := checkCorpusResumes(t, d, man)
		resumes, resumesEqual = resumes+n, resumesEqual+eq
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
	files, err := jsonlimport.Export(ctx, s, ids, gemini.Name, out)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for _, f := range files {
		rel, _ := filepath.Rel(out, f)
		got, _ := os.ReadFile(f)
		for _, h := range homes {
			if want, err := os.ReadFile(filepath.Join(h, ".gemini", rel)); err == nil && bytes.Equal(got, want) {
				same++
				break
			}
		}
	}
	if same != len(ids) {
		t.Errorf("%d of %d chats come back byte for byte from an export", same, len(ids))
	}
	t.Logf("Gemini CLI %s corpus: %d runs, %d sessions imported, tool calls with results %d/%d, tokens equal %d/%d sessions, resumed histories equal %d/%d, import problems %d, exported byte for byte %d/%d",
		version, runs, len(list), answered, calls, tokensEqual, tokenSessions, resumesEqual, resumes, len(rep.Problems), same, len(ids))
}

// checkCorpusTokens compares each session's usage, its sub-agents'
// added, with the sum of the token stats of its runs; it returns the
// sessions that are equal.
func checkCorpusTokens(t *testing.T, s interface {
	UsageTotals(context.Context, string) (sessiondb.UsageTotals, error)
}, byID map[string]sessiondb.Session, dir string, man manifest) int {
	t.Helper()
	type counts struct{ Requests, Prompt, Candidates, Cached, Thoughts, Total int64 }
	want := map[string]counts{}
	for _, r := range man.Runs {
		b, err := os.ReadFile(filepath.Join(dir, r.Stdout))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Stats struct {
				Models map[string]struct {
					API struct {
						TotalRequests int64 `json:"totalRequests"`
					} `json:"api"`
					Tokens struct {
						Prompt, Candidates, Cached, Thoughts, Total int64
					} `json:"tokens"`
				} `json:"models"`
			} `json:"stats"`
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %v", r.Stdout, err)
		}
		c := want[r.SessionID]
		for _, m := range out.Stats.Models {
			c.Requests += m.API.TotalRequests
			c.Prompt += m.Tokens.Prompt
			c.Candidates += m.Tokens.Candidates
			c.Cached += m.Tokens.Cached
			c.Thoughts += m.Tokens.Thoughts
			c.Total += m.Tokens.Total
		}
		want[r.SessionID] = c
	}
	equal := 0
	for id, w := range want {
		var got counts
		for sid, sess := range byID {
			if sid != id && sess.ParentID != id {
				continue
			}
			u, err := s.UsageTotals(context.Background(), sid)
			if err != nil {
				t.Fatal(err)
			}
			got.Requests += u.Calls
			got.Prompt += u.InputTokens + u.CacheReadTokens
			got.Candidates += u.OutputTokens - u.ReasoningTokens
			got.Cached += u.CacheReadTokens
			got.Thoughts += u.ReasoningTokens
			got.Total += u.InputTokens + u.CacheReadTokens + u.OutputTokens
		}
		if got != w {
			t.Errorf("session %s: usage %+v, Gemini CLI's stats %+v", id, got, w)
			continue
		}
		equal++
	}
	return equal
}

// checkCorpusResumes compares the first request of every --resume run
// with our transcript of the chat file as it was when the run began; it
// returns the runs checked and those equal.
func checkCorpusResumes(t *testing.T, dir string, man manifest) (n, equal int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "home", ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	var states []events
	for _, f := range files {
		states = append(states, beforeResume(t, f)...)
	}
	// The hand edit of a run's file is in the file before it, and in the
	// files of the later runs; the requests of the earlier runs of its
	// session hold the text before the edit.
	type change struct{ session, old, repl string }
	var later []change
	for i := len(man.Runs) - 1; i >= 0; i-- {
		r := man.Runs[i]
		resumed := slices.Contains(r.Args, "--resume")
		edits := later
		if r.Edit != nil {
			later = append(later, change{r.SessionID, r.Edit.Old, r.Edit.New})
		}
		if !resumed {
			continue
		}
		n++
		lines := readLines(t, filepath.Join(dir, r.Log))
		var req struct {
			Body struct {
				Contents []map[string]any `json:"contents"`
			} `json:"body"`
		}
		line := lines[0]
		for _, c := range edits {
			if c.session == r.SessionID {
				line = strings.ReplaceAll(line, c.old, c.repl)
			}
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		ev := requestEvents(req.Body.Contents)
		history := strings.Join(ev[:len(ev)-1], "\n")
		ok := false
		for _, st := range states {
			ok = ok || strings.Join(st, "\n") == history
		}
		if !ok {
			t.Errorf("%s run %s: no state of the chat files gives the history Gemini CLI sent:\n  %s", dir, r.Name, strings.Join(ev, "\n  "))
			continue
		}
		equal++
	}
	return n, equal
}
