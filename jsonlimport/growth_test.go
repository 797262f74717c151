package jsonlimport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// Growth equality (issue 21, item 0): a file imported at several growing
// prefixes, then whole, must leave the store exactly as one import of the
// final file does: the log (bodies byte for byte, kinds, roles, order,
// times), the effective transcript, usage per day and model and per
// session, the metadata, and the forks (pi branches).

// growthCuts returns the prefix lengths at which a file of content is
// imported before it is imported whole. With lines, it is every line
// boundary and a point in the middle of every line; otherwise a third
// and two thirds of the file, each moved into the middle of a line.
func growthCuts(content []byte, lines bool) []int {
	var cuts []int
	if lines {
		start := 0
		for i, b := range content {
			if b != '\n' {
				continue
			}
			if mid := start + (i-start)/2; mid > start {
				cuts = append(cuts, mid)
			}
			cuts = append(cuts, i+1)
			start = i + 1
		}
		if len(cuts) > 0 && cuts[len(cuts)-1] == len(content) {
			cuts = cuts[:len(cuts)-1]
		}
		return cuts
	}
	for _, c := range []int{len(content) / 3, 2 * len(content) / 3} {
		// Into the middle of a line: past a '\n' by a few bytes.
		if c > 0 && c < len(content) && content[c-1] == '\n' {
			c += min(7, len(content)-c-1)
		}
		if c > 0 && c < len(content) && (len(cuts) == 0 || c > cuts[len(cuts)-1]) {
			cuts = append(cuts, c)
		}
	}
	return cuts
}

// growthCase is one file of a tree to grow.
type growthCase struct {
	format string
	root   string // the tree the file is in (copied whole)
	rel    string // the unit's primary file, relative to root
	extra  []string
	lines  bool // grow it line by line (small files)
	// follow grows it with one Follow across the imports, as sessionctl
	// watch does (cheap prefix checks, readers' kept parse states).
	follow bool
	// restart (with follow) closes the Follow after each import and
	// grows the file under a new one in the same directory
	// (NewFollowIn), as a watcher restarted between two appends.
	restart bool
	// stats, when not nil, gets the Follows' counts added.
	stats *FollowStats
}

// add adds st to s (a nil s: nothing).
func (s *FollowStats) add(st FollowStats) {
	if s == nil {
		return
	}
	s.FullHashes += st.FullHashes
	s.CheapChecks += st.CheapChecks
	s.Resumes += st.Resumes
	s.Rereads += st.Rereads
	s.Replays += st.Replays
}

// growthCases lists the units of the trees under roots.
func growthCases(t *testing.T, roots []string, lines bool) []growthCase {
	t.Helper()
	var out []growthCase
	for _, root := range roots {
		abs := mustAbs(t, root)
		units, _, _, err := discover([]string{abs}, Formats(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			if !strings.HasSuffix(u.unit.Path, ".jsonl") {
				continue // a meta-only or legacy session: rewritten, never appended to
			}
			rel, err := filepath.Rel(abs, u.unit.Path)
			if err != nil {
				t.Fatal(err)
			}
			var extra []string
			for _, x := range u.unit.Extra {
				r, _ := filepath.Rel(abs, x)
				extra = append(extra, r)
			}
			out = append(out, growthCase{format: u.unit.Format, root: abs, rel: rel, extra: extra, lines: lines})
		}
	}
	return out
}

// growthResult says whether one file grew to what a one-shot import gives.
type growthResult struct {
	equal bool
	diff  string
}

// runGrowth imports c's file at its cuts then whole into one store, whole
// into another, and compares the two stores.
func runGrowth(t *testing.T, c growthCase, cuts []int) growthResult {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	copyTree(t, c.root, dir)
	path := filepath.Join(dir, c.rel)
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{path}
	if c.format != FormatClaudeCode { // Claude Code finds its tool-results files itself
		for _, x := range c.extra {
			paths = append(paths, filepath.Join(dir, x))
		}
	}
	if cuts == nil {
		cuts = growthCuts(content, c.lines)
	}
	since := time.Now().Add(-time.Second)
	grown := openStore(t)
	var follow *Follow
	stateDir := filepath.Join(t.TempDir(), "follow")
	if c.follow {
		follow = NewFollow()
		if c.restart {
			follow = NewFollowIn(stateDir)
		}
	}
	restart := func() {
		if !c.restart {
			return
		}
		if err := follow.Close(); err != nil {
			t.Fatalf("%s: close the Follow: %v", c.rel, err)
		}
		c.stats.add(follow.Stats())
		follow = NewFollowIn(stateDir)
	}
	for _, cut := range cuts {
		if err := os.WriteFile(path, content[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if c.format == FormatClaudeCode {
			hideToolFiles(t, dir, c.extra, content, cut)
		}
		if _, err := Import(ctx, grown, paths, Options{Jobs: 1, Follow: follow}); err != nil {
			t.Fatalf("%s cut at %d: %v", c.rel, cut, err)
		}
		restart()
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if c.format == FormatClaudeCode {
		hideToolFiles(t, dir, c.extra, content, len(content))
	}
	if _, err := Import(ctx, grown, paths, Options{Jobs: 1, Follow: follow}); err != nil {
		t.Fatalf("%s whole: %v", c.rel, err)
	}
	restart()
	if follow != nil && !c.restart {
		c.stats.add(follow.Stats())
	}
	if follow != nil {
		t.Logf("%s: %+v", c.rel, follow.Stats())
	}
	once := openStore(t)
	if _, err := Import(ctx, once, paths, Options{Jobs: 1}); err != nil {
		t.Fatalf("%s one-shot: %v", c.rel, err)
	}
	d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since))
	return growthResult{equal: d == "", diff: d}
}

// hideToolFiles models how Claude Code writes a tool-results file: just
// before the tool_result line that names it (by its tool_use id). A file
// whose naming line lies beyond cut is moved away (and back once it is
// named); files no line names are there from the start.
func hideToolFiles(t *testing.T, dir string, extra []string, content []byte, cut int) {
	t.Helper()
	for _, x := range extra {
		p := filepath.Join(dir, x)
		name := filepath.Base(x)
		stem := strings.TrimSuffix(name, filepath.Ext(name))
		at := bytes.Index(content, []byte(`"`+stem+`"`))
		if i := bytes.Index(content, []byte(name)); i >= 0 && (at < 0 || i < at) {
			at = i
		}
		// Named on a line that is not complete within the cut: not yet.
		hidden := at >= 0 && bytes.IndexByte(content[at:], '\n') >= 0 && at+bytes.IndexByte(content[at:], '\n') >= cut
		held := filepath.Join(dir, ".held", strings.ReplaceAll(x, string(filepath.Separator), "_"))
		if hidden {
			if _, err := os.Stat(p); err == nil {
				if err := os.MkdirAll(filepath.Dir(held), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(p, held); err != nil {
					t.Fatal(err)
				}
			}
		} else if _, err := os.Stat(held); err == nil {
			if err := os.Rename(held, p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// growthReport runs every case and returns, per format, files equal and
// total, plus the diffs of the unequal ones.
func growthReport(t *testing.T, cases []growthCase) (map[string][2]int, []string) {
	t.Helper()
	counts := map[string][2]int{}
	var diffs []string
	for _, c := range cases {
		r := runGrowth(t, c, nil)
		key, how := c.format, ""
		if c.follow {
			key, how = key+"+follow", " (grown with a Follow)"
		}
		if c.restart {
			key, how = key+"+restart", " (grown with a Follow restarted at every cut)"
		}
		n := counts[key]
		n[1]++
		if r.equal {
			n[0]++
		} else {
			diffs = append(diffs, fmt.Sprintf("%s %s:%s\n%s", c.format, c.rel, how, clipDiff(r.diff, 4000)))
		}
		counts[key] = n
	}
	return counts, diffs
}

func clipDiff(d string, n int) string {
	if len(d) > n {
		return d[:n] + "\n…"
	}
	return d
}

func formatCounts(counts map[string][2]int) string {
	var names []string
	for k := range counts {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s %d/%d  ", k, counts[k][0], counts[k][1])
	}
	return strings.TrimSpace(b.String())
}

// growthFixtureRoots are the fixture and sample trees of every format.
var growthFixtureRoots = []string{
	"../testdata/claudecode/projects",
	"../testdata/codex/codex-home",
	"../testdata/pi/sessions",
	"../testdata/pi/tree",
	"../testdata/zot/zot_home",
	"../testdata/zot/nonflow/zot_home",
	"../testdata/zot-compaction/zot_home",
	"../testdata/zot-damaged",
	"../testdata/picoclaw",
	"../testdata/picoclaw-damaged",
	"../testdata/swink/sessions",
	"../testdata/samples",
	"../testdata/gemini/crafted",
	"../testdata/qwen/crafted",
	"../testdata/copilot/session-state",
	"../testdata/copilot/crafted",
	"../testdata/corpus/goose/constructed-legacy",
	"../testdata/cursor-agent/crafted",
	"../testdata/cursor-agent/corpus",
}

// growthKnown are the files whose growth cannot equal a one-shot import,
// and why (none: a pi fork's branch point follows the file,
// sessiondb.MetaPatch.ForkSeq).
var growthKnown = map[string]string{}

// TestGrowthFixtures grows every fixture and sample file line by line (a
// prefix at every line boundary and one in the middle of every line) and
// compares the result with a one-shot import of the whole file.
func TestGrowthFixtures(t *testing.T) {
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	// The quick run grows 16 files spread over the fixtures' formats; the
	// long run (internal/longtest) grows every one.
	cases := longtest.Sample(growthCases(t, growthFixtureRoots, true), 16)
	for _, c := range slices.Clone(cases) {
		c.follow = true
		cases = append(cases, c)
	}
	counts, diffs := growthReport(t, cases)
	t.Logf("growth equality (files equal/total; +follow: with a Follow, as sessionctl watch): %s", formatCounts(counts))
	for _, d := range diffs {
		if reason, ok := growthKnown[d[:strings.Index(d, ":")]]; ok {
			t.Logf("known difference (%s):\n%s", reason, d)
			continue
		}
		t.Error(d)
	}
}

// agentsCorpusRoots are the stores Gemini CLI and Qwen Code wrote
// themselves: their fixtures (testdata/gemini, testdata/qwen) and the
// agents' corpus (testdata/agents, issue 35).
var agentsCorpusRoots = []string{
	"../testdata/gemini/gemini-home",
	"../testdata/qwen/qwen-home",
	"../testdata/agents/gemini/home",
	"../testdata/agents/gemini/subagent/home",
	"../testdata/agents/qwen/home",
	"../testdata/agents/qwen/subagent/home",
}

// TestGrowthAgentsCorpus grows every file Gemini CLI and Qwen Code wrote
// themselves line by line (as TestGrowthFixtures does) and compares with a
// one-shot import. The quick loop grows these formats' crafted fixtures
// (rewinds, compressions, damage) in TestGrowthFixtures.
func TestGrowthAgentsCorpus(t *testing.T) {
	longtest.Skip(t, "imports every file the agents wrote once per line and half line")
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	cases := growthCases(t, agentsCorpusRoots, true)
	for _, c := range growthCases(t, agentsCorpusRoots, true) {
		c.follow = true
		cases = append(cases, c)
	}
	counts, diffs := growthReport(t, cases)
	t.Logf("growth equality on the agents' corpus (files equal/total): %s", formatCounts(counts))
	for _, d := range diffs {
		t.Error(d)
	}
}

// corpusRoot is the corpus of real Claude Code and Codex files (reduced
// copies, testdata/corpus); SESSIONDB_CORPUS names another copy.
func corpusRoot(t *testing.T) string {
	t.Helper()
	root := "../testdata/corpus"
	if env := os.Getenv("SESSIONDB_CORPUS"); env != "" {
		root = env
	}
	if _, err := os.Stat(filepath.Join(root, "claude-code")); err != nil {
		t.Skipf("no corpus at %s", root)
	}
	return mustAbs(t, root)
}

// TestGrowthCorpus imports every file of the real corpus at a third and
// two thirds of its bytes (each in the middle of a line), then whole, and
// compares with a one-shot import.
func TestGrowthCorpus(t *testing.T) {
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	root := corpusRoot(t)
	roots := []string{filepath.Join(root, "claude-code"), filepath.Join(root, "codex")}
	// The quick run grows 8 files spread over both agents; the long run
	// (internal/longtest) every one.
	cases := longtest.Sample(growthCases(t, roots, false), 8)
	var restarts []growthCase
	for _, c := range slices.Clone(cases) {
		c.follow = true
		cases = append(cases, c)
		if c.format == FormatClaudeCode {
			c.restart = true // its parse states saved and read back at every cut
			restarts = append(restarts, c)
		}
	}
	cases = append(cases, longtest.Sample(restarts, 2)...)
	counts, diffs := growthReport(t, cases)
	t.Logf("growth equality on the corpus (files equal/total; +follow: with a Follow, as sessionctl watch; +restart: the Follow restarted at every cut): %s", formatCounts(counts))
	for _, d := range diffs {
		t.Error(d)
	}
}

// TestGrowthRestartClaudeCode grows Claude Code fixture files line by
// line, as TestGrowthFixtures does with a Follow, but restarts between
// every two imports: the Follow is closed (its readers' parse states
// written into its directory) and the next import runs under a new one in
// the same directory (NewFollowIn), as a watcher restarted between two
// appends. The result must equal a one-shot import of the whole file, and
// the restarted imports must continue from the saved states as often as
// one Follow kept across the imports continues from memory: no more
// re-reads, no replay.
func TestGrowthRestartClaudeCode(t *testing.T) {
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	var cases []growthCase
	for _, c := range growthCases(t, []string{"../testdata/claudecode/projects"}, true) {
		if c.format == FormatClaudeCode {
			cases = append(cases, c)
		}
	}
	cases = longtest.Sample(cases, 3)
	var kept, restarted FollowStats
	for _, c := range cases {
		c.follow, c.stats = true, &kept
		if r := runGrowth(t, c, nil); !r.equal {
			t.Errorf("%s, one Follow: differs from a one-shot import:\n%s", c.rel, clipDiff(r.diff, 3000))
		}
		c.restart, c.stats = true, &restarted
		if r := runGrowth(t, c, nil); !r.equal {
			t.Errorf("%s, restarted at every cut: differs from a one-shot import:\n%s", c.rel, clipDiff(r.diff, 3000))
		}
	}
	t.Logf("%d files; one Follow: %+v; restarted at every cut: %+v", len(cases), kept, restarted)
	if restarted.Resumes == 0 || restarted.Resumes != kept.Resumes || restarted.Rereads != kept.Rereads || restarted.Replays != 0 {
		t.Errorf("restarted imports: %+v, one Follow: %+v (want as many resumes from the saved states as from memory, no more re-reads, no replay)", restarted, kept)
	}
}
