package cursoragent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the format of the Cursor agent's JSONL transcripts.
const Name = "cursor-agent"

// Format reads the Cursor agent's transcripts
// (projects/<slug>/agent-transcripts/…) and writes them back (export.go).
type Format struct{}

var _ jsonl.Format = Format{}

// Name returns Name.
func (Format) Name() string { return Name }

// TranscriptsDir is the folder of a project's folder that holds its
// transcripts.
const TranscriptsDir = "agent-transcripts"

// SubagentsDir is the folder of a transcript's folder that holds the
// transcripts of its sub-agents.
const SubagentsDir = "subagents"

// KindTurnEnded is the Kind of a turn_ended line.
const KindTurnEnded = "turn_ended"

// Claim takes the .jsonl files whose first line is a Cursor transcript
// line (Sniff), never a file by its path alone.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	for _, f := range files {
		if strings.HasSuffix(f, ".jsonl") && Sniff(f) {
			units = append(units, jsonl.Unit{Format: Name, Path: f})
			continue
		}
		rest = append(rest, f)
	}
	return units, rest
}

// Reclaim implements jsonl.Reclaimer: a transcript's claim rests on its
// first line alone.
func (Format) Reclaim(path string) (jsonl.Unit, bool) {
	if !strings.HasSuffix(path, ".jsonl") {
		return jsonl.Unit{}, false
	}
	return jsonl.Unit{Format: Name, Path: path}, true
}

// Reserves implements jsonl.Reserver: picoclaw, earlier in the claim
// order, takes any .jsonl whose first line starts with {"role":, which a
// Cursor transcript's does.
func (Format) Reserves(path string) bool {
	return strings.HasSuffix(path, ".jsonl") && Sniff(path)
}

// headRE is how the lines Cursor writes begin: a message line with its
// role first and its message second, or a turn_ended line. Claude Code's
// lines carry type, uuid and sessionId; picoclaw's (OpenAI's) messages
// have content, not message.
var headRE = regexp.MustCompile(`^\{"role":"[A-Za-z_]{1,32}","message":\{|^\{"type":"turn_ended"[,}]`)

// Sniff reports whether the first line of path is a line of a Cursor
// transcript: {"role": …, "message": {…}} (role first, as Cursor writes
// it, no type, uuid, sessionId or content member) or a turn_ended line
// ({"type": "turn_ended", …} without role or message). Only the first
// 512 bytes are read when the file does not start so: picoclaw asks
// every .jsonl of a tree (Reserves).
func Sniff(path string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	f.Close()
	head = bytes.TrimLeft(head[:n], " \t\r\n\ufeff\x00")
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if !headRE.Match(head) {
		return false
	}
	objs := jsonl.FirstObjects(path, 1)
	return len(objs) == 1 && LineShape(objs[0]) != ""
}

// LineShape returns "message" for a message line, "turn_ended" for a
// turn_ended line, "" for a line of another format.
func LineShape(m map[string]json.RawMessage) string {
	for _, k := range []string{"uuid", "sessionId", "parentUuid", "content"} {
		if _, ok := m[k]; ok {
			return ""
		}
	}
	if _, ok := m["type"]; ok {
		_, role := m["role"]
		_, msg := m["message"]
		if jsonl.RawString(m, "type") == "turn_ended" && !role && !msg {
			return KindTurnEnded
		}
		return ""
	}
	msg := bytes.TrimSpace(m["message"])
	if jsonl.RawString(m, "role") == "" || len(msg) == 0 || msg[0] != '{' {
		return ""
	}
	return sessiondb.KindMessage
}

// SkipDir implements jsonl.DirSkipper: the folders Cursor keeps in a
// project's folder beside agent-transcripts (terminal captures, large
// tool outputs, MCP descriptors, notes) hold no transcript.
func (Format) SkipDir(path string) string {
	switch filepath.Base(path) {
	case "terminals", "agent-tools", "mcps", "agent-notes":
	default:
		return ""
	}
	if projectFolder(filepath.Dir(path)) {
		return "Cursor project folder's " + filepath.Base(path) + " (terminals, tool outputs, MCP files; no transcript); skipped"
	}
	return ""
}

// SkipReason implements jsonl.Skipper: the files of a project's folder
// (.workspace-trusted, mcp-*.json) and the older plain-text transcripts
// (agent-transcripts/*.txt, which this reader does not read).
func (Format) SkipReason(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == TranscriptsDir && strings.HasSuffix(path, ".txt") {
		return "Cursor plain-text transcript (an older format, not read); skipped"
	}
	if projectFolder(dir) && !strings.HasSuffix(path, ".jsonl") {
		return "Cursor project file (workspace trust, MCP state); skipped"
	}
	return ""
}

// projectFolder reports whether dir is a project's folder of Cursor's
// projects/ (it holds agent-transcripts or .workspace-trusted).
func projectFolder(dir string) bool {
	if filepath.Base(filepath.Dir(dir)) != "projects" {
		return false
	}
	if fi, err := os.Stat(filepath.Join(dir, TranscriptsDir)); err == nil && fi.IsDir() {
		return true
	}
	fi, err := os.Lstat(filepath.Join(dir, TrustFile))
	return err == nil && fi.Mode().IsRegular()
}

// resumeState is Parsed.ResumeState: what a read of the file so far knew.
type resumeState struct {
	V     int    `json:"v"`
	ID    string `json:"id"`
	Lines int    `json:"lines"`
	// Prompt is the first prompt typed (the title).
	Prompt string `json:"prompt,omitempty"`
	// Created is the first entry's time, Last the latest entry's.
	Created time.Time `json:"created"`
	Last    time.Time `json:"last"`
}

type parser struct {
	jsonl.WildScan
	resumed bool
	rs      resumeState
	mtime   time.Time
	entries []sessiondb.Entry

	// The turn_ended lines read since the last other line: held back
	// (Cursor removes the trailing one when the next turn starts) unless
	// a line follows them.
	held      []heldLine
	heldAt    int64 // offset where the held lines begin
	heldLines int   // physical lines consumed before them
	heldProbs int   // problems reported before them
	endAt     int64 // offset after the last line dispatched
	endLines  int
}

type heldLine struct {
	raw []byte
}

// Parse reads one transcript (see the package doc). Cursor appends to it,
// and rewrites only its trailing turn_ended line, which a read never
// consumes: a file that grew is read from where the last import stopped.
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse %s %s: internal error: %v", Name, u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	p := &parser{WildScan: jsonl.WildScan{Ctx: ctx, Path: u.Path}}
	if from.Offset > 0 {
		if len(from.State) == 0 || json.Unmarshal(from.State, &p.rs) != nil || p.rs.V != 1 || p.rs.ID == "" {
			return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, jsonl.ErrNotIncremental)
		}
		p.resumed = true
		p.LineBase = p.rs.Lines
	}
	f, _, err := jsonl.OpenAt(u.Path, from.Offset)
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		p.mtime = fi.ModTime().UTC()
	}
	var r io.Reader = f
	if from.Size > 0 && from.Size >= from.Offset {
		r = io.LimitReader(f, from.Size-from.Offset)
	}
	p.endAt, p.endLines = from.Offset, p.LineBase
	if err := p.Run(r, from.Offset, p.dispatch); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	offset, lines := p.Offset, p.Lines
	switch {
	case len(p.held) > 0 && (len(p.Problems) == p.heldProbs || p.Offset == p.endAt):
		// Only turn_ended lines since the last other line (and blank
		// lines, or a torn last line, which is not consumed either): not
		// consumed. A damaged line after them is consumed, and they
		// with it.
		offset, lines = p.heldAt, p.heldLines
	default:
		p.flush()
	}
	if !p.resumed && len(p.entries) == 0 {
		if len(p.Problems) == 0 || len(p.held) > 0 {
			return nil, fmt.Errorf("%w: no message in the transcript yet", jsonl.ErrNoConversation)
		}
		return nil, fmt.Errorf("parse %s %s: %w: no readable line", Name, u.Path, sessiondb.ErrInvalid)
	}
	return p.finish(u, offset, lines), nil
}

// dispatch reads one line: a message, a turn_ended line (held until
// another line follows), or a line of another shape (kept, reported).
func (p *parser) dispatch(raw []byte, lineNo int) {
	var head struct {
		Type string `json:"type"`
		Role string `json:"role"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		head = struct {
			Type string `json:"type"`
			Role string `json:"role"`
		}{}
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	shape := LineShape(m)
	if shape == KindTurnEnded {
		if len(p.held) == 0 {
			p.heldAt, p.heldLines, p.heldProbs = p.endAt, p.endLines, len(p.Problems)
		}
		p.held = append(p.held, heldLine{raw: raw})
		p.endAt, p.endLines = p.Offset, p.Lines
		return
	}
	p.flush()
	p.endAt, p.endLines = p.Offset, p.Lines
	t := p.rs.Last
	e := sessiondb.Entry{Body: raw}
	switch {
	case shape == sessiondb.KindMessage:
		e.Kind, e.Role = sessiondb.KindMessage, head.Role
		if head.Role == "user" {
			text := userText(m["message"])
			if pt, ok := PromptTime(text); ok {
				t = pt
			}
			if p.rs.Prompt == "" && jsonl.TitleOf(UserQuery(text)) != "" {
				p.rs.Prompt = UserQuery(text)
			}
		}
	case head.Type != "":
		e.Kind, e.Role = jsonl.EntryKind(Name, head.Type), head.Type
		p.Problem(lineNo, "line of type %.64q, unknown to this reader; kept as data", head.Type)
	default:
		e.Kind, e.Role = Name+".other", "other"
		p.Problem(lineNo, "line that is neither a message nor a turn_ended line; kept as data")
	}
	p.add(e, t)
}

// flush makes entries of the held turn_ended lines: a line followed them.
func (p *parser) flush() {
	for _, h := range p.held {
		p.add(sessiondb.Entry{Kind: KindTurnEnded, Role: KindTurnEnded, Body: h.raw}, p.rs.Last)
	}
	p.held = nil
}

// add appends e at time t: its own (a prompt's timestamp) or the entry's
// before it; the file's modification time when no entry before it had
// one.
func (p *parser) add(e sessiondb.Entry, t time.Time) {
	if t.IsZero() {
		t = p.mtime
	}
	if t.IsZero() {
		t = time.Unix(0, 0).UTC()
	}
	e.CreatedAt = t
	p.rs.Last = t
	if p.rs.Created.IsZero() {
		p.rs.Created = t
	}
	p.entries = append(p.entries, e)
}

// userText is the text of a user message's content: its text blocks
// joined, or the string it is.
func userText(raw json.RawMessage) string {
	var msg struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &msg) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(msg.Content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(msg.Content, &blocks)
	var parts []string
	for _, b := range blocks {
		if (b.Type == "text" || b.Type == "") && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

func (p *parser) finish(u jsonl.Unit, offset int64, lines int) *jsonl.Parsed {
	out := &jsonl.Parsed{Unit: u, Offset: offset, Entries: p.entries}
	if p.rs.ID == "" {
		id := strings.TrimSuffix(filepath.Base(u.Path), ".jsonl")
		if err := sessiondb.ValidateID(id); err != nil {
			id = jsonl.FileName(id)
			p.Problem(0, "file name is not a valid session ID (%v); the session is %q", err, id)
		}
		p.rs.ID = id
	}
	attrs := map[string]any{}
	loc := Locate(u.Path)
	if loc.Slug != "" {
		attrs["project_slug"] = loc.Slug
	}
	if loc.CWD != "" {
		attrs["cwd"] = loc.CWD
	}
	if loc.Parent != "" && loc.Parent != p.rs.ID {
		attrs["kind"] = "subagent"
		attrs["parent"] = loc.Parent
	}
	if len(p.held) > 0 && offset < p.Offset {
		// The trailing turn_ended lines, not consumed: the state of the
		// last turn, and what an export writes after the log.
		var held []string
		for _, h := range p.held {
			held = append(held, string(h.raw))
		}
		attrs[AttrTurnEnded] = held
		var d struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(p.held[len(p.held)-1].raw, &d) == nil && d.Status != "" {
			attrs["last_turn_status"] = d.Status
		}
	}
	updated := p.rs.Last
	if p.mtime.After(updated) {
		updated = p.mtime
	}
	created := p.rs.Created
	if created.IsZero() {
		created = updated
	}
	out.Session = sessiondb.Session{
		ID: p.rs.ID, Title: jsonl.TitleOf(p.rs.Prompt), Attrs: jsonl.MergeAttrs(attrs),
		Project: loc.Project(), ParentID: subParent(loc, p.rs.ID), CreatedAt: created, UpdatedAt: updated,
	}
	out.Problems = p.Problems
	p.rs.V, p.rs.Lines = 1, lines
	out.ResumeState = jsonl.MustJSON(p.rs)
	return out
}

// subParent is the session a sub-agent's transcript belongs to ("" for a
// session's own transcript).
func subParent(loc Location, id string) string {
	if loc.Parent == "" || loc.Parent == id || sessiondb.ValidateID(loc.Parent) != nil {
		return ""
	}
	return loc.Parent
}

// AttrTurnEnded is the Attrs member holding the transcript's trailing
// turn_ended lines, which an import does not consume (Cursor rewrites
// the last one when the next turn starts), as the file has them: an
// export writes them after the log.
const AttrTurnEnded = "turn_ended"
