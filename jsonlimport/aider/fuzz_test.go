package aider_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/aider"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// FuzzAiderHistory fuzzes a whole chat history: listing and reading its
// runs never fails but for a run gone, entries are valid, usage rows name
// them, and the runs' bytes, in order, are the file's up to what was
// consumed (valid UTF-8).
func FuzzAiderHistory(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpus, "*", aider.ChatFile))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && len(data) < 8000 {
			f.Add(data)
			f.Add(data[:len(data)/2])
		}
	}
	f.Add([]byte("\n# aider chat started at 2026-01-01 00:00:00\n\n#### hi  \n\nhello\n\n> Tokens: 1.2k sent, 3 received. Cost: $0.01 message, $0.02 session.  \n"))
	f.Add([]byte("text first\n> out\ncontinued\n\n# aider chat started at x\n#"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, aider.ChatFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		store := jsonl.Unit{Format: aider.Name, Path: path}
		list, _, err := aider.Format{}.Sessions(ctx, store, nil)
		if err != nil {
			t.Fatal(err)
		}
		var all []byte
		for _, s := range list {
			p, err := aider.Format{}.Parse(ctx, s.Unit, jsonl.Resume{})
			if err != nil {
				t.Fatalf("%s: %v", s.Unit.Path, err)
			}
			if err := sessiondb.ValidateID(p.Session.ID); err != nil {
				t.Fatalf("session ID: %v", err)
			}
			for _, e := range p.Entries {
				if err := sessiondb.ValidateEntry(e); err != nil {
					t.Fatalf("entry %s: %v", e.Body, err)
				}
				var b struct{ Text string }
				_ = jsonUnmarshal(e.Body, &b)
				all = append(all, b.Text...)
			}
			for _, u := range p.Usage {
				if u.Seq < 1 || u.Seq > int64(len(p.Entries)) || u.InputTokens < 0 || u.OutputTokens < 0 {
					t.Fatalf("usage row %+v with %d entries", u, len(p.Entries))
				}
			}
		}
		if utf8.Valid(data) && (len(all) > len(data) || string(data[:len(all)]) != string(all)) {
			t.Fatalf("runs give %q, file %q", all, data)
		}
	})
}
