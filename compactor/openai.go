package compactor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
)

// Environment variables read by NewOpenAI for options left empty.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvModel   = "SESSIONDB_SUMMARY_MODEL"
)

// OpenAI defaults.
const (
	DefaultBaseURL       = "https://api.openai.com/v1"
	DefaultOpenAITimeout = 2 * time.Minute
	DefaultMaxRetries    = 4
	DefaultMinBackoff    = time.Second
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxRetryAfter = 2 * time.Minute
	DefaultMaxEntryBytes = 4000
	errorBodyBytes       = 512
)

// SummarySystemPrompt is the system message the OpenAI summarizer sends.
const SummarySystemPrompt = `You are a context summarization assistant. You read part of a conversation between a user and an AI agent (with its tool calls and tool results) and write a summary that replaces it in the agent's context. Do NOT continue the conversation and do NOT answer questions in it. Output ONLY the summary, in these sections: ## Goal, ## Constraints & Preferences, ## Progress (### Done, ### In Progress, ### Blocked), ## Key Decisions, ## Next Steps, ## Critical Context. Preserve exact file paths, function names, identifiers and error messages. Be concise.`

// TurnPrefixInstruction ends the user message of a Request.TurnPrefix
// (after pi's TURN_PREFIX_SUMMARIZATION_PROMPT): the conversation is the
// beginning of a turn whose end stays verbatim.
const TurnPrefixInstruction = `The conversation above is the BEGINNING of a turn too large to keep; its end (the recent work) is kept verbatim after your summary. Summarize the beginning to give the kept end its context, in these sections: ## Original Request (what the user asked for in this turn), ## Early Progress (key decisions and work done), ## Context for Suffix (what is needed to understand the kept recent work). Be concise.`

// OpenAIOptions configure NewOpenAI. Empty fields take the defaults named.
type OpenAIOptions struct {
	// BaseURL of the API, up to and excluding /chat/completions (e.g.
	// http://localhost:11434/v1 for Ollama). Default: $OPENAI_BASE_URL,
	// else DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token. Default: $OPENAI_API_KEY; when both
	// are empty no Authorization header is sent (local servers).
	APIKey string
	// Model to ask. Default: $SESSIONDB_SUMMARY_MODEL; required.
	Model string
	// Timeout bounds each HTTP attempt. Default DefaultOpenAITimeout.
	Timeout time.Duration
	// TotalTimeout, when positive, bounds a Summarize call as a whole,
	// retries and backoff included (without it, a hanging endpoint costs
	// up to (MaxRetries+1) × Timeout plus the backoff).
	TotalTimeout time.Duration
	// MaxRetries is how many times a 429, a 5xx or a transport error is
	// retried. Default DefaultMaxRetries; negative means none.
	MaxRetries int
	// MinBackoff and MaxBackoff bound the exponential backoff between
	// retries (MinBackoff, 2×, 4×, … capped at MaxBackoff).
	MinBackoff, MaxBackoff time.Duration
	// MaxRetryAfter caps the wait a Retry-After header may ask for.
	// Default DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	// MaxTokens, when positive, is sent as max_tokens.
	MaxTokens int
	// MaxEntryBytes cuts each rendered entry (see RenderTranscript).
	// Default DefaultMaxEntryBytes; negative means no limit.
	MaxEntryBytes int
	// SystemPrompt replaces SummarySystemPrompt when not empty.
	SystemPrompt string
	// HTTPClient defaults to a client without its own timeout (Timeout
	// applies per attempt).
	HTTPClient *http.Client
}

// OpenAI is a Summarizer that calls an OpenAI-compatible chat-completions
// endpoint (OpenAI, Ollama, llama.cpp server, vLLM, …) with net/http.
type OpenAI struct {
	opts OpenAIOptions
	// endpoint is the URL posted to; shown is the same URL with any
	// user:password@ replaced, for messages.
	endpoint, shown string
	// secrets are the strings redacted from every error message: the API
	// key and the URL's password (a server may echo either).
	secrets []string
	// sleep waits between retries; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// NewOpenAI returns an OpenAI summarizer. It fails when no model is given
// in opts or in $SESSIONDB_SUMMARY_MODEL.
func NewOpenAI(opts OpenAIOptions) (*OpenAI, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = os.Getenv(EnvBaseURL)
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.APIKey == "" {
		opts.APIKey = os.Getenv(EnvAPIKey)
	}
	if opts.Model == "" {
		opts.Model = os.Getenv(EnvModel)
	}
	if opts.Model == "" {
		return nil, fmt.Errorf("openai summarizer: no model: set OpenAIOptions.Model or $%s", EnvModel)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultOpenAITimeout
	}
	switch {
	case opts.MaxRetries == 0:
		opts.MaxRetries = DefaultMaxRetries
	case opts.MaxRetries < 0:
		opts.MaxRetries = 0
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.MaxRetryAfter <= 0 {
		opts.MaxRetryAfter = DefaultMaxRetryAfter
	}
	switch {
	case opts.MaxEntryBytes == 0:
		opts.MaxEntryBytes = DefaultMaxEntryBytes
	case opts.MaxEntryBytes < 0:
		opts.MaxEntryBytes = 0
	}
	if opts.SystemPrompt == "" {
		opts.SystemPrompt = SummarySystemPrompt
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	o := &OpenAI{opts: opts, sleep: sleepCtx, endpoint: opts.BaseURL + "/chat/completions"}
	o.shown = o.endpoint
	if u, err := neturl.Parse(o.endpoint); err == nil {
		o.shown = u.Redacted()
		if u.User != nil {
			if pw, ok := u.User.Password(); ok && pw != "" {
				o.secrets = append(o.secrets, pw)
			}
		}
	}
	if opts.APIKey != "" {
		o.secrets = append(o.secrets, opts.APIKey)
	}
	return o, nil
}

// redact replaces every secret in err's message with "[redacted]". The
// result does not wrap err: its text may hold the secret.
func (o *OpenAI) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, s := range o.secrets {
		if len(s) >= 4 && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return &redactedError{msg: msg, cause: err}
}

// redactedError is an error whose message had secrets removed. It keeps
// the sentinel errors of the original (context.Canceled, …) for errors.Is
// without exposing its text.
type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }

// Is reports whether the original error matches target.
func (e *redactedError) Is(target error) bool { return errors.Is(e.cause, target) }

// Model returns the model the summarizer asks.
func (o *OpenAI) Model() string { return o.opts.Model }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model     string        `json:"model"`
	Messages  []chatMessage `json:"messages"`
	MaxTokens int           `json:"max_tokens,omitempty"`
	Stream    bool          `json:"stream"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// UserPrompt is the user message the OpenAI summarizer sends for req:
// the previous summary (when there is one) in <previous-summary> tags, the
// rendered entries in <conversation> tags (RenderFormat for Claude Code,
// Codex and pi sessions, else RenderTranscript), and the instruction.
func UserPrompt(req Request, maxEntryBytes int) string {
	var b strings.Builder
	if req.Previous != "" {
		b.WriteString("<previous-summary>\n")
		b.WriteString(req.Previous)
		b.WriteString("\n</previous-summary>\n\n")
	}
	b.WriteString("<conversation>\n")
	if ownShape(req.Format) {
		b.WriteString(RenderFormat(req.Format, req.Entries, maxEntryBytes))
	} else {
		b.WriteString(RenderTranscript(req.Entries, maxEntryBytes))
	}
	b.WriteString("</conversation>\n\n")
	if req.TurnPrefix {
		b.WriteString(TurnPrefixInstruction)
		return b.String()
	}
	if req.Previous != "" {
		b.WriteString("Update the previous summary with the conversation that followed it. Keep what still matters from the previous summary; the result replaces both.")
	} else {
		b.WriteString("Summarize the conversation above.")
	}
	return b.String()
}

// Summarize implements Summarizer. It retries 429 and 5xx responses and
// transport errors up to MaxRetries times, waiting as the Retry-After
// header asks (capped at MaxRetryAfter) or with exponential backoff; any
// other failure returns at once with the status and the start of the body.
func (o *OpenAI) Summarize(ctx context.Context, req Request) (Summary, error) {
	s, err := o.summarize(ctx, req)
	return s, o.redact(err)
}

func (o *OpenAI) summarize(ctx context.Context, req Request) (Summary, error) {
	if o.opts.TotalTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.opts.TotalTimeout)
		defer cancel()
	}
	body, err := json.Marshal(chatRequest{
		Model: o.opts.Model,
		Messages: []chatMessage{
			{Role: "system", Content: o.opts.SystemPrompt},
			{Role: "user", Content: UserPrompt(req, o.opts.MaxEntryBytes)},
		},
		MaxTokens: o.opts.MaxTokens,
	})
	if err != nil {
		return Summary{}, fmt.Errorf("openai summarizer: encode request: %w", err)
	}
	backoff := o.opts.MinBackoff
	for attempt := 0; ; attempt++ {
		resp, wait, err := o.post(ctx, body)
		if err == nil {
			return resp, nil
		}
		if wait < 0 || attempt >= o.opts.MaxRetries || ctx.Err() != nil {
			if attempt > 0 {
				err = fmt.Errorf("%w (after %d attempts)", err, attempt+1)
			}
			return Summary{}, err
		}
		if wait == 0 {
			wait = backoff
			backoff = min(2*backoff, o.opts.MaxBackoff)
		}
		if err := o.sleep(ctx, wait); err != nil {
			return Summary{}, fmt.Errorf("openai summarizer: %w", err)
		}
	}
}

// post makes one attempt. On failure, wait is -1 when the error is not
// worth retrying, 0 to retry after the backoff, or the Retry-After delay.
func (o *OpenAI) post(ctx context.Context, body []byte) (Summary, time.Duration, error) {
	url := o.shown // for messages; the request goes to o.endpoint
	ctx, cancel := context.WithTimeout(ctx, o.opts.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return Summary{}, -1, fmt.Errorf("openai summarizer: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if o.opts.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+o.opts.APIKey)
	}
	resp, err := o.opts.HTTPClient.Do(hreq)
	if err != nil {
		// A *url.Error repeats the URL, user:password@ included; say
		// what failed with the redacted URL instead.
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Summary{}, 0, fmt.Errorf("openai summarizer: POST %s: %w", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return Summary{}, 0, fmt.Errorf("openai summarizer: POST %s: read response: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("openai summarizer: POST %s: %s: %s", url, resp.Status, snippet(data))
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return Summary{}, o.retryAfter(resp.Header.Get("Retry-After")), err
		}
		return Summary{}, -1, err
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return Summary{}, -1, fmt.Errorf("openai summarizer: POST %s: decode response: %w: %s", url, err, snippet(data))
	}
	if len(cr.Choices) == 0 || strings.TrimSpace(cr.Choices[0].Message.Content) == "" {
		return Summary{}, -1, fmt.Errorf("openai summarizer: POST %s: empty summary in response: %s", url, snippet(data))
	}
	s := Summary{
		Text:       strings.TrimSpace(cr.Choices[0].Message.Content),
		Summarizer: "openai",
		Model:      cr.Model,
	}
	if s.Model == "" {
		s.Model = o.opts.Model
	}
	if cr.Usage != nil {
		s.Usage = &sessiondb.Usage{
			Provider:     "openai-compatible",
			Model:        s.Model,
			InputTokens:  cr.Usage.PromptTokens,
			OutputTokens: cr.Usage.CompletionTokens,
		}
	}
	return s, 0, nil
}

// retryAfter parses a Retry-After header (seconds or an HTTP date); 0 when
// absent or unparseable.
func (o *OpenAI) retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(h, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		d = time.Duration(secs * float64(time.Second))
	} else if t, err := http.ParseTime(h); err == nil {
		d = time.Until(t)
		if d <= 0 {
			return 0
		}
	} else {
		return 0
	}
	return min(d, o.opts.MaxRetryAfter)
}

// snippet is the start of a response body for an error message.
func snippet(data []byte) string {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return "(empty body)"
	}
	return strings.ToValidUTF8(truncate(s, errorBodyBytes), "\uFFFD")
}

var _ Summarizer = (*OpenAI)(nil)
var _ Summarizer = Offline{}
