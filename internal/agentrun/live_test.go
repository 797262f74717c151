package agentrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/internal/scriptmodel"
)

// agentsDir is where the live test finds the installed agents:
// $SESSIONDB_AGENTS_DIR, else ~/.cache/sessiondb-agents (where
// `go run ./testdata/gen/agents install` puts them).
func agentsDir() string {
	if d := os.Getenv("SESSIONDB_AGENTS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "sessiondb-agents")
}

// TestLiveAgents runs one short scripted session in each real agent: a
// new session with two parallel tool calls, then a resume. It checks
// that the agent wrote its store and that the resume sent the earlier
// prompt back to the model (from the server's request log). With CI set,
// a missing agent fails the test instead of skipping it.
func TestLiveAgents(t *testing.T) {
	longtest.Skip(t, "runs the six real agents, a minute or two")
	cache := agentsDir()
	for _, a := range Agents() {
		t.Run(a.Name, func(t *testing.T) {
			in, err := a.Find(cache)
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%v (go run ./testdata/gen/agents install)", err)
				}
				t.Skipf("%v (go run ./testdata/gen/agents install, or set SESSIONDB_AGENTS_DIR)", err)
			}
			h, err := NewHome(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			srv, err := scriptmodel.Start(scriptmodel.Options{IdleTimeout: 5 * time.Minute, MaxRequests: 200})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if err := in.Setup(h, srv.URL()); err != nil {
				t.Fatal(err)
			}
			const first = "Run two commands [[parallel]]"
			t1, err := in.New(t.Context(), h, srv, 4*time.Minute, first)
			if err != nil {
				t.Fatalf("new session: %v\n%s", err, t1Stderr(t1))
			}
			main := t1.Main()
			if len(main) != 2 || main[0].Step != 0 || main[1].Step != 1 {
				t.Fatalf("new session: %d model requests %+v (want the two calls, then their results)", len(main), main)
			}
			if !storeWritten(a, h, t1.Session) {
				t.Fatalf("no store for session %s under %v", t1.Session, a.Store(h))
			}
			t2, err := in.Resume(t.Context(), h, srv, 4*time.Minute, t1.Session, "And now? [[hello]]")
			if err != nil {
				t.Fatalf("resume: %v\n%s", err, t1Stderr(t2))
			}
			if !t2.Sent(first) {
				t.Fatalf("the resume did not send the first prompt back: %s", firstBody(t2))
			}
			if m := t2.Main(); len(m) == 0 || m[0].Scenario != "hello" || m[0].Turn != 2 {
				t.Fatalf("resume played %+v, want hello in turn 2", m)
			}
			t.Logf("%s %s: new %.1fs, resume %.1fs, %d requests", a.Name, in.Version, t1.Duration.Seconds(), t2.Duration.Seconds(), srv.Len())
		})
	}
}

// storeWritten reports whether the agent's store holds session id.
func storeWritten(a *Agent, h *Home, id string) bool {
	if a.Name == "opencode" {
		st, err := os.Stat(filepath.Join(h.Data, "opencode", "opencode.db"))
		return err == nil && st.Size() > 0
	}
	return len(a.SessionFiles(h, id)) > 0
}

func t1Stderr(t *Turn) string {
	if t == nil || t.Result == nil {
		return ""
	}
	return tail(t.Stderr)
}

func firstBody(t *Turn) string {
	if m := t.Main(); len(m) > 0 {
		return tail(m[0].Body)
	}
	return "(no model request)"
}

// TestLiveOpencodeImport: opencode loads the committed export of a
// session of the corpus into a fresh store (ImportArgs) and resumes it;
// the resumed turn sends the imported history to the model.
func TestLiveOpencodeImport(t *testing.T) {
	longtest.Skip(t, "runs opencode twice, about half a minute")
	in, err := Lookup("opencode").Find(agentsDir())
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (go run ./testdata/gen/agents install)", err)
		}
		t.Skip(err)
	}
	var m corpusManifest
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "agents", "opencode", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	id := m.Sessions["B"]
	file, err := filepath.Abs(filepath.Join("..", "..", "testdata", "agents", "opencode", "export", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := scriptmodel.Start(scriptmodel.Options{IdleTimeout: 5 * time.Minute, MaxRequests: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := in.Setup(h, srv.URL()); err != nil {
		t.Fatal(err)
	}
	r, err := in.Run(t.Context(), h, srv.URL(), 3*time.Minute, in.ImportArgs(file))
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("opencode import: %v, exit %d: %s", err, r.ExitCode, tail(r.Stderr))
	}
	tr, err := in.Resume(t.Context(), h, srv, 3*time.Minute, id, "After the import? [[recall]]")
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Sent("Write a long answer [[long]]") || !tr.Sent("Line 080: the scripted model keeps talking") {
		t.Fatalf("the resumed turn did not send the imported history: %s", firstBody(tr))
	}
}
