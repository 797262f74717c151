package compactor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// A Summarizer turns dropped transcript entries into summary text. It must
// not write to the store; the compactor persists its result.
type Summarizer interface {
	Summarize(ctx context.Context, req Request) (Summary, error)
}

// Request is what a Summarizer summarizes.
type Request struct {
	// SessionID names the session (for logging; summarizers need not use it).
	SessionID string
	// Format is the session's source format (Session.SourceFormat: the
	// jsonlimport names claude-code, codex, pi, …; "" for a session an
	// application wrote). Entries of Claude Code, Codex and pi sessions are
	// lines of the agent's own file, read with jsonlimport.Understand.
	Format string
	// Previous is the text of the previous summary when this compaction
	// extends one made by this package ("" otherwise). The new summary must
	// cover it and Entries together.
	Previous string
	// Entries are the newly dropped entries, oldest first: log entries
	// (Seq > 0) and summary entries of the current compaction (Seq 0): all
	// of them when it was not made by this package, else the tail copies
	// it carried (Claude Code, Codex and pi only).
	Entries []sessiondb.Entry
	// TurnPrefix is true when Entries are the beginning of a turn whose
	// end is kept verbatim (a split turn: the policy's token budget cut
	// inside a long turn). The summary should give what the kept end
	// needs: the turn's request, its early progress, the context for what
	// follows. Previous is then empty; the compaction joins this summary
	// to the history's (see Compactor).
	TurnPrefix bool
}

// Summary is a Summarizer's result.
type Summary struct {
	// Text is the summary; it must not be empty.
	Text string
	// Summarizer names what produced it ("offline", "openai"); recorded in
	// the compaction details ("custom" when empty).
	Summarizer string
	// Model is the model that wrote it ("" when none).
	Model string
	// Usage, when non-nil, is the model call's accounting; it is added to
	// the session's usage ledger in the same commit as the compaction.
	Usage *sessiondb.Usage
}

// SummarizerFunc adapts a function to the Summarizer interface.
type SummarizerFunc func(ctx context.Context, req Request) (Summary, error)

// Summarize calls f.
func (f SummarizerFunc) Summarize(ctx context.Context, req Request) (Summary, error) {
	return f(ctx, req)
}

// entryText is the plain text of a message for summaries: the content
// string, or the text of its text blocks (typed "text" or untyped {"text"}),
// joined by newlines. Tool calls, results, reasoning and images are not
// text here.
func entryText(body json.RawMessage) string {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return ""
	}
	if et, _ := obj["entry_type"].(string); et == "message" {
		if data, ok := obj["data"].(map[string]any); ok {
			obj = data
		}
	}
	switch c := obj["content"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			b, ok := b.(map[string]any)
			if !ok {
				continue
			}
			if t, _ := b["type"].(string); t != "" && t != "text" {
				continue
			}
			if s, ok := b["text"].(string); ok && s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// truncate cuts s to at most n bytes without splitting a UTF-8 sequence,
// appending "…" when it cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := lastRuneStart(s); i >= 0 && !utf8.FullRuneInString(s[i:]) {
		s = s[:i]
	}
	return s + "…"
}

func lastRuneStart(s string) int {
	i := len(s) - 1
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// RenderTranscript renders entries as plain text for a model to summarize,
// one block per entry:
//
//	--- user ---
//	text
//
// The header is the entry's role (its kind for custom and rich entries,
// with "summary" prepended for summary messages). The text is
// sessiondb.DefaultExtractor's: message text, tool names and arguments,
// tool results, and the text of custom and rich entries; an entry without
// such text (a custom payload under "data", a model change) is rendered as
// its compact JSON body. Each entry's text
// is cut to maxEntryBytes (0: no limit) with a note saying how much was cut.
func RenderTranscript(entries []sessiondb.Entry, maxEntryBytes int) string {
	var b strings.Builder
	for _, e := range entries {
		role, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
		header := role
		if e.Kind != "" && e.Kind != sessiondb.KindMessage {
			header = e.Kind
		}
		if header == "" {
			header = "entry"
		}
		if e.Summary {
			header = "summary " + header
		}
		if strings.TrimSpace(text) == "" {
			text = string(compactJSON(e.Body))
		}
		if maxEntryBytes > 0 && len(text) > maxEntryBytes {
			cut := len(text) - maxEntryBytes
			text = truncate(text, maxEntryBytes) + fmt.Sprintf(" [%d more bytes]", cut)
		}
		fmt.Fprintf(&b, "--- %s ---\n%s\n", header, text)
	}
	return b.String()
}

// RenderFormat is RenderTranscript for the entries of a Claude Code, Codex
// or pi session, read with jsonlimport.Understand: bookkeeping lines are
// left out; each other entry is a block headed by its role ("context" for
// injected context, with "summary" prepended for summary entries) holding
// its thinking ("[thinking] …"), its text, its tool calls ("→ name(arguments)")
// and its tool results ("← [call id] text"), each entry cut to
// maxEntryBytes (0: no limit) as RenderTranscript cuts it.
func RenderFormat(format string, entries []sessiondb.Entry, maxEntryBytes int) string {
	var b strings.Builder
	for _, e := range entries {
		m := jsonlimport.Understand(format, e)
		if m.Bookkeeping {
			continue
		}
		header := m.Role
		if m.Context {
			header = "context"
		}
		if header == "" {
			header = "entry"
		}
		if e.Summary {
			header = "summary " + header
		}
		var parts []string
		if m.Thinking != "" {
			parts = append(parts, "[thinking] "+m.Thinking)
		}
		if m.Text != "" {
			parts = append(parts, m.Text)
		}
		for _, c := range m.Calls {
			parts = append(parts, "→ "+c.Name+"("+c.Arguments+")")
		}
		for _, r := range m.Results {
			status := ""
			if r.IsError {
				status = " (error)"
			}
			parts = append(parts, "← ["+r.CallID+"]"+status+" "+r.Text)
		}
		text := strings.Join(parts, "\n")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if maxEntryBytes > 0 && len(text) > maxEntryBytes {
			cut := len(text) - maxEntryBytes
			text = truncate(text, maxEntryBytes) + fmt.Sprintf(" [%d more bytes]", cut)
		}
		fmt.Fprintf(&b, "--- %s ---\n%s\n", header, text)
	}
	return b.String()
}
