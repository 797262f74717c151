package opencode

// What the three sources (the SQLite store, the legacy storage/ tree, an
// `opencode export` file) have in common: a session's info and its
// messages, each a message's info with its parts, in opencode's order.
// read.go turns them into what the importer writes.

import (
	"bytes"
	"encoding/json"
	"math"
	"time"
)

// source is one session as a source holds it.
type source struct {
	id        string
	parentID  string
	title     string
	directory string
	worktree  string // the project's, when known
	projectID string
	slug      string
	version   string
	agent     string
	model     string // "provider/model" of the session's model, when set
	created   int64  // ms
	updated   int64  // ms
	archived  bool
	revert    bool // a revert is pending (session.revert)
	// info is the session's info as `opencode export` writes it
	// (compact).
	info json.RawMessage
	// messages are the messages read, in opencode's order (time created,
	// then id): all, or those after a cursor.
	messages []message
}

// message is one message with its parts.
type message struct {
	id      string
	created int64 // ms: the row's time_created, else info.time.created
	// body is {"info": …, "parts": […]}, each object as opencode exports
	// it (compact): the log entry's body.
	body  []byte
	info  msgInfo
	parts []partInfo
}

// msgInfo is what is read of a message's info.
type msgInfo struct {
	ID       string `json:"id"`
	Role     string `json:"role"`
	ParentID string `json:"parentID"`
	Time     struct {
		Created   json.Number `json:"created"`
		Completed json.Number `json:"completed"`
	} `json:"time"`
	Finish  string          `json:"finish"`
	Error   json.RawMessage `json:"error"`
	Summary json.RawMessage `json:"summary"` // assistant: true for a compaction's summary
	Cost    json.Number     `json:"cost"`
	Tokens  *struct {
		Input     json.Number `json:"input"`
		Output    json.Number `json:"output"`
		Reasoning json.Number `json:"reasoning"`
		Cache     struct {
			Read  json.Number `json:"read"`
			Write json.Number `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
	ModelID    string `json:"modelID"`
	ProviderID string `json:"providerID"`
	Agent      string `json:"agent"`
	Model      struct {
		ProviderID string `json:"providerID"`
		ModelID    string `json:"modelID"`
	} `json:"model"`
	Path struct {
		Cwd  string `json:"cwd"`
		Root string `json:"root"`
	} `json:"path"`
}

// partInfo is what is read of a part.
type partInfo struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`
	Tool      string `json:"tool"`
	CallID    string `json:"callID"`
	State     struct {
		Status   string          `json:"status"`
		Input    json.RawMessage `json:"input"`
		Output   json.RawMessage `json:"output"`
		Error    string          `json:"error"`
		Title    string          `json:"title"`
		Metadata json.RawMessage `json:"metadata"`
		Time     struct {
			Compacted json.Number `json:"compacted"`
		} `json:"time"`
	} `json:"state"`
	Mime        string `json:"mime"`
	Filename    string `json:"filename"`
	URL         string `json:"url"`
	TailStartID string `json:"tail_start_id"`
	Auto        bool   `json:"auto"`
	// subtask parts
	Prompt      string `json:"prompt"`
	Description string `json:"description"`
	Agent       string `json:"agent"`
}

// decodeNumbers unmarshals with numbers kept as written.
func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// num returns a JSON number as a float64 (0 when absent or not a number).
func num(n json.Number) float64 {
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// count returns a JSON number as an int64 count (0 when absent, not a
// number, negative or beyond int64).
func count(n json.Number) int64 {
	if i, err := n.Int64(); err == nil {
		return max(i, 0)
	}
	f := num(n)
	if f <= 0 || f > math.MaxInt64/2 {
		return 0
	}
	return int64(f)
}

// msTime turns opencode's milliseconds since the epoch into a time (zero
// for 0).
func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// complete reports whether an assistant message is done: opencode sets
// time.completed when it finishes, fails or is aborted.
func (m *message) complete() bool {
	return m.info.Role != "assistant" || m.info.Time.Completed != ""
}

// endsTurn reports whether a complete assistant message is the last of
// its turn: it did not stop to have its tool calls run (finish
// "tool-calls", after which opencode asks the model again), or it failed.
func (m *message) endsTurn() bool {
	if m.info.Role != "assistant" || !m.complete() {
		return false
	}
	if len(m.info.Error) > 0 && string(m.info.Error) != "null" {
		return true
	}
	return m.info.Finish != "" && m.info.Finish != "tool-calls" && m.info.Finish != "unknown"
}

// settled returns how many of msgs, from the start, are finished turns:
// every message before a user message whose turn is whole (each of its
// assistant messages complete), and the last turn too when its last
// message ends it. opencode rewrites a turn's messages until the turn
// ends (the user message's summary at every step, an assistant message's
// parts as they stream), so only finished turns are imported: a message
// once imported does not change as opencode goes on.
func settled(msgs []message) int {
	n := 0
	for i := range msgs {
		m := &msgs[i]
		if m.info.Role == "user" && i > 0 {
			n = i
		}
		if !m.complete() {
			return n
		}
	}
	if len(msgs) > 0 && msgs[len(msgs)-1].endsTurn() {
		n = len(msgs)
	}
	return n
}

// sent reports whether opencode sends message m back to the model when
// it resumes the session (MessageV2.toModelMessages): not a message
// without parts, not an assistant message that failed (unless aborted
// after it produced something), not a user message of which no part is
// sent.
func (m *message) sent() bool {
	if len(m.parts) == 0 {
		return false
	}
	switch m.info.Role {
	case "user":
		for _, p := range m.parts {
			switch p.Type {
			case "text":
				if !p.Ignored && p.Text != "" {
					return true
				}
			case "file":
				if p.Mime != "text/plain" && p.Mime != "application/x-directory" {
					return true
				}
			case "compaction", "subtask":
				return true
			}
		}
		return false
	case "assistant":
		if len(m.info.Error) > 0 && string(m.info.Error) != "null" {
			if !aborted(m.info.Error) {
				return false
			}
			content := false
			for _, p := range m.parts {
				if p.Type != "step-start" && p.Type != "reasoning" {
					content = true
				}
			}
			if !content {
				return false
			}
		}
		for _, p := range m.parts {
			switch p.Type {
			case "text", "tool", "reasoning":
				return true
			}
		}
		return false
	}
	return false
}

// aborted reports whether an assistant message's error is opencode's
// MessageAbortedError (the user stopped it).
func aborted(e json.RawMessage) bool {
	var x struct {
		Name string `json:"name"`
	}
	return json.Unmarshal(e, &x) == nil && x.Name == "MessageAbortedError"
}

// compactionPart returns the message's compaction part, if any.
func (m *message) compactionPart() *partInfo {
	for i := range m.parts {
		if m.parts[i].Type == "compaction" {
			return &m.parts[i]
		}
	}
	return nil
}

// isSummary reports whether m is a compaction's summary: an assistant
// message marked summary that finished without error.
func (m *message) isSummary() bool {
	return m.info.Role == "assistant" && string(m.info.Summary) == "true" && m.info.Finish != "" &&
		(len(m.info.Error) == 0 || string(m.info.Error) == "null")
}
