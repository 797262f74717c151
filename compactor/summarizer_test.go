package compactor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
)

func TestOfflineSummary(t *testing.T) {
	req := Request{Entries: entries(
		userMsg("Find the latest Go release\nand save notes"),
		oaiCall("web_search", "c1"),
		oaiResult("c1", "Go 1.26 is out"),
		`{"role":"assistant","content":"","tool_calls":[{"id":"c2","function":{"name":"web_fetch","arguments":"{}"}},{"id":"c3","function":{"name":"web_search","arguments":"{}"}}]}`,
		oaiResult("c2", "page"), oaiResult("c3", "more"),
		assistantMsg("Go 1.26 is the latest.\nNotes saved."),
		"custom:"+customMsg("notice"),
		userMsg("  \n  Now run the tests  "),
		antCall("bash", "tu_1"), antResult("PASS", "tu_1"),
		zotCall("read", "z1"), zotResult("file", "z1"),
	)}
	got, err := Offline{}.Summarize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// The last assistant message with text is antCall's "Let me look.".
	want := "[Offline summary of 13 earlier messages]\n" +
		"User requests:\n" +
		"- Find the latest Go release\n" +
		"- Now run the tests\n" +
		"Tools called: web_search (2), web_fetch (1), bash (1), read (1)\n" +
		"Last assistant answer: Let me look."
	if diff := cmp.Diff(want, got.Text); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if got.Summarizer != "offline" || got.Model != "" || got.Usage != nil {
		t.Errorf("summary metadata = %+v", got)
	}
	again, _ := Offline{}.Summarize(context.Background(), req)
	if again.Text != got.Text {
		t.Error("offline summary is not deterministic")
	}
}

func TestOfflineIncremental(t *testing.T) {
	ctx := context.Background()
	first, err := Offline{}.Summarize(ctx, Request{Entries: entries(
		userMsg("one"), oaiCall("read", "a"), oaiResult("a", "x"), assistantMsg("answer one"),
	)})
	if err != nil {
		t.Fatal(err)
	}
	second, err := Offline{}.Summarize(ctx, Request{Previous: first.Text, Entries: entries(
		userMsg("two"), oaiCall("read", "b"), oaiResult("b", "y"), oaiCall("grep", "c"), oaiResult("c", "z"),
	)})
	if err != nil {
		t.Fatal(err)
	}
	want := "[Offline summary of 9 earlier messages]\n" +
		"User requests:\n- one\n- two\n" +
		"Tools called: read (2), grep (1)\n" +
		"Last assistant answer: answer one"
	if diff := cmp.Diff(want, second.Text); diff != "" {
		t.Errorf("merged summary (-want +got):\n%s", diff)
	}

	// A previous summary from another summarizer is carried on one line.
	third, err := Offline{}.Summarize(ctx, Request{Previous: "## Goal\nShip it.", Entries: entries(userMsg("three"))})
	if err != nil {
		t.Fatal(err)
	}
	want = "[Offline summary of 1 earlier messages]\n" +
		"Earlier summary: ## Goal Ship it.\n" +
		"User requests:\n- three\n" +
		"Tools called: none\n" +
		"Last assistant answer: none"
	if diff := cmp.Diff(want, third.Text); diff != "" {
		t.Errorf("summary over a foreign one (-want +got):\n%s", diff)
	}
	// And it round-trips through the parser.
	d, ok := parseOffline(third.Text)
	if !ok || d.String() != third.Text {
		t.Errorf("parseOffline(%q) = %+v, %v", third.Text, d, ok)
	}
}

func TestOfflineCaps(t *testing.T) {
	var bodies []string
	for i := 0; i < OfflineMaxRequests+5; i++ {
		bodies = append(bodies, userMsg(fmt.Sprintf("request %d %s", i, strings.Repeat("é", OfflineRequestBytes))))
	}
	for i := 0; i < OfflineMaxTools+3; i++ {
		bodies = append(bodies, oaiCall(fmt.Sprintf("tool, (%d)", i), fmt.Sprintf("id%d", i)))
	}
	bodies = append(bodies, assistantMsg(strings.Repeat("a ", OfflineAnswerBytes)))
	s, err := Offline{}.Summarize(context.Background(), Request{Entries: entries(bodies...)})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(s.Text, "\n")
	if lines[2] != "- (5 earlier requests omitted)" {
		t.Errorf("omitted line = %q", lines[2])
	}
	if !strings.HasPrefix(lines[3], "- request 5 ") {
		t.Errorf("first listed request = %q, want request 5", lines[3])
	}
	for _, l := range lines[3 : 3+OfflineMaxRequests] {
		if len(l) > len("- ")+OfflineRequestBytes+len("…") || !strings.HasSuffix(l, "…") {
			t.Errorf("request line not capped: %d bytes", len(l))
		}
	}
	tools := lines[3+OfflineMaxRequests]
	if !strings.HasPrefix(tools, "Tools called: tool___0_ (1), ") || !strings.HasSuffix(tools, ", (other) (3)") {
		t.Errorf("tools line = %q", tools)
	}
	if answer := lines[len(lines)-1]; len(answer) > len("Last assistant answer: ")+OfflineAnswerBytes+len("…") {
		t.Errorf("answer not capped: %d bytes", len(answer))
	}
	d, ok := parseOffline(s.Text)
	if !ok || d.String() != s.Text {
		t.Errorf("capped summary does not round-trip")
	}
}

func TestRenderTranscript(t *testing.T) {
	es := entries(userMsg("hello"), oaiCall("read", "c1"), oaiResult("c1", strings.Repeat("r", 50)), "custom:"+customMsg("note"))
	es = append([]sessiondb.Entry{summaryEntry(userMsg("old summary"))}, es...)
	got := RenderTranscript(es, 30)
	want := "--- summary user ---\nold summary\n" +
		"--- user ---\nhello\n" +
		"--- assistant ---\nread\n{\"path\":\"/tmp/x\"}\n" +
		"--- tool ---\n" + strings.Repeat("r", 30) + "… [20 more bytes]\n" +
		"--- custom ---\n{\"_custom\":true,\"data\":{\"level… [43 more bytes]\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("render (-want +got):\n%s", diff)
	}
}

// fakeAPI is an OpenAI-compatible endpoint that answers from a script.
type fakeAPI struct {
	mu       sync.Mutex
	requests []chatRequest
	auth     []string
	script   []func(w http.ResponseWriter)
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		http.Error(w, "content type "+ct, http.StatusBadRequest)
		return
	}
	var req chatRequest
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if n >= len(f.script) {
		http.Error(w, "unexpected request", http.StatusTeapot)
		return
	}
	f.script[n](w)
}

func okResponse(text string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","model":"served-model","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}}`, text)
	}
}

func statusResponse(code int, retryAfter, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// newTestOpenAI returns a summarizer for srv that records its sleeps
// instead of sleeping.
func newTestOpenAI(t *testing.T, srv *httptest.Server, opts OpenAIOptions) (*OpenAI, *[]time.Duration) {
	t.Helper()
	opts.BaseURL = srv.URL + "/v1/"
	if opts.Model == "" {
		opts.Model = "test-model"
	}
	o, err := NewOpenAI(opts)
	if err != nil {
		t.Fatal(err)
	}
	var sleeps []time.Duration
	o.sleep = func(ctx context.Context, d time.Duration) error {
		sleeps = append(sleeps, d)
		return ctx.Err()
	}
	return o, &sleeps
}

func TestOpenAIRequest(t *testing.T) {
	api := &fakeAPI{script: []func(http.ResponseWriter){okResponse("  ## Goal\nShip.  ")}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	o, sleeps := newTestOpenAI(t, srv, OpenAIOptions{APIKey: "sk-test", MaxTokens: 512})

	req := Request{Previous: "## Goal\nEarlier.", Entries: entries(userMsg("fix the bug in main.go"), oaiCall("read", "c1"), oaiResult("c1", "package main"))}
	got, err := o.Summarize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{
		Text: "## Goal\nShip.", Summarizer: "openai", Model: "served-model",
		Usage: &sessiondb.Usage{Provider: "openai-compatible", Model: "served-model", InputTokens: 120, OutputTokens: 30},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if len(api.requests) != 1 || len(*sleeps) != 0 {
		t.Fatalf("%d requests, sleeps %v", len(api.requests), *sleeps)
	}
	r := api.requests[0]
	if r.Model != "test-model" || r.MaxTokens != 512 || r.Stream {
		t.Errorf("request model %q max_tokens %d stream %v", r.Model, r.MaxTokens, r.Stream)
	}
	if api.auth[0] != "Bearer sk-test" {
		t.Errorf("Authorization = %q", api.auth[0])
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[0].Content != SummarySystemPrompt || r.Messages[1].Role != "user" {
		t.Fatalf("messages = %+v", r.Messages)
	}
	user := r.Messages[1].Content
	if user != UserPrompt(req, DefaultMaxEntryBytes) {
		t.Errorf("user message differs from UserPrompt")
	}
	for _, part := range []string{
		"<previous-summary>\n## Goal\nEarlier.\n</previous-summary>",
		"--- user ---\nfix the bug in main.go\n",
		"--- tool ---\npackage main\n",
		"Update the previous summary",
	} {
		if !strings.Contains(user, part) {
			t.Errorf("user message lacks %q:\n%s", part, user)
		}
	}
}

func TestOpenAIRetries(t *testing.T) {
	api := &fakeAPI{script: []func(http.ResponseWriter){
		statusResponse(http.StatusTooManyRequests, "7", `{"error":"slow down"}`),
		statusResponse(http.StatusInternalServerError, "", "boom"),
		statusResponse(http.StatusServiceUnavailable, "", "busy"),
		statusResponse(http.StatusTooManyRequests, "9999", ""),
		okResponse("done"),
	}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	o, sleeps := newTestOpenAI(t, srv, OpenAIOptions{MinBackoff: time.Second, MaxBackoff: 30 * time.Second, MaxRetryAfter: time.Minute})
	got, err := o.Summarize(context.Background(), Request{Entries: entries(userMsg("x"))})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "done" {
		t.Errorf("text = %q", got.Text)
	}
	// Retry-After 7s honoured, then backoff 1s, 2s, then Retry-After capped.
	want := []time.Duration{7 * time.Second, time.Second, 2 * time.Second, time.Minute}
	if diff := cmp.Diff(want, *sleeps); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if len(api.auth) != 5 || api.auth[0] != "" {
		t.Errorf("auth headers %q: want none without a key", api.auth)
	}
}

func TestOpenAIErrors(t *testing.T) {
	tests := []struct {
		name     string
		script   []func(http.ResponseWriter)
		retries  int
		wantReqs int
		want     []string // substrings of the error
	}{
		{
			name:     "client error is not retried",
			script:   []func(http.ResponseWriter){statusResponse(http.StatusUnauthorized, "", `{"error":{"message":"bad key"}}`)},
			wantReqs: 1,
			want:     []string{"401 Unauthorized", `{"error":{"message":"bad key"}}`},
		},
		{
			name: "retries exhausted on 500",
			script: []func(http.ResponseWriter){
				statusResponse(500, "", "e1"), statusResponse(500, "", "e2"), statusResponse(502, "", strings.Repeat("z", 2000)),
			},
			retries:  2,
			wantReqs: 3,
			want:     []string{"502 Bad Gateway", strings.Repeat("z", errorBodyBytes) + "…", "after 3 attempts"},
		},
		{
			name:     "empty choices",
			script:   []func(http.ResponseWriter){statusResponse(200, "", `{"choices":[]}`)},
			wantReqs: 1,
			want:     []string{"empty summary", `{"choices":[]}`},
		},
		{
			name:     "not json",
			script:   []func(http.ResponseWriter){statusResponse(200, "", `<html>`)},
			wantReqs: 1,
			want:     []string{"decode response", "<html>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{script: tt.script}
			srv := httptest.NewServer(api)
			defer srv.Close()
			o, _ := newTestOpenAI(t, srv, OpenAIOptions{MaxRetries: tt.retries})
			_, err := o.Summarize(context.Background(), Request{Entries: entries(userMsg("x"))})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if len(api.requests) != tt.wantReqs {
				t.Errorf("%d requests, want %d", len(api.requests), tt.wantReqs)
			}
		})
	}
}

func TestOpenAICancelledWhileWaiting(t *testing.T) {
	api := &fakeAPI{script: []func(http.ResponseWriter){statusResponse(503, "", "busy"), okResponse("never")}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	o, _ := newTestOpenAI(t, srv, OpenAIOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	o.sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	_, err := o.Summarize(ctx, Request{Entries: entries(userMsg("x"))})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(api.requests) != 1 {
		t.Errorf("%d requests after cancel, want 1", len(api.requests))
	}
}

func TestNewOpenAIEnvironment(t *testing.T) {
	t.Setenv(EnvBaseURL, "http://localhost:11434/v1/")
	t.Setenv(EnvAPIKey, "env-key")
	t.Setenv(EnvModel, "")
	if _, err := NewOpenAI(OpenAIOptions{}); err == nil || !strings.Contains(err.Error(), EnvModel) {
		t.Fatalf("without a model: err = %v", err)
	}
	t.Setenv(EnvModel, "llama3.2")
	o, err := NewOpenAI(OpenAIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.opts.BaseURL != "http://localhost:11434/v1" || o.opts.APIKey != "env-key" || o.Model() != "llama3.2" {
		t.Errorf("from env: %+v", o.opts)
	}
	o, err = NewOpenAI(OpenAIOptions{BaseURL: "http://h/v1", APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if o.opts.BaseURL != "http://h/v1" || o.opts.APIKey != "k" || o.Model() != "m" {
		t.Errorf("options do not win over env: %+v", o.opts)
	}
	if o.opts.Timeout != DefaultOpenAITimeout || o.opts.MaxRetries != DefaultMaxRetries {
		t.Errorf("defaults: %+v", o.opts)
	}
}

// TestOpenAIRedactsSecrets (issue 13 item 11): neither the password of a
// user:password@ base URL nor the API key echoed by a server appears in an
// error, whether the request failed in transport or with a status.
func TestOpenAIRedactsSecrets(t *testing.T) {
	const key, password = "sk-secret-key-0123456789", "hunter2-pw"
	echo := statusResponse(401, "", `{"error":{"message":"Incorrect API key provided: `+key+`"}}`)
	api := &fakeAPI{script: []func(http.ResponseWriter){echo}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	o, err := NewOpenAI(OpenAIOptions{BaseURL: strings.Replace(srv.URL, "http://", "http://user:"+password+"@", 1) + "/v1", APIKey: key, Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Summarize(context.Background(), Request{Entries: entries(userMsg("x"))})
	if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), password) {
		t.Errorf("status error leaks a secret: %v", err)
	}
	if !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("status error lost its content: %v", err)
	}

	// A transport error (nothing listens) names the URL without the password.
	srv.Close()
	_, err = o.Summarize(context.Background(), Request{Entries: entries(userMsg("x"))})
	if err == nil || strings.Contains(err.Error(), password) || strings.Contains(err.Error(), key) {
		t.Errorf("transport error leaks a secret: %v", err)
	}
}

// TestOpenAITotalTimeout (item 11): TotalTimeout bounds Summarize as a
// whole, retries included, against an endpoint that never answers.
func TestOpenAITotalTimeout(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hang)
	o, err := NewOpenAI(OpenAIOptions{BaseURL: srv.URL + "/v1", Model: "m", TotalTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Summarize(context.Background(), Request{Entries: entries(userMsg("x"))})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Summarize against a hanging endpoint = %v, want DeadlineExceeded", err)
	}
}
