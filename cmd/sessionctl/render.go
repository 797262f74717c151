package main

import (
	"fmt"
	"io"
	"strings"

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

// foldWidth is the width, in runes, of a folded line's payload.
const foldWidth = 120

// renderEntry writes one entry of a session of the given format. It
// returns false, writing nothing, for a bookkeeping line when
// bookkeeping is false.
func renderEntry(w io.Writer, format string, e sessiondb.Entry, bookkeeping bool) bool {
	m := jsonlimport.Understand(format, e)
	if m.Bookkeeping && !bookkeeping {
		return false
	}
	label := fmt.Sprintf("[%d]", e.Seq)
	if e.Summary {
		label = "[summary]"
	}
	role := e.Role
	if role == "" && !m.Bookkeeping {
		role = m.Role
	}
	head := label
	if role != "" {
		head += " " + role
	}
	if e.Kind != "" && e.Kind != sessiondb.KindMessage {
		head += " (" + e.Kind + ")"
	}
	if !e.CreatedAt.IsZero() {
		head += "  " + tableTime(e.CreatedAt)
	}
	if len(m.Results) > 0 && m.Text == "" && m.Thinking == "" && len(m.Calls) == 0 {
		// A tool result message folds to its header line.
		parts := make([]string, len(m.Results))
		for i, r := range m.Results {
			parts[i] = resultPart(r)
		}
		fmt.Fprintf(w, "%s  %s\n", visible(head), visible("← "+fold(strings.Join(parts, " | "))))
		return true
	}
	fmt.Fprintln(w, visible(head))
	var lines []string
	if m.Thinking != "" {
		lines = append(lines, "(thinking) "+fold(m.Thinking))
	}
	switch {
	case m.Text == "":
	case m.Context:
		lines = append(lines, "(context) "+fold(m.Text))
	case m.Bookkeeping:
		lines = append(lines, fold(m.Text))
	default:
		lines = append(lines, m.Text)
	}
	for _, c := range m.Calls {
		lines = append(lines, "→ "+fold(c.Name+"("+c.Arguments+")"))
	}
	for _, r := range m.Results {
		lines = append(lines, "← "+fold(resultPart(r)))
	}
	if len(lines) == 0 && !m.Bookkeeping {
		lines = append(lines, fold(string(e.Body)))
	}
	for _, l := range lines {
		for _, sub := range strings.Split(l, "\n") {
			fmt.Fprintf(w, "    %s\n", visible(strings.TrimRight(sub, " \t\r")))
		}
	}
	return true
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
func fold(s string) string {
	return cell(strings.Join(strings.Fields(s), " "), foldWidth)
}
