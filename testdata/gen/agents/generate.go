package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb/internal/agentrun"
	"github.com/sessiondb/sessiondb/internal/scriptmodel"

	_ "modernc.org/sqlite" // to list opencode's sessions
)

// step is one run of the plan: a new session or a resume of one, with a
// prompt; edit, when set, is a hand edit of the store made before it.
type step struct {
	Name    string
	Session string // the plan's name for the session: A, B
	Resume  bool
	Prompt  string
	Edit    *edit
	// Expect is a text the run's first model request must hold (what a
	// resume sends back); Refuse one it must not.
	Expect, Refuse string
}

type edit struct{ Old, New string }

const (
	firstPrompt  = "Run the tools [[tools]]"
	editedPrompt = "Run the tools, edited by hand ✍ [[tools]]"
)

// plan is what every agent runs: session A (parallel calls, a failing
// call, a long output), resumed for a second turn; session B (a long
// answer), resumed with a question about its history; A resumed once
// more after its first prompt was edited in the store by hand.
var plan = []step{
	{Name: "a1", Session: "A", Prompt: firstPrompt},
	{Name: "a2", Session: "A", Resume: true, Prompt: "Say hello 你好 👋 [[hello]]", Expect: firstPrompt},
	{Name: "b1", Session: "B", Prompt: "Write a long answer [[long]]"},
	{Name: "b2", Session: "B", Resume: true, Prompt: "What did I ask first? [[recall]]", Expect: "Write a long answer [[long]]"},
	{Name: "a3", Session: "A", Resume: true, Prompt: "What did I ask first, after the edit? [[recall]]",
		Edit: &edit{Old: firstPrompt, New: editedPrompt}, Expect: editedPrompt, Refuse: firstPrompt},
}

// subPlan runs a sub-agent: session C delegates a shell call to the
// agent's sub-agent tool, then is resumed with a question about its
// history. It is written to testdata/agents/<agent>/subagent for the
// agents that have such a tool and finish the run (see subagentAgents).
var subPlan = []step{
	{Name: "c1", Session: "C", Prompt: "Delegate to a sub-agent [[agent]]"},
	{Name: "c2", Session: "C", Resume: true, Prompt: "What did I ask first? [[recall]]", Expect: "Delegate to a sub-agent [[agent]]"},
}

// subagentAgents are the agents the sub-agent plan runs in: pi has no
// sub-agents, and Codex's multi_agent_v1 tool is not scripted.
var subagentAgents = map[string]bool{"gemini": true, "qwen": true, "opencode": true, "claude-code": true}

// manifest is testdata/agents/<agent>/manifest.json.
type manifest struct {
	Agent     string            `json:"agent"`
	Package   string            `json:"package"`
	Pinned    string            `json:"pinned_version"`
	Installed string            `json:"installed_version"`
	Protocol  string            `json:"protocol"`
	Model     string            `json:"model"`
	Script    string            `json:"script"`
	Sessions  map[string]string `json:"sessions"`
	Runs      []runRecord       `json:"runs"`
	Store     []string          `json:"store"`
	Exports   []string          `json:"exports,omitempty"`
}

type runRecord struct {
	Name      string   `json:"name"`
	Session   string   `json:"session"`
	SessionID string   `json:"session_id"`
	Args      []string `json:"args"`
	Exit      int      `json:"exit"`
	Requests  int      `json:"requests"`
	Scenarios []string `json:"scenarios"` // scenario/turn/step of each request
	// Edit is the hand edit made before the run and where it was made.
	Edit *editRecord `json:"edit,omitempty"`
	// Expected is the text the run's first model request had to hold
	// (what a resume sends back), and SentExpected whether it did;
	// Refused one it had to not hold any more.
	Expected     string `json:"expected,omitempty"`
	SentExpected *bool  `json:"sent_expected,omitempty"`
	Refused      string `json:"refused,omitempty"`
	SentRefused  *bool  `json:"sent_refused,omitempty"`
	Stdout       string `json:"stdout"`
	Stderr       string `json:"stderr"`
	RequestLog   string `json:"request_log"`
}

type editRecord struct {
	Old     string `json:"old"`
	New     string `json:"new"`
	Changed int    `json:"places_changed"`
}

// generate runs plan in agent a (installed in cache) with its home under
// base, and writes what it wrote to out (keeping the folders of other
// plans, named in keep).
func generate(ctx context.Context, a *agentrun.Agent, plan []step, cache, base, out string, keep ...string) error {
	in, err := a.Install(ctx, cache, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Printf("   installed %s in %s\n", in.Version, in.Dir)
	if err := os.RemoveAll(base); err != nil {
		return err
	}
	h, err := agentrun.NewHome(base)
	if err != nil {
		return err
	}
	srv, err := scriptmodel.Start(scriptmodel.Options{LogDir: filepath.Join(base, "log"), Pace: 30 * time.Millisecond, IdleTimeout: 15 * time.Minute})
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := in.Setup(h, srv.URL()); err != nil {
		return err
	}
	if err := clean(out, keep); err != nil {
		return err
	}
	for _, d := range []string{"requests", "outputs"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return err
		}
	}
	m := manifest{Agent: a.Name, Package: a.Package, Pinned: a.Version, Installed: in.Version, Protocol: a.Protocol, Model: a.Model,
		Script: "internal/scriptmodel DefaultScript; the prompts are in runs[].args", Sessions: map[string]string{}}
	var failures []string
	for _, st := range plan {
		rec := runRecord{Name: st.Name, Session: st.Session}
		var t *agentrun.Turn
		if st.Edit != nil {
			n, err := a.EditText(h, m.Sessions[st.Session], st.Edit.Old, st.Edit.New)
			if err != nil {
				return fmt.Errorf("%s: hand edit: %w", st.Name, err)
			}
			rec.Edit = &editRecord{Old: st.Edit.Old, New: st.Edit.New, Changed: n}
		}
		if st.Resume {
			t, err = in.Resume(ctx, h, srv, 5*time.Minute, m.Sessions[st.Session], st.Prompt)
		} else {
			t, err = in.New(ctx, h, srv, 5*time.Minute, st.Prompt)
		}
		if t != nil && t.Result != nil {
			rec.Args, rec.Exit = t.Args, t.ExitCode
			rec.Stdout = "outputs/" + st.Name + ".stdout"
			rec.Stderr = "outputs/" + st.Name + ".stderr"
			os.WriteFile(filepath.Join(out, rec.Stdout), t.Stdout, 0o644)
			os.WriteFile(filepath.Join(out, rec.Stderr), t.Stderr, 0o644)
			rec.RequestLog = "requests/" + st.Name + ".jsonl"
			if err := writeRequests(filepath.Join(out, rec.RequestLog), t.Requests); err != nil {
				return err
			}
			rec.Requests = len(t.Requests)
			for _, r := range t.Requests {
				rec.Scenarios = append(rec.Scenarios, fmt.Sprintf("%s %s/%d/%d %d", r.Path, r.Scenario, r.Turn, r.Step, r.Status))
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", st.Name, err)
		}
		if !st.Resume {
			m.Sessions[st.Session] = t.Session
		}
		rec.SessionID = t.Session
		if st.Expect != "" {
			ok := t.Sent(st.Expect)
			rec.Expected, rec.SentExpected = st.Expect, &ok
			if !ok {
				failures = append(failures, fmt.Sprintf("%s: the model was not sent %q", st.Name, st.Expect))
			}
		}
		if st.Refuse != "" {
			sent := t.Sent(st.Refuse)
			rec.Refused, rec.SentRefused = st.Refuse, &sent
			if sent {
				failures = append(failures, fmt.Sprintf("%s: the model was still sent %q", st.Name, st.Refuse))
			}
		}
		fmt.Printf("   %s: session %s, exit %d, %d requests, %.1fs\n", st.Name, t.Session, t.ExitCode, len(t.Requests), t.Duration.Seconds())
		m.Runs = append(m.Runs, rec)
	}
	if a.Name == "opencode" {
		ids, err := opencodeSessions(h)
		if err != nil {
			return err
		}
		for _, id := range ids {
			r, err := in.Run(ctx, h, srv.URL(), time.Minute, []string{"export", id})
			if err != nil || r.ExitCode != 0 {
				return fmt.Errorf("opencode export %s: %v %s", id, err, r.Stderr)
			}
			rel := "export/" + id + ".json"
			if err := writeFile(filepath.Join(out, rel), r.Stdout); err != nil {
				return err
			}
			m.Exports = append(m.Exports, rel)
		}
	}
	if m.Store, err = copyStore(a, h, out); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(out, "manifest.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if len(failures) > 0 {
		return fmt.Errorf("checks failed:\n  %s", strings.Join(failures, "\n  "))
	}
	return nil
}

// opencodeSessions lists the ids of every session in opencode's
// database (sub-agents' child sessions too), read from a copy of the
// database, its WAL and shm, so that the files stay as opencode left
// them.
func opencodeSessions(h *agentrun.Home) ([]string, error) {
	tmp, err := os.MkdirTemp("", "opencode-db-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		data, err := os.ReadFile(filepath.Join(h.Data, "opencode", "opencode.db"+suffix))
		if err != nil {
			if os.IsNotExist(err) && suffix != "" {
				continue
			}
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "opencode.db"+suffix), data, 0o644); err != nil {
			return nil, err
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(tmp, "opencode.db"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id FROM session ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// clean empties out but for the entries named in keep.
func clean(out string, keep []string) error {
	entries, err := os.ReadDir(out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !slices.Contains(keep, e.Name()) {
			if err := os.RemoveAll(filepath.Join(out, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
