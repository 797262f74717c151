package jsonlimport

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// wildFuzzSeeds adds every line of the fixture files under dirs (and the
// extra strings) to f's corpus.
func wildFuzzSeeds(f *testing.F, dirs []string, extra ...string) {
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return nil
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			for _, line := range bytes.Split(raw, []byte("\n")) {
				if len(line) < 1<<14 {
					f.Add(line)
				}
			}
			return nil
		})
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// fuzzWild puts one arbitrary line between head and tail lines of a file of
// format fm and checks the reader's invariants: it never fails or panics,
// consumes the file whole, returns valid entries (the tail line last, byte
// for byte), compaction points inside the log, valid attrs, problems with
// path and line; and resuming after the fuzzed line gives the same entries
// as reading the whole file, or ErrNotIncremental.
func fuzzWild(t *testing.T, fm Format, name, head, line, tail string) {
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	pre := head + "\n" + line + "\n"
	content := pre + tail + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u := Unit{Format: fm.Name(), Path: path}
	p, err := fm.Parse(ctx, u, Resume{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if p.Offset != int64(len(content)) {
		t.Fatalf("Offset %d, file %d", p.Offset, len(content))
	}
	if err := sessiondb.ValidateID(p.Session.ID); err != nil {
		t.Fatalf("session ID: %v", err)
	}
	if n := len(p.Entries); n == 0 || string(p.Entries[n-1].Body) != tail {
		t.Fatalf("last entry is not the tail line: %d entries", n)
	}
	for _, e := range p.Entries {
		if err := sessiondb.ValidateEntry(e); err != nil {
			t.Fatalf("entry %s: %v", e.Body, err)
		}
	}
	for _, c := range p.Compactions {
		if c.KeepFromSeq < 1 || c.KeepFromSeq > int64(len(p.Entries))+1 {
			t.Fatalf("compaction keeps from %d with %d entries", c.KeepFromSeq, len(p.Entries))
		}
		for _, e := range c.Summary {
			if err := sessiondb.ValidateEntry(e); err != nil {
				t.Fatalf("summary entry %s: %v", e.Body, err)
			}
		}
	}
	for _, us := range p.Usage {
		if us.Seq < 0 || us.Seq > int64(len(p.Entries)) {
			t.Fatalf("usage row at %d with %d entries", us.Seq, len(p.Entries))
		}
	}
	if p.Session.Attrs != nil {
		if err := sessiondb.ValidateJSON("attrs", p.Session.Attrs); err != nil {
			t.Fatal(err)
		}
	}
	for _, pr := range p.Problems {
		if pr.Path != path || pr.Reason == "" || pr.Line < 0 {
			t.Fatalf("problem %+v", pr)
		}
	}

	if err := os.WriteFile(path, []byte(pre), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := fm.Parse(ctx, u, Resume{})
	if err != nil {
		t.Fatalf("parse head: %v", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := fm.Parse(ctx, u, Resume{Offset: first.Offset, Entries: len(first.Entries), State: first.ResumeState})
	if errors.Is(err, ErrNotIncremental) {
		return
	}
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	all := append(append([]sessiondb.Entry{}, first.Entries...), second.Entries...)
	if len(all) != len(p.Entries) {
		t.Fatalf("resumed %d+%d entries, whole %d", len(first.Entries), len(second.Entries), len(p.Entries))
	}
	for i := range all {
		if !bytes.Equal(all[i].Body, p.Entries[i].Body) || all[i].Kind != p.Entries[i].Kind {
			t.Fatalf("entry %d: resumed %s, whole %s", i+1, all[i].Body, p.Entries[i].Body)
		}
	}
	if second.Session.ID != p.Session.ID {
		t.Fatalf("session %q, whole %q", second.Session.ID, p.Session.ID)
	}
	if len(first.Usage)+len(second.Usage) != len(p.Usage) {
		t.Fatalf("usage rows %d+%d, whole %d", len(first.Usage), len(second.Usage), len(p.Usage))
	}
}

// FuzzClaudeCodeLine fuzzes one line of a Claude Code transcript.
func FuzzClaudeCodeLine(f *testing.F) {
	wildFuzzSeeds(f, []string{ccTestdata},
		`{"type":"user","uuid":"a","parentUuid":"a","message":{"role":"user","content":"cycle"}}`,
		`{"type":"assistant","uuid":"h","parentUuid":"u1","message":{"id":"m","model":"<synthetic>","usage":{}}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"compactMetadata":{"preTokens":"x"}}`,
		"\x00\x00{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"u1\"}",
		`{"type":"user","message":null,"uuid":"n"}`,
		`{"type":"assistant","uuid":"u9","parentUuid":"u1","requestId":"r","message":{"id":"m1","role":"assistant","usage":{"input_tokens":-1}}}`,
		// Shapes of the real corpus: a further block of the tail's
		// response, a result line hanging off its own tool_use line, a
		// response without requestId, a progress line embedding a
		// sub-agent message, newer line types, a workflow agent's line.
		`{"parentUuid":"u2","sessionId":"fz","type":"assistant","requestId":"r9","message":{"id":"m9","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t9","name":"Read","input":{}}],"usage":{"input_tokens":1,"output_tokens":40}},"uuid":"u3","timestamp":"2026-01-10T09:00:06.000Z"}`,
		`{"parentUuid":"u1","sessionId":"fz","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"x"}]},"uuid":"u4"}`,
		`{"parentUuid":"u1","sessionId":"fz","type":"assistant","message":{"id":"gw-1","role":"assistant","model":"deepseek-v4-pro","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":9,"output_tokens":9}},"uuid":"u5","timestamp":"2026-01-10T09:00:02.000Z"}`,
		`{"parentUuid":"u1","type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","message":{"id":"m9","usage":{"output_tokens":1}},"timestamp":"2026-01-10T09:00:03.000Z"}},"uuid":"p1","sessionId":"fz"}`,
		`{"type":"ai-title","aiTitle":"t","sessionId":"fz"}`,
		`{"type":"custom-title","customTitle":"c","sessionId":"fz"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-10T09:00:00.000Z","sessionId":"fz"}`,
		`{"type":"file-history-snapshot","messageId":"u1","snapshot":{"messageId":"u1","trackedFileBackups":{},"timestamp":"bad"},"isSnapshotUpdate":false}`,
		`{"parentUuid":null,"isSidechain":true,"agentId":"w1","sessionId":"other","type":"user","message":{"role":"user","content":"wf"},"uuid":"w1","timestamp":"2026-01-10T09:00:00.000Z"}`,
	)
	const head = `{"parentUuid":null,"sessionId":"fz","type":"user","message":{"role":"user","content":"start"},"uuid":"u1","timestamp":"2026-01-10T09:00:00.000Z"}`
	const tail = `{"parentUuid":"u1","sessionId":"fz","type":"assistant","requestId":"r9","message":{"id":"m9","role":"assistant","model":"m","content":[{"type":"text","text":"end"}],"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"u2","timestamp":"2026-01-10T09:00:05.000Z"}`
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzWild(t, ClaudeCode{}, "fz.jsonl", head, string(line), tail)
	})
}

// FuzzCodexLine fuzzes one line of a Codex rollout.
func FuzzCodexLine(f *testing.F) {
	wildFuzzSeeds(f, []string{codexTestdata},
		`{"timestamp":"x","type":"compacted","payload":{"replacement_history":[1,"a",null]}}`,
		`{"timestamp":"2026-01-10T09:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":-9}}}}`,
		`{"timestamp":"2026-01-10T09:00:00Z","type":"session_meta","payload":{"id":"other"}}`,
		`{"type":"session_meta","id":"legacy"}`,
		`{"record_type":"state"}`,
		"{\"timestamp\":\"2026-01-10T09:00:00Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"text\":\"\xff\"}]}}",
	)
	const head = `{"timestamp":"2026-01-10T09:00:00.000Z","type":"session_meta","payload":{"id":"fz","cwd":"/w","model_provider":"openai"}}`
	const tail = `{"timestamp":"2026-01-10T09:00:09.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"end"}]}}`
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzWild(t, Codex{}, "fz.jsonl", head, string(line), tail)
	})
}

// FuzzPiLine fuzzes one line of a pi session file.
func FuzzPiLine(f *testing.F) {
	wildFuzzSeeds(f, []string{piTestdata},
		`{"type":"compaction","id":"c","parentId":"a","firstKeptEntryId":"zz","summary":"s","tokensBefore":"x"}`,
		`{"type":"message","id":"a","parentId":"a","message":{"role":"user","content":"cycle"}}`,
		`{"type":"label","id":"l","parentId":"a","targetId":"a"}`,
		`{"type":"session","id":"second","cwd":"/x"}`,
		`{"type":"branch_summary","id":"b","parentId":null,"summary":0}`,
		"\x00\x00{\"type\":\"session_info\",\"id\":\"i\",\"parentId\":\"a\",\"name\":\"n\"}",
	)
	const head = `{"type":"session","version":3,"id":"fz","timestamp":"2026-01-10T09:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-10T09:00:01.000Z","message":{"role":"user","content":"start","timestamp":1}}`
	const tail = `{"type":"message","id":"z","parentId":"a","timestamp":"2026-01-10T09:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"end"}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"total":0.1}},"timestamp":9}}`
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzWild(t, Pi{}, "fz.jsonl", head, string(line), tail)
	})
}
