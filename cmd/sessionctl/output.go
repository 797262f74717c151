package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/sessiondb/sessiondb"
)

// isTerminal reports whether v is an *os.File attached to a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// writeJSON writes v as indented JSON followed by a newline. HTML
// characters are not escaped: the output is for programs and people, not
// for embedding in a page.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// newTable returns a tabwriter for aligned columns; the caller writes
// tab-separated rows and calls Flush.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// cell makes s safe for one table cell: no tabs or newlines, terminal
// controls made visible (see visible), at most max runes (0: no limit).
func cell(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r':
			return ' '
		}
		return r
	}, s)
	s = visible(s)
	if max > 0 && utf8.RuneCountInString(s) > max {
		// Cut at the byte offset of rune max-1, without converting the
		// whole (possibly huge) string to runes.
		n, cut := 0, len(s)
		for i := range s {
			if n == max-1 {
				cut = i
				break
			}
			n++
		}
		s = s[:cut] + "…"
	}
	return s
}

// tableTime formats a time for tables: UTC, to the second.
func tableTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// jsonTime formats a time for JSON output: RFC 3339 in UTC, nanoseconds
// when present.
func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// humanBytes formats a byte count with a binary unit.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// sessionJSON is a session as the JSON outputs print it. Field names are
// part of the command-line contract.
type sessionJSON struct {
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
	// SourceSeenAt is when an import last found the source present;
	// SourceGoneAt when one found it gone: the session then exists only
	// in sessiondb (Archived).
	SourceSeenAt string          `json:"source_seen_at,omitempty"`
	SourceGoneAt string          `json:"source_gone_at,omitempty"`
	Archived     bool            `json:"archived,omitempty"`
	Scope        json.RawMessage `json:"scope,omitempty"`
	Attrs        json.RawMessage `json:"attrs,omitempty"`
	// Preview is the first user message's text, cut to
	// sessiondb.PreviewRunes (list only).
	Preview string `json:"preview,omitempty"`
}

func toSessionJSON(s sessiondb.Session) sessionJSON {
	aliases := s.Aliases
	if aliases == nil {
		aliases = []string{}
	}
	return sessionJSON{
		ID:           s.ID,
		Title:        s.Title,
		Summary:      s.Summary,
		CreatedAt:    jsonTime(s.CreatedAt),
		UpdatedAt:    jsonTime(s.UpdatedAt),
		Sequence:     s.Sequence,
		LastSeq:      s.LastSeq,
		Version:      s.Version,
		Aliases:      aliases,
		ParentID:     s.ParentID,
		ForkSeq:      s.ForkSeq,
		SourceFormat: s.SourceFormat,
		SourcePath:   s.SourcePath,
		Project:      s.Project,
		Machine:      s.Machine,
		SourceSeenAt: optTime(s.SourceSeenAt),
		SourceGoneAt: optTime(s.SourceGoneAt),
		Archived:     s.Archived(),
		Scope:        s.Scope,
		Attrs:        s.Attrs,
	}
}

func infoToJSON(si sessiondb.SessionInfo) sessionJSON {
	j := toSessionJSON(si.Session)
	mc, ec := si.MessageCount, si.EntryCount
	j.MessageCount, j.EntryCount = &mc, &ec
	j.Preview = si.Preview
	return j
}

// optTime is jsonTime, or "" for the zero time.
func optTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return jsonTime(t)
}
