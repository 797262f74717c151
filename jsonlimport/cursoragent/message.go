package cursoragent

// How a transcript line reads as a message, and what a user line's text
// holds besides the prompt (the <timestamp> Cursor puts before it).

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Understand implements jsonl.MessageReader.
//
// A message line is {role, message: {content}}: content a string or
// Anthropic blocks (text, tool_use {name, input}, thinking, tool_result
// {tool_use_id, content}), read as jsonl.MessageObject reads them. A user
// line's text is the prompt inside its <user_query> block (the
// <timestamp> and other context Cursor adds before it left out), or the
// whole text when it has none. Cursor's tool_use blocks carry no id: a
// call gets CallID(seq, i), as the translation gives it. A turn_ended line
// is bookkeeping (its status and error as text).
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	if typ, _ := obj["type"].(string); typ != "" {
		text := jsonl.Str(obj, "status")
		if errText := jsonl.ContentText(obj["error"]); errText != "" && errText != "{}" {
			text = strings.TrimSpace(text + ": " + errText)
		}
		return jsonl.Message{Role: typ, Text: text, Bookkeeping: true}
	}
	msg, _ := obj["message"].(map[string]any)
	role, _ := obj["role"].(string)
	if msg == nil {
		return jsonl.Message{Role: jsonl.OrString(role, e.Role), Bookkeeping: true}
	}
	inner := map[string]any{"role": role, "content": msg["content"]}
	m := jsonl.MessageObject(inner)
	m.Role = role
	for i := range m.Calls {
		if m.Calls[i].ID == "" {
			m.Calls[i].ID = CallID(e.Seq, i)
		}
	}
	if role == "user" && len(m.Results) == 0 {
		m.Text = UserQuery(m.Text)
	}
	return m
}

// CallID is the id given to the i-th tool call (0-based) of the entry at
// log position seq, Cursor's tool_use blocks having none.
func CallID(seq int64, i int) string {
	return fmt.Sprintf("cursor-%d-%d", seq, i)
}

var (
	queryRE     = regexp.MustCompile(`(?s)<user_query>\s*(.*?)\s*</user_query>`)
	timestampRE = regexp.MustCompile(`(?s)<timestamp>\s*(.*?)\s*</timestamp>`)
)

// UserQuery returns the prompt of a user line's text: the content of its
// <user_query> blocks (joined by blank lines), or the text itself when it
// has none.
func UserQuery(text string) string {
	ms := queryRE.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		return text
	}
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		parts = append(parts, m[1])
	}
	return strings.Join(parts, "\n\n")
}

// zoneRE is the zone Cursor writes after the time: (UTC-7), (UTC+5:30),
// (UTC).
var zoneRE = regexp.MustCompile(`^(.*?)\s*\((?:UTC|GMT)(?:([+-])(\d{1,2})(?::(\d{2}))?)?\)$`)

// PromptTime reads the <timestamp> of a user line's text: an RFC 3339
// time, or the English date Cursor writes ("Sunday, Aug 16, 2026, 8:43 AM
// (UTC-7)", to the minute). ok is false when there is none it can read.
func PromptTime(text string) (t time.Time, ok bool) {
	m := timestampRE.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}, false
	}
	s := strings.TrimSpace(m[1])
	if t := jsonl.ParseTime(s); !t.IsZero() {
		return t, true
	}
	z := zoneRE.FindStringSubmatch(s)
	if z == nil {
		return time.Time{}, false
	}
	s = z[1]
	offset := 0
	if z[2] != "" {
		h, _ := strconv.Atoi(z[3])
		mi, _ := strconv.Atoi(z[4])
		if h > 14 || mi > 59 {
			return time.Time{}, false
		}
		offset = h*3600 + mi*60
		if z[2] == "-" {
			offset = -offset
		}
	}
	// The weekday before the date is left out: the date says it.
	if i := strings.Index(s, ", "); i > 0 && !strings.ContainsAny(s[:i], "0123456789") {
		s = s[i+2:]
	}
	loc := time.FixedZone("", offset)
	for _, layout := range []string{"Jan 2, 2006, 3:04 PM", "Jan 2, 2006, 3:04:05 PM", "January 2, 2006, 3:04 PM", "Jan 2, 2006, 15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
