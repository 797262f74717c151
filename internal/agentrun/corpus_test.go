package agentrun

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/internal/scriptmodel"
)

// corpusManifest is the part of testdata/agents/<agent>/manifest.json
// the test reads.
type corpusManifest struct {
	Agent     string            `json:"agent"`
	Pinned    string            `json:"pinned_version"`
	Installed string            `json:"installed_version"`
	Sessions  map[string]string `json:"sessions"`
	Store     []string          `json:"store"`
	Exports   []string          `json:"exports"`
	Runs      []struct {
		Name       string `json:"name"`
		SessionID  string `json:"session_id"`
		Exit       int    `json:"exit"`
		RequestLog string `json:"request_log"`
		Stdout     string `json:"stdout"`
		Expected   string `json:"expected"`
		Refused    string `json:"refused"`
		Edit       *struct {
			Old, New string
		} `json:"edit"`
	} `json:"runs"`
}

// TestCorpus checks the committed corpus of testdata/agents against
// what the generator promised, from the files themselves: one folder per
// agent written by the pinned version, every run exited 0, every request
// was answered, each resume's first model request holds the earlier
// prompt, the hand-edited prompt reached the model and the original did
// not, and the store files listed are there (packed or not).
func TestCorpus(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "agents")
	subagents := 0
	for _, a := range Agents() {
		t.Run(a.Name, func(t *testing.T) {
			checkCorpus(t, a, filepath.Join(root, a.Name), true)
		})
		sub := filepath.Join(root, a.Name, "subagent")
		if _, err := os.Stat(sub); err == nil {
			subagents++
			t.Run(a.Name+"/subagent", func(t *testing.T) { checkCorpus(t, a, sub, false) })
		}
	}
	if subagents != 4 {
		t.Errorf("%d sub-agent corpora, want 4 (gemini, qwen, opencode, claude-code)", subagents)
	}
}

// checkCorpus checks one corpus folder; main is the main plan (a hand
// edit, sessions A and B in SessionDir).
func checkCorpus(t *testing.T, a *Agent, dir string, main bool) {
	var m corpusManifest
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Agent != a.Name || m.Pinned != a.Version || m.Installed != a.Version {
		t.Fatalf("manifest says %s %s (installed %s); agentrun pins %s", m.Agent, m.Pinned, m.Installed, a.Version)
	}
	edited := false
	for _, r := range m.Runs {
		if r.Exit != 0 {
			t.Errorf("%s: exit %d", r.Name, r.Exit)
		}
		if _, err := os.Stat(filepath.Join(dir, r.Stdout)); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
		reqs := readRequests(t, filepath.Join(dir, r.RequestLog))
		var first *scriptmodel.Request
		for i := range reqs {
			if reqs[i].Status != 200 {
				t.Errorf("%s: request %d answered %d", r.Name, reqs[i].Seq, reqs[i].Status)
			}
			if first == nil && reqs[i].Scenario != "side" && reqs[i].Scenario != "" {
				first = &reqs[i]
			}
		}
		if first == nil {
			t.Fatalf("%s: no model request", r.Name)
		}
		turn := &Turn{Requests: []scriptmodel.Request{*first}}
		if r.Expected != "" && !turn.Sent(r.Expected) {
			t.Errorf("%s: the model was not sent %q", r.Name, r.Expected)
		}
		if r.Refused != "" && turn.Sent(r.Refused) {
			t.Errorf("%s: the model was still sent %q", r.Name, r.Refused)
		}
		if r.Edit != nil {
			edited = true
			if r.Expected != r.Edit.New || r.Refused != r.Edit.Old {
				t.Errorf("%s: the edit is not what the run checks", r.Name)
			}
		}
	}
	if main && !edited {
		t.Error("no run after a hand edit")
	}
	have := storeFiles(t, dir)
	for _, s := range m.Store {
		if !have[s] {
			t.Errorf("store file %s missing", s)
		}
	}
	if len(m.Store) == 0 {
		t.Error("no store")
	}
	for _, e := range m.Exports {
		if _, err := os.Stat(filepath.Join(dir, e)); err != nil {
			t.Error(err)
		}
	}
	if !main {
		return
	}
	// SessionDir names where the generator's runs put the
	// sessions (its home was /tmp/sessiondb-agents/<agent>).
	gen := &Home{Dir: "/tmp/sessiondb-agents/" + a.Name + "/home", Project: "/tmp/sessiondb-agents/" + a.Name + "/project"}
	rel, _ := filepath.Rel(gen.Dir, a.SessionDir(gen))
	sessions := 0
	for _, s := range m.Store {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "home.tar.gz:"), "home/")
		if s == rel || strings.HasPrefix(s, rel+"/") && strings.HasSuffix(s, ".jsonl") {
			sessions++
		}
	}
	if want := 2; a.Name == "opencode" {
		want = 1
		if sessions != want {
			t.Errorf("SessionDir %s: %d database files in the store %v", rel, sessions, m.Store)
		}
	} else if sessions != want {
		t.Errorf("SessionDir %s: %d session files in the store %v, want %d", rel, sessions, m.Store, want)
	}
}

func readRequests(t *testing.T, path string) []scriptmodel.Request {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []scriptmodel.Request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r scriptmodel.Request
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	return out
}

// storeFiles lists the store files of a corpus folder as the manifest
// names them: home/... and home.tar.gz:home/...
func storeFiles(t *testing.T, dir string) map[string]bool {
	have := map[string]bool{}
	filepath.WalkDir(filepath.Join(dir, "home"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			have[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	f, err := os.Open(filepath.Join(dir, "home.tar.gz"))
	if err != nil {
		return have
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(h.Name, "home/") {
			t.Errorf("tar entry %s outside home/", h.Name)
		}
		have["home.tar.gz:"+h.Name] = true
	}
	return have
}
