package codex

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzThreadID: ThreadID never panics, and an id it returns is the
// payload.id of a session_meta first line.
func FuzzThreadID(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-12-06T11:46:32.365Z","type":"session_meta","payload":{"id":"01a24b2d-56b0-7ef2-a254-f50b64f4f6df","cwd":"/p"}}` + "\n" + `{"type":"response_item"}`))
	f.Add([]byte(`{"type":"response_item","payload":{"id":"x"}}`))
	f.Add([]byte("not json\n{}"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		id := ThreadID(data)
		if id == "" {
			return
		}
		first, _, _ := bytes.Cut(data, []byte("\n"))
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				ID string `json:"id"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(first, &l); err != nil || l.Type != "session_meta" || l.Payload.ID != id {
			t.Fatalf("ThreadID = %q of %q", id, first)
		}
	})
}
