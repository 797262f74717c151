package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/safetext"
)

// Size budgets of a tool result, in bytes of its structured content (the
// JSON object the tool returns; the text content carries the same JSON).
const (
	// DefaultMaxBytes is the budget when the caller gives none: about
	// 6,000 to 8,000 tokens, well inside what agents accept from one tool
	// call (Claude Code warns above 10,000 tokens).
	DefaultMaxBytes = 24 << 10
	// MaxMaxBytes is the largest budget a caller may ask for.
	MaxMaxBytes = 256 << 10
	// MinMaxBytes is the smallest: room for one clipped message.
	MinMaxBytes = 2 << 10
)

// errInput marks an error in the caller's arguments. Tool errors wrap
// it (and sessiondb.ErrInvalid), so the message says what to change.
var errInput = errors.New("invalid arguments")

func inputErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInput, fmt.Sprintf(format, args...))
}

// budget resolves a caller's max_bytes.
func budget(maxBytes int) (int, error) {
	switch {
	case maxBytes == 0:
		return DefaultMaxBytes, nil
	case maxBytes < MinMaxBytes || maxBytes > MaxMaxBytes:
		return 0, inputErrorf("max_bytes must be between %d and %d, got %d", MinMaxBytes, MaxMaxBytes, maxBytes)
	}
	return maxBytes, nil
}

// limit resolves a caller's limit: def when 0, else between 1 and max.
func limit(name string, n, def, max int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > max:
		return 0, inputErrorf("%s must be between 1 and %d, got %d", name, max, n)
	}
	return n, nil
}

// cursor is what a tool needs to go on where its last answer stopped. It
// travels as opaque base64url JSON; Tool says which tool made it, so that
// a cursor passed to another tool is refused rather than misread.
type cursor struct {
	Tool string `json:"t"`
	// read_transcript
	Session  string `json:"s,omitempty"`
	Mode     string `json:"m,omitempty"`
	Next     int64  `json:"n,omitempty"`  // next log position
	End      int64  `json:"e,omitempty"`  // last log position (0: to the end)
	Summary  int    `json:"si,omitempty"` // next summary message + 1 (0: none left)
	Focus    int64  `json:"f,omitempty"`
	Offset   int64  `json:"o,omitempty"` // entry mode: byte offset in the body
	Bookkeep bool   `json:"b,omitempty"`
	// search, list_sessions, usage
	Query  string `json:"q,omitempty"`
	Role   string `json:"r,omitempty"`
	Kind   string `json:"k,omitempty"`
	Format string `json:"fm,omitempty"`
	Since  string `json:"a,omitempty"`
	Until  string `json:"u,omitempty"`
	Parent string `json:"p,omitempty"`
	// Project filters by the sessions' project (search, list_sessions,
	// usage).
	Project string `json:"pj,omitempty"`
	// Machine filters by the sessions' machine (search, list_sessions).
	Machine string   `json:"mc,omitempty"`
	By      []string `json:"by,omitempty"`
	Limit   int      `json:"l,omitempty"`
	Skip    int      `json:"sk,omitempty"` // hits or rows already returned
	Store   string   `json:"sc,omitempty"` // the store's List cursor
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor made for tool.
func decodeCursor(s, tool string) (cursor, error) {
	var c cursor
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Tool == "" {
		return c, inputErrorf("cursor is not one this server returned; pass next_cursor as it came")
	}
	if c.Tool != tool {
		return c, inputErrorf("cursor was returned by %s, not %s", c.Tool, tool)
	}
	return c, nil
}

// show makes stored text safe to hand to a model as data: control
// characters and bidi marks become visible escapes (package safetext, as
// the CLI prints them).
func show(s string) string { return safetext.Visible(s) }

// clip cuts s (already made visible) to at most max bytes on a rune
// boundary and reports whether it cut.
func clip(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// showClip is show then clip.
func showClip(s string, max int) (string, bool) {
	// A huge text is cut before the escape pass, which would otherwise
	// copy all of it; escapes grow text at most 6x, so 6*max keeps enough.
	if len(s) > 6*max+8 {
		s = s[:6*max+8]
		for len(s) > 0 && !utf8.RuneStart(s[len(s)-1]) {
			s = s[:len(s)-1]
		}
		v, _ := clip(show(s), max)
		return v, true
	}
	return clip(show(s), max)
}

// jsonSize is the size of v encoded as the SDK encodes structured content.
func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// timeString is the time format of every result: RFC 3339 in UTC.
func timeString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// parseBound reads a since/until argument: YYYY-MM-DD (a whole day, so
// until includes that day) or an RFC 3339 time.
func parseBound(name, s string, until bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		if until {
			return d.AddDate(0, 0, 1).Add(-time.Nanosecond), nil
		}
		return d, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, inputErrorf("%s %q: want YYYY-MM-DD or an RFC 3339 time", name, s)
	}
	return t, nil
}

// toolError turns an error into the message a tool error carries: what
// went wrong, in one line, with what the caller can do about it.
func toolError(err error) error {
	switch {
	case errors.Is(err, errInput):
		return err
	case errors.Is(err, sessiondb.ErrNotFound):
		return fmt.Errorf("%w (list_sessions or search finds sessions)", err)
	case errors.Is(err, sessiondb.ErrInvalid):
		return err
	}
	return err
}

// oneLine keeps an error message to one visible line.
func oneLine(s string) string {
	s = show(s)
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "\t", " ")
	v, cut := clip(s, 1000)
	if cut {
		v += "…"
	}
	return v
}
