package cline_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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
)

// sdkRuns is testdata/cline/sdk/runs.json: the CLI's version and the
// sessions its runs wrote (A: hello, then a resume; B: tools, then a
// resume; C: tools with a context window of 3000 tokens, compacted by the
// CLI after two calls, then a resume).
type sdkRuns struct {
	Cline   string `json:"cline"`
	A, B, C string
}

func readRuns(t *testing.T) sdkRuns {
	t.Helper()
	var r sdkRuns
	readJSON(t, filepath.Join(testdata, "sdk", "runs.json"), &r)
	if r.Cline != "3.0.65" || r.A == "" || r.B == "" || r.C == "" {
		t.Fatalf("runs.json: %+v", r)
	}
	return r
}

// sessionDir is the folder of an SDK session of the CLI's corpus.
func sessionDir(id string) string {
	return filepath.Join(sdkHome, ".cline", "data", "sessions", id)
}

// wire is one message of a Chat Completions request, as the scripted
// model logged what the CLI sent.
type wire struct {
	Role       string  `json:"role"`
	Content    *string `json:"content"`
	Reasoning  string  `json:"reasoning_content"`
	ToolCallID string  `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// turn is a message reduced to what both sides carry.
type turn struct {
	Role, Text, Thinking string
	Calls                []string // id name args (args as decoded JSON)
}

func argsKey(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// requestTurns reads the messages of the first request in a run's log,
// less the system prompt.
func requestTurns(t *testing.T, run string) []turn {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, "sdk", "requests", run+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() {
		t.Fatalf("%s: no request", run)
	}
	var req struct {
		Body struct {
			Messages []wire `json:"messages"`
		} `json:"body"`
	}
	if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
		t.Fatal(err)
	}
	var out []turn
	for _, m := range req.Body.Messages {
		if m.Role == "system" {
			continue
		}
		tu := turn{Role: m.Role, Thinking: m.Reasoning}
		if m.Content != nil {
			tu.Text = *m.Content
		}
		if m.Role == "tool" {
			tu.Text = m.ToolCallID + " " + tu.Text
		}
		for _, c := range m.ToolCalls {
			tu.Calls = append(tu.Calls, c.ID+" "+c.Function.Name+" "+argsKey(c.Function.Arguments))
		}
		out = append(out, tu)
	}
	return out
}

// transcriptTurns reads a session's transcript as the reader understands
// it, in the request's shape: a tool result is a "tool" message, a user
// text a "user" one, an assistant message its text, thinking and calls.
func transcriptTurns(t *testing.T, s sessiondb.Store, id string) []turn {
	t.Helper()
	tr, err := s.Load(context.Background(), id, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []turn
	for _, e := range tr {
		m := jsonlimport.Understand(cline.Name, e)
		if m.Bookkeeping {
			continue
		}
		for _, r := range m.Results {
			out = append(out, turn{Role: "tool", Text: r.CallID + " " + r.Text})
		}
		if m.Role == "user" && m.Text != "" {
			out = append(out, turn{Role: "user", Text: m.Text})
		}
		if m.Role == "assistant" {
			tu := turn{Role: "assistant", Text: m.Text, Thinking: m.Thinking}
			for _, c := range m.Calls {
				tu.Calls = append(tu.Calls, c.ID+" "+c.Name+" "+argsKey(c.Arguments))
			}
			out = append(out, tu)
		}
	}
	return out
}

// TestClineSDKResumeOracle: what the Cline CLI 3.0.65 sent its model when
// it resumed a session (its first request after session/load, in the
// scripted model's log) is the session's conversation as the reader
// reads it from the files the CLI left: every message, in order (the
// prompt without its <user_input> envelope, each tool result as the JSON
// text the CLI sends), up to the resumed turn's answer, which the
// request cannot hold. Session C was compacted by the CLI: what it sent
// is the compaction's summary and kept messages, then the messages after
// it, which is the reader's transcript.
func TestClineSDKResumeOracle(t *testing.T) {
	runs := readRuns(t)
	s, _ := importTree(t, sdkHome)
	for _, tc := range []struct{ run, id string }{{"b2", runs.B}, {"a2", runs.A}, {"c2", runs.C}} {
		want := requestTurns(t, tc.run)
		got := transcriptTurns(t, s, tc.id)
		if len(got) == 0 || got[len(got)-1].Role != "assistant" {
			t.Fatalf("%s: transcript does not end with the resumed turn's answer: %+v", tc.id, got)
		}
		got = got[:len(got)-1]
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: the conversation differs from what the CLI re-sent on resume (%s) (-sent +read):\n%s", tc.id, tc.run, d)
		}
		t.Logf("%s: %d messages equal to the resume request", tc.id, len(want))
	}
}

// sdkUsageTotals is a manifest's metadata.usage: what the SDK summed
// over the session's model calls.
type sdkUsageTotals struct {
	InputTokens      int64   `json:"inputTokens"`
	OutputTokens     int64   `json:"outputTokens"`
	CacheReadTokens  int64   `json:"cacheReadTokens"`
	CacheWriteTokens int64   `json:"cacheWriteTokens"`
	TotalCost        float64 `json:"totalCost"`
}

// TestClineSDKUsageEqualsManifest: the usage of each session the CLI
// wrote equals the totals the CLI recorded in its manifest
// (metadata.usage; the SDK's inputTokens holds the cache reads and
// writes, sessiondb's input does not, so input + cache read + cache write
// is compared with it). The CLI recorded no cost for the scripted model:
// every row's cost is an estimate.
func TestClineSDKUsageEqualsManifest(t *testing.T) {
	runs := readRuns(t)
	ctx := context.Background()
	s, _ := importTree(t, sdkHome)
	for _, id := range []string{runs.A, runs.B, runs.C} {
		var man struct {
			Metadata struct {
				Usage sdkUsageTotals `json:"usage"`
			} `json:"metadata"`
		}
		readJSON(t, filepath.Join(sessionDir(id), id+".json"), &man)
		want := man.Metadata.Usage
		if want.InputTokens == 0 || want.OutputTokens == 0 {
			t.Fatalf("%s: the manifest records no usage", id)
		}
		tot, err := s.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got := sdkUsageTotals{InputTokens: tot.InputTokens + tot.CacheReadTokens + tot.CacheWriteTokens, OutputTokens: tot.OutputTokens, CacheReadTokens: tot.CacheReadTokens, CacheWriteTokens: tot.CacheWriteTokens, TotalCost: want.TotalCost}
		if got != want {
			t.Errorf("%s: usage %+v, the manifest says %+v", id, got, want)
		}
		rows, err := s.Query(ctx, `SELECT count(*), coalesce(sum(cost_estimated = 0), 0) FROM usage WHERE session_id = ?`, id)
		if err != nil {
			t.Fatal(err)
		}
		var n, given int
		for rows.Next() {
			_ = rows.Scan(&n, &given)
		}
		rows.Close()
		if n == 0 || given != 0 {
			t.Errorf("%s: %d usage rows, %d with a cost the CLI did not record", id, n, given)
		}
		t.Logf("%s: %d usage rows, input %d output %d cache read %d: equal to the manifest", id, n, want.InputTokens, want.OutputTokens, want.CacheReadTokens)
	}
}

// TestClineSDKCallsPaired: every tool call of the SDK sessions (the
// CLI's: two parallel calls, a failing one, a long output, and the two
// of the compacted session; the crafted read_files call) has its result after it, and no result answers no
// call.
func TestClineSDKCallsPaired(t *testing.T) {
	ctx := context.Background()
	s, _ := importTree(t, sdkHome, sdkCrafted)
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	calls, paired := 0, 0
	for _, info := range list {
		log, err := s.Entries(ctx, info.ID, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		open := map[string]int{}
		for _, e := range log {
			m := jsonlimport.Understand(cline.Name, e)
			for _, r := range m.Results {
				if open[r.CallID] == 0 {
					t.Errorf("%s entry %d: result %q answers no earlier call", info.ID, e.Seq, r.CallID)
					continue
				}
				open[r.CallID]--
				paired++
				if r.Text == "" {
					t.Errorf("%s entry %d: result %q is empty", info.ID, e.Seq, r.CallID)
				}
			}
			for _, c := range m.Calls {
				open[c.ID]++
				calls++
			}
		}
		for id, n := range open {
			if n > 0 {
				t.Errorf("%s: call %q has no result", info.ID, id)
			}
		}
	}
	if calls != 7 || paired != 7 {
		t.Errorf("%d calls, %d paired; want 7 and 7 (4 and 2 of the CLI's, 1 crafted)", calls, paired)
	}
	t.Logf("tool calls: %d, paired with a result: %d", calls, paired)
}

// TestClineSDKExportBytes: every SDK session comes back from an export
// in its own format as the files it was read from, byte for byte (the
// messages file, the manifest, the compaction state), but the damaged
// one, whose messages file comes back as the messages read, valid JSON.
func TestClineSDKExportBytes(t *testing.T) {
	ctx := context.Background()
	n := 0
	for _, root := range []string{sdkHome, sdkCrafted} {
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
				if rel, _ := filepath.Rel(out, f); filepath.ToSlash(rel) != "sessions/"+info.ID+"/"+filepath.Base(f) {
					t.Errorf("%s: exported as %s", info.ID, rel)
				}
				names = append(names, filepath.Base(f))
				got, _ := os.ReadFile(f)
				want, err := os.ReadFile(filepath.Join(src, filepath.Base(f)))
				if err != nil {
					t.Errorf("%s: %s is no file of the session: %v", info.ID, filepath.Base(f), err)
					continue
				}
				if strings.HasSuffix(info.ID, "_cut") && strings.HasSuffix(f, cline.SDKMessagesSuffix) {
					var doc struct {
						Messages []json.RawMessage `json:"messages"`
					}
					if err := json.Unmarshal(got, &doc); err != nil || len(doc.Messages) != 2 || !bytes.HasPrefix(want, got[:len(got)-len("\n  ]\n}")]) {
						t.Errorf("%s: damaged file exported as %q (%v)", info.ID, got, err)
					}
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: export of %s differs from the file (%d bytes, want %d)", info.ID, filepath.Base(f), len(got), len(want))
				}
				n++
			}
			entries, _ := os.ReadDir(src)
			var want []string
			for _, e := range entries {
				want = append(want, e.Name())
			}
			sort.Strings(names)
			if d := cmp.Diff(want, names); d != "" {
				t.Errorf("%s: files exported (-session folder +export):\n%s", info.ID, d)
			}
		}
	}
	t.Logf("%d files exported byte for byte", n)
}

// TestClineSDKGrowth: the CLI rewrites a session's messages file whole
// (updated_at, before the messages, changes every time); a store that
// imported session B as the CLI left it before its resume and then as it
// left it after holds what one import of the final files gives, and the
// second import appended the resumed turn (it did not replace the
// session).
func TestClineSDKGrowth(t *testing.T) {
	since := time.Now()
	runs := readRuns(t)
	id := runs.B
	early := filepath.Join(testdata, "sdk", "growth", id)
	final := sessionDir(id)
	grown := jsonltest.OpenStore(t)
	once := jsonltest.OpenStore(t)
	dir := filepath.Join(t.TempDir(), ".cline", "data", "sessions", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var entries []int
	for _, from := range []string{early, final} {
		for _, name := range []string{id + cline.SDKMessagesSuffix, id + cline.SDKManifestSuffix} {
			data, err := os.ReadFile(filepath.Join(from, name))
			if err != nil {
				t.Fatal(err)
			}
			writeAtomic(t, filepath.Join(dir, name), data)
		}
		rep, err := jsonlimport.Import(ctx, grown, []string{dir}, jsonlimport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Problems {
			t.Errorf("problem: %s", p)
		}
		log, err := grown.Entries(ctx, id, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, len(log))
	}
	if !reflect.DeepEqual(entries, []int{9, 11}) {
		t.Errorf("entries after each import %v, want [9 11]", entries)
	}
	if _, err := jsonlimport.Import(ctx, once, []string{dir}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	g := jsonltest.GrowthSnapshot(t, grown, since)
	o := jsonltest.GrowthSnapshot(t, once, since)
	if d := cmp.Diff(o, g); d != "" {
		t.Errorf("the two states imported in turn differ from one import of the last (-once +grown):\n%s", d)
	}
}

// TestClineSDKCorpus: an import of the CLI's whole HOME (its sessions,
// the session database beside them) and of the crafted sessions fails
// on nothing: the database is skipped with a reason, the damaged and
// stale sessions are imported with their problems.
func TestClineSDKCorpus(t *testing.T) {
	_, rep := importTree(t, sdkHome, sdkCrafted)
	if rep.Sessions != 6 {
		t.Errorf("%d sessions, want 6", rep.Sessions)
	}
	skipped := false
	for _, n := range rep.Notes {
		if filepath.Base(n.Path) == "sessions.db" && strings.Contains(n.Reason, "Cline SDK") {
			skipped = true
		}
	}
	if !skipped {
		t.Errorf("sessions.db not skipped with a reason: %+v", rep.Notes)
	}
	// The problems are the damaged session's and the stale compaction's.
	if len(rep.Problems) != 2 || !strings.HasSuffix(rep.Problems[0].Path, "_cut.messages.json") || !strings.HasSuffix(rep.Problems[1].Path, "_stale.compaction.json") {
		t.Errorf("problems %v; want the cut and the stale compaction", rep.Problems)
	}
}

// TestClineSDKClaim: a session folder's messages file is the unit, its
// manifest and compaction state its side files; a *.messages.json of
// another shape is not taken, and neither is a lone manifest.
func TestClineSDKClaim(t *testing.T) {
	dir, _ := filepath.Abs(filepath.Join(sdkCrafted, "sessions", "1700000400000_cmpct"))
	id := filepath.Base(dir)
	files := []string{filepath.Join(dir, id+cline.SDKCompactionSuffix), filepath.Join(dir, id+cline.SDKManifestSuffix), filepath.Join(dir, id+cline.SDKMessagesSuffix)}
	units, rest := cline.Format{}.Claim(files)
	want := []jsonl.Unit{{Format: cline.Name, Path: files[2], Extra: []string{files[1], files[0]}}}
	if d := cmp.Diff(want, units); d != "" {
		t.Errorf("units (-want +got):\n%s", d)
	}
	if len(rest) != 0 {
		t.Errorf("rest %v", rest)
	}
	tmp := t.TempDir()
	other := filepath.Join(tmp, "x.messages.json")
	if err := os.WriteFile(other, []byte(`{"messages":[{"role":"user","content":"hi"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{other, files[1]} {
		if u, _ := (cline.Format{}).Claim([]string{f}); len(u) != 0 {
			t.Errorf("%s claimed: %+v", f, u)
		}
	}
	for _, f := range []string{files[1], "/home/u/.cline/data/logs/hooks.jsonl", "/home/u/.cline/data/db/sessions.db-wal"} {
		if r := (cline.Format{}).SkipReason(f); r == "" {
			t.Errorf("%s has no skip reason", f)
		}
	}
}

// TestClineSDKDamage: a messages file cut short imports the messages
// before the cut with a problem; a file that is not an object is an
// error; no panic.
func TestClineSDKDamage(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(sdkCrafted, "sessions", "1700000500000_cut")
	p, err := cline.Format{}.Parse(ctx, jsonl.Unit{Format: cline.Name, Path: filepath.Join(dir, "1700000500000_cut"+cline.SDKMessagesSuffix)}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 2 || !jsonltest.HasProblem(p.Problems, cline.SDKMessagesSuffix, 0, "invalid JSON in message 3") {
		t.Errorf("%d entries, problems %v; want 2 and the cut reported", len(p.Entries), p.Problems)
	}
	bad := filepath.Join(t.TempDir(), "s"+cline.SDKMessagesSuffix)
	_ = os.WriteFile(bad, []byte(`[{"role":"user"}]`), 0o644)
	if _, err := (cline.Format{}).Parse(ctx, jsonl.Unit{Format: cline.Name, Path: bad}, jsonl.Resume{}); err == nil {
		t.Errorf("an array parsed as an SDK session")
	}
}

// TestClineSDKCompactionHash: the CLI's compaction of session C is
// applied because its source_prefix_hash is the SDK's hash of the first
// messages (the reader computes it as the SDK does, the prompt without
// its envelope); once the first prompt is edited the hash no longer
// matches and, as in Cline, the state is not applied.
func TestClineSDKCompactionHash(t *testing.T) {
	runs := readRuns(t)
	ctx := context.Background()
	src := sessionDir(runs.C)
	dir := filepath.Join(t.TempDir(), "sessions", runs.C)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	msgs := filepath.Join(dir, runs.C+cline.SDKMessagesSuffix)
	unit := jsonl.Unit{Format: cline.Name, Path: msgs, Extra: []string{filepath.Join(dir, runs.C+cline.SDKCompactionSuffix)}}
	p, err := cline.Format{}.Parse(ctx, unit, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Compactions) != 1 || p.Compactions[0].KeepFromSeq != 5 || len(p.Compactions[0].Summary) != 4 || len(p.Problems) != 0 {
		t.Fatalf("compactions %+v, problems %v; want one keeping from 5 with 4 summary messages", p.Compactions, p.Problems)
	}
	data, _ := os.ReadFile(msgs)
	edited := bytes.Replace(data, []byte("Run the tools [[tools]]"), []byte("Run the tools, edited [[tools]]"), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("no prompt to edit")
	}
	writeAtomic(t, msgs, edited)
	p, err = cline.Format{}.Parse(ctx, unit, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Compactions) != 0 || !jsonltest.HasProblem(p.Problems, cline.SDKCompactionSuffix, 0, "source_prefix_hash") {
		t.Errorf("after an edit: compactions %+v, problems %v; want none and the mismatch reported", p.Compactions, p.Problems)
	}
}

// TestClineSDKGrowthByMessage: the CLI writes a session's messages file
// after every message; the CLI's sessions B and C, imported in
// turn as it stood after each of its messages (its own head and tail
// around the first k messages, laid out as JSON.stringify lays them out;
// the compaction state once the CLI had written it, after its source
// messages), holds what one import of the final files gives.
func TestClineSDKGrowthByMessage(t *testing.T) {
	since := time.Now()
	runs := readRuns(t)
	ctx := context.Background()
	// (A, a text and a resume, is left to TestClineSDKGrowth's kind: two
	// states; B and C keep the test under two seconds.)
	for _, id := range []string{runs.B, runs.C} {
		t.Run(id, func(t *testing.T) {
			src := sessionDir(id)
			data, err := os.ReadFile(filepath.Join(src, id+cline.SDKMessagesSuffix))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			open := bytes.Index(data, []byte(`"messages": [`)) + len(`"messages": `)
			end := bytes.Index(data, []byte("\n  ],\n  \"system_prompt\"")) + len("\n  ]")
			if open < len(`"messages": `) || end < open {
				t.Fatal("no messages array in the file")
			}
			head, tail := data[:open], data[end:]
			compaction, _ := os.ReadFile(filepath.Join(src, id+cline.SDKCompactionSuffix))
			var cs struct {
				N int `json:"source_message_count"`
			}
			_ = json.Unmarshal(compaction, &cs)
			manifest, err := os.ReadFile(filepath.Join(src, id+cline.SDKManifestSuffix))
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "sessions", id)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			writeAtomic(t, filepath.Join(dir, id+cline.SDKManifestSuffix), manifest)
			grown := jsonltest.OpenStore(t)
			once := jsonltest.OpenStore(t)
			var compacts []json.RawMessage
			for i := range doc.Messages {
				compacts = append(compacts, jsonCompact(t, doc.Messages[i]))
			}
			if got := cline.LayoutSDK(head, tail, "  ", compacts); !bytes.Equal(got, data) {
				t.Fatal("the file's layout is not JSON.stringify's")
			}
			for k := 1; k <= len(compacts); k++ {
				writeAtomic(t, filepath.Join(dir, id+cline.SDKMessagesSuffix), cline.LayoutSDK(head, tail, "  ", compacts[:k]))
				if compaction != nil && k >= cs.N {
					writeAtomic(t, filepath.Join(dir, id+cline.SDKCompactionSuffix), compaction)
				}
				rep, err := jsonlimport.Import(ctx, grown, []string{dir}, jsonlimport.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range rep.Problems {
					t.Errorf("after %d messages: %s", k, p)
				}
			}
			if _, err := jsonlimport.Import(ctx, once, []string{dir}, jsonlimport.Options{}); err != nil {
				t.Fatal(err)
			}
			g := jsonltest.GrowthSnapshot(t, grown, since)
			o := jsonltest.GrowthSnapshot(t, once, since)
			if d := cmp.Diff(o, g); d != "" {
				t.Errorf("%d states imported in turn differ from one import of the last (-once +grown):\n%s", len(compacts), d)
			}
		})
	}
}

func jsonCompact(t *testing.T, raw []byte) json.RawMessage {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
