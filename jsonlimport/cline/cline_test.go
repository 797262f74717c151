package cline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/cline"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/sqlstore"
)

var update = flag.Bool("cline.update", false, "rewrite testdata/cline/expected")

var (
	testdata = filepath.Join("..", "..", "testdata", "cline")
	// cliData is a data folder the Cline CLI 2.18.0 (core 3.82.0) wrote
	// itself against sessiondb's scripted model (testdata/gen/cline).
	cliData = filepath.Join(testdata, "cli")
	// corpus holds the UI messages of four real tasks from public
	// repositories, reduced (testdata/cline/MANIFEST.md).
	corpus = filepath.Join(testdata, "corpus")
	// crafted holds task folders written by testdata/gen/cline/crafted.py
	// after Cline's and Roo Code's source.
	crafted = filepath.Join(testdata, "crafted")
	// sdkHome is the HOME of the Cline CLI 3.0.65 (the SDK layout) after
	// testdata/gen/cline/sdk.sh ran it against sessiondb's scripted model.
	sdkHome = filepath.Join(testdata, "sdk", "home")
	// sdkCrafted holds SDK sessions written by
	// testdata/gen/cline/crafted_sdk.py after the SDK's source.
	sdkCrafted = filepath.Join(testdata, "sdk-crafted")
)

// importTree imports root and returns the store and the report.
func importTree(t *testing.T, roots ...string) (*sqlstore.Store, *jsonlimport.Report) {
	t.Helper()
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, roots, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, &rep
}

// golden is what an imported task must look like.
type golden struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Attrs       json.RawMessage `json:"attrs,omitempty"`
	Created     string          `json:"created"`
	Updated     string          `json:"updated"`
	Transcript  []string        `json:"transcript"`
	LogEntries  int             `json:"log_entries"`
	Compactions []string        `json:"compactions,omitempty"`
	Usage       []string        `json:"usage"`
	Problems    []string        `json:"problems,omitempty"`
}

// label names a transcript entry as the readers see it.
func label(e sessiondb.Entry) string {
	m := jsonlimport.Understand(cline.Name, e)
	l := fmt.Sprintf("%d %s %s %s", e.Seq, e.CreatedAt.UTC().Format("15:04:05"), e.Kind, m.Role)
	if e.Summary {
		l = "(summary) " + l
	}
	if m.Bookkeeping {
		l += " bookkeeping"
	}
	if m.Context {
		l += " context"
	}
	if m.Thinking != "" {
		l += " thinking:" + clip(m.Thinking)
	}
	if m.Text != "" {
		l += " text:" + clip(m.Text)
	}
	for _, c := range m.Calls {
		l += " call:" + c.ID + "=" + c.Name
	}
	for _, r := range m.Results {
		l += " result:" + r.CallID
	}
	return l
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 40 {
		return string(r[:40])
	}
	return s
}

// snapshot describes every session of s.
func snapshot(t *testing.T, s *sqlstore.Store, rep *jsonlimport.Report) map[string]golden {
	t.Helper()
	ctx := context.Background()
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]golden{}
	for _, info := range list {
		sess := info.Session
		g := golden{ID: sess.ID, Title: sess.Title, Attrs: sess.Attrs, Created: sess.CreatedAt.UTC().Format("2006-01-02T15:04:05.000"), Updated: sess.UpdatedAt.UTC().Format("2006-01-02T15:04:05.000"), Usage: []string{}}
		for _, p := range rep.Problems {
			if filepath.Dir(p.Path) == filepath.Dir(sess.SourcePath) {
				g.Problems = append(g.Problems, filepath.Base(p.Path)+": "+p.Reason)
			}
		}
		tr, err := s.Load(ctx, sess.ID, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tr {
			g.Transcript = append(g.Transcript, label(e))
		}
		log, err := s.Entries(ctx, sess.ID, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		g.LogEntries = len(log)
		cs, err := s.Compactions(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			g.Compactions = append(g.Compactions, fmt.Sprintf("keep_from=%d summary=%d", c.KeepFromSeq, len(c.Summary)))
		}
		rows, err := s.Query(ctx, `SELECT provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost, cost_estimated, coalesce(seq, 0) FROM usage WHERE session_id = ? ORDER BY id`, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var provider, model string
			var in, o, cr, cw, seq int64
			var cost float64
			var est bool
			if err := rows.Scan(&provider, &model, &in, &o, &cr, &cw, &cost, &est, &seq); err != nil {
				t.Fatal(err)
			}
			g.Usage = append(g.Usage, fmt.Sprintf("%s/%s in=%d out=%d cache_read=%d cache_write=%d cost=%g estimated=%v seq=%d", provider, model, in, o, cr, cw, cost, est, seq))
		}
		rows.Close()
		out[sess.ID] = g
	}
	return out
}

// TestClineGolden imports the CLI's data folder, the corpus and the
// crafted tasks and compares every session with testdata/cline/expected
// (read by hand against the package doc; rewrite with -cline.update).
func TestClineGolden(t *testing.T) {
	for _, tc := range []struct {
		name, root string
		n          int
	}{{"cli", cliData, 1}, {"corpus", corpus, 4}, {"crafted", crafted, 5}, {"sdk", sdkHome, 3}, {"sdk-crafted", sdkCrafted, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			s, rep := importTree(t, tc.root)
			got := snapshot(t, s, rep)
			if len(got) != tc.n {
				t.Fatalf("%d sessions, want %d", len(got), tc.n)
			}
			path := filepath.Join(testdata, "expected", tc.name+".json")
			b, _ := json.MarshalIndent(got, "", "  ")
			b = append(b, '\n')
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -cline.update)", err)
			}
			var exp map[string]golden
			if err := json.Unmarshal(want, &exp); err != nil {
				t.Fatal(err)
			}
			var gotBack map[string]golden
			_ = json.Unmarshal(b, &gotBack)
			if d := cmp.Diff(exp, gotBack); d != "" {
				t.Errorf("sessions differ from %s (-want +got):\n%s", path, d)
			}
		})
	}
}

// historyTotals is an index entry's usage, which Cline computes with
// getApiMetrics over the task's UI messages.
type historyTotals struct {
	ID          string  `json:"id"`
	TokensIn    int64   `json:"tokensIn"`
	TokensOut   int64   `json:"tokensOut"`
	CacheWrites int64   `json:"cacheWrites"`
	CacheReads  int64   `json:"cacheReads"`
	TotalCost   float64 `json:"totalCost"`
}

// TestClineUsageEqualsIndex: the usage of every task the index (or Roo
// Code's history_item.json) lists equals the totals Cline recorded there:
// what it shows the user. The CLI's index was written by Cline itself.
func TestClineUsageEqualsIndex(t *testing.T) {
	ctx := context.Background()
	var want []historyTotals
	for _, idx := range []string{
		filepath.Join(cliData, "data", "state", "taskHistory.json"),
		filepath.Join(crafted, "saoudrizwan.claude-dev", "state", "taskHistory.json"),
	} {
		var items []historyTotals
		readJSON(t, idx, &items)
		want = append(want, items...)
	}
	items, _ := filepath.Glob(filepath.Join(crafted, "*", "tasks", "*", cline.HistoryFile))
	for _, p := range items {
		var h historyTotals
		readJSON(t, p, &h)
		want = append(want, h)
	}
	if len(want) < 4 {
		t.Fatalf("%d index entries, want at least 4", len(want))
	}
	s, _ := importTree(t, cliData, crafted)
	for _, h := range want {
		tot, err := s.UsageTotals(ctx, h.ID)
		if err != nil {
			t.Fatalf("%s: %v", h.ID, err)
		}
		got := historyTotals{ID: h.ID, TokensIn: tot.InputTokens, TokensOut: tot.OutputTokens, CacheWrites: tot.CacheWriteTokens, CacheReads: tot.CacheReadTokens, TotalCost: math.Round(tot.Cost*1e9) / 1e9}
		h.TotalCost = math.Round(h.TotalCost*1e9) / 1e9
		if got != h {
			t.Errorf("%s: usage %+v, the index says %+v", h.ID, got, h)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestClineCallsPaired: in every transcript, every tool call has a result
// in a later entry and every result answers an earlier call (native
// tool_use blocks and XML tool use alike).
func TestClineCallsPaired(t *testing.T) {
	ctx := context.Background()
	s, _ := importTree(t, cliData, corpus, crafted)
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	calls, paired := 0, 0
	for _, info := range list {
		tr, err := s.Load(ctx, info.ID, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		open := map[string]int{}
		for _, e := range tr {
			m := jsonlimport.Understand(cline.Name, e)
			for _, r := range m.Results {
				if open[r.CallID] == 0 {
					t.Errorf("%s entry %d: result %q answers no earlier call", info.ID, e.Seq, r.CallID)
					continue
				}
				open[r.CallID]--
				paired++
			}
			for _, c := range m.Calls {
				open[c.ID]++
				calls++
			}
		}
		for id, n := range open {
			// A task's last call (attempt_completion) is answered only
			// when the user replies.
			// The damaged task is cut before its first result.
			if n > 0 && !strings.Contains(id, "attempt_completion") && id != "toolu_02" && info.ID != "1700000200000" {
				t.Errorf("%s: call %q has no result", info.ID, id)
			}
		}
	}
	if calls < 4 || paired < 2 {
		t.Errorf("%d calls, %d paired: the crafted tasks hold more", calls, paired)
	}
	t.Logf("tool calls: %d, paired with a result: %d", calls, paired)
}

// TestClineExportBytes: every task whose files Cline wrote (the CLI's,
// and the crafted ones written as JSON.stringify writes) comes back byte
// for byte from an export in its own format: the primary file and the
// side files; an indented file comes back compact, equal as JSON.
func TestClineExportBytes(t *testing.T) {
	ctx := context.Background()
	for _, root := range []string{cliData, crafted, corpus} {
		s, _ := importTree(t, root)
		list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range list {
			out := t.TempDir()
			files, err := jsonlimport.Export(ctx, s, []string{info.ID}, cline.Name, out)
			if err != nil {
				t.Fatalf("%s: %v", info.ID, err)
			}
			src := filepath.Dir(info.SourcePath)
			var names []string
			for _, f := range files {
				got, _ := os.ReadFile(f)
				names = append(names, filepath.Base(f))
				want, err := os.ReadFile(filepath.Join(src, filepath.Base(f)))
				if err != nil {
					t.Errorf("%s: %s is no file of the task: %v", info.ID, filepath.Base(f), err)
					continue
				}
				if bytes.Equal(got, want) {
					continue
				}
				var a, b any
				damaged := strings.HasSuffix(src, "1700000200000")
				if json.Unmarshal(got, &a) != nil || (json.Unmarshal(want, &b) != nil && !damaged) || (!damaged && !cmp.Equal(a, b)) {
					t.Errorf("%s: export of %s differs from the file (%d bytes, want %d)", info.ID, filepath.Base(f), len(got), len(want))
				} else if !damaged && !bytes.HasPrefix(bytes.TrimSpace(want), []byte("[\n")) && !strings.HasSuffix(f, cline.MetadataFile) {
					t.Errorf("%s: %s is compact but not exported byte for byte", info.ID, filepath.Base(f))
				}
			}
			entries, _ := os.ReadDir(src)
			var want []string
			for _, e := range entries {
				want = append(want, e.Name())
			}
			sort.Strings(names)
			if d := cmp.Diff(want, names); d != "" {
				t.Errorf("%s: files exported (-task folder +export):\n%s", info.ID, d)
			}
		}
	}
}

// TestClineClaim: a folder's API history is its primary file and its
// other files are side files; the index two levels up is one too; a
// JSON file of another shape named ui_messages.json (an i18n table seen
// in the wild) and a folder with only task_metadata.json are not taken.
func TestClineClaim(t *testing.T) {
	dir := filepath.Join(crafted, "saoudrizwan.claude-dev", "tasks", "1700000000000")
	abs, _ := filepath.Abs(dir)
	files := []string{filepath.Join(abs, cline.APIFile), filepath.Join(abs, "context_history.json"), filepath.Join(abs, cline.MetadataFile), filepath.Join(abs, cline.UIFile)}
	units, rest := cline.Format{}.Claim(files)
	idx := filepath.Join(filepath.Dir(filepath.Dir(abs)), "state", "taskHistory.json")
	want := []jsonl.Unit{{Format: cline.Name, Path: files[0], Extra: []string{files[3], files[2], idx}}}
	if d := cmp.Diff(want, units); d != "" {
		t.Errorf("units (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{files[1]}, rest); d != "" {
		t.Errorf("rest (-want +got):\n%s", d)
	}
	tmp := t.TempDir()
	i18n := filepath.Join(tmp, cline.UIFile)
	if err := os.WriteFile(i18n, []byte("ui_messages = {\"de\": {}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(tmp, "x", cline.APIFile)
	_ = os.MkdirAll(filepath.Dir(obj), 0o755)
	if err := os.WriteFile(obj, []byte(`[{"content":"no role first","role":"user"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{i18n, obj, filepath.Join(abs, cline.MetadataFile)} {
		if u, _ := (cline.Format{}).Claim([]string{f}); len(u) != 0 {
			t.Errorf("%s claimed: %+v", f, u)
		}
	}
	if r := (cline.Format{}).SkipReason(filepath.Join(abs, "context_history.json")); r == "" {
		t.Errorf("context_history.json: no skip reason")
	}
}

// TestClineDamage: a history cut short imports the messages before the
// cut with a problem; a file that is no array is an error that imports
// nothing; no panic.
func TestClineDamage(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(crafted, "saoudrizwan.claude-dev", "tasks", "1700000200000")
	p, err := cline.Format{}.Parse(ctx, jsonl.Unit{Format: cline.Name, Path: filepath.Join(dir, cline.APIFile), Extra: []string{filepath.Join(dir, cline.UIFile)}}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 2 || !jsonltest.HasProblem(p.Problems, cline.APIFile, 0, "invalid JSON in element 3") {
		t.Errorf("%d entries, problems %v; want 2 and the cut reported", len(p.Entries), p.Problems)
	}
	tmp := filepath.Join(t.TempDir(), "tasks", "42")
	_ = os.MkdirAll(tmp, 0o755)
	bad := filepath.Join(tmp, cline.APIFile)
	_ = os.WriteFile(bad, []byte(`{"role":"user"}`), 0o644)
	if _, err := (cline.Format{}).Parse(ctx, jsonl.Unit{Format: cline.Name, Path: bad}, jsonl.Resume{}); err == nil {
		t.Errorf("an object parsed as a task")
	}
	if _, err := (cline.Format{}).Parse(ctx, jsonl.Unit{Format: cline.Name, Path: bad}, jsonl.Resume{Offset: 3}); err != jsonl.ErrNotIncremental {
		t.Errorf("resume from an offset: %v, want ErrNotIncremental", err)
	}
}

// TestClineGrowth: Cline rewrites a task's files whole as it goes; a
// store that imported every state of a task, one after the other, holds
// what one import of the final state gives. The states are the real
// task the corpus holds twice (the Jeehunter task: 368 and then 380 UI
// messages), and the CLI's task and crafted task 1 cut after each of
// their API requests (the files as Cline wrote them then: the history's
// messages up to the request's answer, the UI messages up to the next
// request).
func TestClineGrowth(t *testing.T) {
	since := time.Now()
	type state struct{ api, ui []byte }
	cases := map[string][]state{}
	early, err := os.ReadFile(filepath.Join(testdata, "growth", "jeehunter-1760534080239-early.json"))
	if err != nil {
		t.Fatal(err)
	}
	final, err := os.ReadFile(filepath.Join(corpus, "jeehunter", "saoudrizwan.claude-dev", "tasks", "1760534080239", cline.UIFile))
	if err != nil {
		t.Fatal(err)
	}
	cases["1760534080239"] = []state{{ui: early}, {ui: final}}
	for _, dir := range []string{
		filepath.Join(cliData, "data", "tasks", "1796583161798"),
		filepath.Join(crafted, "saoudrizwan.claude-dev", "tasks", "1700000000000"),
		filepath.Join(crafted, "saoudrizwan.claude-dev", "tasks", "1700000100000"),
	} {
		var api []json.RawMessage
		var ui []map[string]json.RawMessage
		var uiRaw []json.RawMessage
		readJSON(t, filepath.Join(dir, cline.APIFile), &api)
		readJSON(t, filepath.Join(dir, cline.UIFile), &ui)
		readJSON(t, filepath.Join(dir, cline.UIFile), &uiRaw)
		var states []state
		for i, m := range ui {
			if string(m["say"]) != `"api_req_started"` || i == 0 {
				continue
			}
			var idx int
			_ = json.Unmarshal(m["conversationHistoryIndex"], &idx)
			n := min(idx+1, len(api))
			states = append(states, state{api: join(api[:n]), ui: join(uiRaw[:i])})
		}
		apiAll, _ := os.ReadFile(filepath.Join(dir, cline.APIFile))
		uiAll, _ := os.ReadFile(filepath.Join(dir, cline.UIFile))
		states = append(states, state{api: apiAll, ui: uiAll})
		if len(states) < 2 {
			t.Fatalf("%s: %d states", dir, len(states))
		}
		cases[filepath.Base(dir)] = states
	}
	for id, states := range cases {
		t.Run(id, func(t *testing.T) {
			grown := jsonltest.OpenStore(t)
			once := jsonltest.OpenStore(t)
			dir := filepath.Join(t.TempDir(), "saoudrizwan.claude-dev", "tasks", id)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			write := func(st state) {
				if st.api != nil {
					writeAtomic(t, filepath.Join(dir, cline.APIFile), st.api)
				}
				writeAtomic(t, filepath.Join(dir, cline.UIFile), st.ui)
			}
			for _, st := range states {
				write(st)
				rep, err := jsonlimport.Import(context.Background(), grown, []string{dir}, jsonlimport.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range rep.Problems {
					t.Logf("state: %s", p)
				}
			}
			if _, err := jsonlimport.Import(context.Background(), once, []string{dir}, jsonlimport.Options{}); err != nil {
				t.Fatal(err)
			}
			g := jsonltest.GrowthSnapshot(t, grown, since)
			o := jsonltest.GrowthSnapshot(t, once, since)
			if d := cmp.Diff(o, g); d != "" {
				t.Errorf("%d states imported in turn differ from one import of the last (-once +grown):\n%s", len(states), d)
			}
		})
	}
}

func join(elems []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// writeAtomic writes as Cline does: a temporary file renamed over the
// old one.
func writeAtomic(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
