package viewer

import (
	"bytes"
	"encoding/json"
	"html/template"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// maxShown bounds the text of one entry rendered into a page. A 10 MB
// tool result is clipped with a link to its raw body, so that a page stays
// small whatever a transcript holds.
const maxShown = 64 << 10

// maxBodyRead bounds what a transcript page reads of one entry's body
// (sessiondb.EntriesClipped): a body up to 1 MiB is read whole and shown
// as its format says; of a longer one (a 60 MB tool result) only this
// prefix leaves the database, and the page shows it as JSON text clipped
// at maxShown, with the body's full size and the link to its raw body.
// A page of TranscriptPageSize entries then holds at most 100 MiB of
// bodies, whatever the bodies are (16 bodies of 60 MB: 16 MiB, not 1 GB).
const maxBodyRead = 1 << 20

// block is one piece of a rendered entry.
type block struct {
	Kind    string        // text, thinking, context, call, result, json
	HTML    template.HTML // text, thinking and context: rendered markdown
	Src     string        // text, thinking and context: the markdown source (for a markdown export)
	Text    string        // result, json: plain text (escaped by the template)
	Name    string        // call: tool name; context: its first line
	What    string        // call: what it ran (the command, the file), shown before it is opened
	Args    string        // call: arguments, indented JSON when possible
	CallID  string        // call, result: the tool call ID
	IsError bool          // result
	Result  *block        // call: its result, when on the same page
	Clipped bool          // the text was cut at maxShown
	// Of is the size in bytes of a body read only in part (maxBodyRead):
	// the block shows its prefix.
	Of int
	// Agent is the sub-agent a result says its call ran (Claude Code's
	// Task and Agent tools); AgentLink the session that holds it.
	Agent     string
	AgentLink string
}

// entryView is one entry of a transcript page.
type entryView struct {
	Seq        int64
	Summary    bool
	Superseded bool
	Role       string
	Kind       string
	Time       string
	Blocks     []block
	Size       int
	// Paired: a tool-result entry whose results are all shown inside their
	// calls; the page shows it as a one-line reference.
	Paired bool
	// Cut: a compaction starts the transcript at this entry.
	Cut *cutView
	// Bookkeeping: not part of the conversation (progress lines, token
	// counts, snapshots, echoes); hidden until the reader asks.
	Bookkeeping bool
	// Context: injected by the tool (environment, instructions,
	// reminders), shown folded.
	Context bool
	// Part: a further line of a response streamed one block per line
	// (Claude Code), shown in the card of the entry it continues.
	Part bool
	// Parts are the log positions of the further lines shown in this
	// card (mergeParts): one API response is one message, however many
	// lines it was streamed in. Each keeps its anchor (#eN) and raw link.
	Parts []int64
}

// cutView is a compaction marker.
type cutView struct {
	ID           int64
	KeepFromSeq  int64
	AtSeq        int64
	TokensBefore int64
	TokensAfter  int64
	Time         string
	Latest       bool
	Summary      []entryView
	// Split says which turn the compaction cut into (compactor's split
	// turn); ReadFiles and ModifiedFiles are the files its summarized part
	// read and changed (compactor.Files).
	Split                    string
	ReadFiles, ModifiedFiles []string
}

// viewEntry turns a stored entry of a session of the given source format
// into blocks. What the body says is jsonlimport.Understand's reading
// (the one understanding of every format, shared with `sessionctl show`
// and the MCP server): text, thinking, tool calls and results, whether it
// is bookkeeping or injected context. A body it finds nothing in is shown
// as JSON text.
func viewEntry(format string, e sessiondb.Entry) entryView {
	return viewEntryMax(format, e, maxShown)
}

// viewClipped is viewEntry for an entry read with its body cut at
// maxBodyRead: a body read whole is viewed as usual; a prefix, which is no
// JSON, is shown as clipped JSON text with the full size. Its kind says
// whether it is conversation (bookkeeping lines keep their own kinds).
func viewClipped(format string, e sessiondb.ClippedEntry) entryView {
	if !e.Clipped {
		return viewEntry(format, e.Entry)
	}
	v := entryView{Seq: e.Seq, Summary: e.Summary, Role: e.Role, Kind: e.Kind, Size: e.Size}
	if !e.CreatedAt.IsZero() {
		v.Time = e.CreatedAt.UTC().Format("2006-01-02 15:04:05")
	}
	v.Part = e.Kind == sessiondb.KindMessagePart
	v.Bookkeeping = e.Kind != sessiondb.KindMessage && e.Kind != sessiondb.KindMessagePart && e.Kind != sessiondb.KindCustom
	b := jsonBlock(string(e.Body), maxShown)
	b.Clipped, b.Of = true, e.Size
	v.Blocks = []block{b}
	return v
}

// viewEntryMax is viewEntry with the text of each block clipped at max
// bytes (an export shares every byte: it passes no limit, math.MaxInt).
func viewEntryMax(format string, e sessiondb.Entry, max int) entryView {
	v := entryView{Seq: e.Seq, Summary: e.Summary, Role: e.Role, Kind: e.Kind, Size: len(e.Body)}
	if !e.CreatedAt.IsZero() {
		v.Time = e.CreatedAt.UTC().Format("2006-01-02 15:04:05")
	}
	m := jsonlimport.Understand(format, e)
	if m.Role != "" && !m.Bookkeeping {
		v.Role = m.Role
	}
	v.Bookkeeping, v.Context = m.Bookkeeping, m.Context
	v.Part = e.Kind == "message-part"
	if m.Thinking != "" {
		v.Blocks = append(v.Blocks, textBlock("thinking", m.Thinking, max))
	}
	if m.Text != "" {
		kind := "text"
		if m.Context {
			kind = "context"
		}
		b := textBlock(kind, m.Text, max)
		if m.Context {
			b.Name = visible(firstLine(m.Text, 100))
		}
		v.Blocks = append(v.Blocks, b)
	}
	for _, c := range m.Calls {
		v.Blocks = append(v.Blocks, callBlock(c, max))
	}
	for _, r := range m.Results {
		v.Blocks = append(v.Blocks, resultBlock(r, max))
	}
	if len(v.Blocks) == 0 && !m.Bookkeeping {
		v.Blocks = append(v.Blocks, jsonBlock(string(e.Body), max))
	}
	return v
}

func textBlock(kind, s string, max int) block {
	s, cut := clip(s, max)
	return block{Kind: kind, HTML: renderMarkdown(s), Src: s, Clipped: cut}
}

func jsonBlock(s string, max int) block {
	s, cut := clip(s, max)
	return block{Kind: "json", Text: visible(s), Clipped: cut}
}

// callBlock shows a tool call, its arguments indented when they are JSON.
func callBlock(c jsonlimport.ToolCall, max int) block {
	a := c.Arguments
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(a), "", "  ") == nil {
		a = buf.String()
	}
	a, cut := clip(a, max)
	return block{Kind: "call", Name: visible(c.Name), What: visible(c.Summary(160)), Args: visible(a), CallID: visible(c.ID), Clipped: cut}
}

func resultBlock(r jsonlimport.ToolResult, max int) block {
	text, cut := clip(r.Text, max)
	return block{Kind: "result", Text: visible(text), CallID: visible(r.CallID), IsError: r.IsError, Clipped: cut,
		Agent: visible(r.Agent)}
}

// firstLine is the first non-empty line of s, cut to n runes.
func firstLine(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			s, _ = clip(l, n)
			return s
		}
	}
	return ""
}

// LastPart is the log position of the last further line in the card.
func (v entryView) LastPart() int64 {
	if len(v.Parts) == 0 {
		return v.Seq
	}
	return v.Parts[len(v.Parts)-1]
}

// mergeParts shows each further line of a streamed response (Part) in
// the card of the entry it continues: the last entry before it that is a
// message of the conversation (not bookkeeping, on the same side of a
// compaction cut). A part with no such entry on the page keeps its own
// card.
func mergeParts(entries []entryView) []entryView {
	out := entries[:0]
	head := -1
	for _, v := range entries {
		switch {
		case v.Part && head >= 0 && v.Cut == nil && v.Superseded == out[head].Superseded:
			h := &out[head]
			h.Blocks = append(h.Blocks, v.Blocks...)
			h.Parts = append(h.Parts, v.Seq)
			h.Size += v.Size
			continue
		case v.Bookkeeping:
		default:
			head = len(out)
		}
		out = append(out, v)
	}
	return out
}

// pairCalls moves each tool result into the block of its call when both
// are on the page, so a call and its result open and close together. A
// result entry whose results all found their call is marked Paired.
func pairCalls(entries []entryView) {
	calls := map[string]*block{}
	for i := range entries {
		for j := range entries[i].Blocks {
			b := &entries[i].Blocks[j]
			if b.Kind == "call" && b.CallID != "" {
				calls[b.CallID] = b
			}
		}
	}
	for i := range entries {
		e := &entries[i]
		paired, results := 0, 0
		for j := range e.Blocks {
			b := e.Blocks[j]
			if b.Kind != "result" {
				continue
			}
			results++
			if c := calls[b.CallID]; c != nil && b.CallID != "" && c.Result == nil {
				r := b
				c.Result = &r
				paired++
			}
		}
		e.Paired = results > 0 && paired == results && len(e.Blocks) == results
	}
}
