package viewer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// WriteMarkdown writes session idOrAlias of st as one Markdown document:
// a heading and the session's facts, then one section per message (its
// role, log positions and time) whose text is the message's own markdown.
// Everything else is quoted so that no transcript content can change the
// document's structure:
//
//   - thinking, injected context, tool calls (arguments) and their results
//     are fenced code blocks under a bold label, each fence one backtick
//     longer than the longest run of backticks in what it holds (at least
//     three), so that no line inside can close it;
//   - names, commands, ids and titles are code spans delimited the same
//     way (newlines as spaces), or, in headings, with the characters
//     that make inline markup (\ ` * _ [ ] < > ! | ~ &) backslash-escaped:
//     no link, no HTML, no emphasis, no entity;
//   - a message's text is written as it is (it is markdown: that is what
//     makes the file readable), but a code fence it opens and never closes
//     is closed after it, so that it cannot swallow the rest of the
//     document. Raw HTML in a message's text stays raw HTML, as in any
//     Markdown file; a renderer that shows untrusted Markdown must
//     sanitize it (GitHub's does), and the HTML export escapes it.
//
// Bidi overrides and control characters are made visible throughout.
func WriteMarkdown(ctx context.Context, st sessiondb.Store, idOrAlias string, w io.Writer) error {
	d, err := readShare(ctx, st, idOrAlias)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n", mdInline(d.Title))
	fmt.Fprintf(bw, "- ID: %s\n", mdCode(d.S.ID))
	fmt.Fprintf(bw, "- Created: %s UTC, updated %s UTC\n", d.S.CreatedAt.UTC().Format("2006-01-02 15:04:05"), d.S.UpdatedAt.UTC().Format("2006-01-02 15:04:05"))
	if d.S.ParentID != "" {
		what := "Fork of"
		if d.SubAgent {
			what = "Sub-agent of"
		}
		fmt.Fprintf(bw, "- %s: %s at #%d\n", what, mdCode(d.S.ParentID), d.S.ForkSeq)
	}
	if d.S.SourceFormat != "" {
		fmt.Fprintf(bw, "- Source: %s\n", mdCode(d.S.SourceFormat))
	}
	if d.S.Project != "" {
		fmt.Fprintf(bw, "- Project: %s\n", mdCode(d.S.Project))
	}
	if d.S.Summary != "" {
		fmt.Fprintf(bw, "- Summary: %s\n", mdInline(d.S.Summary))
	}
	if len(d.Entries) == 0 {
		fmt.Fprint(bw, "\n_No entries._\n")
	}
	for _, v := range d.Entries {
		if v.Paired {
			continue
		}
		role := v.Role
		if role == "" {
			role = v.Kind
		}
		pos := fmt.Sprintf("#%d", v.Seq)
		if len(v.Parts) > 0 {
			pos = fmt.Sprintf("#%d–%d", v.Seq, v.LastPart())
		}
		tag := ""
		if v.Summary {
			tag = " (summary)"
		}
		fmt.Fprintf(bw, "\n---\n\n## %s%s · %s", mdInline(role), tag, pos)
		if v.Time != "" {
			fmt.Fprintf(bw, " · %s UTC", v.Time)
		}
		fmt.Fprint(bw, "\n")
		for _, b := range v.Blocks {
			writeMarkdownBlock(bw, b)
		}
	}
	return bw.Flush()
}

// writeMarkdownBlock writes one block of a message.
func writeMarkdownBlock(w io.Writer, b block) {
	switch b.Kind {
	case "text":
		fmt.Fprintf(w, "\n%s\n", closeFences(visible(b.Src)))
	case "thinking":
		fmt.Fprintf(w, "\n**thinking**\n\n%s\n", mdFence("text", b.Src))
	case "context":
		fmt.Fprintf(w, "\n**context** %s\n\n%s\n", mdCode(b.Name), mdFence("text", b.Src))
	case "call":
		fmt.Fprintf(w, "\n**tool call** %s", mdCode(b.Name))
		if b.What != "" {
			fmt.Fprintf(w, " %s", mdCode(b.What))
		}
		if b.CallID != "" {
			fmt.Fprintf(w, " (id %s)", mdCode(b.CallID))
		}
		fmt.Fprintf(w, "\n\n%s\n", mdFence("json", b.Args))
		if r := b.Result; r != nil {
			writeMarkdownResult(w, *r)
		} else {
			fmt.Fprint(w, "\n_no result in the transcript_\n")
		}
	case "result":
		writeMarkdownResult(w, b)
	default:
		fmt.Fprintf(w, "\n%s\n", mdFence("json", b.Text))
	}
}

func writeMarkdownResult(w io.Writer, r block) {
	label := "**result**"
	if r.IsError {
		label = "**result (error)**"
	}
	if r.CallID != "" {
		label += " of " + mdCode(r.CallID)
	}
	if r.Agent != "" {
		label += ", sub-agent " + mdCode(r.Agent)
	}
	fmt.Fprintf(w, "\n%s\n\n%s\n", label, mdFence("text", r.Text))
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// mdFence is s as a fenced code block (info string lang) that no line of
// s can close: backtick fences longer than any backtick run in s.
func mdFence(lang, s string) string {
	s = visible(s)
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return fence + lang + "\n" + s + fence
}

// mdCode is s as a code span on one line: newlines as spaces, delimited
// by one backtick more than its longest backtick run, padded with spaces
// when it starts or ends with a backtick (CommonMark strips one space
// each side).
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(visible(s))
	if s == "" {
		return "` `"
	}
	d := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return d + s + d
}

// mdInline is s as inline text that cannot make markup: one line, the
// characters that open inline markup backslash-escaped (a heading's text
// cannot start a block, so # - + . need no escape there).
func mdInline(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(visible(s))
	var b strings.Builder
	for _, r := range s {
		if r < 128 && strings.ContainsRune("\\`*_[]<>!|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// closeFences returns markdown text s with a closing fence appended when
// s opens a fenced code block (``` or ~~~, indented less than four
// spaces) and does not close it: CommonMark runs an unclosed fence to
// the end of the document.
func closeFences(s string) string {
	var open string // the opening fence's run, "" outside a block
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimRight(line, " \t\r")
		indent := len(t) - len(strings.TrimLeft(t, " "))
		if indent > 3 {
			continue
		}
		t = t[indent:]
		if open == "" {
			for _, c := range []byte{'`', '~'} {
				if n := leadingRun(t, c); n >= 3 && (c == '~' || !strings.Contains(t[n:], "`")) {
					open = t[:n]
					break
				}
			}
			continue
		}
		if n := leadingRun(t, open[0]); n >= len(open) && strings.TrimSpace(t[n:]) == "" {
			open = ""
		}
	}
	if open == "" {
		return s
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + open
}

// leadingRun is the number of c that s starts with.
func leadingRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}
