package opencode

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// TestJSNumber: numbers as JavaScript's Number.prototype.toString writes
// them (the expected strings are node's).
func TestJSNumber(t *testing.T) {
	a, b := 0.1, 0.2
	if got := jsNumber(a + b); got != "0.30000000000000004" {
		t.Errorf("jsNumber(0.1+0.2) = %q", got)
	}
	for f, want := range map[float64]string{
		0.006141: "0.006141", 0.025317: "0.025317", 1: "1", -2.5: "-2.5", 1e21: "1e+21", 1e20: "100000000000000000000",
		123456789012345680000: "123456789012345680000", 1e-7: "1e-7", 1.5e-7: "1.5e-7", 0.000001: "0.000001",
		5e-324: "5e-324", math.MaxFloat64: "1.7976931348623157e+308", 1796556083797: "1796556083797",
		math.Copysign(0, -1): "0", math.NaN(): "null", math.Inf(1): "null",
	} {
		if got := jsNumber(f); got != want {
			t.Errorf("jsNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

// TestSpread: {...obj, id, sessionID} as JavaScript builds it.
func TestSpread(t *testing.T) {
	for _, c := range []struct{ obj, want string }{
		{`{"role":"user","time":{"created":1}}`, `{"role":"user","time":{"created":1},"id":"m","sessionID":"s"}`},
		{`{}`, `{"id":"m","sessionID":"s"}`},
		{`{"id":"old","x":[1,{"id":2}],"sessionID":"t"}`, `{"id":"m","x":[1,{"id":2}],"sessionID":"s"}`},
		{` { "a" : "b\"}" , "c":null } `, `{"a":"b\"}","c":null,"id":"m","sessionID":"s"}`},
	} {
		got, err := spread([]byte(c.obj), member{"id", jsonStr("m")}, member{"sessionID", jsonStr("s")})
		if err != nil || string(got) != c.want {
			t.Errorf("spread(%s) = %s, %v; want %s", c.obj, got, err, c.want)
		}
	}
	for _, bad := range []string{`null`, `[1]`, `"x"`, `{"a":}`, ``, `{"a":1`} {
		if _, err := spread([]byte(bad), member{"id", jsonStr("m")}); err == nil {
			t.Errorf("spread(%q) accepted", bad)
		}
	}
}

// FuzzOpencodeRows fuzzes the data of a message row and of one of its
// parts, as a damaged or future database may hold them: composing the
// message and building the entries never panics; a composed message is
// valid JSON whose info has the row's id, as JavaScript's spread gives
// it, and reads back with Understand.
func FuzzOpencodeRows(f *testing.F) {
	f.Add(`{"role":"assistant","time":{"created":1,"completed":2},"finish":"stop","tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0.5}`,
		`{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls"},"output":"x"}}`)
	f.Add(`{"role":"user","time":{"created":1}}`, `{"type":"text","text":"hi"}`)
	f.Add(`{"role":"assistant","id":"other","time":{"created":"x"}}`, `{"type":"compaction","tail_start_id":"m"}`)
	f.Add(`{"role":"assistant","summary":true,"finish":"stop","time":{"completed":1e400}}`, `null`)
	f.Add(`{"role":"assistant","tokens":{"input":-5,"output":1e30},"cost":"x","error":{"name":"MessageAbortedError"}}`, `{"type":"reasoning","text":"r"}`)
	f.Fuzz(func(t *testing.T, info, part string) {
		var problems []jsonl.Problem
		u := jsonl.Unit{Format: Name, Path: "store.db#ses_f"}
		minfo, err := spread([]byte(info), member{"id", jsonStr("msg_1")}, member{"sessionID", jsonStr("ses_f")})
		if err != nil {
			return
		}
		if !json.Valid(minfo) {
			t.Fatalf("spread made invalid JSON %s", minfo)
		}
		var back struct {
			ID        any `json:"id"`
			SessionID any `json:"sessionID"`
		}
		if decodeNumbers(minfo, &back) != nil || back.ID != "msg_1" || back.SessionID != "ses_f" {
			t.Fatalf("spread lost the row's id: %s", minfo)
		}
		var parts [][]byte
		if p, err := spread([]byte(part), member{"id", jsonStr("prt_1")}, member{"sessionID", jsonStr("ses_f")}, member{"messageID", jsonStr("msg_1")}); err == nil {
			parts = append(parts, p)
		}
		m, err := messageBody(u, minfo, parts, &problems)
		if err != nil {
			return
		}
		m.id = "msg_1"
		src := &source{id: "ses_f", messages: []message{m, m}}
		src.messages[1].id = "msg_2"
		pd, err := build(u, src, 0, resumeState{}, nil, true)
		if err != nil {
			return
		}
		for _, e := range pd.Entries {
			if !json.Valid(e.Body) {
				t.Fatalf("entry body is not JSON: %s", e.Body)
			}
			_ = jsonl.ReadMessage(Format{}, e)
		}
		for _, us := range pd.Usage {
			if us.InputTokens < 0 || us.OutputTokens < 0 || math.IsNaN(us.Cost) || math.IsInf(us.Cost, 0) {
				t.Fatalf("usage row %+v", us)
			}
		}
	})
}

// TestSessionInfoOfARow: a session row's info has opencode's members in
// opencode's order, null columns left out.
func TestSessionInfoOfARow(t *testing.T) {
	r := row{"id": "ses_1", "slug": "s", "project_id": "global", "workspace_id": nil, "directory": "/d", "path": "",
		"parent_id": nil, "title": "T <b>", "agent": "build", "model": `{"providerID":"p","id":"m"}`, "version": "1.18.33",
		"summary_additions": int64(1), "summary_deletions": nil, "summary_files": int64(2), "summary_diffs": nil,
		"cost": 0.025317, "tokens_input": int64(7), "tokens_output": int64(8), "tokens_reasoning": int64(0),
		"tokens_cache_read": int64(9), "tokens_cache_write": int64(0), "share_url": nil, "metadata": nil,
		"revert": `{"messageID":"msg_1","snapshot":"abc"}`, "permission": `[]`, "time_created": int64(1), "time_updated": int64(2),
		"time_compacting": nil, "time_archived": int64(3)}
	want := `{"id":"ses_1","slug":"s","projectID":"global","directory":"/d","path":"","title":"T <b>","agent":"build","model":{"id":"m","providerID":"p"},"version":"1.18.33","summary":{"additions":1,"deletions":0,"files":2},"cost":0.025317,"tokens":{"input":7,"output":8,"reasoning":0,"cache":{"read":9,"write":0}},"revert":{"messageID":"msg_1","snapshot":"abc"},"permission":[],"time":{"created":1,"updated":2,"archived":3}}`
	if got := string(sessionInfo(r)); got != want {
		t.Errorf("info\n got %s\nwant %s", got, want)
	}
}

// TestSettled: the finished turns of a message list.
func TestSettled(t *testing.T) {
	msg := func(role, extra string) message {
		var m message
		_ = decodeNumbers([]byte(`{"role":"`+role+`"`+extra+`}`), &m.info)
		return m
	}
	user := msg("user", "")
	done := msg("assistant", `,"time":{"completed":2},"finish":"stop"`)
	tools := msg("assistant", `,"time":{"completed":2},"finish":"tool-calls"`)
	running := msg("assistant", `,"time":{}`)
	failed := msg("assistant", `,"time":{"completed":2},"error":{"name":"APIError"}`)
	for _, c := range []struct {
		msgs []message
		want int
	}{
		{nil, 0},
		{[]message{user}, 0},
		{[]message{user, done}, 2},
		{[]message{user, tools}, 0},
		{[]message{user, tools, done}, 3},
		{[]message{user, tools, running}, 0},
		{[]message{user, done, user}, 2},
		{[]message{user, done, user, tools}, 2},
		{[]message{user, running, user, done}, 0}, // an unfinished message stops the import there
		{[]message{user, failed}, 2},
		{[]message{user, tools, user, done}, 4}, // a turn cut off by a new prompt
	} {
		if got := settled(c.msgs); got != c.want {
			t.Errorf("settled(case %d messages) = %d, want %d", len(c.msgs), got, c.want)
		}
	}
}
