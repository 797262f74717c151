package cline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/cline"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// FuzzClineSDK fuzzes an SDK session's messages file and compaction
// state (seeds: the CLI's and the crafted files, whole and cut in half):
// the reader never panics, fails only on a file that is no JSON object
// or holds no message, returns valid entries, usage rows and a
// compaction inside them, and a file read without a problem is written
// back byte for byte from its entries (the state's head, tail and
// indentation, or the file kept whole).
func FuzzClineSDK(f *testing.F) {
	var msgs, comps [][]byte
	for _, root := range []string{filepath.Join(sdkHome, ".cline", "data"), sdkCrafted} {
		ps, _ := filepath.Glob(filepath.Join(root, "sessions", "*", "*"+cline.SDKMessagesSuffix))
		for _, p := range ps {
			if b, err := os.ReadFile(p); err == nil {
				msgs = append(msgs, b)
			}
		}
		cs, _ := filepath.Glob(filepath.Join(root, "sessions", "*", "*"+cline.SDKCompactionSuffix))
		for _, p := range cs {
			if b, err := os.ReadFile(p); err == nil {
				comps = append(comps, b)
			}
		}
	}
	if len(msgs) < 4 || len(comps) == 0 {
		f.Fatal("no seed files")
	}
	for i, m := range msgs {
		c := comps[i%len(comps)]
		f.Add(m, c)
		f.Add(m[:len(m)/2], c[:len(c)/2])
	}
	f.Add([]byte(`{"version":1,"messages":[{"role":"user","content":7},{"metadata":{"displayOnly":true}},1,"x",null],"messages":[]}`), []byte(`{"source_message_count":9}`))
	f.Add([]byte("{\n  \"version\": 1,\n  \"messages\": []\n}"), []byte(`{"source_message_count":1,"source_last_message_key":"id:a","messages":[{"role":"user","content":"s","ts":"x"}]}`))
	f.Add([]byte(`{"version":1,"messages":[{"id":"a","role":"assistant","content":[],"metrics":{"inputTokens":-3,"cacheReadTokens":1e30,"cost":"x"}}]}`), []byte(`{"source_message_count":1,"source_last_message_key":"id:a","messages":[]}`))
	f.Fuzz(func(t *testing.T, data, comp []byte) {
		id := "1700000000000_fuzz"
		dir := filepath.Join(t.TempDir(), "sessions", id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path, compPath := filepath.Join(dir, id+cline.SDKMessagesSuffix), filepath.Join(dir, id+cline.SDKCompactionSuffix)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(compPath, comp, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := cline.Format{}.Parse(context.Background(), jsonl.Unit{Format: cline.Name, Path: path, Extra: []string{compPath}}, jsonl.Resume{})
		if err != nil {
			return
		}
		if err := sessiondb.ValidateID(p.Session.ID); err != nil {
			t.Fatalf("session ID: %v", err)
		}
		var bodies []json.RawMessage
		for _, e := range p.Entries {
			if err := sessiondb.ValidateEntry(e); err != nil {
				t.Fatalf("entry %s: %v", e.Body, err)
			}
			_ = jsonl.ReadMessage(cline.Format{}, e)
			bodies = append(bodies, e.Body)
		}
		for _, u := range p.Usage {
			if u.Seq < 1 || u.Seq > int64(len(p.Entries)) || u.InputTokens < 0 || u.CacheReadTokens < 0 {
				t.Fatalf("usage row %+v with %d entries", u, len(p.Entries))
			}
		}
		for _, c := range p.Compactions {
			if c.KeepFromSeq < 2 || c.KeepFromSeq > int64(len(p.Entries))+1 {
				t.Fatalf("compaction keeps from %d of %d entries", c.KeepFromSeq, len(p.Entries))
			}
			for _, e := range c.Summary {
				if err := sessiondb.ValidateEntry(e); err != nil {
					t.Fatalf("summary %s: %v", e.Body, err)
				}
			}
		}
		var st struct {
			SDK struct {
				Indent, Head, Tail string
				Raw                *string
			} `json:"sdk"`
		}
		if err := json.Unmarshal(p.State, &st); err != nil {
			t.Fatalf("state %s: %v", p.State, err)
		}
		for _, pr := range p.Problems {
			if pr.Path == path {
				return
			}
		}
		back := []byte(nil)
		if st.SDK.Raw != nil {
			back = []byte(*st.SDK.Raw)
		} else {
			back = cline.LayoutSDK([]byte(st.SDK.Head), []byte(st.SDK.Tail), st.SDK.Indent, bodies)
		}
		if !bytes.Equal(back, data) && jsonl.ValidUTF8(data) != nil && bytes.Equal(jsonl.ValidUTF8(data), data) {
			t.Fatalf("read without a problem, written back as\n%q\nnot\n%q", back, data)
		}
	})
}
