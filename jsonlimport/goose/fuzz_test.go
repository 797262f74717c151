package goose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// checkParsed: every entry body is JSON the message reader reads, usage
// is never negative nor infinite, and a compaction names an entry.
func checkParsed(t *testing.T, pd *jsonl.Parsed) {
	t.Helper()
	for _, e := range pd.Entries {
		if !json.Valid(e.Body) {
			t.Fatalf("entry body is not JSON: %q", e.Body)
		}
		_ = Format{}.Understand(e, jsonl.DecodeObject(e.Body))
	}
	for _, u := range pd.Usage {
		if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.CacheWriteTokens < 0 || !validCost(u.Cost) {
			t.Fatalf("usage %+v", u)
		}
	}
	for _, c := range pd.Compactions {
		if c.AtSeq < 2 || c.AtSeq > int64(len(pd.Entries)) || c.KeepFromSeq != c.AtSeq {
			t.Fatalf("compaction %+v of %d entries", c, len(pd.Entries))
		}
	}
}

// FuzzGooseRows fuzzes a session's rows as the database gives them (a
// message's content_json, metadata_json, role and created_timestamp, the
// session's accumulated cost and tokens, a ledger row's cost): reading
// them never panics and gives checkParsed's guarantees.
func FuzzGooseRows(f *testing.F) {
	f.Add(`[{"type":"text","text":"hi"}]`, `{"userVisible":true,"agentVisible":false}`, "user", int64(1772359200), 0.5, int64(10))
	f.Add(`[{"type":"toolRequest","id":"c","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}]`, ``, "assistant", int64(1772359200000), math.Inf(1), int64(-5))
	f.Add(`[{"type":"toolResponse","id":"c","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"x"}],"isError":true}}}]`, `null`, "user", int64(-1), -1.0, int64(1<<62))
	f.Add(`[{"type":"toolResponse","id":"c","toolResult":{"status":"error","error":"-32603: boom"}},{"type":"thinking","thinking":"t","signature":"s"}]`, `{"agentVisible":false}`, "user", int64(0), math.NaN(), int64(0))
	f.Add(`[null, 3, {"type":7}, {"type":"toolRequest","toolCall":[]}]`, `{`, "system", int64(0), 0.0, int64(0))
	f.Add(`{"not":"a list"}`, `{"userVisible":false}`, "assistant", int64(1), 0.0, int64(0))
	f.Fuzz(func(t *testing.T, content, meta, role string, created int64, cost float64, tokens int64) {
		srow := row{"id": "s", "name": "CLI Session", "user_set_name": int64(0), "working_dir": "/w", "created_at": "2026-03-01 10:00:00",
			"updated_at": "bad time", "accumulated_input_tokens": tokens, "accumulated_output_tokens": tokens, "accumulated_cost": cost,
			"model_config_json": content}
		mrows := []row{
			{"id": int64(1), "role": "user", "content_json": content, "metadata_json": meta, "created_timestamp": created},
			{"id": int64(2), "role": role, "content_json": content, "metadata_json": meta, "created_timestamp": created},
			{"id": int64(3), "role": "assistant", "content_json": `[{"type":"text","text":"ok"}]`, "created_timestamp": created},
		}
		lrows := []row{{"id": int64(1), "cost": cost, "input_tokens": tokens, "output_tokens": tokens, "created_timestamp": created}}
		for _, l := range [][]row{nil, lrows} {
			pd, err := build(jsonl.Unit{Format: Name, Path: "x.db#s"}, srow, mrows, l, resumeState{})
			if err != nil {
				continue
			}
			checkParsed(t, pd)
		}
	})
}

// FuzzGooseLegacy fuzzes a legacy session file (seeded with the corpus's
// files): parsing it never panics nor fails, and gives checkParsed's
// guarantees; telling its first line never panics.
func FuzzGooseLegacy(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "corpus", "goose", "*", "sessions", "*.jsonl"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"description":"d","message_count":1e99}` + "\n" + `{"role":"user","created":1,"content":[{"type":"reasoning","text":"r"}],"metadata":{"agentVisible":false}}` + "\n"))
	f.Add([]byte("\x00\x00{\"role\":\"assistant\",\"created\":-9,\"content\":[]}\n\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = LegacyFirstLine(data)
		pd, err := readLegacy(context.Background(), jsonl.Unit{Format: Name, Path: "s.jsonl"}, bytes.NewReader(data), resumeState{})
		if errors.Is(err, jsonl.ErrNoConversation) {
			return // no message yet: nothing to import, looked at again later
		}
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if pd.Offset < 0 || pd.Offset > int64(len(data)) {
			t.Fatalf("offset %d of %d bytes", pd.Offset, len(data))
		}
		checkParsed(t, pd)
	})
}
