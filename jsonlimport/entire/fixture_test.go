package entire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The fixtures are CONSTRUCTED: no public repository with an Entire
// checkpoint branch was reachable (see testdata/README.md). A fixture is
// a git repository built here the way Entire writes one, following the
// layout observed in public readers of the branch (testdata/README.md
// names them): an orphan branch entire/checkpoints/v1 whose commits add
// <id[:2]>/<id[2:]>/metadata.json and, per session n,
// <id[:2]>/<id[2:]>/<n>/{metadata.json,full.jsonl,prompt.txt,context.md,
// content_hash.txt}, committed without a checkout (a separate index),
// plus commits on main whose message carries an Entire-Checkpoint
// trailer. The transcripts are REAL files of the corpus already in
// testdata (Claude Code, Codex, Gemini CLI), cut at a line boundary
// where a checkpoint holds a session's transcript as it was then.

// repoRoot is the module's testdata, from this package.
const repoRoot = "../../testdata"

// fxSession is one session of a checkpoint.
type fxSession struct {
	file  string // transcript, relative to repoRoot
	lines int    // its first lines only (0: all)
	id    string // the agent's session id
	agent string // Entire's name for the agent
	files []string
	usage [4]int // input, cache creation, cache read, output tokens
}

// fxCheckpoint is one checkpoint: one commit on the branch and, with
// trailer, one commit on main that names it.
type fxCheckpoint struct {
	id       string
	at       string // RFC 3339, the commits' and the metadata's time
	sessions []fxSession
	trailer  bool
}

// git runs git in dir with a fixed identity and no user configuration,
// so that the fixture's commit hashes are the same on every machine.
func git(t testing.TB, dir, at string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
		"GIT_AUTHOR_NAME=Fixture", "GIT_AUTHOR_EMAIL=fixture@example.com", "GIT_COMMITTER_NAME=Fixture",
		"GIT_COMMITTER_EMAIL=fixture@example.com", "GIT_AUTHOR_DATE="+at, "GIT_COMMITTER_DATE="+at,
		"GIT_INDEX_FILE="+filepath.Join(dir, ".git", "entire-fixture-index"))
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// mainGit runs git on the repository's own index (commits on main).
func mainGit(t testing.TB, dir, at string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
		"GIT_AUTHOR_NAME=Fixture", "GIT_AUTHOR_EMAIL=fixture@example.com", "GIT_COMMITTER_NAME=Fixture",
		"GIT_COMMITTER_EMAIL=fixture@example.com", "GIT_AUTHOR_DATE="+at, "GIT_COMMITTER_DATE="+at)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository with one commit on main.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	at := "2026-03-01T09:00:00Z"
	mainGit(t, dir, at, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mainGit(t, dir, at, "add", "README.md")
	mainGit(t, dir, at, "commit", "-q", "-m", "init")
	return dir
}

// transcript returns the first n lines of a corpus file (all when n is 0).
func transcript(t testing.TB, rel string, n int) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		return data
	}
	off := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			t.Fatalf("%s has fewer than %d lines", rel, n)
		}
		off += j + 1
	}
	return data[:off]
}

// addCheckpoint commits checkpoint c to the repository's branch, and,
// with c.trailer, a commit on main naming it.
func addCheckpoint(t testing.TB, dir string, c fxCheckpoint) {
	t.Helper()
	shard := c.id[:2] + "/" + c.id[2:]
	parent := ""
	if out, err := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "refs/heads/entire/checkpoints/v1").Output(); err == nil {
		parent = strings.TrimSpace(string(out))
		git(t, dir, c.at, nil, "read-tree", parent)
	} else {
		git(t, dir, c.at, nil, "read-tree", "--empty")
	}
	add := func(path string, data []byte) {
		oid := git(t, dir, c.at, data, "hash-object", "-w", "--stdin")
		git(t, dir, c.at, nil, "update-index", "--add", "--cacheinfo", "100644,"+oid+","+path)
	}
	type ref struct {
		Metadata    string `json:"metadata"`
		Transcript  string `json:"transcript"`
		Context     string `json:"context"`
		ContentHash string `json:"content_hash"`
		Prompt      string `json:"prompt"`
	}
	var refs []ref
	var all []string
	var total [4]int
	calls := 0
	for i, s := range c.sessions {
		d := fmt.Sprintf("%s/%d", shard, i)
		tr := transcript(t, s.file, s.lines)
		lines := bytes.Count(tr, []byte("\n"))
		meta := map[string]any{
			"cli_version": "0.4.2", "checkpoint_id": c.id, "session_id": s.id, "strategy": "manual-commit",
			"created_at": c.at, "branch": "main", "checkpoints_count": 1, "files_touched": s.files,
			"agent": s.agent, "turn_id": fmt.Sprintf("turn-%d", i),
			"token_usage": map[string]int{"input_tokens": s.usage[0], "cache_creation_tokens": s.usage[1],
				"cache_read_tokens": s.usage[2], "output_tokens": s.usage[3], "api_call_count": lines / 4},
		}
		mb, _ := json.MarshalIndent(meta, "", "  ")
		add(d+"/metadata.json", mb)
		add(d+"/full.jsonl", tr)
		add(d+"/prompt.txt", []byte(fmt.Sprintf("prompt %d of checkpoint %s", i, c.id)))
		add(d+"/context.md", []byte(fmt.Sprintf("# Session Context\n\n## User Prompts\n\n### Prompt 1\n\nprompt %d of checkpoint %s\n", i, c.id)))
		add(d+"/content_hash.txt", []byte(fmt.Sprintf("sha256:%x\n", bytes.Count(tr, []byte("e")))))
		refs = append(refs, ref{"/" + d + "/metadata.json", "/" + d + "/full.jsonl", "/" + d + "/context.md", "/" + d + "/content_hash.txt", "/" + d + "/prompt.txt"})
		all = append(all, s.files...)
		for k := range total {
			total[k] += s.usage[k]
		}
		calls += lines / 4
	}
	cm := map[string]any{
		"cli_version": "0.4.2", "checkpoint_id": c.id, "strategy": "manual-commit", "branch": "main",
		"checkpoints_count": 1, "files_touched": all, "sessions": refs,
		"token_usage": map[string]int{"input_tokens": total[0], "cache_creation_tokens": total[1],
			"cache_read_tokens": total[2], "output_tokens": total[3], "api_call_count": calls},
	}
	cb, _ := json.MarshalIndent(cm, "", "  ")
	add(shard+"/metadata.json", cb)
	tree := git(t, dir, c.at, nil, "write-tree")
	args := []string{"commit-tree", tree, "-m", "Checkpoint: " + c.id}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	commit := git(t, dir, c.at, nil, args...)
	git(t, dir, c.at, nil, "update-ref", "refs/heads/entire/checkpoints/v1", commit)
	if c.trailer {
		mainGit(t, dir, c.at, "commit", "-q", "--allow-empty", "-m", "work of checkpoint "+c.id+"\n\nEntire-Checkpoint: "+c.id)
	}
}

// The corpus files the fixtures hold.
const (
	ccA    = "corpus/claude-code/projects/-Users-milo-Projects-fjord-nectar-ridge-timber/59486af6-41fa-4dfe-a72b-2a572819c3f0.jsonl"
	ccB    = "corpus/claude-code/projects/-Users-juno-Desktop-project-ember-topaz/6bff27da-cebb-48c0-94cf-c35682ae1e1f.jsonl"
	cdx    = "corpus/codex/archived_sessions/rollout-2026-01-26T22-48-44-019bfafe-3da9-7880-ba6c-483ad20ea4af.jsonl"
	gem    = "gemini/gemini-home/.gemini/tmp/proj/chats/session-2026-12-06T11-47-ab51ffee.jsonl"
	cop    = "copilot/session-state/11111111-1111-4111-8111-111111111111/events.jsonl"
	copID  = "11111111-1111-4111-8111-111111111111"
	ccAID  = "59486af6-41fa-4dfe-a72b-2a572819c3f0"
	ccBID  = "6bff27da-cebb-48c0-94cf-c35682ae1e1f"
	cdxID  = "019bfafe-3da9-7880-ba6c-483ad20ea4af"
	gemID  = "ab51ffee-4731-4fa4-880e-f9383ac9c070"
	cp1    = "3a1f00c0ffee"
	cp2    = "b7c2d4e6f801"
	cp3    = "e9d0aa11bb22"
	ccACut = 18
)

// history is the fixture's checkpoints, in the order Entire commits them:
// the first holds the first 18 lines of Claude Code session A, the second
// all of A (its transcript grew) and a Codex session, the third a Gemini
// CLI session, Claude Code session B and a GitHub Copilot CLI session (no
// trailer: a checkpoint whose commit was never made).
func history() []fxCheckpoint {
	return []fxCheckpoint{
		{id: cp1, at: "2026-03-01T10:00:00Z", trailer: true, sessions: []fxSession{
			{file: ccA, lines: ccACut, id: ccAID, agent: "Claude Code", files: []string{"src/app.go"}, usage: [4]int{20, 6290, 118299, 350}},
		}},
		{id: cp2, at: "2026-03-01T11:00:00Z", trailer: true, sessions: []fxSession{
			{file: ccA, id: ccAID, agent: "Claude Code", files: []string{"src/app.go", "src/app_test.go"}, usage: [4]int{12, 2100, 90210, 720}},
			{file: cdx, id: cdxID, agent: "Codex", files: []string{"README.md"}, usage: [4]int{4100, 0, 3000, 800}},
		}},
		{id: cp3, at: "2026-03-01T12:00:00Z", sessions: []fxSession{
			{file: gem, id: gemID, agent: "Gemini CLI", files: []string{"docs/notes.md"}, usage: [4]int{900, 0, 0, 100}},
			{file: ccB, id: ccBID, agent: "Claude Code", files: []string{"web/index.ts"}, usage: [4]int{3, 4000, 50000, 200}},
			{file: cop, id: copID, agent: "Copilot CLI", files: []string{"web/app.ts"}, usage: [4]int{1500, 0, 0, 90}},
		}},
	}
}

// buildRepo returns a fresh copy of a repository holding the first n
// checkpoints of history (built once per test binary: git is slow to
// start, and every test may change its copy).
func buildRepo(t testing.TB, n int) string {
	t.Helper()
	templates.mu.Lock()
	src, ok := templates.dirs[n]
	if !ok {
		dir := newRepo(&onceTB{TB: t})
		for _, c := range history()[:n] {
			addCheckpoint(t, dir, c)
		}
		src = dir
		if templates.dirs == nil {
			templates.dirs = map[int]string{}
		}
		templates.dirs[n] = src
	}
	templates.mu.Unlock()
	dst := filepath.Join(t.TempDir(), "project")
	copyTree(t, src, dst)
	return dst
}

// templates are the repositories buildRepo copies, by checkpoint count.
var templates struct {
	mu   sync.Mutex
	dirs map[int]string
	root string
}

// onceTB makes the template outlive the test that builds it: its TempDir
// is a folder TestMain removes.
type onceTB struct{ testing.TB }

func (o *onceTB) TempDir() string {
	d, err := os.MkdirTemp(templates.root, "template-")
	if err != nil {
		o.Fatal(err)
	}
	return d
}

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "sessiondb-entire-fixtures-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	templates.root = root
	code := m.Run()
	os.RemoveAll(root)
	os.Exit(code)
}

// copyTree copies the directory tree src (directories and regular files)
// to dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
