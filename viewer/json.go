package viewer

import (
	"encoding/json"
	"io"
	"time"

	"github.com/sessiondb/sessiondb"
)

// The JSON API returns the shapes sessionctl prints with --json. The CLI
// is package main, so its types are mirrored here; TestJSONShapesMatchCLI
// in cmd/sessionctl checks that both encode the same fields.

// SessionJSON is a session as `sessionctl list --json` prints it.
type SessionJSON struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Summary      string   `json:"summary"`
	CreatedAt    string   `json:"created_at"`
	UpdatedAt    string   `json:"updated_at"`
	MessageCount *int64   `json:"message_count,omitempty"`
	EntryCount   *int64   `json:"entry_count,omitempty"`
	Sequence     int64    `json:"sequence"`
	LastSeq      int64    `json:"last_seq"`
	Version      int      `json:"version"`
	Aliases      []string `json:"aliases"`
	ParentID     string   `json:"parent_id,omitempty"`
	ForkSeq      int64    `json:"fork_seq,omitempty"`
	SourceFormat string   `json:"source_format"`
	SourcePath   string   `json:"source_path,omitempty"`
	Project      string   `json:"project,omitempty"`
	Machine      string   `json:"machine,omitempty"`
	// SourceGoneAt, when set, is when the session's source was found
	// gone: it exists only in sessiondb. SourceSeenAt is when an import
	// last found it.
	SourceSeenAt string          `json:"source_seen_at,omitempty"`
	SourceGoneAt string          `json:"source_gone_at,omitempty"`
	Archived     bool            `json:"archived,omitempty"`
	Scope        json.RawMessage `json:"scope,omitempty"`
	Attrs        json.RawMessage `json:"attrs,omitempty"`
	// Preview is the first user message's text, cut to
	// sessiondb.PreviewRunes (lists only).
	Preview string `json:"preview,omitempty"`
}

// HitJSON is a search hit as `sessionctl search --json` prints it.
type HitJSON struct {
	SessionID    string  `json:"session_id"`
	SessionTitle string  `json:"session_title"`
	Seq          int64   `json:"seq"`
	Summary      bool    `json:"summary"`
	Kind         string  `json:"kind"`
	Role         string  `json:"role"`
	CreatedAt    string  `json:"created_at"`
	Snippet      string  `json:"snippet"`
	Score        float64 `json:"score"`
}

// UsageJSON is one row of /api/usage: the grouping keys, then the totals
// with the field names of `sessionctl stats --json`'s usage object.
type UsageJSON struct {
	SessionID        string  `json:"session_id,omitempty"`
	Provider         string  `json:"provider,omitempty"`
	Model            string  `json:"model,omitempty"`
	Day              string  `json:"day,omitempty"`
	Calls            int64   `json:"calls"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	Cost             float64 `json:"cost"`
	// UnpricedCalls counts the calls whose cost is unknown (no price for
	// their model); Cost sums the others.
	UnpricedCalls int64 `json:"unpriced_calls,omitempty"`
}

// SessionToJSON converts a session the way the CLI does.
func SessionToJSON(s sessiondb.Session) SessionJSON {
	aliases := s.Aliases
	if aliases == nil {
		aliases = []string{}
	}
	return SessionJSON{
		ID: s.ID, Title: s.Title, Summary: s.Summary,
		CreatedAt: jsonTime(s.CreatedAt), UpdatedAt: jsonTime(s.UpdatedAt),
		Sequence: s.Sequence, LastSeq: s.LastSeq, Version: s.Version, Aliases: aliases,
		ParentID: s.ParentID, ForkSeq: s.ForkSeq, SourceFormat: s.SourceFormat, SourcePath: s.SourcePath, Project: s.Project,
		Machine: s.Machine, SourceSeenAt: optTime(s.SourceSeenAt), SourceGoneAt: optTime(s.SourceGoneAt), Archived: s.Archived(),
		Scope: s.Scope, Attrs: s.Attrs,
	}
}

// InfoToJSON converts a list row the way the CLI does.
func InfoToJSON(si sessiondb.SessionInfo) SessionJSON {
	j := SessionToJSON(si.Session)
	mc, ec := si.MessageCount, si.EntryCount
	j.MessageCount, j.EntryCount = &mc, &ec
	j.Preview = si.Preview
	return j
}

// HitToJSON converts a search hit the way the CLI does.
func HitToJSON(h sessiondb.Hit) HitJSON {
	return HitJSON{
		SessionID: h.SessionID, SessionTitle: h.SessionTitle, Seq: h.Seq, Summary: h.Summary,
		Kind: h.Kind, Role: h.Role, CreatedAt: jsonTime(h.CreatedAt), Snippet: h.Snippet, Score: h.Score,
	}
}

func usageToJSON(u sessiondb.UsageRow) UsageJSON {
	return UsageJSON{
		SessionID: u.SessionID, Provider: u.Provider, Model: u.Model, Day: u.Day,
		Calls: u.Calls, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens,
		ReasoningTokens: u.ReasoningTokens, Cost: u.Cost, UnpricedCalls: u.Unpriced,
	}
}

func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// writeJSON writes v as indented JSON. Unlike the CLI, HTML characters are
// escaped (\u003c): a browser that ignores the Content-Type must still not
// find markup in an API response.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeBodies writes entries' bodies as a JSON array, byte for byte, like
// `sessionctl show --json`.
func writeBodies(w io.Writer, entries []sessiondb.Entry) error {
	bw := bodyWriter{w: w}
	for _, e := range entries {
		if err := bw.add(e.Body); err != nil {
			return err
		}
	}
	return bw.close()
}

// bodyWriter writes a JSON array of bodies one at a time, in the format of
// writeBodies: nothing but the body being written is held.
type bodyWriter struct {
	w io.Writer
	n int
}

func (b *bodyWriter) add(body []byte) error {
	sep := ",\n"
	if b.n == 0 {
		sep = "[\n"
	}
	b.n++
	if _, err := io.WriteString(b.w, sep); err != nil {
		return err
	}
	_, err := b.w.Write(body)
	return err
}

func (b *bodyWriter) close() error {
	end := "\n]\n"
	if b.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(b.w, end)
	return err
}

// optTime is jsonTime, or "" for the zero time.
func optTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return jsonTime(t)
}
