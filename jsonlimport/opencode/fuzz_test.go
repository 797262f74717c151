package opencode_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/opencode"
)

// FuzzOpencodeExport fuzzes an `opencode export` file: claiming, listing
// and reading it never panic; what is read is valid JSON that the message
// reader reads, and usage is never negative.
func FuzzOpencodeExport(f *testing.F) {
	// The smallest export of the fixtures (larger seeds slow the fuzzing
	// engine's mutation to a crawl).
	if b, err := os.ReadFile(filepath.Join(exportDir, sesFail+".json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"info":{"id":"ses_x"},"messages":[{"info":{"role":"user","id":"m"},"parts":[null,{"type":"text","text":"a"}]},{"info":null},{"parts":{}}]}`))
	f.Add([]byte(`{"info":{"id":"ses_x","time":{"created":-1,"updated":1e999}},"messages":[{"info":{"role":"assistant","time":{"completed":1},"finish":"stop","tokens":{"input":1e20}},"parts":[]}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "export.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		units, _ := opencode.Format{}.Claim([]string{path})
		if len(units) == 0 {
			return
		}
		ctx := context.Background()
		list, _, err := opencode.Format{}.Sessions(ctx, units[0], &jsonl.Cache{})
		if err != nil {
			return
		}
		for _, ss := range list {
			pd, err := opencode.Format{}.Parse(ctx, ss.Unit, jsonl.Resume{})
			if err != nil {
				continue
			}
			for _, e := range pd.Entries {
				if !json.Valid(e.Body) {
					t.Fatalf("entry body is not JSON: %s", e.Body)
				}
				_ = jsonlimport.Understand(opencode.Name, e)
			}
			for _, u := range pd.Usage {
				if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.Cost != u.Cost {
					t.Fatalf("usage %+v", u)
				}
			}
		}
	})
}
