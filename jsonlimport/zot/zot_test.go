package zot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/zot"
)

// zotTestdata is the copy of the zot samples (from samples/zot, zot-damaged
// and zot-compaction) the tests read.
const zotTestdata = "../../testdata"

// zotGolden is one samples/zot/expected/*.json file: what zot's own
// readers returned for a sample file.
type zotGolden struct {
	File               string            `json:"file"`
	OpenSessionMeta    zot.Meta          `json:"open_session_meta"`
	OpenSessionCount   int               `json:"open_session_message_count"`
	OpenSessionMessage []json.RawMessage `json:"open_session_messages"`
	SessionUsage       zot.Usage         `json:"session_usage"`
	Describe           *struct {
		Title        string `json:"Title"`
		MessageCount int    `json:"MessageCount"`
	} `json:"describe_sessions_entry"`
}

// zotGoldens returns every golden file with the sample it describes,
// relative to testdata/zot.
func zotGoldens(t *testing.T) map[string]zotGolden {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(zotTestdata, "zot", "expected", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(zotTestdata, "zot", "nonflow", "expected", "*.json"))
	files = append(files, more...)
	out := map[string]zotGolden{}
	for _, f := range files {
		if filepath.Base(f) == "session_trees.json" {
			continue
		}
		var g zotGolden
		zotReadJSON(t, f, &g)
		if g.File == "" {
			t.Fatalf("%s: no file field", f)
		}
		out[g.File] = g
	}
	if len(out) != 13 {
		t.Fatalf("found %d zot golden files, want 13", len(out))
	}
	return out
}

func zotReadJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// zotEffective computes the effective transcript from a whole-file Parsed:
// the summary of the latest compaction, then the entries from its
// KeepFromSeq on.
func zotEffective(p *jsonl.Parsed) []sessiondb.Entry {
	if len(p.Compactions) == 0 {
		return p.Entries
	}
	c := p.Compactions[len(p.Compactions)-1]
	out := append([]sessiondb.Entry{}, c.Summary...)
	return append(out, p.Entries[c.KeepFromSeq-1:]...)
}

// zotHydratedJSON decodes bodies with zot's loader rules and returns them as
// generic JSON values, the shape of the golden open_session_messages.
func zotHydratedJSON(t *testing.T, entries []sessiondb.Entry) []any {
	t.Helper()
	out := []any{}
	for i, e := range entries {
		m, _, err := zot.Hydrate(e.Body)
		if err != nil {
			t.Fatalf("entry %d: zot's loader cannot decode body %s: %v", i+1, e.Body, err)
		}
		out = append(out, zotJSONValue(t, m))
	}
	return out
}

func zotJSONValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func zotRawJSON(t *testing.T, raws []json.RawMessage) []any {
	t.Helper()
	out := []any{}
	for _, r := range raws {
		var v any
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func zotParse(t *testing.T, path string) *jsonl.Parsed {
	t.Helper()
	p, err := zot.Format{}.Parse(context.Background(), jsonl.Unit{Format: zot.Name, Path: path}, jsonl.Resume{})
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return p
}

func zotTotals(us []sessiondb.Usage) sessiondb.UsageTotals {
	var t sessiondb.UsageTotals
	for _, u := range us {
		t.Add(u)
	}
	return t
}

func zotUsageOf(t sessiondb.UsageTotals) zot.Usage {
	return zot.Usage{t.InputTokens, t.OutputTokens, t.CacheReadTokens, t.CacheWriteTokens, t.Cost}
}

func zotRoles(entries []sessiondb.Entry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.Role)
	}
	return out
}

// zotCheckMeta compares the session metadata with zot's OpenSession meta.
func zotCheckMeta(t *testing.T, s sessiondb.Session, m zot.Meta) {
	t.Helper()
	if s.ID != m.ID {
		t.Errorf("ID = %q, want %q", s.ID, m.ID)
	}
	if !s.CreatedAt.Equal(m.Started) {
		t.Errorf("CreatedAt = %v, want %v", s.CreatedAt, m.Started)
	}
	if s.ParentID != m.Parent || s.ForkSeq != int64(m.ForkPoint) {
		t.Errorf("parent = %q/%d, want %q/%d", s.ParentID, s.ForkSeq, m.Parent, m.ForkPoint)
	}
	var attrs map[string]string
	if err := json.Unmarshal(s.Attrs, &attrs); err != nil {
		t.Fatalf("attrs %s: %v", s.Attrs, err)
	}
	want := map[string]string{"cwd": m.CWD, "model": m.Model, "provider": m.Provider, "version": m.Version}
	if d := cmp.Diff(want, attrs); d != "" {
		t.Errorf("attrs (-want +got):\n%s", d)
	}
}

// TestZotGolden parses every sample of samples/zot and compares the result
// with what zot's own readers returned for it.
func TestZotGolden(t *testing.T) {
	goldens := zotGoldens(t)
	names := make([]string, 0, len(goldens))
	for f := range goldens {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, name := range names {
		g := goldens[name]
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(zotTestdata, "zot", filepath.FromSlash(g.File))
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p := zotParse(t, path)
			if len(p.Problems) != 0 {
				t.Errorf("problems in a clean sample: %v", p.Problems)
			}
			if p.Offset != int64(len(raw)) {
				t.Errorf("Offset = %d, want %d", p.Offset, len(raw))
			}
			eff := zotEffective(p)
			if len(eff) != g.OpenSessionCount {
				t.Errorf("%d messages, zot loads %d", len(eff), g.OpenSessionCount)
			}
			if d := cmp.Diff(zotRawJSON(t, g.OpenSessionMessage), zotHydratedJSON(t, eff)); d != "" {
				t.Errorf("transcript differs from zot's OpenSession (-zot +ours):\n%s", d)
			}
			for i, e := range p.Entries {
				if e.Kind != sessiondb.KindMessage || e.Summary {
					t.Errorf("entry %d: kind %q summary %v", i+1, e.Kind, e.Summary)
				}
				// Bodies are the original bytes: each is the message object
				// of a row, byte for byte.
				if !bytes.Contains(raw, append(append([]byte(`{"type":"message","message":`), e.Body...), '}')) {
					t.Errorf("entry %d: body is not the original bytes of a message row: %.200s", i+1, e.Body)
				}
				var m struct {
					Time time.Time `json:"time"`
				}
				if err := json.Unmarshal(e.Body, &m); err != nil {
					t.Fatal(err)
				}
				if !m.Time.IsZero() && !e.CreatedAt.Equal(m.Time) {
					t.Errorf("entry %d: CreatedAt %v, body time %v", i+1, e.CreatedAt, m.Time)
				}
			}
			zotCheckMeta(t, p.Session, g.OpenSessionMeta)
			wantTitle := ""
			if g.Describe != nil {
				wantTitle = g.Describe.Title
			}
			if p.Session.Title != wantTitle {
				t.Errorf("Title = %q, want %q", p.Session.Title, wantTitle)
			}
			if got := zotUsageOf(zotTotals(p.Usage)); got != g.SessionUsage {
				t.Errorf("usage total = %+v, zot's SessionUsage = %+v", got, g.SessionUsage)
			}
			for _, u := range p.Usage {
				if u.Model == "" || u.Provider == "" {
					t.Errorf("usage row without model/provider: %+v", u)
				}
			}
		})
	}
}

// TestZotGoldenDetails checks per-sample facts the goldens encode
// indirectly: the model switch, usage rows per call, the fork, images.
func TestZotGoldenDetails(t *testing.T) {
	home := filepath.Join(zotTestdata, "zot", "zot_home", "sessions")
	t.Run("model switch: last meta wins, usage rows carry the model of their time", func(t *testing.T) {
		p := zotParse(t, filepath.Join(home, "2c068d6ed2891129", "20261129-124252-2c632ee8.jsonl"))
		models := map[string]bool{}
		for _, u := range p.Usage {
			models[u.Provider+"/"+u.Model] = true
		}
		for _, m := range []string{"openai/gpt-5", "openai/gpt-5-mini", "anthropic/claude-haiku-4-5"} {
			if !models[m] {
				t.Errorf("no usage row for %s: %v", m, models)
			}
		}
		if !strings.Contains(string(p.Session.Attrs), `"model":"claude-haiku-4-5"`) {
			t.Errorf("attrs %s", p.Session.Attrs)
		}
	})
	t.Run("repeated cumulative rows add nothing", func(t *testing.T) {
		// 01 plain chat: 7 usage rows, 3 provider calls.
		p := zotParse(t, filepath.Join(home, "819dbc88958c1ad1", "20261129-124252-703ef165.jsonl"))
		if len(p.Usage) != 3 {
			t.Errorf("%d usage rows, want 3 (one per provider call)", len(p.Usage))
		}
		// Each call's row points at the assistant message it produced.
		for i, u := range p.Usage {
			if u.Seq != int64(2*i+2) || p.Entries[u.Seq-1].Role != "assistant" {
				t.Errorf("usage row %d: Seq %d", i+1, u.Seq)
			}
		}
		for _, u := range p.Usage {
			if u.InputTokens <= 0 || u.Cost <= 0 || u.CreatedAt.IsZero() {
				t.Errorf("usage row %+v", u)
			}
		}
	})
	t.Run("fork child", func(t *testing.T) {
		p := zotParse(t, filepath.Join(home, "70490179fb06dad3", "20261129-124252-f92eb600.jsonl"))
		parent := zotParse(t, filepath.Join(home, "70490179fb06dad3", "20261129-124252-d6f02b12.jsonl"))
		if p.Session.ParentID != parent.Session.ID || p.Session.ForkSeq != 3 {
			t.Fatalf("parent %q fork %d", p.Session.ParentID, p.Session.ForkSeq)
		}
		for i := 0; i < 3; i++ {
			if !bytes.Equal(p.Entries[i].Body, parent.Entries[i].Body) {
				t.Errorf("entry %d differs from the parent's", i+1)
			}
		}
	})
	t.Run("export keeps the id, blanks the cwd", func(t *testing.T) {
		p := zotParse(t, filepath.Join(zotTestdata, "zot", "exports", "20261129-124252-c60f7bd8.zotsession"))
		src := zotParse(t, filepath.Join(home, "70490179fb06dad3", "20261129-124252-c60f7bd8.jsonl"))
		if p.Session.ID != src.Session.ID || !strings.Contains(string(p.Session.Attrs), `"cwd":""`) {
			t.Errorf("session %+v", p.Session)
		}
		if len(p.Entries) != len(src.Entries) {
			t.Fatalf("%d entries, source %d", len(p.Entries), len(src.Entries))
		}
		for i := range p.Entries {
			if !bytes.Equal(p.Entries[i].Body, src.Entries[i].Body) {
				t.Errorf("entry %d differs", i+1)
			}
		}
	})
}

// TestZotCompaction checks the file with compaction rows against the
// effective transcript zot's newer loader returns for it.
func TestZotCompaction(t *testing.T) {
	dir := filepath.Join(zotTestdata, "zot-compaction")
	var g struct {
		ID          string            `json:"id"`
		File        string            `json:"file"`
		Effective   []json.RawMessage `json:"effective_transcript"`
		AuditRows   int               `json:"audit_message_rows"`
		Compactions int               `json:"compactions"`
	}
	zotReadJSON(t, filepath.Join(dir, "expected", "20260510-080000-5b0c7a1e.json"), &g)
	p := zotParse(t, filepath.Join(dir, filepath.FromSlash(g.File)))
	if len(p.Problems) != 0 {
		t.Errorf("problems: %v", p.Problems)
	}
	if p.Session.ID != g.ID {
		t.Errorf("ID %q, want %q", p.Session.ID, g.ID)
	}
	if len(p.Entries) != g.AuditRows {
		t.Errorf("%d entries, want %d message rows", len(p.Entries), g.AuditRows)
	}
	if len(p.Compactions) != g.Compactions {
		t.Fatalf("%d compactions, want %d", len(p.Compactions), g.Compactions)
	}
	// Rows: 8 messages, compaction (3 messages), 2 messages, compaction
	// (2 messages), 2 messages.
	for i, want := range []struct{ at, keep, summary int }{{8, 9, 3}, {10, 11, 2}} {
		c := p.Compactions[i]
		if c.AtSeq != int64(want.at) || c.KeepFromSeq != int64(want.keep) || len(c.Summary) != want.summary {
			t.Errorf("compaction %d: at %d keep %d summary %d, want %+v", i+1, c.AtSeq, c.KeepFromSeq, len(c.Summary), want)
		}
		for _, e := range c.Summary {
			if !e.Summary || e.Kind != sessiondb.KindMessage || e.CreatedAt.IsZero() {
				t.Errorf("summary entry %+v", e)
			}
		}
	}
	if p.Compactions[1].TokensBefore != 64 {
		t.Errorf("TokensBefore = %d, want 64", p.Compactions[1].TokensBefore)
	}
	eff := zotEffective(p)
	var got []json.RawMessage
	for _, e := range eff {
		got = append(got, e.Body)
	}
	if d := cmp.Diff(zotRawJSON(t, g.Effective), zotRawJSON(t, got)); d != "" {
		t.Errorf("effective transcript (-want +got):\n%s", d)
	}
	// The summary bodies are the exact bytes inside the compaction row.
	raw, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(g.File)))
	for _, e := range eff {
		if !bytes.Contains(raw, e.Body) {
			t.Errorf("body not in the file: %s", e.Body)
		}
	}
}

// zotDamagedResult is one entry of samples/zot-damaged/results.json.
type zotDamagedResult struct {
	Case         string         `json:"case"`
	File         string         `json:"file"`
	MetaID       string         `json:"open_session_meta_id"`
	Count        int            `json:"open_session_message_count"`
	Roles        []string       `json:"open_session_roles"`
	Stubs        int            `json:"repair_stub_tool_results"`
	BlockKinds   map[string]int `json:"open_session_block_kinds"`
	UsageCost    float64        `json:"session_usage_cost_usd"`
	DescribeName string         `json:"describe_title"`
}

func zotBlockKinds(t *testing.T, entries []sessiondb.Entry) map[string]int {
	out := map[string]int{}
	for _, e := range entries {
		m, _, err := zot.Hydrate(e.Body)
		if err != nil {
			continue
		}
		for _, b := range m.Content {
			out[b.Kind]++
		}
	}
	return out
}

func zotHasProblem(ps []jsonl.Problem, line int, substr string) bool {
	for _, p := range ps {
		if (line < 0 || p.Line == line) && strings.Contains(p.Reason, substr) {
			return true
		}
	}
	return false
}

// TestZotDamaged runs every damaged sample and compares with what zot's
// loader returned for it (results.json): the same transcript, or strictly
// more where the data is recoverable, plus the right problems.
func TestZotDamaged(t *testing.T) {
	dir := filepath.Join(zotTestdata, "zot-damaged")
	var results []zotDamagedResult
	zotReadJSON(t, filepath.Join(dir, "results.json"), &results)
	if len(results) != 14 {
		t.Fatalf("%d results, want 14", len(results))
	}
	base := zotParse(t, filepath.Join(dir, "00-base-valid.jsonl"))
	baseRoles := zotRoles(base.Entries)

	type want struct {
		roles    []string // nil: zot's roles exactly
		problems []struct {
			line   int
			substr string
		}
		torn bool // the last line is torn: Offset stops before it
	}
	pr := func(line int, s string) struct {
		line   int
		substr string
	} {
		return struct {
			line   int
			substr string
		}{line, s}
	}
	cases := map[string]want{
		"00-base-valid":     {},
		"01-torn-last-line": {problems: nil, torn: true},
		// The user prompt glued onto the torn fragment is recovered: zot
		// loses it (10 messages instead of 11), we keep it.
		"01b-torn-last-line-then-zot-c": {roles: append(append([]string{}, baseRoles[:9]...), "user", "assistant"),
			problems: []struct {
				line   int
				substr string
			}{pr(18, "invalid JSON: torn row with 1 complete row(s) glued")}},
		"02-corrupt-middle-line": {problems: []struct {
			line   int
			substr string
		}{pr(5, "invalid JSON"), pr(4, "stub tool message was added")}},
		"03-nul-filled-middle-line": {problems: []struct {
			line   int
			substr string
		}{pr(9, "NUL padding")}},
		"04-corrupt-meta-line": {problems: []struct {
			line   int
			substr string
		}{pr(1, "invalid JSON"), pr(0, "taken from the file name")}},
		"06-crlf": {},
		// The message whose only defect is its time is kept: zot drops it
		// and leaves an orphan tool result.
		"07-bad-time-field": {roles: baseRoles, problems: []struct {
			line   int
			substr string
		}{pr(4, "bad time \"yesterday\"")}},
		"08-bad-base64-image": {problems: []struct {
			line   int
			substr string
		}{pr(2, "1 content block(s) unreadable")}},
		"09-unknown-type-and-fields": {problems: []struct {
			line   int
			substr string
		}{pr(-1, "blank line"), pr(-1, `unknown row type "checkpoint"`)}},
		"10-crash-orphan-tool-use": {problems: []struct {
			line   int
			substr string
		}{pr(-1, "stub tool message was added")}},
		"11-rename-lost-live-writer": {},
		"12-rename-fragment-live-writer": {problems: []struct {
			line   int
			substr string
		}{pr(-1, "invalid JSON")}},
	}
	for _, r := range results {
		t.Run(r.Case, func(t *testing.T) {
			path := filepath.Join(dir, r.File)
			if r.Case == "05-empty-file" {
				// zot returns no meta and no messages; there is no session
				// to import, so Parse refuses the unit.
				_, err := zot.Format{}.Parse(context.Background(), jsonl.Unit{Format: zot.Name, Path: path}, jsonl.Resume{})
				if !errors.Is(err, sessiondb.ErrInvalid) || !strings.Contains(err.Error(), "empty file") {
					t.Fatalf("err = %v, want ErrInvalid: empty file", err)
				}
				return
			}
			w, ok := cases[r.Case]
			if !ok {
				t.Fatalf("no expectation for case %s", r.Case)
			}
			p := zotParse(t, path)
			eff := zotEffective(p)
			roles := zotRoles(eff)
			if w.roles == nil {
				if d := cmp.Diff(r.Roles, roles); d != "" {
					t.Errorf("roles differ from zot's (-zot +ours):\n%s", d)
				}
				if d := cmp.Diff(r.BlockKinds, zotBlockKinds(t, eff)); d != "" {
					t.Errorf("block kinds differ from zot's (-zot +ours):\n%s", d)
				}
			} else {
				if d := cmp.Diff(w.roles, roles); d != "" {
					t.Errorf("roles (-want +ours):\n%s", d)
				}
				if !zotIsSubsequence(r.Roles, roles) || len(roles) <= len(r.Roles) {
					t.Errorf("ours %v is not strictly more than zot's %v", roles, r.Roles)
				}
			}
			stubs := 0
			for _, e := range eff {
				if bytes.Contains(e.Body, []byte(zot.StubText)) {
					stubs++
				}
			}
			if stubs != r.Stubs {
				t.Errorf("%d stub results, zot adds %d", stubs, r.Stubs)
			}
			wantID := r.MetaID
			if wantID == "" {
				wantID = strings.TrimSuffix(r.File, ".jsonl")
			}
			if p.Session.ID != wantID {
				t.Errorf("ID %q, want %q", p.Session.ID, wantID)
			}
			if p.Session.Title != r.DescribeName {
				t.Errorf("Title %q, want %q", p.Session.Title, r.DescribeName)
			}
			if got := zotTotals(p.Usage).Cost; got != r.UsageCost {
				t.Errorf("usage cost %v, zot %v", got, r.UsageCost)
			}
			for _, want := range w.problems {
				// zot's own load-time repair is a note, not a problem.
				list, what := p.Problems, "problem"
				if strings.Contains(want.substr, "stub") {
					list, what = p.Notes, "note"
				}
				if !zotHasProblem(list, want.line, want.substr) {
					t.Errorf("no %s %q at line %d in %v", what, want.substr, want.line, list)
				}
			}
			if len(w.problems) == 0 && !w.torn && len(p.Problems) != 0 {
				t.Errorf("unexpected problems: %v", p.Problems)
			}
			for _, pb := range p.Problems {
				if pb.Path != path {
					t.Errorf("problem path %q", pb.Path)
				}
			}
			st, _ := os.Stat(path)
			raw, _ := os.ReadFile(path)
			if w.torn {
				last := bytes.LastIndexByte(raw, '\n') + 1
				if p.Offset != int64(last) {
					t.Errorf("Offset %d, want %d (before the torn line)", p.Offset, last)
				}
				n := bytes.Count(raw, []byte("\n")) + 1
				if !zotHasProblem(p.Problems, n, "torn last line") || len(p.Problems) != 1 {
					t.Errorf("problems %v, want one torn last line at %d", p.Problems, n)
				}
			} else if p.Offset != st.Size() {
				t.Errorf("Offset %d, want %d", p.Offset, st.Size())
			}
		})
	}
}

func zotIsSubsequence(sub, of []string) bool {
	i := 0
	for _, s := range of {
		if i < len(sub) && sub[i] == s {
			i++
		}
	}
	return i == len(sub)
}

// TestZotDamagedDetails checks the bodies of the damaged samples in detail.
func TestZotDamagedDetails(t *testing.T) {
	dir := filepath.Join(zotTestdata, "zot-damaged")
	base := zotParse(t, filepath.Join(dir, "00-base-valid.jsonl"))
	t.Run("crlf bodies equal the base's", func(t *testing.T) {
		p := zotParse(t, filepath.Join(dir, "06-crlf.jsonl"))
		if len(p.Entries) != len(base.Entries) {
			t.Fatalf("%d entries", len(p.Entries))
		}
		for i := range p.Entries {
			if !bytes.Equal(p.Entries[i].Body, base.Entries[i].Body) {
				t.Errorf("entry %d: %s", i+1, p.Entries[i].Body)
			}
		}
		if zotTotals(p.Usage) != zotTotals(base.Usage) {
			t.Errorf("usage differs")
		}
	})
	t.Run("stub for the lost tool row", func(t *testing.T) {
		p := zotParse(t, filepath.Join(dir, "02-corrupt-middle-line.jsonl"))
		stub := p.Entries[2]
		m, _, err := zot.Hydrate(stub.Body)
		if err != nil || m.Role != "tool" || len(m.Content) != 1 {
			t.Fatalf("stub %s: %v", stub.Body, err)
		}
		tr := m.Content[0].Value.(zot.ToolResultBlock)
		call := zotToolCalls(t, p.Entries[1])[0]
		if tr.CallID != call || !tr.IsError || tr.Content[0].Value.(zot.TextBlock).Text != zot.StubText {
			t.Errorf("stub %+v for call %s", tr, call)
		}
		if !stub.CreatedAt.Equal(p.Entries[1].CreatedAt) {
			t.Errorf("stub time %v, assistant %v", stub.CreatedAt, p.Entries[1].CreatedAt)
		}
	})
	t.Run("glued row is recovered byte for byte", func(t *testing.T) {
		p := zotParse(t, filepath.Join(dir, "01b-torn-last-line-then-zot-c.jsonl"))
		raw, _ := os.ReadFile(filepath.Join(dir, "01b-torn-last-line-then-zot-c.jsonl"))
		for i, e := range p.Entries {
			if !bytes.Contains(raw, e.Body) {
				t.Errorf("entry %d not in the file", i+1)
			}
		}
		m, _, _ := zot.Hydrate(p.Entries[9].Body)
		if m.Role != "user" {
			t.Errorf("recovered entry %s", p.Entries[9].Body)
		}
	})
	t.Run("bad time keeps a usable CreatedAt", func(t *testing.T) {
		p := zotParse(t, filepath.Join(dir, "07-bad-time-field.jsonl"))
		if !p.Entries[1].CreatedAt.Equal(p.Entries[0].CreatedAt) {
			t.Errorf("CreatedAt %v, want the previous message's %v", p.Entries[1].CreatedAt, p.Entries[0].CreatedAt)
		}
		if !bytes.Contains(p.Entries[1].Body, []byte(`"time":"yesterday"`)) {
			t.Errorf("body changed: %s", p.Entries[1].Body)
		}
	})
}

func zotToolCalls(t *testing.T, e sessiondb.Entry) []string {
	t.Helper()
	m, _, err := zot.Hydrate(e.Body)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range m.Content {
		if tc, ok := b.Value.(zot.ToolCallBlock); ok {
			ids = append(ids, tc.ID)
		}
	}
	return ids
}

// zotWrite writes a zot file from rows (each gets a '\n').
func zotWrite(t *testing.T, path string, rows ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

const zotTestMeta = `{"type":"meta","meta":{"id":"11111111-2222-4333-8444-555555555555","cwd":"/w","model":"m1","provider":"p1","started":"2026-01-02T03:04:05Z","version":"v"}}`

func TestZotRepairMerge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	asst := `{"role":"assistant","content":[{"text":"two calls"},{"id":"t1","name":"read","arguments":{"p":"a"}},{"id":"t2","name":"read","arguments":{}}],"time":"2026-01-02T03:04:06Z"}`
	tool := `{"role":"tool","content":[ {"call_id":"t1","content":[{"text":"ok"}],"is_error":false} ],"time":"2026-01-02T03:04:07Z"}`
	zotWrite(t, path, zotTestMeta,
		`{"type":"message","message":{"role":"user","content":[{"text":"go"}],"time":"2026-01-02T03:04:05Z"}}`,
		`{"type":"message","message":`+asst+`}`,
		`{"type":"message","message":`+tool+`}`,
	)
	p := zotParse(t, path)
	if len(p.Entries) != 3 {
		t.Fatalf("%d entries", len(p.Entries))
	}
	got := p.Entries[2].Body
	want := `{"role":"tool","content":[ {"call_id":"t1","content":[{"text":"ok"}],"is_error":false},{"call_id":"t2","content":[{"text":"` + zot.StubText + `"}],"is_error":true} ],"time":"2026-01-02T03:04:07Z"}`
	if string(got) != want {
		t.Errorf("merged body\n got %s\nwant %s", got, want)
	}
	if !zotHasProblem(p.Notes, 3, "t2 without result: stub result(s) merged") {
		t.Errorf("notes %v", p.Notes)
	}
	if len(p.Problems) != 0 {
		t.Errorf("problems %v, want none: the stub is what zot's loader adds", p.Problems)
	}
}

func TestZotLineDefects(t *testing.T) {
	dir := t.TempDir()
	msg := func(text string) string {
		return `{"type":"message","message":{"role":"user","content":[{"text":"` + text + `"}],"time":"2026-01-02T03:04:05Z"}}`
	}
	t.Run("invalid UTF-8 becomes U+FFFD", func(t *testing.T) {
		path := filepath.Join(dir, "utf8.jsonl")
		zotWrite(t, path, zotTestMeta, msg("bad \xff\xfe end"))
		p := zotParse(t, path)
		if len(p.Entries) != 1 || !strings.Contains(string(p.Entries[0].Body), "bad \uFFFD\uFFFD end") {
			t.Fatalf("entries %v", p.Entries)
		}
		if !zotHasProblem(p.Problems, 2, "invalid UTF-8") {
			t.Errorf("problems %v", p.Problems)
		}
	})
	t.Run("NUL padding before a row", func(t *testing.T) {
		path := filepath.Join(dir, "nul.jsonl")
		zotWrite(t, path, zotTestMeta, "\x00\x00\x00\x00"+msg("after nul"), "\x00\x00\x00", msg("next"))
		p := zotParse(t, path)
		if len(p.Entries) != 2 || !zotHasProblem(p.Problems, 2, "NUL padding: 1 row(s) recovered") || !zotHasProblem(p.Problems, 3, "NUL padding: line of 3 bytes") {
			t.Errorf("entries %d problems %v", len(p.Entries), p.Problems)
		}
	})
	t.Run("unterminated last row is read and consumed", func(t *testing.T) {
		path := filepath.Join(dir, "noeol.jsonl")
		content := zotTestMeta + "\n" + msg("one")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		p := zotParse(t, path)
		if len(p.Entries) != 1 || p.Offset != int64(len(content)) || len(p.Problems) != 0 {
			t.Errorf("entries %d offset %d problems %v", len(p.Entries), p.Offset, p.Problems)
		}
		// The writer then adds the newline and another row.
		if err := os.WriteFile(path, []byte(content+"\n"+msg("two")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		q, err := zot.Format{}.Parse(context.Background(), jsonl.Unit{Format: zot.Name, Path: path}, jsonl.Resume{Offset: p.Offset, Entries: 1, State: p.ResumeState})
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Entries) != 1 || !strings.Contains(string(q.Entries[0].Body), "two") || len(q.Problems) != 0 {
			t.Errorf("resume: entries %v problems %v", q.Entries, q.Problems)
		}
	})
	t.Run("oversized line", func(t *testing.T) {
		path := filepath.Join(dir, "big.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(zotTestMeta + "\n" + `{"type":"message","message":{"role":"user","content":[{"text":"`)
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for i := 0; i < 64; i++ {
			f.Write(chunk)
		}
		f.WriteString(`"}],"time":"2026-01-02T03:04:05Z"}}` + "\n" + msg("after") + "\n")
		f.Close()
		p := zotParse(t, path)
		if len(p.Entries) != 1 || !zotHasProblem(p.Problems, 2, "oversized line") {
			t.Errorf("entries %d problems %v", len(p.Entries), p.Problems)
		}
	})
	t.Run("rows zot skips", func(t *testing.T) {
		path := filepath.Join(dir, "skips.jsonl")
		zotWrite(t, path, zotTestMeta,
			`{"type":"message","message":{"role":"user","content":[],"time":"2026-01-02T03:04:05Z"}}`,
			`{"type":"message","message":{"role":"user","content":"a string","time":"2026-01-02T03:04:05Z"}}`,
			`{"type":"message"}`,
			`{"type":"meta","meta":{"id":"x","started":"not a time"}}`,
			`[1,2]`,
			`{"no":"type"}`,
			msg("kept"),
		)
		p := zotParse(t, path)
		if len(p.Entries) != 1 || p.Session.ID != "11111111-2222-4333-8444-555555555555" {
			t.Errorf("entries %d id %q", len(p.Entries), p.Session.ID)
		}
		for line, s := range map[int]string{2: "without readable content", 3: "unreadable message", 4: "without message object", 5: "bad time in meta row", 6: "not a zot row", 7: "row without type"} {
			if !zotHasProblem(p.Problems, line, s) {
				t.Errorf("line %d: no problem %q in %v", line, s, p.Problems)
			}
		}
	})
	t.Run("summary-only reasoning hydrates as an empty text block", func(t *testing.T) {
		m, _, err := zot.Hydrate([]byte(`{"role":"assistant","content":[{"summary":"s"},{"reasoning_id":"r","summary":"s"},{"id":"c","name":"n"},{"call_id":"c","content":[{"mime_type":"image/png","data":"!!"}]},"str",null],"time":"2026-01-02T03:04:05Z"}`))
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, b := range m.Content {
			kinds = append(kinds, b.Kind)
		}
		want := []string{"TextBlock", "ReasoningBlock", "ToolCallBlock", "ToolResultBlock", "TextBlock"}
		if d := cmp.Diff(want, kinds); d != "" {
			t.Errorf("kinds (-want +got):\n%s", d)
		}
		if img := m.Content[3].Value.(zot.ToolResultBlock).Content[0].Value.(zot.ImageBlock); img.MimeType != "image/png" || img.Data != nil {
			t.Errorf("inner image %+v", img)
		}
	})
}

// TestZotResume parses every sample in two parts, cut at every line
// boundary, and checks that the parts add up to a whole-file parse.
func TestZotResume(t *testing.T) {
	var files []string
	for _, sub := range []string{"zot", "zot-damaged", "zot-compaction"} {
		filepath.WalkDir(filepath.Join(zotTestdata, sub), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, zot.Ext)) &&
				!strings.Contains(path, "05-empty") {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) < 25 {
		t.Fatalf("only %d sample files", len(files))
	}
	ctx := context.Background()
	for _, src := range files {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		whole := zotParse(t, src)
		path := filepath.Join(t.TempDir(), filepath.Base(src))
		var bounds, cuts []int
		for i, c := range raw {
			if c == '\n' {
				bounds = append(bounds, i+1)
			}
		}
		step := len(bounds)/12 + 1 // at most about a dozen line boundaries per file
		for i := 0; i < len(bounds); i += step {
			cuts = append(cuts, bounds[i])
		}
		// Also cut inside lines: a torn tail must be left for later.
		cuts = append(cuts, len(raw)/3, len(raw)/2+7)
		for _, cut := range cuts {
			if err := os.WriteFile(path, raw[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			first, err := zot.Format{}.Parse(ctx, jsonl.Unit{Format: zot.Name, Path: path}, jsonl.Resume{})
			if err != nil {
				continue // nothing readable yet (a torn meta line)
			}
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			second, err := zot.Format{}.Parse(ctx, jsonl.Unit{Format: zot.Name, Path: path}, jsonl.Resume{Offset: first.Offset, Entries: len(first.Entries), State: first.ResumeState})
			if errors.Is(err, jsonl.ErrNotIncremental) {
				continue // checked in TestZotNotIncremental
			}
			if err != nil {
				t.Fatalf("%s cut %d: %v", src, cut, err)
			}
			name := filepath.Base(src)
			entries := append(append([]sessiondb.Entry{}, first.Entries...), second.Entries...)
			if len(entries) != len(whole.Entries) {
				t.Fatalf("%s cut %d: %d+%d entries, whole file %d", name, cut, len(first.Entries), len(second.Entries), len(whole.Entries))
			}
			for i := range entries {
				if !bytes.Equal(entries[i].Body, whole.Entries[i].Body) || !entries[i].CreatedAt.Equal(whole.Entries[i].CreatedAt) {
					t.Fatalf("%s cut %d: entry %d differs:\n%s\n%s", name, cut, i+1, entries[i].Body, whole.Entries[i].Body)
				}
			}
			comps := append(append([]sessiondb.Compaction{}, first.Compactions...), second.Compactions...)
			if len(comps) != len(whole.Compactions) {
				t.Fatalf("%s cut %d: %d compactions, whole %d", name, cut, len(comps), len(whole.Compactions))
			}
			for i := range comps {
				if comps[i].KeepFromSeq != whole.Compactions[i].KeepFromSeq || len(comps[i].Summary) != len(whole.Compactions[i].Summary) {
					t.Fatalf("%s cut %d: compaction %d differs", name, cut, i+1)
				}
			}
			if zotTotals(append(append([]sessiondb.Usage{}, first.Usage...), second.Usage...)) != zotTotals(whole.Usage) {
				t.Fatalf("%s cut %d: usage totals differ", name, cut)
			}
			if second.Offset != whole.Offset {
				t.Fatalf("%s cut %d: offset %d, whole %d", name, cut, second.Offset, whole.Offset)
			}
			s1, s2 := second.Session, whole.Session
			if s1.ID != s2.ID || s1.Title != s2.Title || string(s1.Attrs) != string(s2.Attrs) || !s1.CreatedAt.Equal(s2.CreatedAt) || s1.ParentID != s2.ParentID {
				t.Fatalf("%s cut %d: session %+v, whole %+v", name, cut, s1, s2)
			}
			// Problems carry whole-file line numbers.
			for _, p := range second.Problems {
				if p.Line > 0 && !zotHasProblem(whole.Problems, p.Line, p.Reason) {
					t.Fatalf("%s cut %d: problem %v not in the whole-file parse %v", name, cut, p, whole.Problems)
				}
			}
		}
	}
}

// TestZotNotIncremental: a stub was imported for an unanswered tool call and
// the real result arrived since; the file must be re-read whole.
// TestZotNotIncremental: a file that ends with a tool call without result
// keeps the stub zot's loader adds out of the log (the result may still
// come): the transcript ends with it through a view compaction, and any
// message that arrives later makes the reader ask for a whole read.
func TestZotNotIncremental(t *testing.T) {
	src := filepath.Join(zotTestdata, "zot-damaged", "10-crash-orphan-tool-use.jsonl")
	raw, _ := os.ReadFile(src)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, raw, 0o644)
	first := zotParse(t, path)
	if n := len(first.Entries); n != 2 || first.Entries[1].Role != "assistant" {
		t.Fatalf("entries %d", n)
	}
	if n := len(first.Compactions); n != 1 {
		t.Fatalf("%d compactions, want the view", n)
	}
	view := first.Compactions[0]
	if view.KeepFromSeq != 3 || len(view.Summary) != 3 || !bytes.Contains(view.Summary[2].Body, []byte(zot.StubText)) {
		t.Fatalf("view keeps from %d, %d messages", view.KeepFromSeq, len(view.Summary))
	}
	call := zotToolCalls(t, first.Entries[1])[0]
	resume := jsonl.Resume{Offset: first.Offset, Entries: len(first.Entries), State: first.ResumeState}

	// A user row after the crash: zot inserts the stub before it, which
	// the resumed read cannot place.
	user := `{"type":"message","message":{"role":"user","content":[{"text":"again"}],"time":"2026-11-29T13:00:00Z"}}`
	os.WriteFile(path, append(append([]byte{}, raw...), user+"\n"...), 0o644)
	if _, err := (zot.Format{}).Parse(context.Background(), jsonl.Unit{Format: zot.Name, Path: path}, resume); !errors.Is(err, jsonl.ErrNotIncremental) {
		t.Fatalf("err = %v, want ErrNotIncremental", err)
	}
	whole := zotParse(t, path)
	if len(whole.Entries) != 4 || !bytes.Contains(whole.Entries[2].Body, []byte(zot.StubText)) || whole.Entries[3].Role != "user" {
		t.Fatalf("whole file after a user row: %v", whole.Entries)
	}

	// The real tool result: no stub at all.
	tool := `{"type":"message","message":{"role":"tool","content":[{"call_id":"` + call + `","content":[{"text":"ok"}],"is_error":false}],"time":"2026-11-29T13:00:00Z"}}`
	os.WriteFile(path, append(append([]byte{}, raw...), tool+"\n"...), 0o644)
	if _, err := (zot.Format{}).Parse(context.Background(), jsonl.Unit{Format: zot.Name, Path: path}, resume); !errors.Is(err, jsonl.ErrNotIncremental) {
		t.Fatalf("err = %v, want ErrNotIncremental", err)
	}
	whole = zotParse(t, path)
	if len(whole.Entries) != 3 || bytes.Contains(whole.Entries[2].Body, []byte(zot.StubText)) || len(whole.Compactions) != 0 {
		t.Errorf("whole file: %v", whole.Entries)
	}
	// Without resume state an offset cannot be continued either.
	if _, err := (zot.Format{}).Parse(context.Background(), jsonl.Unit{Format: zot.Name, Path: path}, jsonl.Resume{Offset: 10}); !errors.Is(err, jsonl.ErrNotIncremental) {
		t.Errorf("err = %v, want ErrNotIncremental", err)
	}
}

func TestZotClaim(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "sessions", "0123456789abcdef")
	files := map[string]string{
		filepath.Join(home, "20261129-124252-36e97469.jsonl"):     "garbage first line\n", // claimed by layout
		filepath.Join(home, "notes.txt"):                          "x",
		filepath.Join(dir, "a.zotsession"):                        zotTestMeta + "\n",
		filepath.Join(dir, "single.jsonl"):                        zotTestMeta + "\n",
		filepath.Join(dir, "other.jsonl"):                         `{"role":"user","content":"hi"}` + "\n",
		filepath.Join(dir, "meta-lookalike.jsonl"):                `{"type":"meta","meta":{"foo":1}}` + "\n",
		filepath.Join(dir, "sessions", "20261129-124252-x.jsonl"): zotTestMeta + "\n", // wrong layout, but a meta row
	}
	var all []string
	for f, c := range files {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte(c), 0o644)
		all = append(all, f)
	}
	sort.Strings(all)
	units, rest := zot.Format{}.Claim(all)
	var got []string
	for _, u := range units {
		if u.Format != zot.Name {
			t.Errorf("unit format %q", u.Format)
		}
		rel, _ := filepath.Rel(dir, u.Path)
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{"a.zotsession", "sessions/0123456789abcdef/20261129-124252-36e97469.jsonl", "sessions/20261129-124252-x.jsonl", "single.jsonl"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("claimed (-want +got):\n%s", d)
	}
	if len(rest) != 3 {
		t.Errorf("rest %v", rest)
	}
	// The sample home: every file is claimed.
	var sample []string
	filepath.WalkDir(filepath.Join(zotTestdata, "zot", "zot_home"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			abs, _ := filepath.Abs(p)
			sample = append(sample, abs)
		}
		return nil
	})
	if u, r := (zot.Format{}).Claim(sample); len(u) != 11 || len(r) != 0 {
		t.Errorf("sample home: %d units, rest %v", len(u), r)
	}
}

func zotImport(t *testing.T, store sessiondb.Store, paths ...string) jsonlimport.Report {
	t.Helper()
	rep, err := jsonlimport.Import(context.Background(), store, paths, jsonlimport.Options{Format: zot.Name, Jobs: 2})
	if err != nil {
		t.Fatalf("import %v: %v", paths, err)
	}
	return rep
}

// TestZotStoreEndToEnd imports the sample zot homes into a SQLite store and
// checks every session against zot's own loader output, then exports the
// sessions and imports the export into a second store.
func TestZotStoreEndToEnd(t *testing.T) {
	ctx := context.Background()
	goldens := zotGoldens(t)
	store := jsonltest.OpenStore(t)
	homes := []string{
		filepath.Join(zotTestdata, "zot", "zot_home"),
		filepath.Join(zotTestdata, "zot", "nonflow", "zot_home"),
		filepath.Join(zotTestdata, "zot-compaction", "zot_home"),
	}
	rep := zotImport(t, store, homes...)
	if rep.Files != 13 || rep.Sessions != 13 || len(rep.Problems) != 0 {
		t.Fatalf("report: files %d sessions %d problems %v", rep.Files, rep.Sessions, rep.Problems)
	}
	// With format detection, every file of the homes is recognised as zot.
	autoStore := jsonltest.OpenStore(t)
	auto, err := jsonlimport.Import(ctx, autoStore, homes, jsonlimport.Options{})
	if err != nil || auto.Files != 13 || auto.Sessions != 13 || len(auto.Problems) != 0 {
		t.Errorf("auto-detected import: %+v, %v", auto, err)
	}
	for _, g := range goldens {
		if s, err := autoStore.Get(ctx, g.OpenSessionMeta.ID); err != nil || s.SourceFormat != zot.Name {
			t.Errorf("auto-detected import of %s: %+v, %v", g.File, s, err)
		}
	}
	// A second import of the unchanged files is a no-op.
	if again := zotImport(t, store, homes...); again.Unchanged != 13 || again.Entries != 0 {
		t.Errorf("re-import: %+v", again)
	}

	matched := 0
	ids := []string{}
	for file, g := range goldens {
		if strings.HasPrefix(file, "exports/") {
			continue // not under a zot home
		}
		path := filepath.Join(zotTestdata, "zot", filepath.FromSlash(file))
		parsed := zotParse(t, path)
		id := g.OpenSessionMeta.ID
		ids = append(ids, id)
		got, err := store.Load(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: load: %v", file, err)
		}
		ok := true
		if d := cmp.Diff(zotRawJSON(t, g.OpenSessionMessage), zotHydratedJSON(t, got)); d != "" {
			t.Errorf("%s: stored transcript differs from zot's (-zot +store):\n%s", file, d)
			ok = false
		}
		want := zotEffective(parsed)
		if len(got) != len(want) {
			t.Fatalf("%s: %d entries loaded, %d parsed", file, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i].Body, want[i].Body) || got[i].Kind != sessiondb.KindMessage || got[i].Role != want[i].Role || !got[i].CreatedAt.Equal(want[i].CreatedAt) {
				t.Errorf("%s: entry %d: got %s %s %v %.100s, want %s %v %.100s", file, i+1, got[i].Kind, got[i].Role, got[i].CreatedAt, got[i].Body, want[i].Role, want[i].CreatedAt, want[i].Body)
				ok = false
			}
		}
		sess, err := store.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		zotCheckMeta(t, sess, g.OpenSessionMeta)
		if sess.SourceFormat != zot.Name || sess.Title != parsed.Session.Title {
			t.Errorf("%s: session %+v", file, sess)
		}
		tot, err := store.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		u := zotUsageOf(tot)
		if u.InputTokens != g.SessionUsage.InputTokens || u.OutputTokens != g.SessionUsage.OutputTokens ||
			u.CacheReadTokens != g.SessionUsage.CacheReadTokens || u.CacheWriteTokens != g.SessionUsage.CacheWriteTokens ||
			u.CostUSD != g.SessionUsage.CostUSD {
			t.Errorf("%s: usage totals %+v, zot's SessionUsage %+v", file, u, g.SessionUsage)
			ok = false
		}
		if ok {
			matched++
		}
	}
	if matched != 12 {
		t.Errorf("%d of 12 sample sessions match zot's output", matched)
	}

	// The compaction sample: the store's effective transcript is zot's.
	var cg struct {
		ID        string            `json:"id"`
		Effective []json.RawMessage `json:"effective_transcript"`
	}
	zotReadJSON(t, filepath.Join(zotTestdata, "zot-compaction", "expected", "20260510-080000-5b0c7a1e.json"), &cg)
	got, err := store.Load(ctx, cg.ID, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var bodies []json.RawMessage
	for _, e := range got {
		bodies = append(bodies, e.Body)
	}
	if d := cmp.Diff(zotRawJSON(t, cg.Effective), zotRawJSON(t, bodies)); d != "" {
		t.Errorf("compaction sample: (-zot +store):\n%s", d)
	}
	if all, _ := store.Entries(ctx, cg.ID, 1, 0); len(all) != 12 {
		t.Errorf("compaction sample: %d log rows, want all 12 message rows kept", len(all))
	}
	ids = append(ids, cg.ID)

	// Export every session and import the export into a fresh store: the
	// transcripts (bodies byte for byte), titles, meta and usage totals
	// survive.
	out := t.TempDir()
	var files []string
	for _, id := range ids {
		fs, err := (zot.Format{}).Export(ctx, store, id, out)
		if err != nil {
			t.Fatalf("export %s: %v", id, err)
		}
		if len(fs) != 1 || !zot.IsHomeFile(fs[0]) {
			t.Fatalf("export %s: files %v", id, fs)
		}
		files = append(files, fs...)
	}
	store2 := jsonltest.OpenStore(t)
	rep2 := zotImport(t, store2, out)
	if rep2.Sessions != len(ids) || len(rep2.Problems) != 0 {
		t.Fatalf("re-import of the export: %+v", rep2)
	}
	for _, id := range ids {
		a, err := store.LoadFull(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := store2.LoadFull(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatalf("%s after round trip: %v", id, err)
		}
		if len(a.Transcript) != len(b.Transcript) {
			t.Fatalf("%s: %d messages, after round trip %d", id, len(a.Transcript), len(b.Transcript))
		}
		for i := range a.Transcript {
			if !bytes.Equal(a.Transcript[i].Body, b.Transcript[i].Body) || a.Transcript[i].Role != b.Transcript[i].Role {
				t.Errorf("%s: entry %d differs after round trip", id, i+1)
			}
		}
		sa, sb := a.Session, b.Session
		if sa.Title != sb.Title || string(sa.Attrs) != string(sb.Attrs) || !sa.CreatedAt.Equal(sb.CreatedAt) || sa.ParentID != sb.ParentID || sa.ForkSeq != sb.ForkSeq {
			t.Errorf("%s: session %+v, after round trip %+v", id, sa, sb)
		}
		ta, _ := store.UsageTotals(ctx, id)
		tb, _ := store2.UsageTotals(ctx, id)
		if ta.InputTokens != tb.InputTokens || ta.OutputTokens != tb.OutputTokens || ta.CacheReadTokens != tb.CacheReadTokens ||
			ta.CacheWriteTokens != tb.CacheWriteTokens || ta.Cost != tb.Cost {
			t.Errorf("%s: usage %+v, after round trip %+v", id, ta, tb)
		}
	}
	// What zot's loader reads from an exported file is the same transcript:
	// every row is a message zot hydrates without loss.
	for _, f := range files {
		p := zotParse(t, f)
		if len(p.Problems) != 0 || len(p.Compactions) != 0 {
			t.Errorf("%s: problems %v compactions %d", f, p.Problems, len(p.Compactions))
		}
		for _, e := range p.Entries {
			if m, n, err := zot.Hydrate(e.Body); err != nil || len(m.Content) == 0 || n < len(m.Content) {
				t.Errorf("%s: zot cannot load %s", f, e.Body)
			}
		}
	}
}

// TestZotStoreIncremental imports a growing zot file: first a torn prefix,
// then the whole file, then the same file after a real tool result arrived
// for a stubbed call (the importer must replace the transcript).
func TestZotStoreIncremental(t *testing.T) {
	ctx := context.Background()
	store := jsonltest.OpenStore(t)
	src := filepath.Join(zotTestdata, "zot", "zot_home", "sessions", "70490179fb06dad3", "20261129-124252-c60f7bd8.jsonl")
	raw, _ := os.ReadFile(src)
	home := t.TempDir()
	path := filepath.Join(home, "sessions", "70490179fb06dad3", filepath.Base(src))
	os.MkdirAll(filepath.Dir(path), 0o755)
	whole := zotParse(t, src)

	// Cut inside the line after the second tool message: the prefix ends
	// with a torn line, and no tool call is left unanswered (that case,
	// where the reader must re-read the file, is checked below).
	i := bytes.Index(raw, []byte(`"role":"tool"`))
	i += bytes.Index(raw[i+1:], []byte(`"role":"tool"`)) + 1
	cut := i + bytes.IndexByte(raw[i:], '\n') + 40
	os.WriteFile(path, raw[:cut], 0o644)
	zotImport(t, store, home)
	first, err := store.Load(ctx, whole.Session.ID, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) == 0 || len(first) >= len(whole.Entries) {
		t.Fatalf("%d entries from the prefix", len(first))
	}
	os.WriteFile(path, raw, 0o644)
	rep := zotImport(t, store, home)
	if rep.Entries == 0 || rep.Entries >= len(whole.Entries) {
		t.Errorf("incremental import appended %d entries", rep.Entries)
	}
	got, _ := store.Load(ctx, whole.Session.ID, sessiondb.LoadOptions{})
	if len(got) != len(whole.Entries) {
		t.Fatalf("%d entries, want %d", len(got), len(whole.Entries))
	}
	for i := range got {
		if !bytes.Equal(got[i].Body, whole.Entries[i].Body) {
			t.Errorf("entry %d differs", i+1)
		}
	}
	if all, _ := store.Entries(ctx, whole.Session.ID, 1, 0); len(all) != len(whole.Entries) {
		t.Errorf("%d log rows: the incremental import duplicated rows", len(all))
	}
	tot, _ := store.UsageTotals(ctx, whole.Session.ID)
	want := zotTotals(whole.Usage)
	if tot.InputTokens != want.InputTokens || tot.Cost != want.Cost {
		t.Errorf("usage %+v, want %+v", tot, want)
	}

	// A crash left a tool call without result: the stub is imported.
	crash := filepath.Join(zotTestdata, "zot-damaged", "10-crash-orphan-tool-use.jsonl")
	craw, _ := os.ReadFile(crash)
	cpath := filepath.Join(home, "sessions", "70490179fb06dad3", "20261129-124300-7572b7b6.jsonl")
	os.WriteFile(cpath, craw, 0o644)
	zotImport(t, store, home)
	cp := zotParse(t, cpath)
	id := cp.Session.ID
	got, _ = store.Load(ctx, id, sessiondb.LoadOptions{})
	if len(got) != 3 || !bytes.Contains(got[2].Body, []byte(zot.StubText)) {
		t.Fatalf("crash session: %d entries", len(got))
	}
	// The real result arrives: the reader refuses to resume, the importer
	// re-reads the file and the stub leaves the transcript.
	call := zotToolCalls(t, got[1])[0]
	tool := `{"type":"message","message":{"role":"tool","content":[{"call_id":"` + call + `","content":[{"text":"ok"}],"is_error":false}],"time":"2026-11-29T13:00:00Z"}}` + "\n"
	os.WriteFile(cpath, append(append([]byte{}, craw...), tool...), 0o644)
	zotImport(t, store, home)
	got, _ = store.Load(ctx, id, sessiondb.LoadOptions{})
	if len(got) != 3 || bytes.Contains(got[2].Body, []byte(zot.StubText)) || !bytes.Contains(got[2].Body, []byte(`"text":"ok"`)) {
		t.Errorf("after the real result: %d entries, last %s", len(got), got[len(got)-1].Body)
	}
}

// TestZotExportNative exports a session that was not imported from zot:
// bodies zot could not load are adapted, other kinds are left out, the
// compaction's summary leads the transcript, and zot's loader (our Parse)
// reads back the same transcript.
func TestZotExportNative(t *testing.T) {
	ctx := context.Background()
	store := jsonltest.OpenStore(t)
	created := time.Date(2026, 3, 20, 14, 30, 0, 0, time.UTC)
	at := created.Add(time.Minute)
	entries := []sessiondb.Entry{
		{Kind: sessiondb.KindMessage, CreatedAt: at, Body: json.RawMessage(`{"role":"user","content":[{"text":"dropped by the compaction"}],"time":"2026-03-20T14:31:00Z"}`)},
		{Kind: sessiondb.KindMessage, CreatedAt: at, Body: json.RawMessage("{\n  \"role\": \"user\",\n  \"content\": \"plain string content\"\n}")},
		{Kind: "label", CreatedAt: at, Body: json.RawMessage(`{"label":"not a message"}`)},
		{Kind: sessiondb.KindMessage, CreatedAt: at, Body: json.RawMessage(`{"role":"assistant","content":[{"text":"bad time"}],"time":"soon"}`)},
		{Kind: sessiondb.KindMessage, CreatedAt: at, Body: json.RawMessage(`{"role":"assistant","content":[{"text":"fine \u003c"}],"time":"2026-03-20T16:31:00+02:00"}`)},
	}
	summary := []sessiondb.Entry{{Kind: sessiondb.KindMessage, Body: json.RawMessage(`{"role":"user","content":[{"text":"summary"}],"time":"2026-03-20T14:32:00Z","meta":{"compaction":"true"}}`)}}
	_, err := store.Commit(ctx, "native-1", sessiondb.Commit{
		Create:      &sessiondb.Session{Title: "Native ✓", CreatedAt: created, Attrs: json.RawMessage(`{"cwd":"/home/x/proj","model":"m","provider":"p"}`)},
		Append:      entries,
		Compactions: []sessiondb.Compaction{{KeepFromSeq: 2, Summary: summary}},
		Usage:       []sessiondb.Usage{{InputTokens: 10, OutputTokens: 5, Cost: 0.1}, {InputTokens: 1, CacheReadTokens: 7, Cost: 0.2}},
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := (zot.Format{}).Export(ctx, store, "native-1", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wantDir := filepath.Join("sessions", "0e837629b59802ef")
	if len(files) != 1 || filepath.Base(files[0]) != "20260320-143000-native-1.jsonl" || !strings.HasSuffix(filepath.Dir(files[0]), wantDir) {
		t.Fatalf("files %v", files)
	}
	p := zotParse(t, files[0])
	if len(p.Problems) != 0 {
		t.Errorf("problems %v", p.Problems)
	}
	var texts []string
	for _, e := range p.Entries {
		m, _, err := zot.Hydrate(e.Body)
		if err != nil {
			t.Fatalf("zot cannot load %s: %v", e.Body, err)
		}
		texts = append(texts, m.Role+":"+m.Content[0].Value.(zot.TextBlock).Text)
	}
	want := []string{"user:summary", "user:plain string content", "assistant:bad time", "assistant:fine <"}
	if d := cmp.Diff(want, texts); d != "" {
		t.Errorf("exported transcript (-want +got):\n%s", d)
	}
	// Valid bodies are written byte for byte.
	if string(p.Entries[3].Body) != string(entries[4].Body) || string(p.Entries[0].Body) != string(summary[0].Body) {
		t.Errorf("bodies changed: %s / %s", p.Entries[3].Body, p.Entries[0].Body)
	}
	if !strings.Contains(string(p.Entries[2].Body), `"time":"2026-03-20T14:31:00Z"`) {
		t.Errorf("bad time not replaced by the entry time: %s", p.Entries[2].Body)
	}
	if p.Session.ID != "native-1" || p.Session.Title != "Native ✓" || !p.Session.CreatedAt.Equal(created) {
		t.Errorf("session %+v", p.Session)
	}
	c1, c2 := 0.1, 0.2
	if got := zotTotals(p.Usage); got.InputTokens != 11 || got.OutputTokens != 5 || got.CacheReadTokens != 7 || got.Cost != c1+c2 {
		t.Errorf("usage %+v", got)
	}
	if _, err := (zot.Format{}).Export(ctx, store, "missing", t.TempDir()); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("export of a missing session: %v", err)
	}
}

// TestZotCompactionRepair: zot repairs the transcript it loads, i.e. after
// the latest compaction replaced the earlier rows.
func TestZotCompactionRepair(t *testing.T) {
	dir := t.TempDir()
	call := func(id string) string {
		return `{"role":"assistant","content":[{"id":"` + id + `","name":"bash","arguments":{}}],"time":"2026-01-02T03:04:06Z"}`
	}
	user := `{"type":"message","message":{"role":"user","content":[{"text":"next"}],"time":"2026-01-02T03:04:08Z"}}`
	t.Run("stub joins the summary", func(t *testing.T) {
		path := filepath.Join(dir, "a.jsonl")
		zotWrite(t, path, zotTestMeta,
			`{"type":"message","message":`+call("old")+`}`, // superseded: not repaired
			`{"type":"compaction","messages":[{"role":"user","content":[{"text":"sum"}],"time":"2026-01-02T03:04:05Z"},`+call("a")+`]}`,
			user)
		p := zotParse(t, path)
		if len(p.Entries) != 2 || len(p.Compactions) != 1 {
			t.Fatalf("entries %d compactions %d", len(p.Entries), len(p.Compactions))
		}
		c := p.Compactions[0]
		if c.KeepFromSeq != 2 || len(c.Summary) != 3 || !c.Summary[2].Summary || c.Summary[2].Role != "tool" || !bytes.Contains(c.Summary[2].Body, []byte(`"call_id":"a"`)) {
			t.Fatalf("compaction %+v", c)
		}
		if roles := zotRoles(zotEffective(p)); strings.Join(roles, ",") != "user,assistant,tool,user" {
			t.Errorf("effective roles %v", roles)
		}
	})
	t.Run("tool row after the compaction answers the call", func(t *testing.T) {
		path := filepath.Join(dir, "b.jsonl")
		zotWrite(t, path, zotTestMeta,
			`{"type":"compaction","messages":[`+call("b")+`]}`,
			`{"type":"message","message":{"role":"tool","content":[{"call_id":"b","content":[{"text":"done"}],"is_error":false}],"time":"2026-01-02T03:04:07Z"}}`,
			user)
		p := zotParse(t, path)
		if len(p.Problems) != 0 || len(zotEffective(p)) != 3 || p.Compactions[0].AtSeq != 0 || p.Compactions[0].KeepFromSeq != 1 {
			t.Errorf("problems %v, compaction %+v", p.Problems, p.Compactions)
		}
	})
}
