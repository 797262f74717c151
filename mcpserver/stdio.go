package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessiondb/sessiondb/internal/jsonnest"
)

// StdioTransport is the MCP stdio transport (newline-delimited JSON-RPC
// over a reader and a writer) for a client that may send anything.
//
// The SDK's mcp.IOTransport ends the connection on the first line that
// is not a valid JSON-RPC message (not JSON, trailing bytes, a wrong ID
// type, a batch where the negotiated version forbids them, a line over
// its limit): one bad line from a client lost its session and exited
// `sessionctl mcp` with status 1. StdioTransport reads the input a line
// at a time and answers such a line itself with a JSON-RPC error (-32700
// parse error, -32600 invalid request; the request's ID when it can be
// read, else null), then goes on; every valid line goes to an
// mcp.IOTransport unchanged. It also refuses the request IDs the SDK
// would answer with another ID (it reads numbers as float64: 1.5 came
// back as 1, 2^53+1 as 2^53) and an id of null, which MCP forbids and
// the SDK took for a notification, leaving the client waiting.
type StdioTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
}

// maxLine bounds one input line, as maxRequestBody bounds an HTTP
// request: the largest arguments are a search query and a cursor.
const maxLine = maxRequestBody

// drainIdle bounds the wait for answers after the end of input: the
// longest a request may run without any answer being written.
const drainIdle = time.Minute

// maxDepth is the nesting the SDK's decoder accepts (it refuses deeper
// input by ending the connection).
const maxDepth = 1000

// Connect starts reading the input and returns the SDK's connection over
// the lines that passed.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	out := &lineWriter{w: t.Writer, answered: make(chan struct{}, 1)}
	g := &gate{out: out}
	go g.run(t.Reader, pw)
	return (&mcp.IOTransport{Reader: &gateReader{PipeReader: pr, in: t.Reader}, Writer: out}).Connect(ctx)
}

// gateReader is what the SDK reads: closing it stops the gate.
type gateReader struct {
	*io.PipeReader
	in io.Closer
}

func (r *gateReader) Close() error {
	r.PipeReader.Close()
	return r.in.Close()
}

// lineWriter serializes the SDK's writes (one whole message each) and the
// gate's error answers, and keeps the requests passed to the SDK that it
// has not answered yet.
type lineWriter struct {
	mu      sync.Mutex
	w       io.WriteCloser
	closed  bool
	pending map[string]int // normID → requests in flight
	// answered receives a value (without blocking) after each answer.
	answered chan struct{}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, io.ErrClosedPipe
	}
	n, err := w.w.Write(p)
	if err == nil && len(w.pending) > 0 {
		w.settle(p)
	}
	return n, err
}

// expect records requests passed to the SDK, before they are.
func (w *lineWriter) expect(ids []json.RawMessage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending == nil {
		w.pending = map[string]int{}
	}
	for _, id := range ids {
		w.pending[normID(id)]++
	}
}

// settle forgets the requests that the message p (a response, or a batch
// of them) answers. w.mu is held.
func (w *lineWriter) settle(p []byte) {
	type head struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	var msgs []head
	if p = bytes.TrimSpace(p); len(p) > 0 && p[0] == '[' {
		_ = json.Unmarshal(p, &msgs)
	} else {
		var h head
		if json.Unmarshal(p, &h) == nil {
			msgs = append(msgs, h)
		}
	}
	for _, h := range msgs {
		if h.Method != nil || h.ID == nil {
			continue // a request or notification of the server's own
		}
		k := normID(h.ID)
		if w.pending[k] > 1 {
			w.pending[k]--
		} else {
			delete(w.pending, k)
		}
		select {
		case w.answered <- struct{}{}:
		default:
		}
	}
}

// drain waits until every request passed to the SDK is answered, the
// connection is closed, or idle passes without an answer (a request the
// SDK will not answer must not keep the process alive).
func (w *lineWriter) drain(idle time.Duration) {
	for {
		w.mu.Lock()
		waiting := len(w.pending) > 0 && !w.closed
		w.mu.Unlock()
		if !waiting {
			return
		}
		select {
		case <-w.answered:
		case <-time.After(idle):
			return
		}
	}
}

// normID is a request ID as the SDK writes it back: a string as itself, a
// number by its value (1e3 comes back as 1000).
func normID(id json.RawMessage) string {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return string(id)
	}
	if s, ok := v.(string); ok {
		return "s" + s
	}
	if r, ok := new(big.Rat).SetString(string(bytes.TrimSpace(id))); ok {
		return "n" + r.RatString()
	}
	return string(id)
}

func (w *lineWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	return w.w.Close()
}

// gate passes valid lines on and answers the others.
type gate struct {
	out *lineWriter
	// version is the protocol version the client's initialize asked for
	// ("" before it): batches pass only where the SDK accepts them.
	version string
}

func (g *gate) run(in io.Reader, pw *io.PipeWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine+2 {
				tooLong, line = true, line[:0]
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			g.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", maxLine))
		} else if msg, ids := g.check(line); msg != nil {
			g.out.expect(ids)
			if _, werr := pw.Write(append(msg, '\n')); werr != nil {
				return
			}
		}
		line, tooLong = line[:0], false
		if err != nil {
			if errors.Is(err, io.EOF) {
				// A client that writes its requests and closes its end
				// (a script: printf … | sessionctl mcp) gets every answer
				// before the server ends.
				g.out.drain(drainIdle)
				pw.Close()
			} else {
				pw.CloseWithError(err)
			}
			return
		}
	}
}

// check returns the line to pass on, or nil when it answered the line
// itself or there is nothing in it, and the IDs of the requests in it.
func (g *gate) check(line []byte) ([]byte, []json.RawMessage) {
	line = bytes.TrimPrefix(line, []byte("\ufeff"))
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	if !json.Valid(line) {
		g.refuse(nil, jsonrpc.CodeParseError, "parse error: a line must hold one JSON-RPC message")
		return nil, nil
	}
	if jsonnest.Exceeds(line, maxDepth) {
		g.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("JSON nested deeper than %d levels", maxDepth))
		return nil, nil
	}
	if line[0] == '[' {
		if g.version != "2024-11-05" && g.version != "2025-03-26" && g.version != "" {
			g.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("JSON-RPC batches are not supported in protocol version %s: send one message per line", g.version))
			return nil, nil
		}
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil || len(batch) == 0 {
			g.refuse(nil, jsonrpc.CodeInvalidRequest, "empty batch")
			return nil, nil
		}
		ids := map[string]bool{}
		for i, m := range batch {
			id, ok := g.checkMessage(m)
			if !ok {
				return nil, nil
			}
			if id != nil && ids[string(id)] {
				g.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("batch message %d repeats the ID %s", i+1, id))
				return nil, nil
			}
			if id != nil {
				ids[string(id)] = true
			}
		}
		var out []json.RawMessage
		for id := range ids {
			out = append(out, json.RawMessage(id))
		}
		return line, out
	}
	id, ok := g.checkMessage(line)
	if !ok {
		return nil, nil
	}
	if id == nil {
		return line, nil
	}
	return line, []json.RawMessage{id}
}

// checkMessage checks one message (an object) as the SDK will read it,
// answers it if the SDK could not, and returns the request's ID.
func (g *gate) checkMessage(m json.RawMessage) (json.RawMessage, bool) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if m = bytes.TrimSpace(m); len(m) == 0 || m[0] != '{' || json.Unmarshal(m, &head) != nil {
		g.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is an object")
		return nil, false
	}
	id := head.ID
	if !validID(id) {
		id = nil
	}
	_, err := jsonrpc.DecodeMessage(m)
	if head.Method == nil && (head.Result != nil || head.Error != nil) {
		// A response: one the SDK cannot read is dropped, not answered
		// (JSON-RPC answers requests only).
		return nil, err == nil
	}
	if err != nil {
		g.refuse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil, false
	}
	if head.ID != nil && id == nil {
		g.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: id must be a string or an integer")
		return nil, false
	}
	if g.version == "" && string(head.Method) == `"initialize"` {
		g.version = head.Params.ProtocolVersion
		if g.version == "" {
			g.version = "?"
		}
	}
	return id, true
}

// validID reports whether id is a request ID the SDK reads back as sent:
// a string or an integer (JSON numbers travel as float64 in the SDK).
func validID(id json.RawMessage) bool {
	var v any
	if len(id) == 0 || json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string:
		return true
	case float64:
		r, ok := new(big.Rat).SetString(string(id))
		return ok && r.IsInt() && r.Num().IsInt64() && -(1<<53) < r.Num().Int64() && r.Num().Int64() < 1<<53
	}
	return false
}

// refuse answers a line with a JSON-RPC error.
func (g *gate) refuse(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: oneLine(message)}})
	g.out.Write(append(b, '\n'))
}
