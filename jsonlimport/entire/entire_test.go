package entire_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/entire"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// importPaths imports paths into s (every format) and fails on an error.
func importPaths(t testing.TB, s sessiondb.Store, paths ...string) jsonlimport.Report {
	t.Helper()
	rep, err := jsonlimport.Import(context.Background(), s, paths, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// sessions returns the sessions of s by ID.
func sessions(t testing.TB, s sessiondb.Store) map[string]sessiondb.Session {
	t.Helper()
	list, _, err := s.List(context.Background(), sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]sessiondb.Session{}
	for _, l := range list {
		out[l.ID] = l.Session
	}
	return out
}

// attrsOf splits a session's attrs into the member "entire" and the rest.
func attrsOf(t testing.TB, sess sessiondb.Session) (rest map[string]any, ent map[string]any) {
	t.Helper()
	if err := json.Unmarshal(sess.Attrs, &rest); err != nil {
		t.Fatalf("%s: attrs %s: %v", sess.ID, sess.Attrs, err)
	}
	ent, _ = rest["entire"].(map[string]any)
	delete(rest, "entire")
	return rest, ent
}

// logOf returns a session's whole log, bodies and kinds.
func logOf(t testing.TB, s sessiondb.Store, id string) []string {
	t.Helper()
	es, err := s.Entries(context.Background(), id, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Kind+" "+string(e.Body))
	}
	return out
}

// problemsOf returns the report's problems, their paths relative to dir.
func problemsOf(rep jsonlimport.Report, dir string) []string {
	var out []string
	for _, p := range rep.Problems {
		rel, err := filepath.Rel(dir, p.Path)
		if err != nil {
			rel = p.Path
		}
		out = append(out, rel+": "+p.Reason)
	}
	return out
}

// TestEntireEqualsAgentReader: every session of the branch is imported
// as the agent's own reader imports the agent's own file (the oracle: the
// same corpus file imported from where the agent keeps it): same id,
// format, title, log bodies byte for byte, usage and attrs, with Entire's
// metadata added under attrs.entire; a session in two checkpoints is one
// session holding the latest transcript.
//
// Small: transcripts longer than 512 bytes are first written only in part
// for their reader to claim them, and whole when parsed.
func TestEntireEqualsAgentReader(t *testing.T) {
	t.Run("whole", testEqualsAgentReader)
	t.Run("small", func(t *testing.T) {
		defer entire.SetSniffLen(512)()
		testEqualsAgentReader(t)
	})
}

func testEqualsAgentReader(t *testing.T) {
	dir := buildRepo(t, 3)
	got := jsonltest.OpenStore(t)
	rep := importPaths(t, got, dir)
	if len(rep.Problems) > 0 {
		t.Errorf("problems: %v", problemsOf(rep, dir))
	}
	for _, n := range rep.Notes {
		// git's folders are skipped whole, and the refs (walked so that
		// a watcher sees the branch move) are the repository's.
		if strings.Contains(n.Path, string(filepath.Separator)+".git"+string(filepath.Separator)) && !strings.Contains(n.Path, "#") && !strings.HasSuffix(n.Reason, "git's own data in a git directory; skipped") {
			t.Errorf("note on a file of git's: %s", n)
		}
		if strings.HasSuffix(n.Path, string(filepath.Separator)+"refs") {
			t.Errorf("the refs of a repository with the branch are skipped: %s", n)
		}
	}
	want := jsonltest.OpenStore(t)
	importPaths(t, want, filepath.Join(repoRoot, ccA), filepath.Join(repoRoot, ccB), filepath.Join(repoRoot, cdx), filepath.Join(repoRoot, gem), filepath.Join(repoRoot, cop))

	gs, ws := sessions(t, got), sessions(t, want)
	if len(gs) != 5 || len(ws) != 5 {
		t.Fatalf("sessions: %d from the branch, %d from the agents' files; want 5", len(gs), len(ws))
	}
	ctx := context.Background()
	paired := 0
	for id, w := range ws {
		g, ok := gs[id]
		if !ok {
			t.Errorf("session %s (%s) is not imported from the branch", id, w.SourceFormat)
			continue
		}
		if g.SourceFormat != w.SourceFormat || g.Title != w.Title || !g.CreatedAt.Equal(w.CreatedAt) || !g.UpdatedAt.Equal(w.UpdatedAt) {
			t.Errorf("%s: format %q title %q times %v %v; the agent's file gives %q %q %v %v", id,
				g.SourceFormat, g.Title, g.CreatedAt, g.UpdatedAt, w.SourceFormat, w.Title, w.CreatedAt, w.UpdatedAt)
		}
		if want := jsonl.SessionPath(filepath.Join(dir, ".git", "HEAD"), id); g.SourcePath != want {
			t.Errorf("%s: source path %q, want %q", id, g.SourcePath, want)
		}
		if d := cmp.Diff(logOf(t, want, id), logOf(t, got, id)); d != "" {
			t.Errorf("%s: log differs from the agent's reader's (-agent +branch):\n%s", id, d)
		}
		gu, err := got.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wu, _ := want.UsageTotals(ctx, id)
		if jsonltest.RoundCost(gu) != jsonltest.RoundCost(wu) {
			t.Errorf("%s: usage %+v, the agent's reader gives %+v", id, gu, wu)
		}
		grest, ent := attrsOf(t, g)
		wrest, _ := attrsOf(t, w)
		if w.SourceFormat == jsonlimport.FormatGemini {
			// Gemini CLI records the project's folder outside the chat
			// (its home's project registry, by projectHash), which a
			// checkpoint does not carry.
			delete(wrest, "cwd")
		}
		if d := cmp.Diff(wrest, grest); d != "" {
			t.Errorf("%s: attrs differ from the agent's reader's (-agent +branch):\n%s", id, d)
		}
		if ent == nil {
			t.Errorf("%s: no attrs.entire: %s", id, g.Attrs)
		}
		paired++
	}
	t.Logf("sessions equal to the agent's own reader's: %d/%d", paired, len(ws))

	// Entire's metadata, as the fixture committed it.
	commits := trailerCommits(t, dir)
	_, a := attrsOf(t, gs[ccAID])
	cps, _ := a["checkpoints"].([]any)
	if len(cps) != 2 {
		t.Fatalf("session A: checkpoints %v, want 2", a["checkpoints"])
	}
	for i, want := range []string{cp1, cp2} {
		c := cps[i].(map[string]any)
		if c["id"] != want || c["session"] != 0.0 {
			t.Errorf("session A checkpoint %d: %v, want %s session 0", i, c, want)
		}
		if cs, _ := c["commits"].([]any); len(cs) != 1 || cs[0] != commits[want] {
			t.Errorf("session A checkpoint %s: commits %v, want [%s]", want, c["commits"], commits[want])
		}
	}
	if tu := cps[1].(map[string]any)["token_usage"].(map[string]any); tu["output_tokens"] != 720.0 || tu["cache_read_tokens"] != 90210.0 {
		t.Errorf("session A checkpoint %s: token usage %v, want Entire's as recorded", cp2, tu)
	}
	if d := cmp.Diff([]any{"src/app.go", "src/app_test.go"}, a["files_touched"]); d != "" || a["agent"] != "Claude Code" {
		t.Errorf("session A: files %v agent %v", a["files_touched"], a["agent"])
	}
	_, b := attrsOf(t, gs[ccBID])
	if c := b["checkpoints"].([]any)[0].(map[string]any); c["id"] != cp3 || c["session"] != 1.0 || c["commits"] != nil {
		t.Errorf("session B: checkpoint %v, want %s session 1 without commits (no trailer names it)", c, cp3)
	}
}

// trailerCommits returns the commits of main by the checkpoint their
// Entire-Checkpoint trailer names, as git itself reads the trailers.
func trailerCommits(t testing.TB, dir string) map[string]string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "log", "main", "--format=%H %(trailers:key=Entire-Checkpoint,valueonly,separator=)").Output()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		h, id, _ := strings.Cut(line, " ")
		if id = strings.TrimSpace(id); id != "" {
			m[id] = h
		}
	}
	return m
}

// TestEntireGrowth: a repository imported after each new checkpoint (a
// session's transcript grows from one checkpoint to the next, sessions
// appear) ends exactly as one import of the final branch: same sessions,
// logs (no entry twice), transcripts, usage and attrs; an import with
// nothing new changes nothing.
// With follow, the imports share a Follow (as sessionctl watch does), so
// that a repository's listing is kept in its cache between imports.
func TestEntireGrowth(t *testing.T) {
	for _, follow := range []bool{false, true} {
		t.Run(map[bool]string{false: "imports", true: "follow"}[follow], func(t *testing.T) { testGrowth(t, follow) })
	}
}

func testGrowth(t *testing.T, follow bool) {
	if follow {
		longtest.Skip(t, "the same five imports again under a Follow (about a second, and git is slow to start on a loaded machine)")
	}
	dir := buildRepo(t, 1)
	since := time.Now()
	grown := jsonltest.OpenStore(t)
	opts := jsonlimport.Options{}
	if follow {
		opts.Follow = jsonlimport.NewFollow()
		defer opts.Follow.Close()
	}
	imp := func() jsonlimport.Report {
		rep, err := jsonlimport.Import(context.Background(), grown, []string{dir}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	for i, c := range history() {
		if i > 0 {
			addCheckpoint(t, dir, c)
		}
		rep := imp()
		if len(rep.Problems) > 0 {
			t.Fatalf("import %d: %v", i+1, problemsOf(rep, dir))
		}
	}
	rep := imp()
	if rep.Sessions != 0 || rep.Unchanged != 5 {
		t.Errorf("an import of an unchanged branch: %d sessions written, %d unchanged; want 0 and 5", rep.Sessions, rep.Unchanged)
	}
	once := jsonltest.OpenStore(t)
	importPaths(t, once, dir)
	g, o := jsonltest.GrowthSnapshot(t, grown, since), jsonltest.GrowthSnapshot(t, once, since)
	if len(o) != 5 {
		t.Fatalf("one import: %d sessions, want 5", len(o))
	}
	if d := cmp.Diff(o, g); d != "" {
		t.Errorf("imported checkpoint by checkpoint differs from one import (-once +grown):\n%s", d)
	}
	t.Logf("growth equality: %d/%d sessions", countEqual(o, g), len(o))
}

func countEqual(a, b map[string]jsonltest.GrowthSession) int {
	n := 0
	for k, v := range a {
		if cmp.Equal(v, b[k]) {
			n++
		}
	}
	return n
}

// TestEntirePlaces: the branch is read from every place a repository
// with it may be named: the work tree, its .git, a clone that has only
// origin's copy of the branch, a bare clone, and a worktree that has the
// branch checked out (whose shard folders the agents' readers must not
// take as sessions of their own). Each gives the same sessions.
func TestEntirePlaces(t *testing.T) {
	dir := buildRepo(t, 3)
	base := jsonltest.OpenStore(t)
	importPaths(t, base, dir)
	want := map[string][]string{}
	for id := range sessions(t, base) {
		want[id] = logOf(t, base, id)
	}
	tmp := t.TempDir()
	clone, bare, wt := filepath.Join(tmp, "clone"), filepath.Join(tmp, "bare.git"), filepath.Join(tmp, "checkout")
	mainGit(t, tmp, "2026-03-02T00:00:00Z", "clone", "-q", dir, clone)
	if out, _ := exec.Command("git", "-C", clone, "for-each-ref", "--format=%(refname)", "refs/heads/entire").Output(); len(out) > 0 {
		t.Fatalf("the clone has a local branch %s", out)
	}
	mainGit(t, tmp, "2026-03-02T00:00:00Z", "clone", "-q", "--bare", dir, bare)
	mainGit(t, dir, "2026-03-02T00:00:00Z", "worktree", "add", "-q", wt, entire.Branch)
	for _, place := range []string{filepath.Join(dir, ".git"), clone, bare, wt} {
		t.Run(filepath.Base(place), func(t *testing.T) {
			s := jsonltest.OpenStore(t)
			rep := importPaths(t, s, place)
			if len(rep.Problems) > 0 {
				t.Errorf("problems: %v", problemsOf(rep, place))
			}
			got := map[string][]string{}
			for id, sess := range sessions(t, s) {
				got[id] = logOf(t, s, id)
				if !strings.Contains(sess.SourcePath, "#") {
					t.Errorf("%s read from %s, not from the branch", id, sess.SourcePath)
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("sessions differ from the work tree's import (-want +got):\n%s", d)
			}
		})
	}
}

// TestEntireNoGit: without the git program the repository cannot be
// read: the import says so (ErrNoGit) and writes nothing.
func TestEntireNoGit(t *testing.T) {
	dir := buildRepo(t, 1)
	t.Setenv("PATH", t.TempDir())
	_, _, err := entire.Format{}.Sessions(context.Background(), jsonl.Unit{Format: entire.Name, Path: filepath.Join(dir, ".git", "HEAD")}, nil)
	if !errors.Is(err, entire.ErrNoGit) || !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("Sessions without git: %v, want ErrNoGit", err)
	}
	s := jsonltest.OpenStore(t)
	rep := importPaths(t, s, dir)
	if len(sessions(t, s)) != 0 {
		t.Errorf("sessions imported without git")
	}
	if ps := problemsOf(rep, dir); len(ps) != 1 || !strings.Contains(ps[0], "git program") {
		t.Errorf("problems %v, want one naming the git program", ps)
	}
}

// TestEntireNoBranch: a repository without the branch is no store of
// Entire's: nothing claims it, and it is no default place.
func TestEntireNoBranch(t *testing.T) {
	dir := newRepo(t)
	det, _, err := jsonlimport.Detect(context.Background(), []string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(det) != 0 {
		t.Errorf("detected %+v in a repository without the branch", det)
	}
	env := map[string]string{"PWD": dir}
	for _, l := range jsonlimport.WellKnownLocations("/home/u", func(k string) string { return env[k] }) {
		if l.Format == entire.Name {
			t.Errorf("a default place without the branch: %v", l)
		}
	}
	addCheckpoint(t, dir, history()[0])
	found := false
	for _, l := range jsonlimport.WellKnownLocations("/home/u", func(k string) string { return env[k] }) {
		found = found || (l.Format == entire.Name && l.Path == filepath.Join(dir, ".git"))
	}
	if !found {
		t.Errorf("$PWD/.git with the branch is not a default place")
	}
	det, _, err = jsonlimport.Detect(context.Background(), []string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(det) != 1 || det[0].Format != entire.Name || det[0].Sessions != 1 {
		t.Errorf("detected %+v, want the repository as one store of entire", det)
	}
}

// TestEntireDamage: what cannot be read of a checkpoint is a problem
// naming it (a metadata.json that is no JSON, a session without its
// metadata or whose latest checkpoint has no transcript, a transcript of
// no known format), and every other session is imported.
func TestEntireDamage(t *testing.T) {
	dir := buildRepo(t, 2)
	addFiles(t, dir, "2026-03-01T13:00:00Z", map[string]string{
		"c0/ffee000001/metadata.json":   `{"checkpoint_id":"c0ffee000001"`,
		"c0/ffee000001/0/metadata.json": `{"checkpoint_id":"c0ffee000001","session_id":"s-torn","agent":"Claude Code"`,
		"c0/ffee000001/0/full.jsonl":    "{}\n",
		"c0/ffee000001/1/full.jsonl":    "{}\n",
		"c0/ffee000001/2/metadata.json": `{"checkpoint_id":"c0ffee000001","session_id":"s-nolog","agent":"Cursor","created_at":"2026-03-01T13:00:00Z"}`,
		"c0/ffee000001/3/metadata.json": `{"checkpoint_id":"c0ffee000001","session_id":"s-odd","agent":"Some Agent","created_at":"2026-03-01T13:00:00Z"}`,
		"c0/ffee000001/3/full.jsonl":    "{\"event\":\"not a transcript any reader knows\"}\n",
		"c0/ffee000001/4/metadata.json": `{"checkpoint_id":"c0ffee000001","session_id":"` + ccAID + `","agent":"Claude Code","created_at":"2026-03-01T13:00:00Z","token_usage":[1,2]}`,
	})
	s := jsonltest.OpenStore(t)
	rep := importPaths(t, s, dir)
	head := filepath.Join(".git", "HEAD")
	want := []string{
		head + "#c0/ffee000001/0/metadata.json: metadata.json is not a JSON object: invalid input",
		head + "#c0/ffee000001/1: a checkpoint session without metadata.json; skipped",
		head + "#c0/ffee000001/2: the session's latest checkpoint has no full.jsonl; skipped",
		head + "#c0/ffee000001/3/full.jsonl: the transcript of Some Agent is in no format this importer reads; skipped",
		head + "#c0/ffee000001/4: the session's latest checkpoint has no full.jsonl; skipped",
		head + "#c0/ffee000001/metadata.json: metadata.json is not a JSON object: invalid input",
	}
	got := problemsOf(rep, dir)
	sort.Strings(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
	ids := []string{}
	for id := range sessions(t, s) {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if d := cmp.Diff([]string{cdxID}, ids); d != "" {
		// Session A's latest checkpoint (4) has no transcript: it is
		// skipped as a whole rather than imported from an older one.
		t.Errorf("sessions (-want +got):\n%s", d)
	}
}

// addFiles commits files to the branch as one more checkpoint commit.
func addFiles(t testing.TB, dir, at string, files map[string]string) {
	t.Helper()
	parent := git(t, dir, at, nil, "rev-parse", "refs/heads/entire/checkpoints/v1")
	git(t, dir, at, nil, "read-tree", parent)
	for p, data := range files {
		oid := git(t, dir, at, []byte(data), "hash-object", "-w", "--stdin")
		git(t, dir, at, nil, "update-index", "--add", "--cacheinfo", "100644,"+oid+","+p)
	}
	tree := git(t, dir, at, nil, "write-tree")
	commit := git(t, dir, at, nil, "commit-tree", tree, "-p", parent, "-m", "Checkpoint: damaged")
	git(t, dir, at, nil, "update-ref", "refs/heads/entire/checkpoints/v1", commit)
}

// TestEntireExportRefused: the branch is Entire's; a session read from
// it is exported in its agent's format (its source format), and the
// format itself refuses with an error a caller can test.
func TestEntireExportRefused(t *testing.T) {
	_, err := entire.Format{}.Export(context.Background(), nil, "x", t.TempDir())
	if !errors.Is(err, entire.ErrNoExport) || !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("Export: %v", err)
	}
	dir := buildRepo(t, 1)
	s := jsonltest.OpenStore(t)
	importPaths(t, s, dir)
	out := t.TempDir()
	files, err := jsonlimport.Export(context.Background(), s, []string{ccAID}, jsonlimport.FormatClaudeCode, out)
	if err != nil || len(files) == 0 {
		t.Fatalf("export of a session read from the branch in its agent's format: %v %v", files, err)
	}
	if _, err := os.Stat(files[0]); err != nil {
		t.Errorf("export wrote no file: %v", err)
	}
}

// TestEntireUnderstand: a body given under this format's name (no stored
// session has it) is read by its shape, as the agent's own reader reads
// it: a Claude Code line of the fixture gives the same message.
func TestEntireUnderstand(t *testing.T) {
	dir := buildRepo(t, 1)
	s := jsonltest.OpenStore(t)
	importPaths(t, s, dir)
	es, err := s.Entries(context.Background(), ccAID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range es {
		want, got := jsonlimport.Understand(jsonlimport.FormatClaudeCode, e), jsonlimport.Understand(entire.Name, e)
		if want.Text == "" && len(want.Calls) == 0 {
			continue
		}
		n++
		if got.Role != want.Role || got.Text != want.Text || len(got.Calls) != len(want.Calls) {
			t.Errorf("entry %d: read as %+v under entire, %+v as Claude Code's", e.Seq, got, want)
		}
	}
	if n == 0 {
		t.Fatal("no message to compare")
	}
}
