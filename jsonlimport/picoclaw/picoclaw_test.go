package picoclaw_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/picoclaw"
)

const (
	picoDir        = "../../testdata/picoclaw"
	picoExpected   = "../../testdata/picoclaw-expected"
	picoDamagedDir = "../../testdata/picoclaw-damaged"
	picoLegacyDir  = "../../testdata/picoclaw-legacy-json"
	// picoToolKey is sample 02, the session the damaged variants copy.
	picoToolKey = "sk_v1_4ff57da8088193dafdab12f43a7363f510e4b6b3d998a31aebc130a9aa666394"
)

func picoImport(tb testing.TB, s sessiondb.Store, opts jsonlimport.Options, paths ...string) jsonlimport.Report {
	tb.Helper()
	rep, err := jsonlimport.Import(context.Background(), s, paths, opts)
	if err != nil {
		tb.Fatalf("Import(%v): %v", paths, err)
	}
	return rep
}

// picoGolden is one picoclaw-expected/<base>.expected.json.
type picoGolden struct {
	Key      string `json:"key"`
	FileBase string `json:"file_base"`
	Meta     struct {
		Key       string          `json:"key"`
		Summary   string          `json:"summary"`
		Skip      int             `json:"skip"`
		Count     int             `json:"count"`
		CreatedAt time.Time       `json:"created_at"`
		UpdatedAt time.Time       `json:"updated_at"`
		Scope     json.RawMessage `json:"scope"`
		Aliases   []string        `json:"aliases"`
	} `json:"meta"`
	Summary    string            `json:"summary"`
	HistoryLen int               `json:"history_len"`
	History    []json.RawMessage `json:"history"`
	RawLines   int               `json:"raw_lines_on_disk"`
}

func picoGoldens(t *testing.T) []picoGolden {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(picoExpected, "*.expected.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens in %s: %v", picoExpected, err)
	}
	var out []picoGolden
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g picoGolden
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, g)
	}
	return out
}

// picoValue decodes JSON into a generic value for comparison.
func picoValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %.80q: %v", b, err)
	}
	return v
}

// picoElided matches the golden placeholder of the ~1 MB content.
const picoElidedPrefix = "<<"

// picoSameMessage compares a transcript body with a golden history message
// as JSON values. A golden content "<<N bytes elided …>>" matches a content
// of length N.
func picoSameMessage(t *testing.T, body []byte, golden json.RawMessage) string {
	t.Helper()
	got, _ := picoValue(t, body).(map[string]any)
	want, _ := picoValue(t, golden).(map[string]any)
	if c, ok := want["content"].(string); ok && strings.HasPrefix(c, picoElidedPrefix) && strings.Contains(c, "bytes elided") {
		var n int
		if _, err := fmt.Sscanf(c, "<<%d", &n); err != nil {
			t.Fatalf("elided marker %q: %v", c, err)
		}
		gc, _ := got["content"].(string)
		if len(gc) != n {
			return fmt.Sprintf("elided content length: got %d, want %d", len(gc), n)
		}
		got = cloneMap(got)
		want = cloneMap(want)
		delete(got, "content")
		delete(want, "content")
	}
	return cmp.Diff(want, got)
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// picoResolve is picoclaw's ResolveSessionKey over the golden metas: a key
// without ':', '/' or '\' that is a session's key names it; otherwise the
// first meta in file-name order listing the key as an alias (with another
// key) wins; otherwise the session with that key.
func picoResolve(goldens []picoGolden, key string) string {
	sorted := slices.Clone(goldens)
	slices.SortFunc(sorted, func(a, b picoGolden) int {
		return strings.Compare(a.FileBase+".meta.json", b.FileBase+".meta.json")
	})
	direct := slices.ContainsFunc(goldens, func(g picoGolden) bool { return g.Key == key })
	if direct && !strings.ContainsAny(key, `:/\`) {
		return key
	}
	for _, g := range sorted {
		if g.Meta.Key != key && slices.Contains(g.Meta.Aliases, key) {
			return g.Key
		}
	}
	if direct {
		return key
	}
	return ""
}

// TestPicoclawFidelity imports the picoclaw sample directory and checks,
// for EVERY session picoclaw lists, that the effective transcript equals
// picoclaw's GetHistory golden output as JSON values, that every body is
// byte-identical to its line on disk (hidden lines included, via Entries),
// and that summary, scope, aliases and timestamps match the golden meta.
func TestPicoclawFidelity(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	rep := picoImport(t, s, jsonlimport.Options{}, picoDir)
	goldens := picoGoldens(t)
	if len(goldens) != 17 {
		t.Fatalf("got %d goldens, want 17", len(goldens))
	}
	if rep.Sessions != 17 || rep.Files != 17 || rep.Unchanged != 0 {
		t.Errorf("report: files %d sessions %d unchanged %d, want 17/17/0", rep.Files, rep.Sessions, rep.Unchanged)
	}
	wantEntries := 0
	matched := 0
	for _, g := range goldens {
		t.Run(g.FileBase, func(t *testing.T) {
			ok := true
			fail := func(format string, args ...any) {
				t.Helper()
				ok = false
				t.Errorf(format, args...)
			}
			sess, err := s.Get(ctx, g.Key)
			if err != nil {
				t.Fatalf("Get(%q): %v", g.Key, err)
			}
			got, err := s.Load(ctx, g.Key, sessiondb.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != g.HistoryLen || len(g.History) != g.HistoryLen {
				t.Fatalf("transcript has %d messages, golden history_len %d (%d listed)", len(got), g.HistoryLen, len(g.History))
			}
			for i := range got {
				if d := picoSameMessage(t, got[i].Body, g.History[i]); d != "" {
					fail("message %d differs from GetHistory (-want +got):\n%s", i, d)
				}
			}
			// Bytes: every stored row equals its line, hidden lines
			// included; the transcript is the tail after skip.
			lines := jsonltest.Lines(t, filepath.Join(picoDir, g.FileBase+".jsonl"))
			all, err := s.Entries(ctx, g.Key, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != len(lines) {
				fail("log has %d rows, file has %d lines", len(all), len(lines))
			} else {
				for i := range all {
					if !bytes.Equal(all[i].Body, lines[i]) {
						fail("row %d body differs from line %d of the file", all[i].Seq, i+1)
					}
				}
			}
			wantEntries += len(lines)
			for i := range got {
				if !bytes.Equal(got[i].Body, lines[g.Meta.Skip+i]) {
					fail("transcript message %d is not byte-identical to line %d", i, g.Meta.Skip+i+1)
				}
			}
			if sess.Summary != g.Summary || sess.Summary != g.Meta.Summary {
				fail("summary %q, want %q", sess.Summary, g.Summary)
			}
			if len(g.Meta.Scope) > 0 {
				if d := cmp.Diff(picoValue(t, g.Meta.Scope), picoValue(t, sess.Scope)); d != "" {
					fail("scope (-want +got):\n%s", d)
				}
			} else if sess.Scope != nil {
				fail("scope %s, want none", sess.Scope)
			}
			if d := cmp.Diff(g.Meta.Aliases, jsonl.SourceAliases(sess)); d != "" {
				fail("aliases (-want +got):\n%s", d)
			}
			for _, a := range sess.Aliases {
				want := picoResolve(goldens, a)
				if id, err := s.Resolve(ctx, a); err != nil || id != want {
					fail("Resolve(%q) = %q, %v; want %q (picoclaw's ResolveSessionKey)", a, id, err, want)
				}
			}
			if !sess.CreatedAt.Equal(g.Meta.CreatedAt) || !sess.UpdatedAt.Equal(g.Meta.UpdatedAt) {
				fail("times %v / %v, want %v / %v", sess.CreatedAt, sess.UpdatedAt, g.Meta.CreatedAt, g.Meta.UpdatedAt)
			}
			if sess.SourceFormat != picoclaw.Name || !strings.HasSuffix(sess.SourcePath, g.FileBase+".jsonl") && g.RawLines >= 0 {
				fail("source %q %q", sess.SourceFormat, sess.SourcePath)
			}
			if ok {
				matched++
			}
		})
	}
	if rep.Entries != wantEntries {
		t.Errorf("report entries %d, want %d", rep.Entries, wantEntries)
	}
	t.Logf("picoclaw fidelity: %d/%d sessions match their GetHistory golden exactly", matched, len(goldens))
	if matched != len(goldens) {
		t.Errorf("only %d/%d sessions matched", matched, len(goldens))
	}
	// The two non-session files are skipped with notes, nothing is a
	// problem, and the shared alias "agent:main:main" resolves to the first
	// session listing it in picoclaw's file-name order.
	for _, name := range []string{"README.md", "MANIFEST.tsv"} {
		if !jsonltest.HasProblem(rep.Notes, name, 0, "not a session file") {
			t.Errorf("no note for %s: %v", name, rep.Notes)
		}
	}
	if len(rep.Problems) != 0 || rep.Skipped != 2 {
		t.Errorf("problems %v, skipped %d; want none and 2", rep.Problems, rep.Skipped)
	}
	if id, err := s.Resolve(ctx, "agent:main:main"); err != nil || id != "sk_v1_4482d1d51c5f3deb9c5434ca6f0008c68ed47c167f55c7c69fc6e7a3e2dd132d" {
		t.Errorf("Resolve(agent:main:main) = %q, %v", id, err)
	}
}

// TestPicoclawSkipCompaction checks that meta skip became a truncation
// compaction: the hidden lines are in the log before KeepFromSeq.
func TestPicoclawSkipCompaction(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	picoImport(t, s, jsonlimport.Options{}, picoDir)
	for _, tc := range []struct {
		key      string
		keepFrom int64
		lastSeq  int64
	}{
		{"agent:main:discord:channel:998877", 19, 24},
		{"agent:main:cli:direct:truncate-all", 6, 5},
		{"agent:main:cli:direct:alice", 0, 6},
		{"agent:main:cli:direct:cleared", 0, 0},
	} {
		cs, err := s.Compactions(ctx, tc.key)
		if err != nil {
			t.Fatal(err)
		}
		sess, err := s.Get(ctx, tc.key)
		if err != nil {
			t.Fatal(err)
		}
		if sess.LastSeq != tc.lastSeq {
			t.Errorf("%s: LastSeq %d, want %d", tc.key, sess.LastSeq, tc.lastSeq)
		}
		if tc.keepFrom == 0 {
			if len(cs) != 0 {
				t.Errorf("%s: %d compactions, want none", tc.key, len(cs))
			}
			continue
		}
		if len(cs) != 1 || cs[0].KeepFromSeq != tc.keepFrom || len(cs[0].Summary) != 0 {
			t.Errorf("%s: compactions %+v, want one truncation keeping from %d", tc.key, cs, tc.keepFrom)
		}
	}
}

// TestPicoclawLegacy imports the legacy *.json sessions.
func TestPicoclawLegacy(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	rep := picoImport(t, s, jsonlimport.Options{}, picoLegacyDir)
	if rep.Sessions != 2 {
		t.Fatalf("sessions %d, want 2; problems %v", rep.Sessions, rep.Problems)
	}
	if !jsonltest.HasProblem(rep.Notes, "README.md", 0, "not a session file") {
		t.Errorf("README.md not noted: %v", rep.Notes)
	}
	for _, tc := range []struct {
		file, key, summary string
	}{
		{"telegram_123456.json", "telegram:123456", "User asked for the time."},
		{"agent_main_pico_direct_pico_legacy-1.json", "agent:main:pico:direct:pico:legacy-1", ""},
	} {
		data, err := os.ReadFile(filepath.Join(picoLegacyDir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var legacy struct {
			Messages []json.RawMessage `json:"messages"`
			Created  time.Time         `json:"created"`
			Updated  time.Time         `json:"updated"`
		}
		if err := json.Unmarshal(data, &legacy); err != nil {
			t.Fatal(err)
		}
		sess, err := s.Get(ctx, tc.key)
		if err != nil {
			t.Fatalf("Get(%q): %v", tc.key, err)
		}
		if sess.Summary != tc.summary || !sess.CreatedAt.Equal(legacy.Created) || !sess.UpdatedAt.Equal(legacy.Updated) {
			t.Errorf("%s: summary %q created %v updated %v; want %q %v %v", tc.key, sess.Summary, sess.CreatedAt, sess.UpdatedAt, tc.summary, legacy.Created, legacy.Updated)
		}
		got, err := s.Load(ctx, tc.key, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(legacy.Messages) {
			t.Fatalf("%s: %d messages, want %d", tc.key, len(got), len(legacy.Messages))
		}
		for i := range got {
			var compact bytes.Buffer
			if err := json.Compact(&compact, legacy.Messages[i]); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[i].Body, compact.Bytes()) {
				t.Errorf("%s message %d: body %s, want %s", tc.key, i, got[i].Body, compact.Bytes())
			}
			// What picoclaw's migration writes: json.Marshal(Message).
			var m picoclaw.Message
			if err := json.Unmarshal(legacy.Messages[i], &m); err != nil {
				t.Fatal(err)
			}
			re, _ := json.Marshal(m)
			if !bytes.Equal(got[i].Body, re) {
				t.Errorf("%s message %d: body differs from picoclaw's migrated line %s", tc.key, i, re)
			}
		}
	}
}

// picoDamagedCase describes what one picoclaw-damaged folder must give:
// the golden history of sample 02 at the given indices, plus recovered
// messages, and the problems (file suffix, line, substring).
type picoDamagedCase struct {
	dir      string
	keep     []int    // indices into sample 02's golden history
	extra    []string // contents of recovered messages, appended in order
	id       string
	problems []jsonl.Problem
	notes    []jsonl.Problem
	// picoclawLen is what picoclaw's GetHistory returned (-1: error).
	picoclawLen int
}

func TestPicoclawDamaged(t *testing.T) {
	ctx := context.Background()
	var golden picoGolden
	for _, g := range picoGoldens(t) {
		if g.Key == picoToolKey {
			golden = g
		}
	}
	if len(golden.History) != 9 {
		t.Fatalf("sample 02 golden has %d messages", len(golden.History))
	}
	const appended = "new message appended after the damage"
	cases := []picoDamagedCase{
		{dir: "torn-last-line", keep: []int{0, 1, 2, 3, 4, 5, 6, 7}, picoclawLen: 8,
			problems: []jsonl.Problem{{Path: ".jsonl", Line: 9, Reason: "torn last line (no trailing newline), not imported"}}},
		{dir: "corrupt-middle-line", keep: []int{0, 1, 2, 4, 5, 6, 7, 8}, picoclawLen: 8,
			problems: []jsonl.Problem{{Path: ".jsonl", Line: 4, Reason: "invalid JSON: unexpected end of JSON input"}}},
		{dir: "torn-last-and-corrupt-middle", keep: []int{0, 1, 2, 4, 5, 6, 7}, picoclawLen: 7,
			problems: []jsonl.Problem{
				{Path: ".jsonl", Line: 4, Reason: "invalid JSON"},
				{Path: ".jsonl", Line: 9, Reason: "torn last line"},
			}},
		{dir: "torn-then-appended", keep: []int{0, 1, 2, 3, 4, 5, 6, 7}, extra: []string{appended}, picoclawLen: 8,
			problems: []jsonl.Problem{{Path: ".jsonl", Line: 9, Reason: "a complete message appended after a torn fragment"}}},
		{dir: "nul-tail-then-appended", keep: []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, extra: []string{appended}, picoclawLen: 9,
			problems: []jsonl.Problem{{Path: ".jsonl", Line: 10, Reason: "NUL padding (64 bytes) before the line; the message after it was recovered"}}},
		{dir: "corrupt-meta", keep: []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, picoclawLen: -1,
			problems: []jsonl.Problem{{Path: ".meta.json", Line: 0, Reason: "corrupt meta"}}},
		{dir: "missing-meta", keep: []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, picoclawLen: 9,
			notes: []jsonl.Problem{{Path: ".jsonl", Line: 0, Reason: "no .meta.json"}}},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.dir] = true
		t.Run(tc.dir, func(t *testing.T) {
			s := jsonltest.OpenStore(t)
			dir := filepath.Join(picoDamagedDir, tc.dir)
			rep := picoImport(t, s, jsonlimport.Options{}, dir)
			if rep.Sessions != 1 {
				t.Fatalf("sessions %d, want 1; problems %v", rep.Sessions, rep.Problems)
			}
			for _, p := range tc.problems {
				if !jsonltest.HasProblem(rep.Problems, p.Path, p.Line, p.Reason) {
					t.Errorf("missing problem %v in %v", p, rep.Problems)
				}
			}
			for _, p := range tc.notes {
				if !jsonltest.HasProblem(rep.Notes, p.Path, p.Line, p.Reason) {
					t.Errorf("missing note %v in %v", p, rep.Notes)
				}
			}
			if len(tc.problems) == 0 && len(rep.Problems) > 0 {
				t.Errorf("problems %v, want none", rep.Problems)
			}
			for _, p := range rep.Problems {
				if p.Path == "" || p.Reason == "" {
					t.Errorf("problem without path or reason: %+v", p)
				}
			}
			// The session keeps its key: from the meta, the damaged
			// meta's surviving members, or the file base.
			got, err := s.Load(ctx, picoToolKey, sessiondb.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := len(tc.keep) + len(tc.extra)
			if len(got) != want {
				t.Fatalf("transcript has %d messages, want %d (picoclaw's loader: %d)", len(got), want, tc.picoclawLen)
			}
			if tc.picoclawLen >= 0 && len(got) < tc.picoclawLen {
				t.Errorf("imported fewer messages (%d) than picoclaw's loader returns (%d)", len(got), tc.picoclawLen)
			}
			for i, gi := range tc.keep {
				if d := picoSameMessage(t, got[i].Body, golden.History[gi]); d != "" {
					t.Errorf("message %d (golden %d) (-want +got):\n%s", i, gi, d)
				}
			}
			for j, content := range tc.extra {
				var m picoclaw.Message
				if err := json.Unmarshal(got[len(tc.keep)+j].Body, &m); err != nil || m.Content != content || m.Role != "user" {
					t.Errorf("recovered message %d = %s (%v), want user %q", j, got[len(tc.keep)+j].Body, err, content)
				}
			}
			// Every body is a byte range of the file.
			data, err := os.ReadFile(filepath.Join(dir, picoToolKey+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range got {
				if !bytes.Contains(data, e.Body) {
					t.Errorf("message %d body is not a byte range of the file", i)
				}
			}
		})
	}
	dirs, err := os.ReadDir(picoDamagedDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() && !seen[d.Name()] {
			t.Errorf("damaged sample %s has no test case", d.Name())
		}
	}
}

// TestPicoclawDamagedOffsets checks that a torn last line is not consumed
// (the Source offset stops before it) and that the session comes back whole
// once picoclaw's next append glues a message onto it.
func TestPicoclawDamagedOffsets(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	dir := jsonltest.CopyDir(t, filepath.Join(picoDamagedDir, "torn-last-line"))
	jsonl := filepath.Join(dir, picoToolKey+".jsonl")
	picoImport(t, s, jsonlimport.Options{}, dir)
	sf, err := s.SourceFile(ctx, jsonl)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(jsonl)
	lastNL := int64(bytes.LastIndexByte(data, '\n') + 1)
	if sf.Offset != lastNL || sf.Size != int64(len(data)) {
		t.Fatalf("source offset %d size %d, want %d %d", sf.Offset, sf.Size, lastNL, len(data))
	}
	// picoclaw appends right after the torn bytes.
	line := `{"role":"user","content":"after the crash","created_at":"2026-11-29T13:00:00Z"}` + "\n"
	jsonltest.Append(t, jsonl, line)
	rep := picoImport(t, s, jsonlimport.Options{}, dir)
	if rep.Entries != 1 || rep.Sessions != 1 {
		t.Fatalf("re-import: entries %d sessions %d, want 1 1; problems %v", rep.Entries, rep.Sessions, rep.Problems)
	}
	if !jsonltest.HasProblem(rep.Problems, ".jsonl", 9, "torn fragment") {
		t.Errorf("line 9 not reported: %v", rep.Problems)
	}
	got, err := s.Load(ctx, picoToolKey, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 9 || string(got[8].Body) != strings.TrimSuffix(line, "\n") {
		t.Fatalf("transcript %d messages, last %s", len(got), got[len(got)-1].Body)
	}
}

// TestPicoclawIdempotent: a second import of unchanged files writes nothing.
func TestPicoclawIdempotent(t *testing.T) {
	s := jsonltest.OpenStore(t)
	first := picoImport(t, s, jsonlimport.Options{}, picoDir, picoLegacyDir)
	before := jsonltest.Sequences(t, s)
	if len(before) != 19 {
		t.Fatalf("%d sessions after the first import, want 19", len(before))
	}
	second := picoImport(t, s, jsonlimport.Options{}, picoDir, picoLegacyDir)
	if second.Unchanged != second.Files || second.Files != first.Files || second.Sessions != 0 || second.Entries != 0 || second.Bytes != 0 {
		t.Errorf("second import: files %d unchanged %d sessions %d entries %d bytes %d; want all %d unchanged",
			second.Files, second.Unchanged, second.Sessions, second.Entries, second.Bytes, first.Files)
	}
	if d := cmp.Diff(before, jsonltest.Sequences(t, s)); d != "" {
		t.Errorf("sequences changed (-before +after):\n%s", d)
	}
}

// TestPicoclawIncremental: lines appended to a .jsonl are imported alone.
func TestPicoclawIncremental(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	dir := jsonltest.CopyDir(t, picoDir)
	picoImport(t, s, jsonlimport.Options{}, dir)
	const key = "agent:main:cli:direct:alice"
	before, err := s.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	jsonl := filepath.Join(dir, "agent_main_cli_direct_alice.jsonl")
	added := []string{
		`{"role":"user","content":"one more question","created_at":"2026-11-29T13:00:00Z"}`,
		`{"role":"assistant","content":"one more answer","model_name":"m","created_at":"2026-11-29T13:00:01Z"}`,
	}
	jsonltest.Append(t, jsonl, added[0]+"\n"+added[1]+"\n")
	others := jsonltest.Sequences(t, s)
	rep := picoImport(t, s, jsonlimport.Options{}, dir)
	if rep.Entries != 2 || rep.Sessions != 1 || rep.Unchanged != 16 {
		t.Fatalf("re-import: entries %d sessions %d unchanged %d, want 2 1 16; problems %v", rep.Entries, rep.Sessions, rep.Unchanged, rep.Problems)
	}
	after, err := s.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if after.LastSeq != before.LastSeq+2 || after.Sequence != before.Sequence+1 {
		t.Errorf("LastSeq %d→%d, Sequence %d→%d; want +2 and +1", before.LastSeq, after.LastSeq, before.Sequence, after.Sequence)
	}
	rows, err := s.Entries(ctx, key, before.LastSeq+1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || string(rows[0].Body) != added[0] || string(rows[1].Body) != added[1] {
		t.Fatalf("new rows %v", rows)
	}
	got, err := s.Load(ctx, key, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 {
		t.Errorf("transcript %d messages, want 8", len(got))
	}
	afterAll := jsonltest.Sequences(t, s)
	for id, seq := range others {
		if id != key && afterAll[id] != seq {
			t.Errorf("session %s changed: %v → %v", id, seq, afterAll[id])
		}
	}
	sf, err := s.SourceFile(ctx, jsonl)
	if err != nil {
		t.Fatal(err)
	}
	if sf.Offset != picoclaw.FileSize(jsonl) {
		t.Errorf("source offset %d, want %d", sf.Offset, picoclaw.FileSize(jsonl))
	}

	// A torn append is not consumed; completing it imports it once.
	jsonltest.Append(t, jsonl, `{"role":"user","content":"half`)
	rep = picoImport(t, s, jsonlimport.Options{}, dir)
	if rep.Entries != 0 || !jsonltest.HasProblem(rep.Problems, "alice.jsonl", 9, "torn last line") {
		t.Fatalf("torn append: entries %d problems %v", rep.Entries, rep.Problems)
	}
	jsonltest.Append(t, jsonl, ` done"}`+"\n")
	rep = picoImport(t, s, jsonlimport.Options{}, dir)
	if rep.Entries != 1 {
		t.Fatalf("completed append: entries %d, want 1; problems %v", rep.Entries, rep.Problems)
	}
	got, _ = s.Load(ctx, key, sessiondb.LoadOptions{})
	if len(got) != 9 || string(got[8].Body) != `{"role":"user","content":"half done"}` {
		t.Fatalf("transcript %d, last %s", len(got), got[len(got)-1].Body)
	}

	// TruncateHistory changes only the meta: the skip becomes a new
	// compaction, and the transcript shrinks without new rows.
	jsonltest.SetMeta(t, filepath.Join(dir, "agent_main_cli_direct_alice.meta.json"), func(m map[string]any) {
		m["skip"] = 7
		m["summary"] = "earlier talk"
	})
	lastSeq := jsonltest.Sequences(t, s)[key][1]
	rep = picoImport(t, s, jsonlimport.Options{}, dir)
	if rep.Entries != 0 || rep.Sessions != 1 {
		t.Fatalf("meta change: entries %d sessions %d; problems %v", rep.Entries, rep.Sessions, rep.Problems)
	}
	got, _ = s.Load(ctx, key, sessiondb.LoadOptions{})
	if len(got) != 2 || string(got[0].Body) != added[1] {
		t.Fatalf("after skip 7: %d messages, first %s", len(got), got[0].Body)
	}
	sess, _ := s.Get(ctx, key)
	if sess.Summary != "earlier talk" || sess.LastSeq != lastSeq {
		t.Errorf("summary %q LastSeq %d (was %d)", sess.Summary, sess.LastSeq, lastSeq)
	}
	// And once more, unchanged.
	rep = picoImport(t, s, jsonlimport.Options{}, dir)
	if rep.Unchanged != rep.Files {
		t.Errorf("third import: unchanged %d of %d", rep.Unchanged, rep.Files)
	}
	cs, _ := s.Compactions(ctx, key)
	if len(cs) != 1 || cs[0].KeepFromSeq != 8 {
		t.Errorf("compactions %+v, want one keeping from 8", cs)
	}
}

// TestPicoclawRewrite: a .jsonl rewritten in place (SetHistory, Compact)
// replaces the transcript; the old rows stay in the log.
func TestPicoclawRewrite(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	dir := jsonltest.CopyDir(t, picoDir)
	picoImport(t, s, jsonlimport.Options{}, dir)
	const key = "agent:main:cli:direct:alice"
	jsonl := filepath.Join(dir, "agent_main_cli_direct_alice.jsonl")
	oldLines := jsonltest.Lines(t, jsonl)
	newLines := []string{
		`{"role":"user","content":"fresh start"}`,
		`{"role":"assistant","content":"ok"}`,
	}
	if err := os.WriteFile(jsonl, []byte(newLines[0]+"\n"+newLines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(jsonl, future, future)
	rep := picoImport(t, s, jsonlimport.Options{}, dir)
	if rep.Sessions != 1 || rep.Entries != 2 {
		t.Fatalf("rewrite: sessions %d entries %d; problems %v", rep.Sessions, rep.Entries, rep.Problems)
	}
	got, err := s.Load(ctx, key, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[0].Body) != newLines[0] || string(got[1].Body) != newLines[1] {
		t.Fatalf("transcript after rewrite: %v", got)
	}
	all, err := s.Entries(ctx, key, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(oldLines)+2 {
		t.Fatalf("log has %d rows, want %d (old rows kept)", len(all), len(oldLines)+2)
	}
	for i, l := range oldLines {
		if !bytes.Equal(all[i].Body, l) {
			t.Errorf("old row %d changed", i+1)
		}
	}
	cs, _ := s.Compactions(ctx, key)
	if len(cs) != 1 || cs[0].KeepFromSeq != int64(len(oldLines)+1) {
		t.Errorf("compactions %+v, want one keeping from %d", cs, len(oldLines)+1)
	}
	// Appending after the rewrite is incremental again.
	jsonltest.Append(t, jsonl, `{"role":"user","content":"next"}`+"\n")
	rep = picoImport(t, s, jsonlimport.Options{}, dir)
	if rep.Entries != 1 {
		t.Fatalf("append after rewrite: entries %d", rep.Entries)
	}
	got, _ = s.Load(ctx, key, sessiondb.LoadOptions{})
	if len(got) != 3 {
		t.Fatalf("transcript %d, want 3", len(got))
	}
	// Rewritten to a smaller file with a skip: the skip maps onto the new
	// generation of rows.
	if err := os.WriteFile(jsonl, []byte(newLines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(jsonl, future.Add(time.Second), future.Add(time.Second))
	rep = picoImport(t, s, jsonlimport.Options{}, dir)
	got, _ = s.Load(ctx, key, sessiondb.LoadOptions{})
	if rep.Entries != 1 || len(got) != 1 || string(got[0].Body) != newLines[1] {
		t.Fatalf("second rewrite: entries %d, transcript %v", rep.Entries, got)
	}
}

// TestPicoclawExportRoundTrip exports every sample session (JSONL and
// legacy) back to picoclaw files, re-imports them into a fresh store and
// checks that transcripts (byte for byte) and metadata are the same.
func TestPicoclawExportRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := jsonltest.OpenStore(t)
	picoImport(t, src, jsonlimport.Options{}, picoDir, picoLegacyDir)
	ids := picoSortedIDs(t, src)
	if len(ids) != 19 {
		t.Fatalf("%d sessions, want 19", len(ids))
	}
	out := t.TempDir()
	files, err := jsonlimport.Export(ctx, src, ids, picoclaw.Name, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*len(ids) {
		t.Errorf("%d files written, want %d", len(files), 2*len(ids))
	}
	dst := jsonltest.OpenStore(t)
	rep := picoImport(t, dst, jsonlimport.Options{}, out)
	if rep.Sessions != len(ids) {
		got := picoSortedIDs(t, dst)
		t.Fatalf("re-import: %d sessions, want %d; problems %v\nsrc %q\ndst %q\nfiles %q", rep.Sessions, len(ids), rep.Problems, ids, got, files)
	}
	for _, id := range ids {
		a, _ := src.LoadFull(ctx, id, sessiondb.LoadOptions{})
		b, err := dst.LoadFull(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if len(a.Transcript) != len(b.Transcript) {
			t.Errorf("%s: %d messages after round trip, want %d", id, len(b.Transcript), len(a.Transcript))
			continue
		}
		for i := range a.Transcript {
			if !bytes.Equal(a.Transcript[i].Body, b.Transcript[i].Body) {
				t.Errorf("%s: message %d differs after round trip", id, i)
			}
		}
		sa, sb := a.Session, b.Session
		if sa.Summary != sb.Summary || !sa.CreatedAt.Equal(sb.CreatedAt) || !sa.UpdatedAt.Equal(sb.UpdatedAt) {
			t.Errorf("%s: meta %q %v %v, want %q %v %v", id, sb.Summary, sb.CreatedAt, sb.UpdatedAt, sa.Summary, sa.CreatedAt, sa.UpdatedAt)
		}
		if !reflect.DeepEqual(jsonl.SourceAliases(sa), jsonl.SourceAliases(sb)) {
			t.Errorf("%s: aliases %v, want %v", id, jsonl.SourceAliases(sb), jsonl.SourceAliases(sa))
		}
		if (sa.Scope == nil) != (sb.Scope == nil) || sa.Scope != nil && !reflect.DeepEqual(picoValue(t, sa.Scope), picoValue(t, sb.Scope)) {
			t.Errorf("%s: scope %s, want %s", id, sb.Scope, sa.Scope)
		}
	}
	// A truncated session keeps its hidden lines and its skip.
	lines := jsonltest.Lines(t, filepath.Join(out, "agent_main_discord_channel_998877.jsonl"))
	if len(lines) != 24 {
		t.Errorf("exported discord session has %d lines, want 24", len(lines))
	}
	var m picoclaw.Meta
	data, _ := os.ReadFile(filepath.Join(out, "agent_main_discord_channel_998877.meta.json"))
	if err := json.Unmarshal(data, &m); err != nil || m.Skip != 18 || m.Count != 24 {
		t.Errorf("exported meta %s (%v), want skip 18 count 24", data, err)
	}
	// The exported bytes of an untouched session equal the original file.
	for _, base := range []string{"agent_main_cli_direct_alice", "web_用户-🚀", "agent_main_cli_direct_bigfile"} {
		orig, _ := os.ReadFile(filepath.Join(picoDir, base+".jsonl"))
		exp, _ := os.ReadFile(filepath.Join(out, base+".jsonl"))
		if !bytes.Equal(orig, exp) {
			t.Errorf("%s.jsonl: export differs from the original file", base)
		}
	}
}

func picoSortedIDs(t *testing.T, s sessiondb.Store) []string {
	t.Helper()
	var ids []string
	for id := range jsonltest.Sequences(t, s) {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// TestPicoclawExportCollision: two sessions whose keys sanitize to the same
// file name cannot both be exported into one directory.
func TestPicoclawExportCollision(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	for _, id := range []string{"discord:555", "discord_555"} {
		if _, err := s.Commit(ctx, id, sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"x"}`)}}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := jsonlimport.Export(ctx, s, []string{"discord:555", "discord_555"}, picoclaw.Name, t.TempDir())
	if !errors.Is(err, sessiondb.ErrExists) {
		t.Fatalf("export of colliding keys: %v, want ErrExists", err)
	}
}

// TestPicoclawLineRules checks picoclaw's loose-line rules one by one.
func TestPicoclawLineRules(t *testing.T) {
	ctx := context.Background()
	huge := `{"role":"tool","content":"` + strings.Repeat("x", picoclaw.ScannerMax) + `"}`
	// Every message start of this line opens one more nesting level that
	// never closes: each recovery attempt scans to the end of the line.
	// Trying them all took 15 s for 416 KB (quadratic); this is 2.6 MB.
	nested := strings.Repeat(`{"role":"user","content":[`, 100_000) + `}`
	fragments := `{"role":"assistant","content":"par` + `{"role":"tool","content":"cut` + `{"role":"user","content":"third`
	withNested := `{"role":"user","content":"kept","extra":{"role":"inner","x":[{"role":"deeper"}]}}`
	cases := []struct {
		name     string
		content  string
		skip     int
		want     []string // transcript bodies
		problems []jsonl.Problem
	}{
		{name: "blank lines ignored", content: "\n\n" + `{"role":"user","content":"a"}` + "\n\n",
			want: []string{`{"role":"user","content":"a"}`}},
		{name: "crlf", content: `{"role":"user","content":"a"}` + "\r\n" + `{"role":"user","content":"b"}` + "\r\n",
			want: []string{`{"role":"user","content":"a"}`, `{"role":"user","content":"b"}`}},
		{name: "whitespace-only line counts", content: "  \n" + `{"role":"user","content":"a"}` + "\n" + `{"role":"user","content":"b"}` + "\n", skip: 2,
			want: []string{`{"role":"user","content":"b"}`}, problems: []jsonl.Problem{{Line: 1, Reason: "whitespace-only"}}},
		{name: "corrupt line counts for skip", content: "{bad\n" + `{"role":"user","content":"a"}` + "\n" + `{"role":"user","content":"b"}` + "\n", skip: 1,
			want: []string{`{"role":"user","content":"a"}`, `{"role":"user","content":"b"}`}, problems: []jsonl.Problem{{Line: 1, Reason: "invalid JSON"}}},
		{name: "null and empty object", content: "null\n{}\n",
			want: []string{"null", "{}"}},
		{name: "case-insensitive and unknown keys", content: `{"ROLE":"user","Content":"a","extra":1}` + "\n",
			want: []string{`{"ROLE":"user","Content":"a","extra":1}`}},
		{name: "bad created_at skips the line", content: `{"role":"user","content":"a","created_at":"yesterday"}` + "\n" + `{"role":"user","content":"b"}` + "\n",
			want: []string{`{"role":"user","content":"b"}`}, problems: []jsonl.Problem{{Line: 1, Reason: "not a picoclaw message"}}},
		{name: "wrong type skips the line", content: `{"role":"user","content":5}` + "\n[]\n",
			problems: []jsonl.Problem{{Line: 1, Reason: "not a picoclaw message"}, {Line: 2, Reason: "not a picoclaw message"}}},
		{name: "transient thought dropped", content: `{"role":"assistant","content":" ","reasoning_content":"hmm"}` + "\n" + `{"role":"assistant","content":"","reasoning_content":"r","tool_calls":[{"id":"c"}]}` + "\n",
			want: []string{`{"role":"assistant","content":"","reasoning_content":"r","tool_calls":[{"id":"c"}]}`}, problems: []jsonl.Problem{{Line: 1, Reason: "transient"}}},
		{name: "complete last line without newline", content: `{"role":"user","content":"a"}`,
			want: []string{`{"role":"user","content":"a"}`}},
		{name: "invalid utf-8 kept byte for byte", content: "{\"role\":\"user\",\"content\":\"\xff\xfe\"}\n",
			want: []string{"{\"role\":\"user\",\"content\":\"\xff\xfe\"}"}, problems: []jsonl.Problem{{Line: 1, Reason: "invalid UTF-8"}}},
		{name: "skip beyond the file hides all", content: `{"role":"user","content":"a"}` + "\n", skip: 5,
			problems: []jsonl.Problem{{Line: 0, Reason: "exceeds the 1 lines"}}},
		{name: "message after several torn fragments recovered", content: fragments + `{"role":"user","content":"whole"}` + "\n",
			want: []string{`{"role":"user","content":"whole"}`}, problems: []jsonl.Problem{{Line: 1, Reason: "torn fragment of " + strconv.Itoa(len(fragments)) + " bytes was recovered"}}},
		{name: "recovered message holding nested message starts", content: fragments + withNested + "\n",
			want: []string{withNested}, problems: []jsonl.Problem{{Line: 1, Reason: "torn fragment of " + strconv.Itoa(len(fragments)) + " bytes was recovered"}}},
		{name: "hostile line: recovery work is bounded", content: nested + "\n" + `{"role":"user","content":"after"}` + "\n",
			want: []string{`{"role":"user","content":"after"}`}, problems: []jsonl.Problem{{Line: 1, Reason: "recovery gave up"}}},
		{name: "line over picoclaw's 10 MiB limit", content: huge + "\n",
			want: []string{huge}, problems: []jsonl.Problem{{Line: 1, Reason: "10 MiB scanner limit"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			jsonl := filepath.Join(dir, "k.jsonl")
			if err := os.WriteFile(jsonl, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			meta := `{"key":"k","summary":"","skip":` + strconv.Itoa(tc.skip) + `,"count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`
			if err := os.WriteFile(filepath.Join(dir, "k.meta.json"), []byte(meta), 0o644); err != nil {
				t.Fatal(err)
			}
			s := jsonltest.OpenStore(t)
			rep := picoImport(t, s, jsonlimport.Options{}, dir)
			got, err := s.Load(ctx, "k", sessiondb.LoadOptions{})
			if err != nil {
				t.Fatalf("Load: %v (problems %v)", err, rep.Problems)
			}
			var bodies []string
			for _, e := range got {
				bodies = append(bodies, string(e.Body))
			}
			if len(bodies) != len(tc.want) {
				t.Fatalf("transcript has %d messages, want %d; problems %v", len(bodies), len(tc.want), rep.Problems)
			}
			for i := range bodies {
				if bodies[i] != tc.want[i] {
					t.Errorf("message %d = %.100q, want %.100q", i, bodies[i], tc.want[i])
				}
			}
			for _, p := range tc.problems {
				if !jsonltest.HasProblem(rep.Problems, "", p.Line, p.Reason) {
					t.Errorf("missing problem line %d %q in %v", p.Line, p.Reason, rep.Problems)
				}
			}
		})
	}
}

// TestPicoclawClaim checks detection by name and content.
func TestPicoclawClaim(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paired := write("a.jsonl", "garbage\n")
	pairedMeta := write("a.meta.json", `{"key":"a"}`)
	lone := write("b.jsonl", `{"role":"user","content":"x"}`+"\n")
	metaOnly := write("c.meta.json", `{"key":"c"}`)
	legacy := write("d.json", `{"key":"d","messages":[]}`)
	notLegacy := write("e.json", `{"key":"e","file_base":"e"}`)
	other := write("f.jsonl", `{"type":"meta"}`+"\n")
	text := write("g.txt", "hello")
	files := []string{paired, pairedMeta, lone, metaOnly, legacy, notLegacy, other, text}
	sort.Strings(files)
	units, rest := picoclaw.Format{}.Claim(files)
	want := []jsonl.Unit{
		{Format: picoclaw.Name, Path: paired, Extra: []string{pairedMeta}},
		{Format: picoclaw.Name, Path: lone},
		{Format: picoclaw.Name, Path: metaOnly},
		{Format: picoclaw.Name, Path: legacy},
	}
	if d := cmp.Diff(want, units); d != "" {
		t.Errorf("units (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{notLegacy, other, text}, rest); d != "" {
		t.Errorf("rest (-want +got):\n%s", d)
	}
	// A meta named alone brings its .jsonl; a .jsonl named alone its meta.
	units, rest = picoclaw.Format{}.Claim([]string{pairedMeta})
	if d := cmp.Diff([]jsonl.Unit{{Format: picoclaw.Name, Path: paired, Extra: []string{pairedMeta}}}, units); d != "" || len(rest) != 0 {
		t.Errorf("meta alone (-want +got):\n%s rest %v", d, rest)
	}
	units, _ = picoclaw.Format{}.Claim([]string{paired})
	if d := cmp.Diff([]jsonl.Unit{{Format: picoclaw.Name, Path: paired, Extra: []string{pairedMeta}}}, units); d != "" {
		t.Errorf(".jsonl alone (-want +got):\n%s", d)
	}
}

var picoUpdate = flag.Bool("picoclaw.update", false, "rewrite testdata/picoclaw-golden/*.json")

// picoImportSummary is what the damaged-input golden records per folder:
// the transcript's roles and contents and every problem reported (paths
// relative to the folder).
type picoImportSummary struct {
	Messages []string        `json:"messages"`
	Problems []jsonl.Problem `json:"problems"`
	Notes    []jsonl.Problem `json:"notes,omitempty"`
}

// TestPicoclawDamagedGolden locks down, for every picoclaw-damaged folder,
// the exact transcript and problem report of an import. Run with
// -picoclaw.update to rewrite testdata/picoclaw-golden/damaged.json.
func TestPicoclawDamagedGolden(t *testing.T) {
	ctx := context.Background()
	dirs, err := os.ReadDir(picoDamagedDir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]picoImportSummary{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(picoDamagedDir, d.Name())
		abs := mustAbs(t, dir)
		s := jsonltest.OpenStore(t)
		rep := picoImport(t, s, jsonlimport.Options{}, dir)
		var sum picoImportSummary
		for _, p := range rep.Problems {
			p.Path = strings.TrimPrefix(p.Path, abs+string(filepath.Separator))
			sum.Problems = append(sum.Problems, p)
		}
		for _, p := range rep.Notes {
			p.Path = strings.TrimPrefix(p.Path, abs+string(filepath.Separator))
			sum.Notes = append(sum.Notes, p)
		}
		ids := picoSortedIDs(t, s)
		if len(ids) != 1 {
			t.Fatalf("%s: %d sessions", d.Name(), len(ids))
		}
		tr, err := s.Load(ctx, ids[0], sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tr {
			var m picoclaw.Message
			if err := json.Unmarshal(e.Body, &m); err != nil {
				t.Fatal(err)
			}
			c := m.Content
			if len(c) > 40 {
				c = c[:40]
			}
			sum.Messages = append(sum.Messages, m.Role+": "+c)
		}
		got[d.Name()] = sum
	}
	golden := filepath.Join("..", "..", "testdata", "picoclaw-golden", "damaged.json")
	if *picoUpdate {
		data, _ := json.MarshalIndent(got, "", "  ")
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -picoclaw.update to create it)", err)
	}
	var want map[string]picoImportSummary
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("damaged imports differ from %s (-want +got):\n%s", golden, d)
	}
}

// TestPicoclawAliasOfPlainKey: a routed session listing another session's
// opaque key as an alias (picoclaw's main-session aliases) is imported
// first in path order; the session with that key is still imported and
// names itself, as picoclaw's ResolveSessionKey resolves it.
func TestPicoclawAliasOfPlainKey(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const router, main = "sk_v1_aaaa", "sk_v1_bbbb"
	write := func(key, meta string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, key+".jsonl"), []byte(`{"role":"user","content":"in `+key+`"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, key+".meta.json"), []byte(meta), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(router, `{"key":"`+router+`","skip":0,"count":1,"created_at":"2026-03-01T10:00:00Z","updated_at":"2026-03-01T10:00:00Z","aliases":["agent:main:main","`+main+`"]}`)
	write(main, `{"key":"`+main+`","skip":0,"count":1,"created_at":"2026-03-01T10:00:00Z","updated_at":"2026-03-01T10:00:00Z"}`)
	s := jsonltest.OpenStore(t)
	rep := picoImport(t, s, jsonlimport.Options{}, dir)
	if rep.Sessions != 2 || len(rep.Problems) != 0 {
		t.Fatalf("report: %d sessions, problems %v; want 2 and none", rep.Sessions, rep.Problems)
	}
	for key, want := range map[string]string{main: main, router: router, "agent:main:main": router} {
		if id, err := s.Resolve(ctx, key); err != nil || id != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", key, id, err, want)
		}
	}
	if g, err := s.Get(ctx, router); err != nil || !slices.Equal(g.Aliases, []string{"agent:main:main", main}) {
		t.Errorf("router aliases %q, %v", g.Aliases, err)
	}
}

// mustAbs returns the absolute form of p.
func mustAbs(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
