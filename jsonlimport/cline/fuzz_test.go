package cline_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/cline"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// FuzzClineTask fuzzes a task folder's API history and UI messages (seeds:
// the real and crafted files, whole and cut in half): the reader never
// panics, fails only on a primary file that is no JSON array, and returns
// valid entries, usage rows that name them and a compaction inside them.
func FuzzClineTask(f *testing.F) {
	var apis, uis [][]byte
	for _, root := range []string{cliData, crafted} {
		ps, _ := filepath.Glob(filepath.Join(root, "*", "tasks", "*", cline.APIFile))
		for _, p := range ps {
			if b, err := os.ReadFile(p); err == nil {
				apis = append(apis, b)
			}
			if b, err := os.ReadFile(filepath.Join(filepath.Dir(p), cline.UIFile)); err == nil {
				uis = append(uis, b)
			}
		}
	}
	if len(apis) == 0 || len(uis) == 0 {
		f.Fatal("no seed files")
	}
	for i, a := range apis {
		u := uis[i%len(uis)]
		f.Add(a, u)
		f.Add(a[:len(a)/2], u[:len(u)/2])
	}
	f.Add([]byte(`[{"role":"user","content":7},{"type":"reasoning"},1,"x",null]`), []byte(`[{"ts":"x","type":"say","say":"api_req_started","text":"{\"tokensIn\":-5,\"cost\":\"1\"}","conversationHistoryIndex":99,"conversationHistoryDeletedRange":[1,0]}]`))
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"text","text":"<read_file>\n<path>a</path>\n</read_file>"}]}]`), []byte(`[{"ts":1,"type":"say","say":"text","text":"x","conversationHistoryDeletedRange":[1,5]}]`))
	f.Fuzz(func(t *testing.T, api, ui []byte) {
		dir := filepath.Join(t.TempDir(), "tasks", "1700000000000")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		apiPath, uiPath := filepath.Join(dir, cline.APIFile), filepath.Join(dir, cline.UIFile)
		if err := os.WriteFile(apiPath, api, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(uiPath, ui, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := cline.Format{}.Parse(context.Background(), jsonl.Unit{Format: cline.Name, Path: apiPath, Extra: []string{uiPath}}, jsonl.Resume{})
		if err != nil {
			return
		}
		if err := sessiondb.ValidateID(p.Session.ID); err != nil {
			t.Fatalf("session ID: %v", err)
		}
		for _, e := range p.Entries {
			if err := sessiondb.ValidateEntry(e); err != nil {
				t.Fatalf("entry %s: %v", e.Body, err)
			}
			_ = jsonl.ReadMessage(cline.Format{}, e)
		}
		for _, u := range p.Usage {
			if u.Seq < 0 || u.Seq > int64(len(p.Entries)) {
				t.Fatalf("usage row at %d with %d entries", u.Seq, len(p.Entries))
			}
		}
		for _, c := range p.Compactions {
			if c.KeepFromSeq < 1 || c.KeepFromSeq > int64(len(p.Entries))+1 {
				t.Fatalf("compaction keeps from %d of %d entries", c.KeepFromSeq, len(p.Entries))
			}
		}
		if p.Offset < 0 || p.Offset > int64(len(api)) {
			t.Fatalf("offset %d of %d bytes", p.Offset, len(api))
		}
	})
}
