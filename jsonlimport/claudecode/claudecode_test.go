package claudecode_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// ccTestdata holds Claude Code fixtures built line by line from the shapes
// of formats/wild.md §1 (Claude Code cannot be run here), with every
// corruption case listed there.
var (
	ccTestdata = filepath.Join("..", "..", "testdata", "claudecode")
	piTestdata = filepath.Join("..", "..", "testdata", "pi")
)

func ccLabel(e sessiondb.Entry) string {
	var l struct {
		UUID string `json:"uuid"`
	}
	_ = json.Unmarshal(e.Body, &l)
	return l.UUID
}

// TestClaudeCodeGolden imports the Claude Code fixtures and compares every
// session (transcript = the resume path, compactions, usage, problems) with
// testdata/claudecode/expected. The goldens were checked by hand against
// the rules in claudecode.go; see also TestClaudeCodeTranscripts, which
// states the resume paths independently.
func TestClaudeCodeGolden(t *testing.T) {
	got := wildtest.Snapshot(t, claudecode.Name, filepath.Join(ccTestdata, "projects"), ccLabel)
	wildtest.CheckGoldens(t, filepath.Join(ccTestdata, "expected"), got, 6)
}

// TestClaudeCodeTranscripts states the expected resume path of each fixture
// by hand (the uuids Claude Code walks from the newest message back to a
// root), independently of the golden files.
func TestClaudeCodeTranscripts(t *testing.T) {
	got := wildtest.Snapshot(t, claudecode.Name, filepath.Join(ccTestdata, "projects"), ccLabel)
	e := func(n int) string { return fmt.Sprintf("e3000000-0000-4000-8000-%012d", n) }
	b := func(n int) string { return fmt.Sprintf("b2000000-0000-4000-8000-%012d", n) }
	d := func(n int) string { return fmt.Sprintf("d3000000-0000-4000-8000-%012d", n) }
	const dir = "-home-dev-proj/5c2d8e41-0000-4000-8000-00000000000"
	want := map[string][]string{
		// After compact_boundary: the summary, then the new turn.
		dir + "1.jsonl":                          {"c1000000-0000-4000-8000-000000000002", e(6), e(7)},
		dir + "1/subagents/agent-a1b2c3d4.jsonl": {"s1000000-0000-4000-8000-000000000001", "s1000000-0000-4000-8000-000000000002"},
		// The edited prompt b5 replaces b3/b4; side chains b10/b11 are not on the path.
		dir + "2.jsonl": {b(1), b(2), b(5), b(6)},
		// d3's parent was never written; d90 was torn (its glued successor
		// d4 recovered); d5 sat behind NULs; d7 is a <synthetic> stop.
		dir + "3.jsonl":                          {d(3), d(4), d(5), d(6), d(7)},
		dir + "4.jsonl":                          {"f4000000-0000-4000-8000-000000000001", "f4000000-0000-4000-8000-000000000002"},
		dir + "5/subagents/agent-ffee0011.jsonl": {"o5000000-0000-4000-8000-000000000001"},
	}
	for rel, w := range want {
		g, ok := got[rel]
		if !ok {
			t.Fatalf("%s not imported", rel)
		}
		if diff := cmp.Diff(w, g.Transcript); diff != "" {
			t.Errorf("%s transcript (-want +got):\n%s", rel, diff)
		}
	}
	if g := got[dir+"1/subagents/agent-a1b2c3d4.jsonl"]; g.ParentID != "5c2d8e41-0000-4000-8000-000000000001" || g.ID != "5c2d8e41-0000-4000-8000-000000000001:agent-a1b2c3d4" {
		t.Errorf("sub-agent session %q parent %q", g.ID, g.ParentID)
	}
	if g := got[dir+"1.jsonl"]; g.Title != "Add retry to uploader" {
		t.Errorf("title %q", g.Title)
	}
}

// TestClaudeCodeLogBytes checks that every readable line is in the log
// byte for byte, in file order, with unknown line types kept as data.
func TestClaudeCodeLogBytes(t *testing.T) {
	path := filepath.Join(ccTestdata, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000001.jsonl")
	p, err := claudecode.Format{}.Parse(context.Background(), jsonl.Unit{Format: claudecode.Name, Path: path}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	if len(p.Entries) != len(lines) {
		t.Fatalf("%d entries, %d lines", len(p.Entries), len(lines))
	}
	for i, l := range lines {
		if !bytes.Equal(p.Entries[i].Body, l) {
			t.Fatalf("entry %d differs from line %d", i+1, i+1)
		}
	}
	if k := p.Entries[len(lines)-1].Kind; k != "future-line-kind" {
		t.Fatalf("unknown line type kept as kind %q", k)
	}
	if len(p.Problems) != 0 {
		t.Fatalf("problems on a clean file: %v", p.Problems)
	}
}

// ccDedupTotals is an independent de-duplicating reader, written the way
// ccusage 20 reads Claude Code files (testdata/gen/ccusage/README.md):
// every assistant line with message.usage, one report per message.id +
// requestId (the largest total, the first on a tie), model "<synthetic>"
// skipped; totals per UTC day (of the report kept) and model.
type report struct {
	key string
	v   [4]int64
}

func (r report) total() int64 { return r.v[0] + r.v[1] + r.v[2] + r.v[3] }

func ccDedupTotals(t *testing.T, root string) map[string][4]int64 {
	t.Helper()
	out := map[string][4]int64{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		kept := map[string]report{}
		for _, line := range bytes.Split(raw, []byte("\n")) {
			line = bytes.Trim(line, "\x00")
			var l struct {
				Type      string `json:"type"`
				Timestamp string `json:"timestamp"`
				RequestID string `json:"requestId"`
				Message   struct {
					ID    string `json:"id"`
					Model string `json:"model"`
					Usage *struct {
						In, Out, CR, CW int64
					} `json:"usage"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &l) != nil || l.Type != "assistant" || l.Message.Usage == nil || l.Message.Model == "<synthetic>" {
				continue
			}
			var u struct {
				In  int64 `json:"input_tokens"`
				Out int64 `json:"output_tokens"`
				CR  int64 `json:"cache_read_input_tokens"`
				CW  int64 `json:"cache_creation_input_tokens"`
			}
			var m struct {
				Message struct {
					Usage json.RawMessage `json:"usage"`
				} `json:"message"`
			}
			_ = json.Unmarshal(line, &m)
			_ = json.Unmarshal(m.Message.Usage, &u)
			key := l.Message.ID + "|" + l.RequestID
			if l.Message.ID == "" {
				key = fmt.Sprint(len(kept))
			}
			r := report{l.Timestamp[:10] + " " + l.Message.Model, [4]int64{u.In, u.Out, u.CR, u.CW}}
			if old, ok := kept[key]; !ok || r.total() > old.total() {
				kept[key] = r
			}
		}
		for _, r := range kept {
			v := out[r.key]
			out[r.key] = [4]int64{v[0] + r.v[0], v[1] + r.v[1], v[2] + r.v[2], v[3] + r.v[3]}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClaudeCodeUsageDaily checks that usage_daily, summed over sessions,
// gives per day and model the input/output/cache totals of a
// de-duplicating reader.
func TestClaudeCodeUsageDaily(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	root := filepath.Join(ccTestdata, "projects")
	if _, err := jsonlimport.Import(ctx, s, []string{root}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	want := ccDedupTotals(t, root)
	// The one documented difference: sessiondb recovers msg_d4, glued onto
	// a torn line, which a line-by-line reader cannot parse.
	v := want["2026-01-13 claude-sonnet-4-5"]
	want["2026-01-13 claude-sonnet-4-5"] = [4]int64{v[0] + 7, v[1] + 6, v[2], v[3]}
	got := wildtest.UsageDaily(t, s)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("usage_daily (-dedup reader +sessiondb):\n%s", d)
	}
	// The streamed response msg_01 spans two lines and counts once:
	// msg_01 + msg_02.
	if v := got["2026-01-10 claude-sonnet-4-5"]; v != [4]int64{12 + 30, 40 + 25, 1000 + 1200, 200} {
		t.Fatalf("sonnet 2026-01-10: %v", v)
	}
}

// TestClaudeCodeResume grows transcripts through the importer: a turn
// appended, an edited prompt (a new branch), a side-chain message. The
// reader always reads the whole file (Parse refuses an offset), and the
// importer appends only the new lines: the log holds each line once and
// the session equals a one-shot import of the final file.
func TestClaudeCodeResume(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(ccTestdata, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000001.jsonl")
	raw, _ := os.ReadFile(src)
	lines := bytes.SplitAfter(raw, []byte("\n"))
	dir := t.TempDir()
	path := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(path, bytes.Join(lines[:7], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := claudecode.Format{}.Parse(ctx, jsonl.Unit{Format: claudecode.Name, Path: path}, jsonl.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	from := jsonl.Resume{Offset: first.Offset, Entries: len(first.Entries), State: first.ResumeState}
	if _, err := (claudecode.Format{}).Parse(ctx, jsonl.Unit{Format: claudecode.Name, Path: path}, from); !errors.Is(err, jsonl.ErrNotIncremental) {
		t.Fatalf("resume at an offset: %v, want ErrNotIncremental", err)
	}

	side := `{"parentUuid":null,"isSidechain":true,"sessionId":"5c2d8e41-0000-4000-8000-000000000001","type":"user","message":{"role":"user","content":"side"},"uuid":"side-1","timestamp":"2026-01-10T09:00:10.000Z"}` + "\n"
	next := `{"parentUuid":"e3000000-0000-4000-8000-000000000005","isSidechain":false,"sessionId":"5c2d8e41-0000-4000-8000-000000000001","type":"user","message":{"role":"user","content":"next"},"uuid":"next-1","timestamp":"2026-01-10T09:00:11.000Z"}` + "\n"
	b := filepath.Join(ccTestdata, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl")
	braw, _ := os.ReadFile(b)
	blines := bytes.SplitAfter(braw, []byte("\n"))
	head := bytes.Join(lines[:7], nil)
	for _, tc := range []struct {
		name          string
		prefix, whole []byte
	}{
		{"a turn appended", head, raw},
		{"an edited prompt", bytes.Join(blines[:5], nil), braw},
		{"a side-chain message", head, append(append([]byte{}, head...), side...)},
		{"a side-chain message, then a turn", head, append(append(append([]byte{}, head...), side...), next...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "5c2d8e41-0000-4000-8000-000000000009.jsonl")
			since := time.Now().Add(-time.Second)
			grown := jsonltest.OpenStore(t)
			os.WriteFile(p, tc.prefix, 0o644)
			if _, err := jsonlimport.Import(ctx, grown, []string{p}, jsonlimport.Options{}); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(p, tc.whole, 0o644)
			rep, err := jsonlimport.Import(ctx, grown, []string{p}, jsonlimport.Options{})
			if err != nil || len(rep.Problems) > 0 && strings.Contains(rep.Problems[0].Reason, "replacement") {
				t.Fatalf("grown import: %+v %v", rep, err)
			}
			once := jsonltest.OpenStore(t)
			if _, err := jsonlimport.Import(ctx, once, []string{p}, jsonlimport.Options{}); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since)); d != "" {
				t.Fatalf("grown (-one-shot +grown):\n%s", d)
			}
			rep, err = jsonlimport.Import(ctx, grown, []string{p}, jsonlimport.Options{})
			if err != nil || rep.Unchanged != 1 {
				t.Fatalf("unchanged import: %+v %v", rep, err)
			}
		})
	}
}

// TestClaudeCodeClaim checks detection by content: a Claude Code file under
// any name is claimed, other formats' files are not.
func TestClaudeCodeClaim(t *testing.T) {
	dir := t.TempDir()
	cc := filepath.Join(dir, "whatever.jsonl")
	jsonltest.CopyFile(t, filepath.Join(ccTestdata, "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl"), cc)
	pi := filepath.Join(dir, "pi.jsonl")
	jsonltest.CopyFile(t, filepath.Join(piTestdata, "sessions", "linear.jsonl"), pi)
	files := []string{cc, pi}
	sort.Strings(files)
	units, rest := claudecode.Format{}.Claim(files)
	if len(units) != 1 || units[0].Path != cc || len(rest) != 1 || rest[0] != pi {
		t.Fatalf("units %v rest %v", units, rest)
	}
}
