package torture

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// hostileParallelTranscript is a Claude Code file of one user prompt and
// one streamed response of n tool calls written as Claude Code 2.1 writes
// parallel calls, taken to an extreme: each tool_use block its own line,
// each the child of the previous, each result the child of its own
// tool_use line, the next block hanging off that result, and every
// early line with partial usage.
func hostileParallelTranscript(n int) []byte {
	const sid = "5c2d8e41-0000-4000-8000-0000000b0a7d"
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"parentUuid":null,"isSidechain":false,"sessionId":%q,"type":"user","message":{"role":"user","content":"go"},"uuid":"u0","timestamp":"2026-01-10T09:00:00.000Z"}`+"\n", sid)
	parent := "u0"
	for i := 1; i <= n; i++ {
		out := 1
		if i == n {
			out = 5000
		}
		fmt.Fprintf(&b, `{"parentUuid":%q,"isSidechain":false,"sessionId":%q,"type":"assistant","requestId":"req","message":{"id":"msg","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t%d","name":"Read","input":{}}],"usage":{"input_tokens":10,"output_tokens":%d}},"uuid":"a%d","timestamp":"2026-01-10T09:00:01.000Z"}`+"\n", parent, sid, i, out, i)
		fmt.Fprintf(&b, `{"parentUuid":"a%d","isSidechain":false,"sessionId":%q,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"r"}]},"uuid":"r%d","timestamp":"2026-01-10T09:00:02.000Z"}`+"\n", i, sid, i, i)
		parent = fmt.Sprintf("r%d", i)
	}
	return b.Bytes()
}

// TestHostileClaudeCodeGrowth imports a Claude Code transcript of one
// response with 5,000 parallel tool calls (1,000 in the quick run) while
// it grows (eight prefixes, each cut in the middle of a line, then
// whole): every line must be in the log once, the response must be one
// message with one message of results, every call answered in the
// transcript, the usage counted once with the final report, and the store
// equal to one import of the whole file.
func TestHostileClaudeCodeGrowth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	calls := longtest.Size(1000, 5000)
	content := hostileParallelTranscript(calls)
	dir := filepath.Join(t.TempDir(), "projects", "-w")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "5c2d8e41-0000-4000-8000-0000000b0a7d.jsonl")
	open := func(name string) *sqlstore.Store {
		s, err := sqlstore.Open(filepath.Join(t.TempDir(), name), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	grown := open("grown.db")
	for k := 1; k <= 8; k++ {
		cut := len(content) * k / 9
		cut += bytes.IndexByte(content[cut:], '"') // inside a line
		if err := os.WriteFile(path, content[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := jsonlimport.Import(ctx, grown, []string{path}, jsonlimport.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := jsonlimport.Import(ctx, grown, []string{path}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	once := open("once.db")
	if _, err := jsonlimport.Import(ctx, once, []string{path}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	const id = "5c2d8e41-0000-4000-8000-0000000b0a7d"
	for name, s := range map[string]*sqlstore.Store{"grown": grown, "one-shot": once} {
		log, err := s.Entries(ctx, id, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != 1+2*calls {
			t.Fatalf("%s: %d log entries, the file has %d lines", name, len(log), 1+2*calls)
		}
		full, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, e := range full.Transcript {
			kinds[e.Kind]++
		}
		if kinds[sessiondb.KindMessage] != 3 || kinds[sessiondb.KindMessagePart] != 2*calls-2 {
			t.Errorf("%s: transcript kinds %v, want the prompt, the response and its results as 3 messages", name, kinds)
		}
		tot, err := s.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if tot.Calls != 1 || tot.OutputTokens != 5000 || tot.InputTokens != 10 {
			t.Errorf("%s: usage %+v, want one call with the final report", name, tot)
		}
	}
}
