package crush

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// FuzzCrushRows fuzzes a session's rows as the database gives them (a
// message's parts text, its role, times, the session's cost and tokens,
// its summary id): reading them never panics, every entry body is JSON
// that the message reader reads, usage is never negative nor infinite,
// and a compaction names an entry.
func FuzzCrushRows(f *testing.F) {
	f.Add(`[{"type":"text","data":{"text":"hi"}},{"type":"finish","data":{"reason":"stop"}}]`, "assistant", int64(1754568953), 0.5, int64(10), "m1")
	f.Add(`[{"type":"tool_call","data":{"id":"c","name":"bash","input":"{\"command\":1}"}}]`, "assistant", int64(1754568953000), math.Inf(1), int64(-5), "")
	f.Add(`[{"type":"tool_result","data":{"tool_call_id":"c","name":"agent","content":"x","is_error":true}},{"type":"finish","data":null}]`, "tool", int64(-1), -1.0, int64(1<<62), "m0")
	f.Add(`[null, 3, {"type":7}]`, "", int64(0), 0.0, int64(0), "m1")
	f.Add(`{"not":"a list"}`, "user", int64(1), 0.0, int64(0), "x")
	f.Fuzz(func(t *testing.T, parts, role string, created int64, cost float64, tokens int64, summary string) {
		srow := row{"id": "s", "title": "New Session", "cost": cost, "prompt_tokens": tokens, "completion_tokens": tokens,
			"created_at": created, "updated_at": created, "summary_message_id": summary}
		mrows := []row{
			{"id": "m0", "role": "user", "parts": `[{"type":"text","data":{"text":"go"}}]`, "created_at": created},
			{"id": "m1", "role": role, "parts": parts, "model": "m", "created_at": created, "updated_at": created, "finished_at": nil},
			{"id": "m2", "role": "assistant", "parts": parts, "created_at": created},
		}
		pd, err := Crush.build(jsonl.Unit{Format: Name, Path: "x.db#s"}, srow, mrows, resumeState{})
		if err != nil {
			return
		}
		for _, e := range pd.Entries {
			if !json.Valid(e.Body) {
				t.Fatalf("entry body is not JSON: %q", e.Body)
			}
			obj := jsonl.DecodeObject(e.Body)
			_ = Crush.Understand(e, obj)
		}
		for _, u := range pd.Usage {
			if u.InputTokens < 0 || u.OutputTokens < 0 || u.Cost < 0 || math.IsInf(u.Cost, 0) || math.IsNaN(u.Cost) {
				t.Fatalf("usage %+v", u)
			}
		}
		for _, c := range pd.Compactions {
			if c.AtSeq < 1 || c.AtSeq > int64(len(pd.Entries)) || c.KeepFromSeq != c.AtSeq {
				t.Fatalf("compaction %+v of %d entries", c, len(pd.Entries))
			}
		}
	})
}
