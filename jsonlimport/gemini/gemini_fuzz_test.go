package gemini_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/gemini"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// FuzzGeminiLine fuzzes one line of a Gemini CLI JSONL chat between a
// header with a prompt and an answer (jsonltest.CheckWildLine: the reader
// never fails, consumes the file, returns valid entries, compactions and
// usage).
func FuzzGeminiLine(f *testing.F) {
	jsonltest.WildFuzzSeeds(f, []string{geminiTestdata},
		`{"$rewindTo":"u1"}`,
		`{"$rewindTo":"nothing"}`,
		`{"$set":{"messages":[{"id":"u1","type":"user","content":"again"},{"id":"u1","type":"gemini","content":[{"functionCall":{"name":"x"}}]},7,null]}}`,
		`{"$set":{"sessionId":"\u0000bad"}}`,
		`{"$set":{"messages":"no"}}`,
		`{"sessionId":"fz","projectHash":"h","messages":[{"id":"m","type":"gemini","tokens":{"input":-1}}]}`,
		`{"id":"g9","type":"gemini","tokens":{"input":"x"},"toolCalls":[{"id":"c","result":{"functionResponse":{"response":null}}},"x"]}`,
		`{"id":"","type":"user"}`,
	)
	const head = `{"sessionId":"fz","projectHash":"h","startTime":"2026-01-10T09:00:00.000Z","lastUpdated":"2026-01-10T09:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-01-10T09:00:01.000Z","type":"user","content":[{"text":"start"}]}`
	const tail = `{"id":"g1","timestamp":"2026-01-10T09:00:09.000Z","type":"gemini","content":"end","tokens":{"input":10,"output":2,"cached":1,"thoughts":1,"tool":0,"total":13},"model":"gemini-2.5-pro"}`
	f.Fuzz(func(t *testing.T, line []byte) {
		jsonltest.CheckWildLine(t, gemini.Format{}, "fz.jsonl", head, string(line), tail)
	})
}

// FuzzGeminiWholeChat fuzzes a whole-JSON chat: the reader never fails
// but on a file that holds no JSON object, never panics, and returns valid
// entries whose usage rows name them.
func FuzzGeminiWholeChat(f *testing.F) {
	legacy, _ := filepath.Glob(filepath.Join(geminiReal, ".gemini", "tmp", "*", "chats", "*.json"))
	for _, p := range legacy {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
			f.Add(data[:len(data)/2])
		}
	}
	f.Add([]byte(`{"sessionId":"s","projectHash":"h","messages":[{"id":"a","type":"gemini","tokens":{"input":1}},1,"x",{"type":"user","content":[{"text":"\xff"}]}]}`))
	f.Add([]byte(`{"sessionId":7,"messages":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "session-2026-01-10T09-00-fz.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := gemini.Format{}.Parse(context.Background(), jsonl.Unit{Format: gemini.Name, Path: path}, jsonl.Resume{})
		if err != nil {
			return // not a JSON object at all
		}
		if err := sessiondb.ValidateID(p.Session.ID); err != nil {
			t.Fatalf("session ID: %v", err)
		}
		for _, e := range p.Entries {
			if err := sessiondb.ValidateEntry(e); err != nil {
				t.Fatalf("entry %s: %v", e.Body, err)
			}
		}
		for _, u := range p.Usage {
			if u.Seq < 1 || u.Seq > int64(len(p.Entries)) {
				t.Fatalf("usage row at %d with %d entries", u.Seq, len(p.Entries))
			}
		}
	})
}
