package jsonlimport

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb/internal/freshstore"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// growthFuzzFormats are where FuzzGrowth writes a file of each format, so
// that the format claims it by its layout or first line.
var growthFuzzFormats = []struct {
	format string
	rel    string
}{
	{FormatClaudeCode, "projects/-w/5c2d8e41-0000-4000-8000-00000000f022.jsonl"},
	{FormatPi, "pi/fz.jsonl"},
	{FormatZot, "zot/sessions/0123456789abcdef/20261129-124252-f0220000.jsonl"},
	{FormatCodex, "codex/sessions/2026/01/10/rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-00000000f022.jsonl"},
}

// FuzzGrowth cuts a file at an arbitrary byte, imports the prefix, then
// the whole file, and checks that the store equals one import of the
// whole file (issue 21, item 0): the log, the transcript, the usage, the
// metadata and the forks. The seeds are the fixtures of the four
// append-only formats and the new shapes of the real corpus (parallel
// tool calls, streamed usage, a workflow agent).
//
// One growth is outside the rule and skipped: a prefix whose last line
// is a complete JSON object without its newline is consumed (a line that
// is a whole object cannot grow, DESIGN says), so bytes glued onto it
// later make another line than a one-shot read sees.
func FuzzGrowth(f *testing.F) {
	seeds := map[int][]string{
		0: {"../testdata/claudecode/projects/-home-dev-proj/5c2d8e41-0000-4000-8000-000000000001.jsonl",
			"../testdata/claudecode/projects/-home-dev-proj/5c2d8e41-0000-4000-8000-000000000002.jsonl"},
		1: {"../testdata/pi/sessions/branched.jsonl", "../testdata/pi/sessions/compaction.jsonl"},
		2: {"../testdata/zot-damaged/10-crash-orphan-tool-use.jsonl", "../testdata/zot-compaction/zot_home/sessions/70490179fb06dad3/20260510-080000-5b0c7a1e.jsonl"},
		3: {"../testdata/codex/codex-home/sessions/2026/01/10/rollout-2026-01-10T09-00-00-019f26cb-0000-7000-8000-000000000001.jsonl"},
	}
	for k, files := range seeds {
		for _, p := range files {
			raw, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			f.Add(uint8(k), raw, uint32(len(raw)/2))
		}
	}
	f.Add(uint8(0), []byte(ccParallelSeed), uint32(len(ccParallelSeed)*2/3))
	f.Fuzz(func(t *testing.T, which uint8, content []byte, cut uint32) {
		if len(content) > 1<<16 {
			return
		}
		fm := growthFuzzFormats[int(which)%len(growthFuzzFormats)]
		c := int(cut) % (len(content) + 1)
		if glued(content, c) {
			t.Skip("the prefix ends in a whole object that the rest continues")
		}
		dir := t.TempDir()
		path := filepath.Join(dir, filepath.FromSlash(fm.rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		since := time.Now().Add(-time.Second)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		once := openFastStore(t)
		if _, err := Import(ctx, once, []string{path}, Options{Jobs: 1}); err != nil {
			t.Fatalf("one-shot import: %v", err)
		}
		// Grown without and with a Follow (as sessionctl watch grows it).
		for _, follow := range []*Follow{nil, NewFollow()} {
			grown := openFastStore(t)
			for _, b := range [][]byte{content[:c], content} {
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := Import(ctx, grown, []string{path}, Options{Jobs: 1, Follow: follow}); err != nil {
					t.Fatalf("import: %v", err)
				}
			}
			if d := cmp.Diff(jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since)); d != "" {
				t.Fatalf("%s cut at %d of %d, follow %v (-one-shot +grown):\n%s", fm.format, c, len(content), follow != nil, d)
			}
		}
	})
}

// openFastStore opens a store without fsync: a fuzz target opens two per
// input.
func openFastStore(tb testing.TB) *sqlstore.Store {
	tb.Helper()
	return freshstore.Open(tb, &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
}

// glued reports whether content cut at c ends in a line without newline
// that is a complete JSON object and that the rest of the file continues
// on the same line.
func glued(content []byte, c int) bool {
	start := bytes.LastIndexByte(content[:c], '\n') + 1
	last := bytes.TrimSpace(bytes.TrimRight(content[start:c], "\r"))
	if len(last) == 0 || last[0] != '{' || !json.Valid(last) {
		return false
	}
	return c < len(content) && content[c] != '\n' && content[c] != '\r'
}

// ccParallelSeed is a Claude Code 2.1 turn as the real corpus shows it: a
// streamed response (thinking, two tool_use blocks, one line each, partial
// usage on the early lines), the result of each call hanging off its own
// tool_use line, the next block of the response hanging off a result, a
// progress line, and the next response hanging off the last result.
const ccParallelSeed = `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"go"},"uuid":"u1","timestamp":"2026-01-10T09:00:00.000Z","sessionId":"5c2d8e41-0000-4000-8000-00000000f022"}
{"parentUuid":"u1","isSidechain":false,"type":"assistant","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"x"}],"usage":{"input_tokens":3,"output_tokens":1,"cache_read_input_tokens":100}},"uuid":"a1","timestamp":"2026-01-10T09:00:01.000Z","sessionId":"5c2d8e41-0000-4000-8000-00000000f022"}
{"parentUuid":"a1","isSidechain":false,"type":"assistant","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}],"usage":{"input_tokens":3,"output_tokens":1,"cache_read_input_tokens":100}},"uuid":"a2","timestamp":"2026-01-10T09:00:02.000Z","sessionId":"5c2d8e41-0000-4000-8000-00000000f022"}
{"parentUuid":"a2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"one"}]},"uuid":"r1","timestamp":"2026-01-10T09:00:03.000Z","sessionId":"5c2d8e41-0000-4000-8000-00000000f022"}
{"parentUuid":"r1","isSidechain":false,"type":"assistant","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t2","name":"Read","input":{}}],"usage":{"input_tokens":3,"output_tokens":80,"cache_read_input_tokens":100}},"uuid":"a3","timestamp":"2026-01-10T09:00:04.000Z","sessionId":"5c2d8e41-0000-4000-8000-00000000f022"}
{"parentUuid":"a3","isSidechain":false,"type":"progress","data":{"type":"hook_progress"},"uuid":"p1","timestamp":"2026-01-10T09:00:04.500Z","sessionId":"5c2d8e41-0000-4000-8000-00000000f022"}
{"parentUuid":"a3","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"two"}]},"uuid":"r2","timestamp":"2026-01-10T09:00:05.000Z","sessionId":"5c2d8e41-0000-4000-8000-00000000f022"}
{"parentUuid":"r2","isSidechain":false,"type":"assistant","requestId":"r2","message":{"id":"m2","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":5,"output_tokens":9,"cache_read_input_tokens":300}},"uuid":"a4","timestamp":"2026-01-10T09:00:06.000Z","sessionId":"5c2d8e41-0000-4000-8000-00000000f022"}
{"type":"ai-title","aiTitle":"Read two files","sessionId":"5c2d8e41-0000-4000-8000-00000000f022"}
`
