package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// wireClient speaks raw JSON-RPC lines to `sessionctl mcp` over stdio,
// as a broken or hostile client would.
type wireClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  *bufio.Scanner
	stderr strings.Builder
	n      int
}

// wireMsg is one line the server wrote.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

func startWire(t *testing.T, db, version string) *wireClient {
	t.Helper()
	c := &wireClient{t: t, cmd: exec.Command(buildSessionctl(t), "--db", db, "mcp")}
	c.stdin, _ = c.cmd.StdinPipe()
	stdout, _ := c.cmd.StdoutPipe()
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A server that stops answering fails the test instead of hanging it.
	timer := time.AfterFunc(2*time.Minute, func() { c.cmd.Process.Kill() })
	t.Cleanup(func() {
		timer.Stop()
		c.stdin.Close()
		io.Copy(io.Discard, stdout)
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("server exit: %v; stderr: %s", err, c.stderr.String())
		}
	})
	c.lines = bufio.NewScanner(stdout)
	c.lines.Buffer(nil, 4<<20)
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	if m := c.read(); string(m.ID) != `"init"` || m.Result == nil {
		t.Fatalf("initialize: %s", m.raw)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *wireClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		c.t.Fatalf("write: %v; stderr: %s", err, c.stderr.String())
	}
}

func (c *wireClient) read() wireMsg {
	c.t.Helper()
	if !c.lines.Scan() {
		c.t.Fatalf("the server wrote nothing more (%v); stderr: %s", c.lines.Err(), c.stderr.String())
	}
	m := wireMsg{raw: c.lines.Text()}
	if strings.HasPrefix(m.raw, "[") { // a batch's answers
		return m
	}
	if err := json.Unmarshal(c.lines.Bytes(), &m); err != nil {
		c.t.Fatalf("stdout line is not JSON: %q", m.raw)
	}
	return m
}

// exchange sends line, then a ping, and returns what the server wrote
// before the ping's answer (the server must still be serving to answer
// it) and, when wantID is set, until the answer with that ID came. Every
// line these tests send is answered, and the server may answer the ping
// first (it serves requests concurrently): without wantID it also waits
// for the first answer that is not the ping's.
func (c *wireClient) exchange(line, wantID string) []wireMsg {
	c.t.Helper()
	c.n++
	ping := fmt.Sprintf(`"ping-%d"`, c.n)
	c.send(line)
	c.send(`{"jsonrpc":"2.0","id":` + ping + `,"method":"ping"}`)
	var got []wireMsg
	pinged, found := false, wantID == ""
	for !pinged || !found || len(got) == 0 {
		m := c.read()
		switch string(m.ID) {
		case ping:
			pinged = true
		case wantID:
			found = true
			got = append(got, m)
		default:
			if !pinged || len(got) == 0 {
				got = append(got, m)
			}
		}
	}
	return got
}

// TestMCPWireHostileLines: a line that is not a valid JSON-RPC message
// gets a JSON-RPC error (-32700 parse error, -32600 invalid request) and
// the server goes on serving; before, any such line ended the server
// (exit status 1), so one bad byte from a client lost the session.
func TestMCPWireHostileLines(t *testing.T) {
	db := tempDB(t)
	sessionctl(t, db, "import", "../../testdata/samples").mustSucceed(t)
	c := startWire(t, db, "2025-06-18")
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	for _, tc := range []struct {
		line   string
		code   int
		id     string // the error's ID: null when the request's could not be read
		inText string
	}{
		{`{not json`, -32700, "null", ""},
		{`{"jsonrpc":"2.0","id":5,"method":"ping"} trailing`, -32700, "null", ""},
		{`{"jsonrpc":"2.0","id":5,"method":"ping"}{"jsonrpc":"2.0","id":6,"method":"ping"}`, -32700, "null", ""},
		{`"a string"`, -32600, "null", ""},
		{`42`, -32600, "null", ""},
		{`null`, -32600, "null", ""},
		{`{}`, -32600, "null", ""},
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, "5", "version"},
		{`{"id":5,"method":"ping"}`, -32600, "5", "version"},
		{`{"jsonrpc":"2.0","id":5,"method":5}`, -32600, "5", ""},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null", "id"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null", "id"},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null", "id"},
		{`[]`, -32600, "null", "batch"},
		{`[{"jsonrpc":"2.0","id":6,"method":"ping"}]`, -32600, "null", "batch"},
		{deep, -32600, "null", ""},
		{`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"s":"` + strings.Repeat("x", 2<<20) + `"}}`, -32600, "null", "long"},
	} {
		got := c.exchange(tc.line, "")
		short := tc.line
		if len(short) > 80 {
			short = short[:80] + "…"
		}
		if len(got) != 1 || got[0].Error == nil || got[0].Error.Code != tc.code || string(got[0].ID) != tc.id ||
			!strings.Contains(strings.ToLower(got[0].Error.Message), tc.inText) {
			var raws []string
			for _, m := range got {
				raws = append(raws, m.raw)
			}
			t.Errorf("%s: want one error %d with id %s (mentioning %q), got %q", short, tc.code, tc.id, tc.inText, raws)
		}
	}
	// A byte order mark before a message and CRLF endings are read.
	for _, line := range []string{"\ufeff" + `{"jsonrpc":"2.0","id":"bom","method":"ping"}`, `{"jsonrpc":"2.0","id":"bom","method":"ping"}` + "\r"} {
		if got := c.exchange(line, `"bom"`); len(got) != 1 || got[0].Error != nil {
			t.Errorf("%q: %v", line, got)
		}
	}
}

// TestMCPWireBatches: where the client asked for protocol version
// 2025-03-26, which has JSON-RPC batches, a batch is still answered by
// the SDK with an array; a batch the SDK would choke on (a repeated ID)
// is refused without ending the session.
func TestMCPWireBatches(t *testing.T) {
	db := tempDB(t)
	sessionctl(t, db, "import", "../../testdata/samples").mustSucceed(t)
	c := startWire(t, db, "2025-03-26")
	got := c.exchange(`[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]`, "")
	if len(got) != 1 || !strings.HasPrefix(got[0].raw, "[") || !strings.Contains(got[0].raw, `"b1"`) || !strings.Contains(got[0].raw, `"b2"`) {
		t.Errorf("batch: %v", got)
	}
	got = c.exchange(`[{"jsonrpc":"2.0","id":"b3","method":"ping"},{"jsonrpc":"2.0","id":"b3","method":"ping"}]`, "")
	if len(got) != 1 || got[0].Error == nil || got[0].Error.Code != -32600 {
		t.Errorf("batch with a repeated ID: %v", got)
	}
}

// TestMCPWireIDs: a request's answer carries the ID it was sent with. The
// SDK reads numeric IDs as float64, so it answered 1.5 as 1,
// 9007199254740993 as 9007199254740992 and 12345678901234567890 as
// -9223372036854775808, and it took an id of null (which MCP forbids)
// for a notification and never answered. Those are refused (-32600);
// strings and integers up to 2^53 come back as sent.
func TestMCPWireIDs(t *testing.T) {
	db := tempDB(t)
	sessionctl(t, db, "import", "../../testdata/samples").mustSucceed(t)
	c := startWire(t, db, "2025-06-18")
	for _, id := range []string{`null`, `1.5`, `9007199254740993`, `12345678901234567890`, `-9007199254740993`} {
		got := c.exchange(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, "")
		if len(got) != 1 || got[0].Error == nil || got[0].Error.Code != -32600 || string(got[0].ID) != "null" {
			t.Errorf("id %s: want one -32600 error with id null, got %v", id, got)
		}
	}
	for _, id := range []string{`0`, `-1`, `9007199254740991`, `-9007199254740991`, `""`, `"\u00e9\"x"`, `"` + strings.Repeat("k", 1000) + `"`} {
		got := c.exchange(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, "")
		var sent, back any
		json.Unmarshal([]byte(id), &sent)
		if len(got) == 1 {
			json.Unmarshal(got[0].ID, &back)
		}
		if len(got) != 1 || got[0].Error != nil || sent != back {
			t.Errorf("id %s: want its answer, got %v", id, got)
		}
	}
}

// TestMCPWireAnswersBeforeEOF: a client that writes its requests and
// closes its end at once (a script: printf … | sessionctl mcp) gets an
// answer to every one before the server exits 0. The SDK's transport
// ended at the end of input and dropped the answers still being computed.
func TestMCPWireAnswersBeforeEOF(t *testing.T) {
	db := tempDB(t)
	sessionctl(t, db, "import", "../../testdata/samples").mustSucceed(t)
	in := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"search","arguments":{"query":"the"}}}`,
		`{"jsonrpc":"2.0","id":4e0,"method":"tools/call","params":{"name":"list_sessions","arguments":{"limit":5}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	}
	for round := range 3 {
		cmd := exec.Command(buildSessionctl(t), "--db", db, "mcp")
		cmd.Stdin = strings.NewReader(strings.Join(in, "\n") + "\n")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("round %d: %v; stderr %s", round, err, stderr.String())
		}
		got := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var m wireMsg
			if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
				t.Fatalf("round %d: not a result: %s", round, line)
			}
			got[string(m.ID)] = true
			if string(m.ID) == "1" && strings.Contains(string(m.Result), "listChanged") {
				// The tools and resources never change; no notification
				// is ever sent.
				t.Errorf("initialize advertises list-changed notifications: %s", m.Result)
			}
		}
		for _, id := range []string{`1`, `2`, `"three"`, `4`, `5`} {
			if !got[id] {
				t.Errorf("round %d: no answer to request %s; got %v", round, id, got)
			}
		}
	}
}
