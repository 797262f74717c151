package scriptmodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Script is what the server plays; zero means DefaultScript().
	Script *Script
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// LogDir, when set, receives requests.jsonl: one line per request,
	// appended as requests arrive.
	LogDir string
	// MaxBody bounds a request body; larger ones get 413. Default 32 MiB.
	MaxBody int64
	// MaxRequests bounds the requests served; past it the server answers
	// 429 and stops. Default 2000.
	MaxRequests int
	// IdleTimeout stops the server when no request has come for that
	// long. Default 10 minutes.
	IdleTimeout time.Duration
	// Pace is the pause between streamed blocks (agents stamp each block
	// as it ends). Default 0.
	Pace time.Duration
}

// Request is one logged request.
type Request struct {
	Seq      int             `json:"seq"`
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Query    string          `json:"query,omitempty"`
	Protocol string          `json:"protocol"` // anthropic, responses, chat, gemini, or other
	Scenario string          `json:"scenario,omitempty"`
	Turn     int             `json:"turn,omitempty"`
	Step     int             `json:"step,omitempty"`
	Status   int             `json:"status"`
	Body     json.RawMessage `json:"body,omitempty"` // the body as sent (a JSON string if it is not JSON)
	// At is when the request arrived; kept in memory only, so that
	// two runs of a script log the same lines.
	At time.Time `json:"-"`
}

// Server is a running scripted model server on 127.0.0.1.
type Server struct {
	opts   Options
	script Script
	ln     net.Listener
	srv    *http.Server
	url    string

	mu       sync.Mutex
	requests []Request
	logFile  *os.File
	idle     *time.Timer
	done     chan struct{}
	stopOnce sync.Once
	stopErr  error
}

// ErrStopped is what Wait returns when the server stopped by itself
// (idle timeout or request limit).
var ErrStopped = errors.New("scriptmodel: server stopped by itself")

// Start starts a server on 127.0.0.1 and returns once it listens.
func Start(opts Options) (*Server, error) {
	if opts.MaxBody <= 0 {
		opts.MaxBody = 32 << 20
	}
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = 2000
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 10 * time.Minute
	}
	s := &Server{opts: opts, done: make(chan struct{})}
	if opts.Script != nil {
		s.script = *opts.Script
	} else {
		s.script = DefaultScript()
	}
	if opts.LogDir != "" {
		if err := os.MkdirAll(opts.LogDir, 0o755); err != nil {
			return nil, fmt.Errorf("scriptmodel: log dir: %w", err)
		}
		f, err := os.OpenFile(filepath.Join(opts.LogDir, "requests.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("scriptmodel: log: %w", err)
		}
		s.logFile = f
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", opts.Port))
	if err != nil {
		if s.logFile != nil {
			s.logFile.Close()
		}
		return nil, fmt.Errorf("scriptmodel: listen: %w", err)
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	s.idle = time.AfterFunc(opts.IdleTimeout, func() { s.stop(ErrStopped) })
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.stop(err)
		}
	}()
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:PORT (no trailing slash).
func (s *Server) URL() string { return s.url }

// Done is closed when the server has stopped.
func (s *Server) Done() <-chan struct{} { return s.done }

// Close stops the server and waits until it has. Close after a stop is
// a no-op.
func (s *Server) Close() error {
	s.stop(nil)
	<-s.done
	if errors.Is(s.stopErr, ErrStopped) {
		return nil
	}
	return s.stopErr
}

// Err is why the server stopped: nil while it runs or after Close,
// ErrStopped after an idle timeout or the request limit.
func (s *Server) Err() error {
	select {
	case <-s.done:
		return s.stopErr
	default:
		return nil
	}
}

// stop starts the shutdown once and does not wait for it: a handler
// calls it, and Shutdown waits for handlers.
func (s *Server) stop(why error) {
	s.stopOnce.Do(func() {
		s.stopErr = why
		s.idle.Stop()
		go func() {
			// Shutdown waits for streams in flight; a stuck client is
			// cut after a few seconds.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.srv.Shutdown(ctx); err != nil {
				s.srv.Close()
			}
			s.mu.Lock()
			if s.logFile != nil {
				s.logFile.Close()
				s.logFile = nil
			}
			s.mu.Unlock()
			close(s.done)
		}()
	})
}

// Requests returns a copy of the requests logged so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Len is the number of requests logged so far; Requests()[Len():] later
// are the requests of what ran in between.
func (s *Server) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// record logs a request and returns its sequence number, or 0 when the
// request limit is reached.
func (s *Server) record(r Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) >= s.opts.MaxRequests {
		return 0
	}
	r.Seq = len(s.requests) + 1
	s.requests = append(s.requests, r)
	return r.Seq
}

// finish sets the status of request seq and writes it to the log file.
func (s *Server) finish(seq, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq <= 0 || seq > len(s.requests) {
		return
	}
	s.requests[seq-1].Status = status
	if s.logFile != nil {
		line, _ := json.Marshal(s.requests[seq-1])
		s.logFile.Write(append(line, '\n'))
	}
}

// exchange is one request being answered.
type exchange struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	body []byte
	seq  int
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.idle.Reset(s.opts.IdleTimeout)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	logged := json.RawMessage(nil)
	if len(body) > 0 {
		if json.Valid(body) {
			logged = json.RawMessage(bytes.Clone(body))
		} else {
			logged, _ = json.Marshal(string(body))
		}
	}
	seq := s.record(Request{At: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Protocol: protocolOf(r.URL.Path), Body: logged})
	if seq == 0 {
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"type": "rate_limit_error", "message": "scriptmodel: request limit reached"}})
		go s.stop(ErrStopped)
		return
	}
	x := &exchange{s: s, w: w, r: r, body: body, seq: seq}
	if err != nil {
		x.fail(http.StatusRequestEntityTooLarge, "request body too large")
		return
	}
	x.route()
}

// protocolOf names the protocol of a path.
func protocolOf(path string) string {
	switch {
	case strings.HasPrefix(path, "/v1/messages"):
		return "anthropic"
	case strings.HasPrefix(path, "/v1/responses"):
		return "responses"
	case strings.HasPrefix(path, "/v1/chat/completions"):
		return "chat"
	case strings.HasPrefix(path, "/v1beta/") || strings.Contains(path, ":generateContent") ||
		strings.Contains(path, ":streamGenerateContent") || strings.Contains(path, ":countTokens"):
		return "gemini"
	}
	return "other"
}

func (x *exchange) route() {
	p := x.r.URL.Path
	post := x.r.Method == http.MethodPost
	switch {
	case post && p == "/v1/messages":
		x.anthropic()
	case post && p == "/v1/messages/count_tokens":
		x.write(http.StatusOK, map[string]any{"input_tokens": len(x.body) / 4})
	case post && p == "/v1/responses":
		x.responses()
	case post && p == "/v1/chat/completions":
		x.chat()
	case post && (strings.HasSuffix(p, ":streamGenerateContent") || strings.HasSuffix(p, ":generateContent")):
		x.gemini(strings.HasSuffix(p, ":streamGenerateContent"))
	case post && strings.HasSuffix(p, ":countTokens"):
		x.write(http.StatusOK, map[string]any{"totalTokens": len(x.body) / 4})
	case x.r.Method == http.MethodGet && (p == "/v1/models" || p == "/models"):
		x.write(http.StatusOK, modelList())
	case x.r.Method == http.MethodGet && (p == "/v1beta/models" || p == "/v1/models/"):
		x.write(http.StatusOK, map[string]any{"models": []any{
			map[string]any{"name": "models/gemini-2.5-pro", "displayName": "Gemini 2.5 Pro (scripted)", "supportedGenerationMethods": []string{"generateContent", "streamGenerateContent", "countTokens"}},
		}})
	case x.r.Method == http.MethodHead || (x.r.Method == http.MethodGet && p == "/"):
		x.write(http.StatusOK, map[string]any{})
	default:
		x.fail(http.StatusNotFound, "scriptmodel: no route for "+x.r.Method+" "+p)
	}
}

// modelList answers GET /v1/models in a shape both OpenAI and Anthropic
// clients read.
func modelList() map[string]any {
	var data []any
	for _, id := range []string{"claude-sonnet-4-5", "gpt-5.1-codex", "scripted-model"} {
		data = append(data, map[string]any{"id": id, "object": "model", "type": "model", "display_name": id, "created": 1767225600, "owned_by": "scriptmodel"})
	}
	return map[string]any{"object": "list", "data": data, "has_more": false}
}

// played notes the reply chosen for the exchange's request.
func (x *exchange) played(r Reply) {
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	q := &x.s.requests[x.seq-1]
	q.Scenario, q.Turn, q.Step = r.Scenario, r.Turn, r.Step
}

func (x *exchange) write(status int, v any) {
	writeJSON(x.w, status, v)
	x.s.finish(x.seq, status)
}

func (x *exchange) fail(status int, msg string) {
	x.write(status, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg, "code": status}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// sse is a Server-Sent Events writer.
type sse struct {
	x *exchange
	f http.Flusher
}

func (x *exchange) startSSE() *sse {
	h := x.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	x.w.WriteHeader(http.StatusOK)
	f, _ := x.w.(http.Flusher)
	return &sse{x: x, f: f}
}

// event writes one event; an empty name writes a data-only event.
func (e *sse) event(name string, v any) {
	var b []byte
	if raw, ok := v.(string); ok {
		b = []byte(raw)
	} else {
		b, _ = json.Marshal(v)
	}
	if name != "" {
		fmt.Fprintf(e.x.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.x.w, "data: %s\n\n", b)
	if e.f != nil {
		e.f.Flush()
	}
}

// pause waits Pace between blocks.
func (e *sse) pause() {
	if d := e.x.s.opts.Pace; d > 0 {
		select {
		case <-time.After(d):
		case <-e.x.r.Context().Done():
		}
	}
}

func (e *sse) end() { e.x.s.finish(e.x.seq, http.StatusOK) }

// halves splits a text in two pieces at a rune boundary, so that every
// text is streamed as more than one delta.
func halves(t string) []string {
	if len(t) < 2 {
		return []string{t}
	}
	r := []rune(t)
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}

func itoa(i int) string { return strconv.Itoa(i) }
