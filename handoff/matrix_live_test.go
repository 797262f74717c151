package handoff

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/agentrun"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/internal/scriptmodel"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// marker is a word of session A's first prompt in every corpus store
// ("Run the tools, edited by hand ✍ [[tools]]": the corpus's hand edit).
const marker = "edited by hand ✍"

// pairResult is one cell of the matrix.
type pairResult struct {
	Source, Target string
	Outcome        string // resumed, refused (the handoff said why), failed
	Why            string
	Lost           []string
	Resume         string
	Seconds        float64
}

// TestLiveHandoffMatrix (issue 40 item 2) hands session A of each agent's
// corpus (what the real agent wrote: parallel tool calls, a failing
// call, a 1,500-line output, thinking, a resumed turn) to each of the six
// agents: import into a store, Handoff into a fresh home of the target,
// then the real target resumes it against the scripted model. A pair is
// resumed when the target's first model request carries every user prompt
// of the session, every assistant text, every tool call (what it ran)
// with the first line of its result, and the marker word of the first
// prompt; a pair the handoff refuses is recorded with its reason (the
// translation does not exist, or the target has no shape for something);
// a pair the handoff accepted that the target does not resume fully
// fails the test. The table is logged, and written as JSON to
// $SESSIONDB_HANDOFF_MATRIX when set.
func TestLiveHandoffMatrix(t *testing.T) {
	longtest.Skip(t, "runs up to 36 resumes of the six real agents, several minutes")
	cache := os.Getenv("SESSIONDB_AGENTS_DIR")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "sessiondb-agents")
	}
	start := time.Now()
	var results []pairResult
	for _, src := range agentrun.Agents() {
		st, id := importCorpus(t, src.Name)
		want := expected(t, st, id)
		for _, dst := range agentrun.Agents() {
			pr := pairResult{Source: src.Name, Target: dst.Name}
			t.Run(src.Name+"_to_"+dst.Name, func(t *testing.T) {
				began := time.Now()
				defer func() { pr.Seconds = time.Since(began).Seconds() }()
				in, err := dst.Find(cache)
				if err != nil {
					if os.Getenv("CI") != "" {
						t.Fatalf("%v (go run ./testdata/gen/agents install)", err)
					}
					pr.Outcome, pr.Why = "failed", err.Error()
					t.Skip(err)
				}
				pr.Outcome, pr.Why, pr.Lost, pr.Resume = runPair(t, in, st, id, want)
				if pr.Outcome == "failed" {
					t.Error(pr.Why)
				}
			})
			if pr.Outcome != "" { // not filtered out by -run
				results = append(results, pr)
			}
		}
	}
	resumed := 0
	var b strings.Builder
	fmt.Fprintf(&b, "handoff matrix (%.0f s):\n", time.Since(start).Seconds())
	for _, r := range results {
		if r.Outcome == "resumed" {
			resumed++
		}
		fmt.Fprintf(&b, "  %-11s -> %-11s %-8s %5.1fs  %s", r.Source, r.Target, r.Outcome, r.Seconds, oneLine(r.Why, 160))
		if len(r.Lost) > 0 {
			fmt.Fprintf(&b, "  lost: %s", strings.Join(r.Lost, "; "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "resumed %d of %d pairs", resumed, len(results))
	t.Log(b.String())
	if p := os.Getenv("SESSIONDB_HANDOFF_MATRIX"); p != "" {
		data, _ := json.MarshalIndent(map[string]any{"seconds": time.Since(start).Seconds(), "resumed": resumed, "pairs": results}, "", "  ")
		_ = os.WriteFile(p, append(data, '\n'), 0o644)
	}
}

// agentLog is the last error lines of opencode's log under h, if any.
func agentLog(h *agentrun.Home) string {
	files, _ := filepath.Glob(filepath.Join(h.Data, "opencode", "log", "*.log"))
	var errs []string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(strings.ToLower(l), "error") {
				errs = append(errs, l)
			}
		}
	}
	if len(errs) == 0 {
		return ""
	}
	return " (opencode's log: " + oneLine(strings.Join(errs[max(0, len(errs)-3):], " | "), 1500) + ")"
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// runPair hands session id to in's agent in a fresh home and resumes it.
func runPair(t *testing.T, in *agentrun.Installed, st sessiondb.Store, id string, want []string) (outcome, why string, lost []string, resume string) {
	h, err := agentrun.NewHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := scriptmodel.Start(scriptmodel.Options{IdleTimeout: 5 * time.Minute, MaxRequests: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := in.Setup(h, srv.URL()); err != nil {
		t.Fatal(err)
	}
	o := Options{To: in.Name, Env: Env{Home: h.Dir}, Cwd: h.Project, Opencode: in.Bin(), OpencodeEnv: in.Env(h, srv.URL())}
	res, err := Handoff(t.Context(), st, id, o)
	if err != nil {
		if errors.Is(err, jsonlimport.ErrUntranslatable) || errors.Is(err, sessiondb.ErrInvalid) {
			return "refused", err.Error(), nil, ""
		}
		return "failed", "handoff: " + err.Error(), nil, ""
	}
	resume = strings.Join(res.ResumeHeadless, " ")
	tr, err := in.Resume(t.Context(), h, srv, 4*time.Minute, res.Session, "What did I ask first? [[recall]]")
	if err != nil {
		out := ""
		if tr != nil && tr.Result != nil {
			out = oneLine(string(tr.Stdout), 600)
		}
		logs := agentLog(h)
		if in.Name == "opencode" {
			// Again with its log on stderr: the error is there.
			args := append([]string{"--print-logs", "--log-level", "ERROR"}, in.ResumeArgs(res.Session, "What did I ask first? [[recall]]")...)
			if r, _ := in.Run(t.Context(), h, srv.URL(), 3*time.Minute, args); r != nil {
				logs += " (opencode --print-logs: " + oneLine(string(r.Stderr), 1500) + ")"
			}
		}
		return "failed", fmt.Sprintf("resume: %v (stdout: %s)%s", err, out, logs), res.Lost, resume
	}
	main := tr.Main()
	if len(main) == 0 {
		return "failed", "the resume sent no model request", res.Lost, resume
	}
	var missing []string
	for _, w := range want {
		if !tr.Sent(w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return "failed", fmt.Sprintf("the resumed request lacks %d of %d pieces: %q", len(missing), len(want), missing), res.Lost, resume
	}
	return "resumed", fmt.Sprintf("%d pieces sent back", len(want)), res.Lost, resume
}

// expected lists what a resumed request must carry of session id: each
// user prompt, each assistant text, each tool call's command (its
// summary) and the first line of each result, and the marker.
func expected(t *testing.T, st sessiondb.Store, id string) []string {
	t.Helper()
	full, err := st.LoadFull(t.Context(), id, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	add(marker)
	for _, e := range full.Transcript {
		m := jsonlimport.Understand(full.Session.SourceFormat, e)
		if m.Bookkeeping || m.Context {
			continue
		}
		switch {
		case m.Role == "user" && len(m.Results) == 0:
			add(strings.Trim(m.Text, `"`)) // opencode keeps the prompt in quotes
		case m.Text != "" && len(m.Results) == 0:
			add(firstLineOf(m.Text, 80))
		}
		for _, c := range m.Calls {
			add(c.Summary(60))
		}
		for _, r := range m.Results {
			add(firstLineOf(r.Text, 40))
		}
	}
	return out
}

func firstLineOf(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > n {
				l = l[:n]
				for len(l) > 0 && l[len(l)-1]&0xC0 == 0x80 {
					l = l[:len(l)-1]
				}
				if len(l) > 0 && l[len(l)-1] >= 0xC0 {
					l = l[:len(l)-1]
				}
			}
			return l
		}
	}
	return ""
}

// importCorpus imports the store of testdata/agents/<agent> (its home
// folder, or home.tar.gz unpacked) into a new store and returns session
// A's id (manifest.json).
func importCorpus(t *testing.T, agent string) (sessiondb.Store, string) {
	t.Helper()
	dir := filepath.Join("..", "testdata", "agents", agent)
	var m struct {
		Sessions map[string]string `json:"sessions"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if _, err := os.Stat(home); err != nil {
		tmp := t.TempDir()
		if err := untar(filepath.Join(dir, "home.tar.gz"), tmp); err != nil {
			t.Fatal(err)
		}
		home = filepath.Join(tmp, "home")
	}
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), agent+".db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := jsonlimport.Import(t.Context(), st, []string{home}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	id := m.Sessions["A"]
	if _, err := st.Get(t.Context(), id); err != nil {
		t.Fatalf("%s session A %s: %v", agent, id, err)
	}
	return st, id
}

func untar(archive, dst string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dst, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, filepath.Clean(dst)+string(filepath.Separator)) {
			return fmt.Errorf("tar entry %s outside the folder", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			var buf bytes.Buffer
			if _, err := io.Copy(&buf, tr); err != nil {
				return err
			}
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
}

// TestExpectedPieces is the fast sibling of the matrix: what a resumed
// request must carry of each corpus session A is found (the marker, the
// prompts, texts, calls and results), without running an agent.
func TestExpectedPieces(t *testing.T) {
	var names []string
	for _, a := range agentrun.Agents() {
		names = append(names, a.Name)
	}
	sort.Strings(names)
	for _, name := range names {
		st, id := importCorpus(t, name)
		want := expected(t, st, id)
		joined := strings.Join(want, "\n")
		for _, w := range []string{marker, "echo alpha", "echo beta", "ls /nonexistent-sessiondb-path", "seq 1 1500"} {
			if !strings.Contains(joined, w) {
				t.Errorf("%s: %q not among the expected pieces %q", name, w, want)
			}
		}
		if len(want) < 8 {
			t.Errorf("%s: only %d pieces: %q", name, len(want), want)
		}
	}
}
