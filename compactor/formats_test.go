package compactor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/internal/pgtest"
	"github.com/sessiondb/sessiondb/internal/pinode"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/pgstore"
)

// The tests of this file compact real Claude Code, Codex and pi sessions
// (issue 22, item 4): the corpus of real Claude Code and Codex files
// (testdata/corpus, SESSIONDB_CORPUS names another copy) and, as the
// repository holds no long real pi file, pi files that the pi exporter
// writes from those real conversations. What they check about a
// compaction they check with jsonlimport.Understand, not with the
// compactor's own reading.

func corpusDir(t testing.TB) string {
	t.Helper()
	root := "../testdata/corpus"
	if env := os.Getenv("SESSIONDB_CORPUS"); env != "" {
		root = env
	}
	if _, err := os.Stat(filepath.Join(root, "claude-code")); err != nil {
		t.Skipf("no corpus at %s", root)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// importCorpus imports the corpus's Claude Code and Codex trees into st.
func importCorpus(t testing.TB, st sessiondb.Store, paths ...string) {
	t.Helper()
	if _, err := jsonlimport.Import(context.Background(), st, paths, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
}

// piCorpus imports into a new store, as pi sessions, the pi files the pi
// exporter writes from the sessions of src with at least minTurns turns
// (those it can translate).
func piCorpus(t testing.TB, src sessiondb.Store, minTurns int) sessiondb.Store {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for _, s := range listAll(t, src) {
		if turns(t, src, s) >= minTurns {
			ids = append(ids, s.ID)
		}
	}
	dir := t.TempDir()
	if _, err := jsonlimport.ExportWith(ctx, src, ids, jsonlimport.FormatPi, dir, jsonlimport.ExportOptions{Skip: func(string, error) {}}); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	if _, err := jsonlimport.Import(ctx, st, []string{dir}, jsonlimport.Options{Format: jsonlimport.FormatPi}); err != nil {
		t.Fatal(err)
	}
	return st
}

func listAll(t testing.TB, st sessiondb.Store) []sessiondb.SessionInfo {
	t.Helper()
	ss, _, err := st.List(context.Background(), sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].ID < ss[j].ID })
	return ss
}

// prompt reports whether Understand reads e as a user prompt: a user
// message with text that is no tool result, bookkeeping or context.
func prompt(format string, e sessiondb.Entry) bool {
	m := jsonlimport.Understand(format, e)
	return m.Role == "user" && !m.Bookkeeping && !m.Context && len(m.Results) == 0 && strings.TrimSpace(m.Text) != ""
}

// turns counts the user prompts of session s's transcript.
func turns(t testing.TB, st sessiondb.Store, s sessiondb.SessionInfo) int {
	t.Helper()
	tr, err := st.Load(context.Background(), s.ID, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range tr {
		if prompt(s.SourceFormat, e) {
			n++
		}
	}
	return n
}

// pairs maps, for a transcript, each tool call ID to whether a result
// answers it (wherever it is: Claude Code writes some results before their
// call's line), and lists the result IDs whose call is not in it.
func pairs(format string, tr []sessiondb.Entry) (calls map[string]bool, orphans map[string]bool) {
	calls, orphans = map[string]bool{}, map[string]bool{}
	var results []string
	for _, e := range tr {
		m := jsonlimport.Understand(format, e)
		for _, c := range m.Calls {
			if c.ID != "" {
				calls[c.ID] = false
			}
		}
		for _, r := range m.Results {
			if r.CallID != "" {
				results = append(results, r.CallID)
			}
		}
	}
	for _, id := range results {
		if _, ok := calls[id]; ok {
			calls[id] = true
		} else {
			orphans[id] = true
		}
	}
	return calls, orphans
}

// corpusFigures are what compacting a corpus gives.
type corpusFigures struct {
	tried, compacted, pairs int
	copied                  int            // compactions that copied the start of the tail (Details.Tail)
	refused                 map[string]int // reason → sessions
}

// checkCompaction compacts session s with --keep 2 and the offline
// summarizer and checks the result with Understand. It returns the tool
// pairs intact in the kept transcript, and the reason when nothing was
// compacted.
func checkCompaction(t *testing.T, st sessiondb.Store, s sessiondb.SessionInfo) (intact int, d Details, reason string) {
	t.Helper()
	ctx := context.Background()
	format := s.SourceFormat
	before, err := st.LoadFull(ctx, s.ID, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	callsBefore, _ := pairs(format, before.Transcript)
	exportDir := t.TempDir()
	exportErrBefore := exportCross(ctx, st, s, filepath.Join(exportDir, "before"))

	c := &Compactor{Store: st, Summarizer: Offline{}, Policy: Policy{KeepTurns: 2}}
	res, err := c.Compact(ctx, s.ID)
	if err != nil {
		t.Errorf("%s %s: compact: %v", format, s.ID, err)
		return 0, d, "error: " + err.Error()
	}
	if !res.Compacted {
		if strings.Contains(res.Reason, ReasonNothingToDrop) {
			t.Errorf("%s %s: the generic reason %q on a session of %d turns", format, s.ID, res.Reason, turns(t, st, s))
		}
		return 0, d, res.Reason
	}
	after, err := st.LoadFull(ctx, s.ID, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	comps, err := st.Compactions(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := ParseDetails(comps[len(comps)-1])
	if ok && d.Tail > 0 {
		// The tail started among the copies of the compaction before:
		// the copies after the summary message are the log's entries.
		for i, e := range after.Transcript[d.Anchor+1 : d.Anchor+1+d.Tail] {
			if !e.Summary || string(e.Body) != string(before.Transcript[res.Dropped+d.Anchor+i].Body) {
				t.Errorf("%s %s: tail copy %d is not the entry it copies", format, s.ID, i)
			}
		}
	}
	if !ok {
		t.Fatalf("%s %s: the last compaction is not ours: %s", format, s.ID, comps[len(comps)-1].Details)
	}
	if len(after.Transcript) >= len(before.Transcript) || res.TokensAfter >= res.TokensBefore {
		t.Errorf("%s %s: transcript %d -> %d entries, ~%d -> ~%d tokens: did not shrink",
			format, s.ID, len(before.Transcript), len(after.Transcript), res.TokensBefore, res.TokensAfter)
	}

	// The summary message: the format's own shape, read as a user message
	// with the summary text; not a prompt.
	sum := after.Transcript[d.Anchor]
	m := jsonlimport.Understand(format, sum)
	if m.Role != "user" || m.Bookkeeping || !strings.HasPrefix(m.Text, SummaryPrefix+"[Offline summary of ") {
		t.Errorf("%s %s: summary message %s reads as %+v", format, s.ID, sum.Body, m)
	}
	if format == jsonlimport.FormatClaudeCode && !m.Context {
		t.Errorf("%s %s: summary message is not marked as a compact summary: %s", format, s.ID, sum.Body)
	}

	// The kept tail starts at a user prompt.
	first := after.Transcript[d.Anchor+1]
	if !prompt(format, first) {
		t.Errorf("%s %s: kept tail starts with %.300s, not a user prompt", format, s.ID, first.Body)
	}

	// Every call kept has its result kept when it had one, and no result
	// is kept without its call.
	callsAfter, orphansAfter := pairs(format, after.Transcript)
	for id, answered := range callsAfter {
		if callsBefore[id] && !answered {
			t.Errorf("%s %s: call %s kept without its result", format, s.ID, id)
		}
		if answered {
			intact++
		}
	}
	for id := range orphansAfter {
		if _, had := callsBefore[id]; had {
			t.Errorf("%s %s: result of %s kept without its call", format, s.ID, id)
		}
	}

	// A second compaction keeping one turn extends the first summary and
	// keeps the same promises.
	res2, err := (&Compactor{Store: st, Summarizer: Offline{}, Policy: Policy{KeepTurns: 1}}).Compact(ctx, s.ID)
	if err != nil || !res2.Compacted {
		t.Errorf("%s %s: second compaction: %+v, %v", format, s.ID, res2, err)
	} else {
		again, err := st.LoadFull(ctx, s.ID, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d2, _ := ParseDetails(res2.Compaction)
		if !d2.Incremental || !prompt(format, again.Transcript[d2.Anchor+1]) {
			t.Errorf("%s %s: second compaction: incremental %v, tail starts with %.300s", format, s.ID, d2.Incremental, again.Transcript[d2.Anchor+1].Body)
		}
		if m := jsonlimport.Understand(format, again.Transcript[d2.Anchor]); !strings.HasPrefix(m.Text, SummaryPrefix+"[Offline summary of ") || strings.Contains(m.Text, "Earlier summary:") {
			t.Errorf("%s %s: second summary does not merge the first: %q", format, s.ID, m.Text)
		}
		calls2, orphans2 := pairs(format, again.Transcript)
		for id, answered := range calls2 {
			if callsBefore[id] && !answered {
				t.Errorf("%s %s: second compaction: call %s kept without its result", format, s.ID, id)
			}
		}
		for id := range orphans2 {
			if _, had := callsBefore[id]; had {
				t.Errorf("%s %s: second compaction: result of %s kept without its call", format, s.ID, id)
			}
		}
	}

	// The session still exports: in its own format (the file as
	// imported), and into another format as it did before (a translation
	// refused now was refused before; one that works names the summary).
	if _, err := jsonlimport.Export(ctx, st, []string{s.ID}, format, filepath.Join(exportDir, "own")); err != nil && !noOwnExport(format) {
		t.Errorf("%s %s: export to %s after compaction: %v", format, s.ID, format, err)
	}
	if err := exportCross(ctx, st, s, filepath.Join(exportDir, "after")); err != nil {
		if !errors.Is(err, jsonlimport.ErrUntranslatable) {
			t.Errorf("%s %s: cross-format export: %v", format, s.ID, err)
		} else if exportErrBefore == nil {
			t.Errorf("%s %s: cross-format export refused after compaction only: %v", format, s.ID, err)
		}
	} else if !exportHolds(t, filepath.Join(exportDir, "after"), "[Offline summary of ") {
		t.Errorf("%s %s: cross-format export lost the summary", format, s.ID)
	}
	return intact, d, ""
}

// exportCross exports s into another format: pi for Claude Code and Codex
// sessions, zot for pi sessions.
func exportCross(ctx context.Context, st sessiondb.Store, s sessiondb.SessionInfo, dir string) error {
	target := jsonlimport.FormatPi
	if s.SourceFormat == jsonlimport.FormatPi {
		target = jsonlimport.FormatZot
	}
	_, err := jsonlimport.Export(ctx, st, []string{s.ID}, target, dir)
	return err
}

// exportHolds reports whether a file under dir contains text.
func exportHolds(t *testing.T, dir, text string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), text) {
			found = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// compactCorpus compacts every session of st and returns the figures of
// the sessions of more than 10 turns (long) and of the others (short), by
// format.
func compactCorpus(t *testing.T, st sessiondb.Store, long, short map[string]*corpusFigures) {
	for _, s := range listAll(t, st) {
		figs := short
		n := turns(t, st, s)
		if n > 10 {
			figs = long
		}
		f := figs[s.SourceFormat]
		if f == nil {
			f = &corpusFigures{refused: map[string]int{}}
			figs[s.SourceFormat] = f
		}
		f.tried++
		intact, d, reason := checkCompaction(t, st, s)
		if d.Tail > 0 {
			f.copied++
		}
		if reason != "" {
			if n > 2 {
				t.Errorf("%s %s: %d turns, not compacted with --keep 2: %s", s.SourceFormat, s.ID, n, reason)
			}
			f.refused[digits.ReplaceAllString(reason, "N")]++
			continue
		}
		f.compacted++
		f.pairs += intact
	}
}

// digits groups reasons that differ only in their counts.
var digits = regexp.MustCompile(`[0-9]+`)

// TestCompactCorpusOwnShapes compacts every Claude Code, Codex and pi
// session of the corpus (--keep 2, offline), checks each compaction with
// Understand (checkCompaction) and logs the figures: sessions compacted of
// those tried, tool pairs intact in the kept tails, sessions left alone by
// reason. Every session of more than two turns must compact; the others
// say, with counts, why not.
func TestCompactCorpusOwnShapes(t *testing.T) {
	longtest.Skip(t, "imports and compacts the whole corpus, no concurrency: run without -short and -race")
	if raceEnabled {
		t.Skip("no concurrency: run without -race (.ci/run does)")
	}
	root := corpusDir(t)
	st := openStore(t)
	importCorpus(t, st, filepath.Join(root, "claude-code"), filepath.Join(root, "codex"))
	pi := piCorpus(t, st, 1)
	long, short := map[string]*corpusFigures{}, map[string]*corpusFigures{}
	compactCorpus(t, st, long, short)
	compactCorpus(t, pi, long, short)
	for _, format := range []string{jsonlimport.FormatClaudeCode, jsonlimport.FormatCodex, jsonlimport.FormatPi} {
		f := long[format]
		if f == nil || f.tried == 0 {
			t.Errorf("%s: no session of more than 10 turns", format)
			continue
		}
		t.Logf("%s, more than 10 turns: compacted %d of %d sessions (%d carrying the start of their tail as copies); %d tool pairs intact in the kept tails; not compacted %d: %v",
			format, f.compacted, f.tried, f.copied, f.pairs, f.tried-f.compacted, f.refused)
		if f.compacted != f.tried {
			t.Errorf("%s: %d sessions of more than 10 turns not compacted: %v", format, f.tried-f.compacted, f.refused)
		}
		if f := short[format]; f != nil {
			t.Logf("%s, 10 turns or fewer: compacted %d of %d sessions (%d carrying copies); %d tool pairs intact; not compacted %d: %v",
				format, f.compacted, f.tried, f.copied, f.pairs, f.tried-f.compacted, f.refused)
		}
	}
}

// TestCompactOwnShapesPostgres compacts the longest Claude Code and Codex
// sessions of the corpus on PostgreSQL, with the same checks.
func TestCompactOwnShapesPostgres(t *testing.T) {
	root := corpusDir(t)
	ctx := context.Background()
	st, err := pgstore.Open(ctx, pgtest.URL(t, "compactor_test_"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// The largest session file of each format (not a sub-agent's).
	for _, format := range []string{jsonlimport.FormatClaudeCode, jsonlimport.FormatCodex} {
		file := largestFile(t, filepath.Join(root, format))
		importCorpus(t, st, file)
		var s sessiondb.SessionInfo
		for _, si := range listAll(t, st) {
			if si.SourcePath == file {
				s = si
			}
		}
		if s.ID == "" {
			t.Fatalf("%s not imported on PostgreSQL", file)
		}
		info := s
		if n := turns(t, st, info); n <= 10 {
			t.Fatalf("%s %s: %d turns", format, s.ID, n)
		}
		intact, _, reason := checkCompaction(t, st, info)
		if reason != "" {
			t.Fatalf("%s %s: not compacted: %s", format, s.ID, reason)
		}
		t.Logf("%s %s (%d messages): compacted on PostgreSQL, %d tool pairs intact", format, s.ID, s.MessageCount, intact)
	}
}

// largestFile is the largest .jsonl file under root outside subagents
// folders.
func largestFile(t *testing.T, root string) string {
	t.Helper()
	var best string
	var size int64
	err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.Contains(p, "subagents") {
			return err
		}
		fi, err := de.Info()
		if err == nil && fi.Size() > size {
			best, size = p, fi.Size()
		}
		return err
	})
	if err != nil || best == "" {
		t.Fatalf("no session file under %s: %v", root, err)
	}
	return best
}

// TestCompactedExportsLoadInPi exports compacted Claude Code and Codex
// sessions of the corpus to pi and opens them with pi's own
// SessionManager (testdata/gen/pi/check-export.mjs, as
// jsonlimport's TestExportCorpusPiLoadsInPi): pi resumes the summary as the
// first message, a user message, and sees every call kept with its result.
// It needs pi installed (npm install in testdata/gen/pi, or
// SESSIONDB_PI_NODE) and is skipped otherwise.
func TestCompactedExportsLoadInPi(t *testing.T) {
	longtest.Skip(t, "imports and compacts the whole corpus, no concurrency: run without -short and -race")
	if raceEnabled {
		t.Skip("no concurrency: run without -race (.ci/run does)")
	}
	node, script := pinode.Script(t, "check-export.mjs")
	ctx := context.Background()
	root := corpusDir(t)
	st := openStore(t)
	importCorpus(t, st, filepath.Join(root, "claude-code"), filepath.Join(root, "codex"))
	type want struct{ unpaired, orphans int }
	expect := map[string]want{}
	var files []string
	for _, s := range listAll(t, st) {
		if turns(t, st, s) <= 2 {
			continue
		}
		res, err := (&Compactor{Store: st, Summarizer: Offline{}, Policy: Policy{KeepTurns: 2}}).Compact(ctx, s.ID)
		if err != nil || !res.Compacted {
			t.Fatalf("%s: %+v, %v", s.ID, res, err)
		}
		written, err := jsonlimport.Export(ctx, st, []string{s.ID}, jsonlimport.FormatPi, t.TempDir())
		if err != nil {
			continue // refused: checkCompaction compares refusals with the uncompacted session
		}
		tr, err := st.Load(ctx, s.ID, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		calls, orphans := pairs(s.SourceFormat, tr)
		var w want
		for _, answered := range calls {
			if !answered {
				w.unpaired++
			}
		}
		w.orphans = len(orphans)
		expect[written[0]] = w
		files = append(files, written[0])
	}
	if len(files) == 0 {
		t.Fatal("no compacted session exported to pi")
	}
	cmd := exec.Command(node, append([]string{script}, files...)...)
	cmd.Dir = filepath.Dir(script)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var got struct {
			File              string   `json:"file"`
			Roles             []string `json:"roles"`
			Unpaired, Orphans int
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		w, ok := expect[got.File]
		if !ok {
			t.Fatalf("pi reported on %s, which was not exported", got.File)
		}
		checked++
		if len(got.Roles) < 2 || got.Roles[0] != "user" {
			t.Errorf("%s: pi resumes %v, want the summary as a user message first", got.File, got.Roles)
		}
		if got.Unpaired != w.unpaired || got.Orphans != w.orphans {
			t.Errorf("%s: pi sees %d calls without result and %d results without call, the compacted transcript %d and %d",
				got.File, got.Unpaired, got.Orphans, w.unpaired, w.orphans)
		}
	}
	if checked != len(files) {
		t.Fatalf("pi checked %d of %d files", checked, len(files))
	}
	t.Logf("pi's SessionManager resumed %d compacted sessions exported to pi", checked)
}
