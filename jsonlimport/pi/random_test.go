package pi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/pinode"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/pi"
)

// piRandomExpected is what testdata/gen/pi/random.mjs records for one
// file: pi's context at the leaf (as gen.mjs does) and at every other
// branch tip; gen.mjs growth adds Cut.
type piRandomExpected struct {
	piExpected
	Branches map[string]piExpected `json:"branches"`
	// Cut is the number of lines pi had written when the first of two
	// imports reads the file (gen.mjs growth).
	Cut int `json:"cut"`
}

// TestPiRandom imports the session files random.mjs wrote with pi's own
// SessionManager from random sequences of its API (testdata/pi/random, or
// the directory SESSIONDB_PI_RANDOM names) and checks every one against
// what pi itself resumes from it: the transcript, model, thinking level,
// title and labels of the session, and the transcript and model of the
// fork made for every branch tip. With SESSIONDB_PI_RANDOM_STEPS=n the
// files are imported n times as they grow (see piRandomDiffs).
func TestPiRandom(t *testing.T) {
	dir := os.Getenv("SESSIONDB_PI_RANDOM")
	if dir == "" {
		dir = filepath.Join(piTestdata, "random")
	}
	steps := 1
	if v, err := strconv.Atoi(os.Getenv("SESSIONDB_PI_RANDOM_STEPS")); err == nil && v > 1 {
		steps = v
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no session files in %s (%v)", dir, err)
	}
	cut := func(_ string, _ piRandomExpected, n, j int) int { return (n*j + steps - 1) / steps }
	clock := os.Getenv("SESSIONDB_PI_RANDOM_CLOCK") != ""
	if clock {
		cut = piClockCuts(t, files, steps)
	}
	diffs := piRandomDiffsOpt(t, files, func(f string) string { return strings.TrimSuffix(f, ".jsonl") + ".expected.json" },
		steps, cut, os.Getenv("SESSIONDB_PI_RANDOM_TORN") != "", steps == 1 || clock)
	piReportDiffs(t, diffs, len(files))
}

// TestPiRandomGrowth imports the random files of testdata/pi/random as
// they grow (in four steps, as a watcher following pi would; then with
// half of the line pi is writing at each step; then the whole directory
// at eight moments of pi's clock, piClockCuts) and checks the result
// against pi.
func TestPiRandomGrowth(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(piTestdata, "random", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no session files in testdata/pi/random (%v)", err)
	}
	for _, torn := range []bool{false, true} {
		t.Run(fmt.Sprintf("torn=%v", torn), func(t *testing.T) {
			diffs := piRandomDiffs(t, files, func(f string) string { return strings.TrimSuffix(f, ".jsonl") + ".expected.json" },
				4, func(_ string, _ piRandomExpected, n, j int) int { return (n*j + 3) / 4 }, torn)
			piReportDiffs(t, diffs, len(files))
		})
	}
	t.Run("clock", func(t *testing.T) {
		diffs := piRandomDiffsOpt(t, files, func(f string) string { return strings.TrimSuffix(f, ".jsonl") + ".expected.json" },
			8, piClockCuts(t, files, 8), false, true)
		piReportDiffs(t, diffs, len(files))
	})
}

// TestPiGrowth imports each file of testdata/pi/growth (gen.mjs growth)
// twice: as pi had written it at the cut, then whole; the session and its
// forks must be what pi resumes from the whole file.
func TestPiGrowth(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(piTestdata, "growth", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no session files in testdata/pi/growth (%v)", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".jsonl"), func(t *testing.T) {
			diffs := piRandomDiffs(t, []string{f}, func(f string) string { return strings.TrimSuffix(f, ".jsonl") + ".json" },
				2, func(_ string, exp piRandomExpected, n, j int) int {
					if j == 1 {
						return exp.Cut
					}
					return n
				}, false)
			piReportDiffs(t, diffs, 1)
		})
	}
}

// TestPiTree imports each file of testdata/pi/tree (gen.mjs tree: a
// session that moved about its tree with /tree, leaving branch summaries
// and a label; one named mid-way whose model changed twice) whole, then
// grown line by line; the session and its forks (no more, no fewer) must
// be what pi resumes from the whole file (issue 38, item 2).
func TestPiTree(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(piTestdata, "tree", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no session files in testdata/pi/tree (%v)", err)
	}
	expPath := func(f string) string { return strings.TrimSuffix(f, ".jsonl") + ".json" }
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".jsonl"), func(t *testing.T) {
			piReportDiffs(t, piRandomDiffs(t, []string{f}, expPath, 1, func(_ string, _ piRandomExpected, n, _ int) int { return n }, false), 1)
			n := len(piLines(t, f))
			diffs := piRandomDiffs(t, []string{f}, expPath, n, func(_ string, _ piRandomExpected, _, j int) int { return j }, false)
			piReportDiffs(t, diffs, 1)
		})
	}
}

func piReportDiffs(t *testing.T, diffs map[string][]string, n int) {
	t.Helper()
	names := make([]string, 0, len(diffs))
	for name := range diffs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Errorf("%s:\n%s", name, strings.Join(diffs[name], "\n"))
	}
	t.Logf("%d of %d files pi wrote differ from pi's own reading", len(diffs), n)
}

// piRandomDiffs imports files (copied, with their /fork sources, into
// one temporary archive) and returns, per file name, how sessiondb's
// reading differs from the expected file expPath names. The archive is
// imported steps times, every file holding at step j its first
// cut(file, expected, lines, j) lines (none: the file is not there yet) (what pi had written at some point; if
// torn, and half of the line pi was writing); the last cut must be the
// whole file.
func piRandomDiffs(t *testing.T, files []string, expPath func(string) string, steps int, cut func(f string, exp piRandomExpected, n, j int) int, torn bool) map[string][]string {
	return piRandomDiffsOpt(t, files, expPath, steps, cut, torn, steps == 1)
}

// piRandomDiffsOpt is piRandomDiffs; forkSeq says whether the steps show
// a /fork's source with every line the fork copied, as pi writes them,
// so that each fork's ForkSeq can be checked.
func piRandomDiffsOpt(t *testing.T, files []string, expPath func(string) string, steps int, cut func(f string, exp piRandomExpected, n, j int) int, torn, forkSeq bool) map[string][]string {
	t.Helper()
	ctx := context.Background()
	sort.Strings(files)
	exps := map[string]piRandomExpected{}
	for _, f := range files {
		raw, err := os.ReadFile(expPath(f))
		if err != nil {
			t.Fatal(err)
		}
		var exp piRandomExpected
		if err := json.Unmarshal(raw, &exp); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		exps[f] = exp
	}
	tmp := t.TempDir()
	s := jsonltest.OpenStore(t)
	piImportGrowing(t, s, tmp, files, steps, func(f string, n, j int) int { return cut(f, exps[f], n, j) }, torn)
	diffs := map[string][]string{}
	for _, f := range files {
		name := filepath.Base(f)
		add := func(format string, args ...any) { diffs[name] = append(diffs[name], fmt.Sprintf(format, args...)) }
		exp := exps[f]
		src, err := s.SourceFile(ctx, filepath.Join(tmp, name))
		if err != nil {
			add("not imported: %v", err)
			continue
		}
		id := src.SessionID
		if d := cmp.Diff(exp.Messages, piTranscript(t, s, id), cmpopts.EquateEmpty()); d != "" {
			add("transcript (-pi +sessiondb):\n%s", d)
		}
		sess, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var attrs struct {
			Labels        map[string]string `json:"labels"`
			Model         any               `json:"model"`
			ThinkingLevel string            `json:"thinkingLevel"`
		}
		if err := json.Unmarshal(sess.Attrs, &attrs); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(exp.Model, attrs.Model); d != "" {
			add("model (-pi +sessiondb):\n%s", d)
		}
		if exp.ThinkingLevel != jsonl.OrString(attrs.ThinkingLevel, "off") {
			add("thinking level %q, pi %q", attrs.ThinkingLevel, exp.ThinkingLevel)
		}
		if len(exp.Labels) == 0 {
			exp.Labels = nil
		}
		if d := cmp.Diff(exp.Labels, attrs.Labels); d != "" {
			add("labels (-pi +sessiondb):\n%s", d)
		}
		wantTitle := ""
		if exp.Name != nil {
			wantTitle = *exp.Name
		} else {
			log, err := s.Entries(ctx, id, 1, sess.LastSeq)
			if err != nil {
				t.Fatal(err)
			}
			wantTitle = jsonlimport.PromptTitle(pi.Name, log)
		}
		if sess.Title != wantTitle {
			add("title %q, pi's name %q", sess.Title, wantTitle)
		}
		// pi lists the session as created at its header's timestamp.
		if h := jsonl.FirstObjects(f, 1); len(h) == 1 {
			if want := jsonl.ParseTime(jsonl.RawString(h[0], "timestamp")); !sess.CreatedAt.Equal(want) {
				add("created %s, pi's header says %s", sess.CreatedAt, want)
			}
		}
		// A file made by /fork (or newSession and forkFrom) names its
		// source: the session is that file's fork, at the source's last
		// entry the fork holds (none: 0), whatever the source file's name.
		if src := piParentSession(t, f); src != "" {
			srcPath := filepath.Join(filepath.Dir(f), filepath.Base(src))
			if _, err := os.Stat(srcPath); err == nil {
				if want := piHeaderID(t, srcPath); sess.ParentID != want {
					add("ParentID %q, the source file's session is %q", sess.ParentID, want)
				}
				ids := map[string]bool{}
				for _, l := range piLines(t, f)[1:] {
					var e struct {
						ID string `json:"id"`
					}
					_ = json.Unmarshal(l, &e)
					ids[e.ID] = true
				}
				var want int64
				for i, l := range piLines(t, srcPath) {
					var e struct {
						ID string `json:"id"`
					}
					_ = json.Unmarshal(l, &e)
					if ids[e.ID] && e.ID != "" {
						want = int64(i + 1)
					}
				}
				// (Not checked when the growth steps cut a source and its
				// fork apart: they can show a fork's copies before the
				// source holds them, which pi never writes.)
				if forkSeq && sess.ForkSeq != want {
					add("ForkSeq %d, the source's last entry the fork holds is line %d", sess.ForkSeq, want)
				}
			}
		}
		// Where each branch leaves the path pi resumes: the tip's last
		// ancestor on the leaf's path (pi's tree, the later of two
		// entries with one id winning; "" when they share no entry).
		parentOf, lineOf := map[string]string{}, map[string]int64{}
		for i, l := range piLines(t, f) {
			var e struct {
				Type     string  `json:"type"`
				ID       string  `json:"id"`
				ParentID *string `json:"parentId"`
			}
			_ = json.Unmarshal(l, &e)
			if e.Type == "session" || e.ID == "" {
				continue
			}
			parentOf[e.ID] = ""
			if e.ParentID != nil {
				parentOf[e.ID] = *e.ParentID
			}
			lineOf[e.ID] = int64(i + 1)
		}
		onPath := map[string]bool{}
		for cur, n := exp.LeafID, 0; cur != "" && n <= len(parentOf); cur, n = parentOf[cur], n+1 {
			onPath[cur] = true
		}
		branchFrom := func(tip string) string {
			for cur, n := tip, 0; cur != "" && n <= len(parentOf); cur, n = parentOf[cur], n+1 {
				if onPath[cur] {
					return cur
				}
			}
			return ""
		}
		tips := make([]string, 0, len(exp.Branches))
		for tip := range exp.Branches {
			tips = append(tips, tip)
		}
		sort.Strings(tips)
		for _, tip := range tips {
			want := exp.Branches[tip]
			fork, err := s.Get(ctx, jsonl.BranchID(id, tip))
			if err != nil {
				add("branch %s: %v", tip, err)
				continue
			}
			if d := cmp.Diff(want.Messages, piTranscript(t, s, fork.ID), cmpopts.EquateEmpty()); d != "" {
				add("branch %s transcript (-pi +sessiondb):\n%s", tip, d)
			}
			var fattrs struct {
				Model         any    `json:"model"`
				ThinkingLevel string `json:"thinkingLevel"`
				Branch        struct {
					Tip, From string
				} `json:"branch"`
			}
			if err := json.Unmarshal(fork.Attrs, &fattrs); err != nil {
				t.Fatal(err)
			}
			if from := branchFrom(tip); fattrs.Branch.From != from || fork.ForkSeq != lineOf[from] {
				add("branch %s leaves the path at %q (ForkSeq %d), pi's tree at %q (line %d)", tip, fattrs.Branch.From, fork.ForkSeq, from, lineOf[from])
			}
			if d := cmp.Diff(want.Model, fattrs.Model); d != "" {
				add("branch %s model (-pi +sessiondb):\n%s", tip, d)
			}
			if want.ThinkingLevel != jsonl.OrString(fattrs.ThinkingLevel, "off") {
				add("branch %s thinking level %q, pi %q", tip, fattrs.ThinkingLevel, want.ThinkingLevel)
			}
		}
		all, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		// No fork but of a tip: a fork made for a tip that pi later went
		// back to and continued (an import of a shorter file saw it as a
		// tip) is deleted once the file continues it (issue 38).
		for _, si := range all {
			tip, ok := strings.CutPrefix(si.ID, id+"@")
			if _, want := exp.Branches[tip]; ok && !want {
				add("fork %s: pi has no branch tip %s", si.ID, tip)
			}
		}
	}
	return diffs
}

// TestPiRandomExportInPi exports every session and branch fork imported
// from testdata/pi/random as pi files and opens them with pi's own
// SessionManager (gen.mjs check): pi must resume from the export of a
// session what it resumes from the file pi wrote, and from the export of
// a fork what it resumes at that branch tip. It needs pi installed (see
// internal/pinode) and is skipped otherwise.
func TestPiRandomExportInPi(t *testing.T) {
	node, script := pinode.Script(t, "gen.mjs")
	ctx := context.Background()
	dir := os.Getenv("SESSIONDB_PI_RANDOM")
	if dir == "" {
		dir = filepath.Join(piTestdata, "random")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no session files in %s (%v)", dir, err)
	}
	tmp := t.TempDir()
	want := map[string]piExpected{} // by session ID
	for _, f := range files {
		raw, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".expected.json")
		if err != nil {
			t.Fatal(err)
		}
		var exp piRandomExpected
		if err := json.Unmarshal(raw, &exp); err != nil {
			t.Fatal(err)
		}
		id := piHeaderID(t, f)
		want[id] = exp.piExpected
		for tip, b := range exp.Branches {
			want[jsonl.BranchID(id, tip)] = b
		}
	}
	// SESSIONDB_PI_RANDOM_STEPS=n: imported as the directory grew, at n
	// moments of pi's clock (piClockCuts).
	steps := 1
	if v, err := strconv.Atoi(os.Getenv("SESSIONDB_PI_RANDOM_STEPS")); err == nil && v > 1 {
		steps = v
	}
	cut := piClockCuts(t, files, steps)
	s := jsonltest.OpenStore(t)
	piImportGrowing(t, s, tmp, files, steps, func(f string, n, j int) int { return cut(f, piRandomExpected{}, n, j) }, false)
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := t.TempDir()
	written, err := jsonlimport.Export(ctx, s, ids, pi.Name, out)
	if err != nil || len(written) != len(ids) {
		t.Fatalf("export: %d files for %d sessions, %v", len(written), len(ids), err)
	}
	idOf := map[string]string{}
	for i, f := range written {
		rel, err := filepath.Rel(out, f)
		if err != nil {
			t.Fatal(err)
		}
		idOf[rel] = ids[i]
	}
	// Into a file: node's process.exit drops what a pipe has not taken.
	resPath := filepath.Join(t.TempDir(), "check.jsonl")
	resFile, err := os.Create(resPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resFile.Close()
	cmd := exec.Command(node, script, "check", out)
	cmd.Dir = filepath.Dir(script)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = resFile, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	res, err := os.ReadFile(resPath)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range bytes.Split(bytes.TrimSpace(res), []byte("\n")) {
		var got struct {
			File    string     `json:"file"`
			Context piExpected `json:"context"`
		}
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatal(err)
		}
		id, ok := idOf[got.File]
		if !ok {
			t.Fatalf("pi read %s, which was not exported", got.File)
		}
		checked++
		if d := cmp.Diff(want[id].Messages, got.Context.Messages, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: pi resumes from our export (-pi from its own file +pi from the export):\n%s", id, d)
		}
		if d := cmp.Diff(want[id].Model, got.Context.Model); d != "" {
			t.Errorf("%s: model (-pi from its own file +pi from the export):\n%s", id, d)
		}
	}
	if checked != len(ids) {
		t.Fatalf("pi read %d of %d exports", checked, len(ids))
	}
}

// piParentSession returns the parentSession of the header of the pi file
// at path ("" when none).
func piParentSession(t *testing.T, path string) string {
	t.Helper()
	objs := jsonl.FirstObjects(path, 1)
	if len(objs) != 1 {
		t.Fatalf("%s: no header", path)
	}
	return jsonl.RawString(objs[0], "parentSession")
}

// piClockCuts returns the cuts of piRandomDiffs that show every file as
// it was at steps moments of one clock, as a watcher of pi's directory
// sees them: a line was written at its timestamp, or later (a copy made
// by /fork keeps its source's timestamp but was written with the fork's
// header, and pi appends in order).
func piClockCuts(t *testing.T, files []string, steps int) func(string, piRandomExpected, int, int) int {
	t.Helper()
	written := map[string][]time.Time{}
	var lo, hi time.Time
	for _, f := range files {
		var at []time.Time
		var last time.Time
		for _, l := range piLines(t, f) {
			var e struct {
				Timestamp string `json:"timestamp"`
			}
			_ = json.Unmarshal(l, &e)
			if ts := jsonl.ParseTime(e.Timestamp); ts.After(last) {
				last = ts
			}
			at = append(at, last)
		}
		if len(at) == 0 {
			continue
		}
		if lo.IsZero() || at[0].Before(lo) {
			lo = at[0]
		}
		if at[len(at)-1].After(hi) {
			hi = at[len(at)-1]
		}
		written[f] = at
	}
	return func(f string, _ piRandomExpected, n, j int) int {
		if j == steps {
			return n
		}
		now := lo.Add(hi.Sub(lo) * time.Duration(j) / time.Duration(steps))
		k := 0
		for k < len(written[f]) && !written[f][k].After(now) {
			k++
		}
		return k
	}
}

// piImportGrowing imports files (copied into dir) steps times into s,
// every file holding at step j its first cut(file, lines, j) lines (none:
// not there yet), and if torn half of the next line.
func piImportGrowing(t *testing.T, s sessiondb.Store, dir string, files []string, steps int, cut func(f string, n, j int) int, torn bool) {
	t.Helper()
	for j := 1; j <= steps; j++ {
		for _, f := range files {
			lines := piLines(t, f)
			k := cut(f, len(lines), j)
			if k == 0 {
				continue // not written yet
			}
			var b bytes.Buffer
			for _, l := range lines[:k] {
				b.Write(l)
				b.WriteByte('\n')
			}
			if torn && k < len(lines) {
				// pi's write of the next line, half done.
				b.Write(lines[k][:len(lines[k])/2])
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := jsonlimport.Import(context.Background(), s, []string{dir}, jsonlimport.Options{Format: pi.Name}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPiForkDropsLabels: pi's /fork (createBranchedSession) leaves the
// label entries of the path out of the new file, so the entry after a
// label names a parent the fork does not hold, and pi resumes the fork
// from that entry on (testdata/pi/forks, gen.mjs fork-labels). The
// session, its fork and the fork's branch tip read as pi reads them.
func TestPiForkDropsLabels(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(piTestdata, "forks", "*.jsonl"))
	if err != nil || len(files) != 2 {
		t.Fatalf("testdata/pi/forks: %v %v (run gen.mjs fork-labels)", files, err)
	}
	diffs := piRandomDiffs(t, files, func(f string) string { return strings.TrimSuffix(f, ".jsonl") + ".json" },
		1, func(_ string, _ piRandomExpected, n, _ int) int { return n }, false)
	piReportDiffs(t, diffs, len(files))
}
