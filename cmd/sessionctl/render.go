package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// Rendering of transcripts for people. What an entry says is
// jsonlimport.Understand's reading of its body under the session's source
// format, the one understanding of every format (shared with the viewer
// and the MCP server). Text is shown in full; tool calls, tool results,
// thinking and injected context are folded to one line each; bookkeeping
// lines (progress, token counts, snapshots, echoes) are left out unless
// asked for.
//
// One message, one block: the further lines of one API response that
// Claude Code writes one content block a line (sessiondb.KindMessagePart)
// are shown with the message they continue, under one header naming its
// log positions ([410-413] assistant), so that four parallel tool calls
// are one assistant message, as the model sent them and as MessageCount
// counts them. Each tool call says what it ran (the command, the file:
// ToolCall.Summary).

// foldWidth is the width, in runes, of a folded line's payload.
const foldWidth = 120

// shownMessage is one message as show prints it: an entry and the
// message-part entries that continue it.
type shownMessage struct {
	first, last int64
	summary     bool
	role, kind  string
	at          time.Time
	bookkeeping bool
	context     bool
	thinking    []string
	text        []string
	calls       []jsonlimport.ToolCall
	results     []jsonlimport.ToolResult
	body        []byte // the first entry's, for a body nothing was read from
}

// renderTranscript writes entries of a session of the given format, the
// lines of one response together. It returns the number of bookkeeping
// lines left out (all of them shown when bookkeeping).
func renderTranscript(w io.Writer, format string, entries []sessiondb.Entry, bookkeeping bool) (hidden int) {
	var cur *shownMessage
	flush := func() {
		if cur != nil {
			cur.write(w)
			cur = nil
		}
	}
	for _, e := range entries {
		m := jsonlimport.Understand(format, e)
		if m.Bookkeeping && !bookkeeping {
			hidden++
			continue // a hidden line between two parts of a response
		}
		if e.Kind == sessiondb.KindMessagePart && cur != nil && !cur.bookkeeping && !e.Summary == !cur.summary {
			cur.add(m)
			cur.last = e.Seq
			continue
		}
		flush()
		role := e.Role
		if role == "" && !m.Bookkeeping {
			role = m.Role
		}
		cur = &shownMessage{first: e.Seq, last: e.Seq, summary: e.Summary, role: role, kind: e.Kind, at: e.CreatedAt,
			bookkeeping: m.Bookkeeping, context: m.Context, body: e.Body}
		cur.add(m)
	}
	flush()
	return hidden
}

func (s *shownMessage) add(m jsonlimport.Message) {
	if m.Thinking != "" {
		s.thinking = append(s.thinking, m.Thinking)
	}
	if m.Text != "" {
		s.text = append(s.text, m.Text)
	}
	s.calls = append(s.calls, m.Calls...)
	s.results = append(s.results, m.Results...)
}

func (s *shownMessage) write(w io.Writer) {
	label := fmt.Sprintf("[%d]", s.first)
	if s.last != s.first {
		label = fmt.Sprintf("[%d-%d]", s.first, s.last)
	}
	if s.summary {
		label = "[summary]"
	}
	head := label
	if s.role != "" {
		head += " " + s.role
	}
	if s.kind != "" && s.kind != sessiondb.KindMessage && s.kind != sessiondb.KindMessagePart {
		head += " (" + s.kind + ")"
	}
	if !s.at.IsZero() {
		head += "  " + tableTime(s.at)
	}
	if len(s.results) > 0 && len(s.text) == 0 && len(s.thinking) == 0 && len(s.calls) == 0 {
		// Tool results fold to their header line, one line a result
		// after the first.
		fmt.Fprintf(w, "%s  %s\n", visible(head), visible("← "+fold(resultPart(s.results[0]))))
		for _, r := range s.results[1:] {
			fmt.Fprintf(w, "    %s\n", visible("← "+fold(resultPart(r))))
		}
		return
	}
	fmt.Fprintln(w, visible(head))
	var lines []string
	for _, t := range s.thinking {
		lines = append(lines, "(thinking) "+fold(t))
	}
	for _, t := range s.text {
		switch {
		case s.context:
			lines = append(lines, "(context) "+fold(t))
		case s.bookkeeping:
			lines = append(lines, fold(t))
		default:
			lines = append(lines, t)
		}
	}
	for _, c := range s.calls {
		lines = append(lines, "→ "+callLine(c))
	}
	for _, r := range s.results {
		lines = append(lines, "← "+fold(resultPart(r)))
	}
	if len(lines) == 0 && !s.bookkeeping {
		lines = append(lines, fold(string(s.body)))
	}
	for _, l := range lines {
		for _, sub := range strings.Split(l, "\n") {
			fmt.Fprintf(w, "    %s\n", visible(strings.TrimRight(sub, " \t\r")))
		}
	}
}

// callLine is a tool call on one line: its name and what it ran.
func callLine(c jsonlimport.ToolCall) string {
	what := c.Summary(foldWidth)
	if what == "" {
		return cell(c.Name, foldWidth)
	}
	return cell(c.Name, 40) + ": " + cell(what, 0)
}

// resultPart is one tool result on a line: its call, whether it failed,
// the sub-agent it ran, its text.
func resultPart(r jsonlimport.ToolResult) string {
	var b strings.Builder
	if r.CallID != "" {
		b.WriteString("[" + r.CallID + "] ")
	}
	if r.IsError {
		b.WriteString("(error) ")
	}
	if r.Agent != "" {
		b.WriteString("(sub-agent " + r.Agent + ") ")
	}
	b.WriteString(r.Text)
	return strings.TrimRight(b.String(), " ")
}

// fold collapses whitespace to single spaces and cuts s to foldWidth runes.
func fold(s string) string { return cell(squeezeSpace(s), foldWidth) }

// squeezeSpace folds s's runs of white space (new lines too) into single
// spaces: a preview or a message on one table row or line.
func squeezeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
