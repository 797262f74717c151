package zot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/zot"
)

// FuzzZotLine puts one arbitrary line between a meta row and a final user
// message and checks the reader's invariants: it never fails or panics on
// such a file, consumes it whole, returns only JSON bodies, keeps the final
// message last, gives compaction points inside the log, and resuming after
// the fuzzed line gives the same entries as reading the file whole.
func FuzzZotLine(f *testing.F) {
	var dirs []string
	for _, sub := range []string{"zot", "zot-damaged", "zot-compaction"} {
		dirs = append(dirs, filepath.Join(zotTestdata, sub))
	}
	jsonltest.LineSeeds(f, dirs, []string{".jsonl", zot.Ext}, 1<<16,
		`{"type":"compaction","messages":[{"role":"assistant","content":[{"id":"a","name":"b"}]}]}`,
		`{"type":"compaction","messages":null}`,
		`{"type":"message","message":{"role":"assistant","content":[{"id":"x","name":"y","arguments":{}}],"time":"2026-01-01T00:00:00Z"}}`,
		`{"type":"message","message":{"role":"tool","content":[{"call_id":"x"}]}}`,
		"\x00\x00{\"type\":\"rename\",\"title\":\"t\"}",
		`{"type":"message","message":{"role":"user","content":[{"te`,
		`{"type":"usage","cumulative":{"input_tokens":-5,"cost_usd":1e308}}`,
		`{"TYPE":"META","meta":{"id":"other"}}`,
		"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":[{\"text\":\"\xff\"}]}}",
	)

	const tail = `{"role":"user","content":[{"text":"the end"}],"time":"2026-01-02T03:04:09Z"}`
	f.Fuzz(func(t *testing.T, line []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "f.jsonl")
		head := zotTestMeta + "\n" + string(line) + "\n"
		content := head + `{"type":"message","message":` + tail + "}\n"
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		u := jsonl.Unit{Format: zot.Name, Path: path}
		p, err := zot.Format{}.Parse(ctx, u, jsonl.Resume{})
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if p.Offset != int64(len(content)) {
			t.Fatalf("Offset %d, file %d", p.Offset, len(content))
		}
		if p.Session.ID == "" {
			t.Fatalf("no session ID")
		}
		if n := len(p.Entries); n == 0 || string(p.Entries[n-1].Body) != tail {
			t.Fatalf("last entry is not the final message: %v", p.Entries)
		}
		check := func(e sessiondb.Entry) {
			if err := sessiondb.ValidateEntry(e); err != nil || e.Kind != sessiondb.KindMessage {
				t.Fatalf("entry %+v: %v", e, err)
			}
		}
		for _, e := range p.Entries {
			check(e)
		}
		for _, c := range p.Compactions {
			if c.KeepFromSeq < 1 || c.KeepFromSeq > int64(len(p.Entries))+1 || c.AtSeq != c.KeepFromSeq-1 {
				t.Fatalf("compaction at %d keep %d with %d entries", c.AtSeq, c.KeepFromSeq, len(p.Entries))
			}
			for _, e := range c.Summary {
				check(e)
			}
		}
		if err := sessiondb.ValidateJSON("attrs", p.Session.Attrs); p.Session.Attrs != nil && err != nil {
			t.Fatal(err)
		}
		for _, pr := range p.Problems {
			if pr.Path != path || pr.Reason == "" || pr.Line < 0 {
				t.Fatalf("problem %+v", pr)
			}
		}
		var rs zot.ResumeState
		if err := json.Unmarshal(p.ResumeState, &rs); err != nil {
			t.Fatal(err)
		}

		// Resume after the fuzzed line.
		if err := os.WriteFile(path, []byte(head), 0o644); err != nil {
			t.Fatal(err)
		}
		first, err := zot.Format{}.Parse(ctx, u, jsonl.Resume{})
		if err != nil {
			t.Fatalf("parse head: %v", err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		second, err := zot.Format{}.Parse(ctx, u, jsonl.Resume{Offset: first.Offset, Entries: len(first.Entries), State: first.ResumeState})
		if errors.Is(err, jsonl.ErrNotIncremental) {
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
			if !bytes.Equal(all[i].Body, p.Entries[i].Body) {
				t.Fatalf("entry %d: resumed %s, whole %s", i+1, all[i].Body, p.Entries[i].Body)
			}
		}
		if second.Session.ID != p.Session.ID || second.Session.Title != p.Session.Title {
			t.Fatalf("session %+v, whole %+v", second.Session, p.Session)
		}
		if zotTotals(append(append([]sessiondb.Usage{}, first.Usage...), second.Usage...)) != zotTotals(p.Usage) {
			t.Fatalf("usage differs after resume")
		}
	})
}
