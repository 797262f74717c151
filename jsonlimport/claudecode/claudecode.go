package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the Claude Code transcript format.
const Name = "claude-code"

// Format reads Claude Code transcripts and writes them back (export.go).
type Format struct{}

var _ jsonl.Format = Format{}

// Name returns Name.
func (Format) Name() string { return Name }

// KindToolFile is the Kind of an entry holding a tool-results/ file.
const KindToolFile = "tool-result-file"

var ccAgentFileRE = regexp.MustCompile(`^agent-[A-Za-z0-9_.-]+\.jsonl$`)

// ccTypes are the line types seen in Claude Code transcripts, used to
// recognise a file by content.
var ccTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "progress": true,
	"file-history-snapshot": true, "last-prompt": true, "queue-operation": true, "mode": true,
	"permission-mode": true, "attachment": true, "bridge-session": true, "ai-title": true,
	"custom-title": true, "agent-name": true, "file-history-delta": true,
}

// ccJournalRE matches the journal of a workflow run,
// <session>/subagents/workflows/wf_*/journal.jsonl: {"type":"started"|
// "result","key","agentId",…} lines, not a transcript.
var ccJournalRE = regexp.MustCompile(`(^|/)subagents/workflows/wf_[^/]+/journal\.jsonl$`)

// SkipReason implements jsonl.Skipper: a workflow journal and the
// agent-<id>.meta.json beside a sub-agent transcript are skipped with a
// note.
func (Format) SkipReason(path string) string {
	switch {
	case ccJournalRE.MatchString(filepath.ToSlash(path)):
		return "Claude Code workflow journal (which agent ran and what it returned), not a transcript; skipped"
	case ccAgentPair(path) && strings.HasSuffix(path, ".meta.json"):
		return "Claude Code sub-agent description (agentType), not a transcript; skipped"
	}
	return ""
}

// ccAgentPair reports whether path is a Claude Code sub-agent transcript
// agent-<id>.jsonl, or the agent-<id>.meta.json beside one, in a
// subagents folder.
func ccAgentPair(path string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(path, ".jsonl"), ".meta.json")
	if base == path {
		return false
	}
	if ok, _ := ccAgentOwner(base + ".jsonl"); !ok {
		return false
	}
	return sniffClaudeCode(base + ".jsonl")
}

// Reserves implements jsonl.Reserver: the .jsonl and .meta.json of a
// Claude Code sub-agent (ccAgentPair) are Claude Code's, not picoclaw's.
func (Format) Reserves(path string) bool { return ccAgentPair(path) }

// Claim takes .jsonl files whose first lines are Claude Code lines, and the
// files of a tool-results directory (read with their session).
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	for _, f := range files {
		if filepath.Base(filepath.Dir(f)) == "tool-results" && SessionFile(filepath.Dir(filepath.Dir(f))) != "" {
			continue // read by the session's unit
		}
		if strings.HasSuffix(f, ".jsonl") && sniffClaudeCode(f) {
			u := jsonl.Unit{Format: Name, Path: f}
			u.Extra = ccToolFiles(f)
			units = append(units, u)
			continue
		}
		rest = append(rest, f)
	}
	return units, rest
}

// Reclaim implements jsonl.Reclaimer: a transcript's claim rests on its
// own first lines; its tool-results files are listed as Claim lists them.
func (Format) Reclaim(path string) (jsonl.Unit, bool) {
	if !strings.HasSuffix(path, ".jsonl") {
		return jsonl.Unit{}, false
	}
	return jsonl.Unit{Format: Name, Path: path, Extra: ccToolFiles(path)}, true
}

// SessionFile returns the transcript that owns the directory
// <session-id>/ (dir), or "".
func SessionFile(dir string) string {
	p := dir + ".jsonl"
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p
	}
	return ""
}

// ccToolFiles lists <stem>/tool-results/* beside transcript path.
func ccToolFiles(path string) []string {
	if ccAgentFileRE.MatchString(filepath.Base(path)) {
		return nil
	}
	dir := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "tool-results")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// sniffClaudeCode reports whether the first objects of path are Claude Code
// lines: a known type together with sessionId, uuid or leafUuid, and no
// Codex envelope, pi header or Qwen Code record.
func sniffClaudeCode(path string) bool {
	objs := jsonl.FirstObjects(path, 8)
	for _, m := range objs {
		if _, ok := m["payload"]; ok {
			return false
		}
		if qwenRecord(m) {
			return false
		}
		typ := jsonl.RawString(m, "type")
		if !ccTypes[typ] {
			continue
		}
		_, sid := m["sessionId"]
		_, uuid := m["uuid"]
		_, leaf := m["leafUuid"]
		_, snap := m["snapshot"]
		if sid || uuid || leaf || (typ == "file-history-snapshot" && snap) {
			return true
		}
	}
	return false
}

// qwenRecord reports whether a line is Qwen Code's, whose envelope (uuid,
// parentUuid, sessionId, type user|assistant|system) is Claude Code's but
// whose message is Gemini's {role, parts} and whose system records carry
// a systemPayload: Claude Code writes neither.
func qwenRecord(m map[string]json.RawMessage) bool {
	if _, ok := m["systemPayload"]; ok {
		return true
	}
	var msg struct {
		Parts json.RawMessage `json:"parts"`
	}
	return json.Unmarshal(m["message"], &msg) == nil && len(msg.Parts) > 0
}

// ccResumeState is Parsed.ResumeState for Claude Code files. The state
// identifies the session and names the parse state a Follow keeps (the
// parse itself is not in it: see resume.go).
type ccResumeState struct {
	V  int    `json:"v"`
	ID string `json:"id"`
	// Files are the tool-results files imported, with their entry
	// numbers: a whole read of the grown file puts them there again.
	Files []ccPlaced `json:"files,omitempty"`
	// Entries is the number of entries the read numbered.
	Entries int `json:"entries"`
	// Token names the parse state kept in the importer's Follow, from
	// which the next import continues (see resume.go).
	Token string `json:"token,omitempty"`
}

// ccPlaced is a tool-results file and the entry number it was given.
type ccPlaced struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

// ccKindPart is the Kind of a line that continues the message of an
// earlier line on its path.
const ccKindPart = sessiondb.KindMessagePart

type ccNode struct {
	uuid     string
	parent   string
	n        int // entry number (1-based)
	line     int
	typ      string
	msg      bool // a user or assistant line with a message (Kind message or message-part)
	side     bool
	boundary bool
	meta     json.RawMessage // compactMetadata of a boundary
	msgID    string          // message.id of an assistant line
	head     *ccNode         // the first line of the API response (assistant lines) or the response answered (result lines)
	calls    []string        // tool_use ids of an assistant line
	results  []string        // tool_use ids answered by a user line
	at       int64           // where the line's entry body starts in the file (-1: not a slice of the file)
	seen, in uint64          // the resumePath walk that met it, that put it on the path
	up       *ccNode         // p.nodes[parent], when upTree is p.tree (resolved once found)
	upTree   uint64
	size     int // the body's length
}

// ccLine is the part of a line the reader looks at.
type ccLine struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	UUID            string          `json:"uuid"`
	ParentUUID      *string         `json:"parentUuid"`
	SessionID       string          `json:"sessionId"`
	Timestamp       string          `json:"timestamp"`
	IsSidechain     bool            `json:"isSidechain"`
	AgentID         string          `json:"agentId"`
	CWD             string          `json:"cwd"`
	Version         string          `json:"version"`
	GitBranch       string          `json:"gitBranch"`
	Entrypoint      string          `json:"entrypoint"`
	RequestID       string          `json:"requestId"`
	Summary         json.RawMessage `json:"summary"`
	AITitle         json.RawMessage `json:"aiTitle"`
	CustomTitle     json.RawMessage `json:"customTitle"`
	CompactMetadata json.RawMessage `json:"compactMetadata"`
	CostUSD         float64         `json:"costUSD"`
	Snapshot        *struct {
		Timestamp string `json:"timestamp"`
	} `json:"snapshot"`
	Message *struct {
		ID      string          `json:"id"`
		Role    string          `json:"role"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
		Usage   *struct {
			Input      int64 `json:"input_tokens"`
			Output     int64 `json:"output_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
			// CacheCreation splits CacheWrite by cache lifetime
			// (Claude Code 2.x; absent before).
			CacheCreation *struct {
				Write1h int64 `json:"ephemeral_1h_input_tokens"`
			} `json:"cache_creation"`
		} `json:"usage"`
	} `json:"message"`
}

// ccCall is the usage of one line, a candidate for its API response's row.
type ccCall struct {
	row     sessiondb.Usage
	side    bool
	session string // the line's sessionId
	msgID   string // message.id, the first part of row.CallID
}

type ccParser struct {
	jsonl.WildScan
	agentFile bool
	owner     string // the parent session of a sub-agent file (from its path)

	entries []sessiondb.Entry
	nodes   map[string]*ccNode
	byN     map[int]*ccNode // message lines by entry number
	msgNs   []int           // entry numbers of message lines (eligible for the path)
	calls   map[string]int  // CallID → index in usage
	usage   []ccCall
	summary string
	aiTitle string
	// promptTitle is the first real user prompt's title (jsonl.PromptTitle),
	// once a parse has found one.
	promptTitle string
	custom      string
	sid         string
	agentID     string
	attrs       map[string]any
	lastT       time.Time
	firstT      time.Time
	toolOf      map[string]*ccNode    // tool_use id → the assistant line that made it
	answered    map[*ccNode]bool      // response heads that have a result line
	parts       map[*ccNode][]*ccNode // response head → its lines
	answers     map[string][]*ccNode  // tool_use id → the result lines answering it
	synth       map[int]bool
	files       []ccToolFile
	// prevEntries is the number of entries of the import whose state
	// this whole read continues (0: a first read).
	prevEntries int
	placed      []ccPlaced
	notes       []jsonl.Problem
	stem        string // the file name without .jsonl
	ownLines    bool   // some line carries the file name as sessionId
	walks       uint64 // resumePath walks so far
	tree        uint64 // 1 + the uuids written again (a later line replaces a node)
	ccResuming
}

// ccToolFile is a tool-results file waiting for its place.
type ccToolFile struct {
	name    string // file name
	stem    string // file name without extension: the tool_use id it answers, usually
	entry   sessiondb.Entry
	done    bool
	at      int  // the entry number it had in the import that returned the state (0: none)
	named   bool // some line of the file names it
	namedAt int  // the entry number of the first line naming it (0: none yet)
	stamp   jsonl.FileStamp
}

// Parse reads one Claude Code transcript (see the package doc).
// The resume path, the lines of one response and the results of parallel
// tool calls can all change with a line added anywhere in the tree, so
// resuming needs the whole parse: a file that grew is continued from the
// parse state kept in Options.Follow (ccResume), else read again, the
// importer keeping only the entries after those imported before (Parse
// returns ErrNotIncremental for a Resume with an offset).
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse claude-code %s: internal error: %v", u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse claude-code %s: %w", u.Path, err)
	}
	if from.Offset > 0 {
		return ccResume(ctx, u, from)
	}
	agent, owner := ccAgentOwner(u.Path)
	p := &ccParser{
		WildScan:  jsonl.WildScan{Ctx: ctx, Path: u.Path},
		agentFile: agent,
		owner:     owner,
		stem:      strings.TrimSuffix(filepath.Base(u.Path), ".jsonl"),
		nodes:     map[string]*ccNode{},
		byN:       map[int]*ccNode{},
		calls:     map[string]int{},
		attrs:     map[string]any{},
		toolOf:    map[string]*ccNode{},
		answered:  map[*ccNode]bool{},
		parts:     map[*ccNode][]*ccNode{},
		answers:   map[string][]*ccNode{},
		synth:     map[int]bool{},
	}
	// A whole read of a file that grew: the usage rows of the entries
	// imported before are left out (the importer drops them), and the
	// new rows' responses are looked up in the folder's other
	// transcripts by themselves (ccCopiesOf) rather than through the
	// folder's index, which a process that has none would build by
	// reading every transcript of the folder.
	p.usageFrom, p.reread = from.Reread, from.Reread > 0
	var prev ccResumeState
	if len(from.State) > 0 && json.Unmarshal(from.State, &prev) == nil && prev.V == 2 {
		p.prevEntries = prev.Entries
		p.readToolFiles(u, prev.Files, from.Size)
	} else {
		p.readToolFiles(u, nil, from.Size)
	}
	f, _, err := jsonl.OpenAt(u.Path, 0)
	if err != nil {
		return nil, fmt.Errorf("parse claude-code %s: %w", u.Path, err)
	}
	defer f.Close()
	if err := p.Run(upTo(f, 0, from.Size), 0, p.dispatch); err != nil {
		return nil, fmt.Errorf("parse claude-code %s: %w", u.Path, err)
	}
	if len(p.entries) == 0 && p.Offset == 0 && len(p.Problems) == 0 {
		return nil, fmt.Errorf("%w: empty file", jsonl.ErrNoConversation)
	}
	if len(p.entries) == 0 {
		return nil, fmt.Errorf("parse claude-code %s: %w: no readable line", u.Path, sessiondb.ErrInvalid)
	}
	if len(p.msgNs) == 0 || p.firstT.IsZero() {
		// Summary or bookkeeping lines only (a file being written, one of
		// the summary-only files Claude Code 1.0 left behind, a 2.1 file
		// of another session's title and queue lines): no conversation,
		// and maybe no time to date a session by.
		return nil, fmt.Errorf("%w: no user or assistant line, only %d bookkeeping line(s)", jsonl.ErrNoConversation, len(p.entries))
	}
	p.placeToolFiles(nil)
	for i := range p.files {
		switch f := &p.files[i]; {
		case f.done:
		case f.named: // a new file, named by a line imported before
			p.appendToolFile(f)
		default:
			p.notes = append(p.notes, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("tool-results file %s is named by no line yet; it is imported after the line that names it", f.name)})
		}
	}
	out, err := p.finish(u)
	if err == nil {
		p.keep(from.Cache, out, 0)
	}
	return out, err
}

// ccAgentOwner reports whether path is a sub-agent transcript
// (<session>/subagents/agent-*.jsonl, or a workflow's
// <session>/subagents/workflows/wf_*/agent-*.jsonl) and returns the
// session it belongs to: the name of the folder that holds "subagents".
func ccAgentOwner(path string) (bool, string) {
	if !ccAgentFileRE.MatchString(filepath.Base(path)) {
		return false, ""
	}
	dir := filepath.Dir(path)
	for i := 0; i < 3; i++ {
		if filepath.Base(dir) == "subagents" {
			return true, filepath.Base(filepath.Dir(dir))
		}
		dir = filepath.Dir(dir)
	}
	return false, ""
}

func (p *ccParser) dispatch(raw []byte, lineNo int) {
	var l ccLine
	if err := json.Unmarshal(raw, &l); err != nil {
		// Valid JSON of an unexpected shape (a field of another type): keep
		// it as data.
		p.Problem(lineNo, "line has an unexpected shape (%v); kept as data", err)
		l = ccLine{}
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(raw, &head)
		l.Type = head.Type
		l.Message = nil
	}
	p.placeToolFiles(nil)
	t := jsonl.ParseTime(l.Timestamp)
	if t.IsZero() && l.Snapshot != nil {
		// A file-history-snapshot has its time inside (not the time of
		// a line: the session's times stay those of its lines).
		t = jsonl.ParseTime(l.Snapshot.Timestamp)
	} else if t.IsZero() {
		t = p.lastT
	} else {
		p.lastT = t
		if p.firstT.IsZero() { // the first in file order: it never changes as the file grows
			p.firstT = t
		}
	}
	n := len(p.entries) + 1
	e := sessiondb.Entry{Kind: jsonl.EntryKind(Name, l.Type), CreatedAt: t, Body: raw}
	isMsg := (l.Type == "user" || l.Type == "assistant") && l.Message != nil
	if isMsg {
		e.Kind = sessiondb.KindMessage
		e.Role = l.Message.Role
		if e.Role == "" {
			e.Role = l.Type
		}
	} else if l.Type == "user" || l.Type == "assistant" {
		p.Problem(lineNo, "%s line without a message object; kept as data", l.Type)
	}
	if p.sid == "" && l.SessionID != "" {
		p.sid = l.SessionID
	}
	if l.SessionID != "" && l.SessionID == p.stem {
		p.ownLines = true
	}
	if l.AgentID != "" && p.agentID == "" {
		p.agentID = l.AgentID
	}
	for k, v := range map[string]string{"cwd": l.CWD, "version": l.Version, "gitBranch": l.GitBranch, "entrypoint": l.Entrypoint} {
		if v != "" {
			p.attrs[k] = v
		}
	}
	var title string
	switch l.Type {
	case "summary":
		if json.Unmarshal(l.Summary, &title) == nil && title != "" {
			p.summary = title
		}
	case "ai-title":
		if json.Unmarshal(l.AITitle, &title) == nil && title != "" {
			p.aiTitle = title
		}
	case "custom-title":
		if json.Unmarshal(l.CustomTitle, &title) == nil && title != "" {
			p.custom = title
		}
	}
	var node *ccNode
	if l.UUID != "" {
		parent := ""
		if l.ParentUUID != nil {
			parent = *l.ParentUUID
		}
		node = &ccNode{uuid: l.UUID, parent: parent, n: n, line: lineNo, typ: l.Type, msg: isMsg, side: l.IsSidechain,
			boundary: l.Type == "system" && l.Subtype == "compact_boundary", meta: l.CompactMetadata}
		node.at, node.size = p.BodyAt, len(raw)
		if old, dup := p.nodes[l.UUID]; dup {
			p.tree++ // the parent links resolved before may be stale
			p.Problem(lineNo, "uuid %s already used on line %d; the later line wins in the tree", l.UUID, old.line)
		}
	} else if isMsg {
		p.Problem(lineNo, "%s line without uuid: kept in the log, not on the resume path", l.Type)
	}
	if isMsg {
		if node == nil {
			node = &ccNode{n: n, line: lineNo, typ: l.Type, msg: true, at: p.BodyAt, size: len(raw)}
		}
		if l.Type == "assistant" {
			node.msgID = l.Message.ID
		}
		p.blocks(node, l.Message.Content)
		p.sawIDs(node, raw)
		if p.partOf(node) {
			e.Kind = ccKindPart
		}
	}
	p.entries = append(p.entries, e)
	if node != nil && node.uuid != "" {
		p.nodes[node.uuid] = node
		if isMsg {
			p.byN[n] = node
			p.msgNs = append(p.msgNs, n)
		}
	}
	if isMsg {
		p.usageOf(l, n, t)
	}
	p.placeToolFiles(raw)
}

// partOf decides, from the lines read so far, whether the message line
// node continues the message of an earlier line on its path: an assistant
// line whose nearest message ancestor is a line of the same API response
// (same message.id; Claude Code writes a streamed response one content
// block per line, each the child of the previous), or a tool_result line
// answering a call of a response that already has a result line (each
// result of parallel calls is its own line, a child of its own tool_use
// line). It records the line's response.
func (p *ccParser) partOf(node *ccNode) bool {
	switch node.typ {
	case "assistant":
		node.head = node
		if prev := p.previousPart(node); prev != nil {
			node.head = prev.head
		}
		p.parts[node.head] = append(p.parts[node.head], node)
		for _, id := range node.calls {
			p.toolOf[id] = node
		}
		return node.head != node
	case "user":
		for _, id := range node.results {
			p.answers[id] = append(p.answers[id], node)
			if node.head == nil {
				if owner := p.toolOf[id]; owner != nil {
					node.head = owner.head
				}
			}
		}
		if node.head == nil {
			return false
		}
		if p.answered[node.head] {
			return true
		}
		p.answered[node.head] = true
	}
	return false
}

// previousPart returns the earlier line of node's API response that node
// continues: the first assistant line up the parent chain when it has the
// same message.id. Lines of other types (progress, attachments) are
// passed through, and so are the result lines of the same response's
// tool calls (Claude Code 2.1 writes the result of a parallel call as
// soon as it comes, and the response's next block hangs off it).
func (p *ccParser) previousPart(node *ccNode) *ccNode {
	if node.msgID == "" {
		return nil
	}
	uuid := node.parent
	for i := 0; i < 256 && uuid != ""; i++ {
		n, ok := p.nodes[uuid]
		if !ok {
			return nil
		}
		switch {
		case !n.msg:
		case n.typ == "assistant":
			if n.msgID == node.msgID && n.head != nil {
				return n
			}
			return nil
		case n.head != nil && n.head.msgID == node.msgID:
			// a result line of this response
		default:
			return nil
		}
		uuid = n.parent
	}
	return nil
}

// usageOf records the usage of an assistant line. The lines of one API
// response share message.id and requestId; the usage a line carries is
// what the endpoint had reported when the line was written (the early
// lines' output_tokens are partial, and through Anthropic-compatible
// endpoints their input is the whole prompt, uncached), and the response
// counts once, with its last line's report (see ccBetter).
func (p *ccParser) usageOf(l ccLine, n int, t time.Time) {
	m := l.Message
	if l.Type != "assistant" || m.Usage == nil {
		return
	}
	if m.Model == "<synthetic>" {
		p.synth[n] = true
		return // a stop the CLI wrote, not an API call
	}
	if m.Model != "" {
		p.attrs["model"] = m.Model
	}
	c := ccCall{side: l.IsSidechain, session: l.SessionID, msgID: m.ID, row: sessiondb.Usage{
		Seq: int64(n), CallID: ccCallID(m.ID, l.RequestID), Provider: "anthropic", Model: m.Model,
		InputTokens: m.Usage.Input, OutputTokens: m.Usage.Output,
		CacheReadTokens: m.Usage.CacheRead, CacheWriteTokens: m.Usage.CacheWrite,
		Cost: l.CostUSD, CreatedAt: t,
	}}
	if cc := m.Usage.CacheCreation; cc != nil { // the 1-hour writes, within the cache writes
		c.row.CacheWrite1hTokens = min(max(cc.Write1h, 0), max(m.Usage.CacheWrite, 0))
	}
	if c.row.CallID == "" {
		p.usage = append(p.usage, c)
		return
	}
	i, seen := p.calls[c.row.CallID]
	if !seen {
		p.calls[c.row.CallID] = len(p.usage)
		p.usage = append(p.usage, c)
		return
	}
	if o := p.usage[i]; ccBetter(c.side, c.empty(), o.side, o.empty()) {
		p.usage[i] = c
	}
}

// countedUsage returns the usage rows this file counts. A response held
// by several transcripts of one project folder (Claude Code continues a
// session in a new file that repeats the responses of the one it
// continues, sometimes re-dated; a sub-agent file may replay its
// session's lines) counts once, as ccusage counts it once across files:
// in the transcript whose report is on the main chain rather than a side
// chain, then dated earliest (the call was made then), then first in path
// order (see ccCopies).
func (p *ccParser) countedUsage() []ccCall {
	var out []ccCall
	copied := map[string]int{}
	var others func(string) (ccReport, bool)
	if p.reread {
		ids := map[string]bool{}
		for _, c := range p.usage {
			if c.row.Seq > int64(p.usageFrom) && c.row.CallID != "" {
				ids[c.msgID] = true
			}
		}
		others = ccCopiesOf(p.Path, ids)
	} else {
		others = ccCopies(p.Path, p.grownFrom)
	}
	for _, c := range p.usage {
		if c.row.Seq <= int64(p.usageFrom) {
			continue // a resumed read counts the rows of its new lines only
		}
		if c.row.CallID != "" {
			if o, ok := others(c.row.CallID); ok && ccWins(o, ccReport{path: p.Path, side: c.side, at: c.row.CreatedAt}) {
				copied[o.path]++
				continue
			}
		}
		out = append(out, c)
	}
	var paths []string
	for path := range copied {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		p.notes = append(p.notes, jsonl.Problem{Path: p.Path, Reason: fmt.Sprintf("%d API response(s) also in %s are counted there (once across files)", copied[path], path)})
	}
	return out
}

// ccReport is where a response's usage was found.
type ccReport struct {
	path string
	side bool
	at   time.Time
}

// ccWins reports whether report a, rather than b, counts a response
// both hold.
func ccWins(a, b ccReport) bool {
	switch {
	case a.side != b.side:
		return b.side
	case !a.at.Equal(b.at):
		return a.at.Before(b.at)
	}
	return a.path < b.path
}

// ccAgentSessionDir returns the <session> folder a sub-agent file is in.
func ccAgentSessionDir(path string) string {
	dir := filepath.Dir(path)
	for i := 0; i < 3; i++ {
		if filepath.Base(dir) == "subagents" {
			return filepath.Dir(dir)
		}
		dir = filepath.Dir(dir)
	}
	return filepath.Dir(path)
}

// ccCallID names an API response: message.id and requestId (which
// Anthropic-compatible endpoints may leave out); a line without
// message.id has none (each counts).
func ccCallID(id, request string) string {
	if id == "" {
		return ""
	}
	return id + "|" + request
}

// ccBetter reports whether the usage report of a line (side: a side
// chain's; empty: no token counted) replaces the report of an earlier
// line of the same response: a main-chain line beats a side-chain copy,
// else the later line wins, unless it reports nothing. The last streamed
// line carries the final usage; an earlier one's is partial, and its
// total is not always smaller (issue 38: a 2.1.68 file written through
// an Anthropic-compatible endpoint reports the whole prompt as input on
// its thinking lines, more than the final line's input, cache reads and
// output together). A line with "usage":{} (longcat through Claude Code
// 2.1.90 writes the final report on one block line and empty ones on
// others, not always before it in the file) is no report. ccusage keeps
// the largest total instead; on the real corpus the two rules pick lines
// of the same figures.
func ccBetter(side, empty, oldSide, oldEmpty bool) bool {
	if side != oldSide {
		return oldSide
	}
	return !empty || oldEmpty
}

// empty reports whether the line counted no token at all.
func (c ccCall) empty() bool {
	return c.row.InputTokens == 0 && c.row.OutputTokens == 0 && c.row.CacheReadTokens == 0 && c.row.CacheWriteTokens == 0
}

// blocks records the tool_use and tool_result ids of a message's content.
func (p *ccParser) blocks(node *ccNode, content json.RawMessage) {
	var bs []struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		ToolUseID string `json:"tool_use_id"`
	}
	if json.Unmarshal(content, &bs) != nil {
		return
	}
	for _, b := range bs {
		switch {
		case b.Type == "tool_use" && node.typ == "assistant" && b.ID != "":
			node.calls = append(node.calls, b.ID)
		case b.Type == "tool_result" && node.typ == "user" && b.ToolUseID != "":
			node.results = append(node.results, b.ToolUseID)
		}
	}
}

// SideFiles implements jsonl.SideLister: the tool-results files of the session
// at path.
func (Format) SideFiles(path string) []string { return ccToolFiles(path) }

// ReadsUpToSize is jsonl.Bounded: Parse reads no further than Resume.Size
// and continues from the parse state kept in the Follow (resume.go).
func (Format) ReadsUpToSize() bool { return true }

// upTo returns f, read from offset from, limited to size bytes of the file
// when size > 0 (Resume.Size).
func upTo(f io.Reader, from, size int64) io.Reader {
	if size <= 0 {
		return f
	}
	return io.LimitReader(f, max(size-from, 0))
}

// readToolFiles reads the unit's tool-results files. Each becomes an
// entry of its own (see placeToolFiles for where). placed are the places
// a previous read gave them.
func (p *ccParser) readToolFiles(u jsonl.Unit, placed []ccPlaced, size int64) {
	if len(u.Extra) == 0 {
		return
	}
	at := map[string]int{}
	for _, pl := range placed {
		at[pl.Name] = pl.N
	}
	first := len(p.files)
	for _, x := range u.Extra {
		f, ok := p.loadToolFile(x, at[filepath.Base(x)])
		if !ok {
			continue
		}
		p.files = append(p.files, f)
	}
	p.namedIn(u.Path, size, p.files[first:])
}

// namedIn marks the files of files that a line of the file at path (its
// first size bytes when size > 0) names. It reads the file a line at a
// time: a large transcript is never held whole. A torn last line is not
// imported until it is complete: it names no file yet (its file would be
// placed before it, where one import of the finished transcript does not
// put it).
func (p *ccParser) namedIn(path string, size int64, files []ccToolFile) {
	f, err := jsonl.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	left := len(files)
	_ = jsonl.ScanLines(upTo(f, 0, size), 0, func(line []byte, _ int, _, _ int64, complete bool) error {
		if !complete && !json.Valid(bytes.TrimSpace(line)) {
			return jsonl.ErrStopScan
		}
		for i := range files {
			if !files[i].named && ccNames(line, files[i]) {
				files[i].named = true
				left--
			}
		}
		if left == 0 {
			return jsonl.ErrStopScan
		}
		return nil
	})
}

// ccNames reports whether data names tool-results file f.
func ccNames(data []byte, f ccToolFile) bool {
	return bytes.Contains(data, []byte(`"`+f.stem+`"`)) || bytes.Contains(data, []byte(f.name))
}

// loadToolFile reads the tool-results file x, to be entry number at (0:
// where a line names it); false (and a problem) when it cannot be
// imported.
func (p *ccParser) loadToolFile(x string, at int) (ccToolFile, bool) {
	name := filepath.Base(x)
	// The size is checked before a byte is read (a sparse file of 3 GB
	// costs nothing to refuse), and only a regular file is read
	// (jsonl.ReadFile): a FIFO or a link to /dev/zero is a problem.
	fi, err := os.Stat(x)
	var data []byte
	if err == nil {
		data, err = jsonl.ReadFile(x, jsonl.MaxLineSize)
	}
	if errors.Is(err, jsonl.ErrTooLarge) {
		p.Problem(0, "tool-results file %s is %d bytes (over %d); not imported", name, fi.Size(), jsonl.MaxLineSize)
		return ccToolFile{}, false
	}
	if err != nil {
		p.Problem(0, "tool-results file %s: %v", name, err)
		return ccToolFile{}, false
	}
	body, _ := json.Marshal(map[string]string{"file": name, "content": string(jsonl.ValidUTF8(data))})
	return ccToolFile{name: name, stem: strings.TrimSuffix(name, filepath.Ext(name)), at: at,
		stamp: jsonl.StampOf(x, fi),
		entry: sessiondb.Entry{Kind: KindToolFile, CreatedAt: fi.ModTime().UTC(), Body: body}}, true
}

// placeToolFiles appends the tool-results files due before the next
// entry, then (line non-nil) those the line just appended names. Claude
// Code writes a tool output too large for the transcript into
// tool-results/<tool_use id>.txt, then the tool_result line pointing at
// it: the file's entry follows that line. A file that no line names yet
// waits (a note says so): placed now, it would stand where one import of
// the finished transcript does not put it. In a whole read of a file that
// grew, the files imported before keep their entry numbers, and a new
// file whose line is not new (written after the line that names it, which
// Claude Code does not do) comes right after the entries imported before.
func (p *ccParser) placeToolFiles(line []byte) {
	for again := true; again; {
		again = false
		next := len(p.entries) + 1
		for i := range p.files {
			f := &p.files[i]
			due := f.at == next ||
				(f.at == 0 && p.prevEntries > 0 && next == p.prevEntries+1 && f.namedAt > 0)
			if !f.done && due {
				p.appendToolFile(f)
				again = true
			}
		}
	}
	if line == nil {
		return
	}
	for i := range p.files {
		f := &p.files[i]
		if f.done || f.at != 0 || !(bytes.Contains(line, []byte(`"`+f.stem+`"`)) || bytes.Contains(line, []byte(f.name))) {
			continue
		}
		if f.namedAt == 0 {
			f.namedAt = len(p.entries)
		}
		if p.prevEntries == 0 || len(p.entries) > p.prevEntries {
			p.appendToolFile(f)
		}
	}
}

func (p *ccParser) appendToolFile(f *ccToolFile) {
	f.done = true
	p.entries = append(p.entries, f.entry)
	p.placed = append(p.placed, ccPlaced{Name: f.name, N: len(p.entries)})
}

// resumePath returns the lines Claude Code resumes, in the order it
// sends them: the walk from the leaf to a root through parentUuid, plus
// every line of each API response met on it and the result lines of all
// its tool calls (the lines of parallel calls hang off each other, so the
// walk alone reaches only the last result), in file order; but for the
// segment a compaction preserved (preservedSegment, below), which goes
// right after its anchor. It also returns the root of the walk and the
// tool calls on the path without result.
func (p *ccParser) resumePath(leaf string) (path []*ccNode, root *ccNode, open []*ccNode) {
	// Nodes are marked with the number of this walk rather than put in
	// maps: a resumed read walks the path again on every append.
	p.walks++
	g := p.walks
	add := func(n *ccNode) {
		if n.in != g {
			n.in = g
			path = append(path, n)
		}
	}
	var prev *ccNode
	for cur := leaf; cur != ""; {
		node, ok := prev.parentNode(p, cur)
		if ok && node.seen == g {
			p.Problem(root.line, "parentUuid cycle at %s; the resume path stops there", cur)
			break
		}
		if !ok {
			if p.agentFile || p.agentID != "" {
				// A sub-agent's first line hangs off the line of the
				// parent session that started it, in another file.
				p.notes = append(p.notes, jsonl.Problem{Path: p.Path, Line: root.line, Reason: fmt.Sprintf("the sub-agent's path starts at a line of another file (parentUuid %s); as Claude Code resumes it", cur)})
			} else {
				// An archive that starts mid-conversation (its first lines
				// were in a file no longer there): nothing is lost, every
				// line is in the log, and the path is what Claude Code
				// resumes. A note, not a problem.
				p.notes = append(p.notes, jsonl.Problem{Path: p.Path, Line: root.line, Reason: fmt.Sprintf("parentUuid %s is in no line of this file (the archive starts mid-conversation); the resume path starts at this line, as Claude Code resumes, and every line is in the log", cur)})
			}
			break
		}
		node.seen = g
		if node.msg {
			add(node)
		}
		root, prev = node, node
		cur = node.parent
	}
	anchor, kept := p.preservedSegment(root, g)
	for _, n := range kept {
		add(n)
	}
	var heads []*ccNode
	for _, n := range path {
		if n.typ == "assistant" && n.head != nil {
			heads = append(heads, n.head)
		}
	}
	for _, h := range heads {
		for _, part := range p.parts[h] {
			add(part)
		}
	}
	for _, n := range path[:len(path):len(path)] {
		if n.typ != "assistant" {
			continue
		}
		for _, id := range n.calls {
			var answer *ccNode
			for _, r := range p.answers[id] {
				if r.head == n.head || answer == nil {
					answer = r // the last answer of this response wins
				}
			}
			if answer != nil {
				add(answer)
			} else {
				open = append(open, n)
			}
		}
	}
	// File order, but the preserved lines (and the other lines of their
	// responses, their results) right after the anchor.
	preserved := map[*ccNode]bool{}
	for _, n := range kept {
		preserved[n] = true
		if n.head != nil {
			preserved[n.head] = true
		}
	}
	after := func(n *ccNode) bool { return anchor != nil && (preserved[n] || (n.head != nil && preserved[n.head])) }
	key := func(n *ccNode) (int, int) {
		if after(n) {
			return anchor.n, 1
		}
		return n.n, 0
	}
	sort.Slice(path, func(i, j int) bool {
		ki, ai := key(path[i])
		kj, aj := key(path[j])
		if ki != kj {
			return ki < kj
		}
		if ai != aj {
			return ai < aj
		}
		return path[i].n < path[j].n
	})
	sort.Slice(open, func(i, j int) bool { return open[i].n < open[j].n })
	return path, root, open
}

// preservedSegment returns, when root is a compact_boundary whose
// compactMetadata names a preservedSegment (Claude Code 2.1: the messages
// a compaction keeps verbatim, the segment headUuid…tailUuid of the
// lines before the boundary) and its anchor (the summary line after the
// boundary) is on the walk g, the anchor and the segment's message lines.
// Claude Code sends them right after the summary, though the file links
// the lines after the summary to the summary itself: without them, the
// transcript after a /compact would lose what Claude Code kept.
func (p *ccParser) preservedSegment(root *ccNode, g uint64) (anchor *ccNode, kept []*ccNode) {
	if root == nil || !root.boundary || len(root.meta) == 0 {
		return nil, nil
	}
	var meta struct {
		Preserved *struct {
			Head   string `json:"headUuid"`
			Anchor string `json:"anchorUuid"`
			Tail   string `json:"tailUuid"`
		} `json:"preservedSegment"`
	}
	if json.Unmarshal(root.meta, &meta) != nil || meta.Preserved == nil || meta.Preserved.Head == "" || meta.Preserved.Tail == "" {
		return nil, nil
	}
	seg := meta.Preserved
	anchor, ok := p.nodes[seg.Anchor]
	if !ok || anchor.seen != g {
		return nil, nil
	}
	cur := seg.Tail
	for i := 0; i < 1<<16 && cur != ""; i++ {
		n, ok := p.nodes[cur]
		if !ok || n.seen == g {
			// A segment not written, or crossing the walk: not what Claude
			// Code preserved; keep the path as the file links it.
			p.Problem(root.line, "compactMetadata.preservedSegment %s…%s cannot be followed from its tail; the lines it preserved are left out", seg.Head, seg.Tail)
			return nil, nil
		}
		if n.msg {
			kept = append(kept, n)
		}
		if cur == seg.Head {
			for _, n := range kept {
				n.seen = g
			}
			return anchor, kept
		}
		cur = n.parent
	}
	p.Problem(root.line, "compactMetadata.preservedSegment %s…%s does not lead from its tail to its head; the lines it preserved are left out", seg.Head, seg.Tail)
	return nil, nil
}

func (p *ccParser) finish(u jsonl.Unit) (*jsonl.Parsed, error) {
	out := &jsonl.Parsed{Unit: u, Offset: p.Offset}

	// The leaf: the newest message line eligible for the main path.
	leaf := ""
	for i := len(p.msgNs) - 1; i >= 0 && leaf == ""; i-- {
		node := p.byN[p.msgNs[i]]
		if !node.side || p.agentFile {
			leaf = node.uuid
		}
	}
	var path, open []*ccNode
	var root *ccNode
	if leaf != "" {
		path, root, open = p.resumePath(leaf)
	}

	// Is the path a suffix of the message entries?
	onPath := make([]bool, len(p.entries)+1)
	for _, n := range path {
		onPath[n.n] = true
	}
	start := 0
	if len(path) > 0 {
		start = path[0].n
	}
	if root != nil && root.boundary && (start == 0 || root.n < start) {
		start = root.n
	}
	// A path not in file order (a compaction's preserved segment) is
	// never a suffix of the log.
	suffix := sort.SliceIsSorted(path, func(i, j int) bool { return path[i].n < path[j].n })
	before := false
	for _, n := range p.msgNs {
		if n >= start && !onPath[n] {
			suffix = false
		}
		if n < start {
			before = true
		}
	}
	switch {
	case leaf == "":
	case suffix && root != nil && root.boundary:
		c := sessiondb.Compaction{KeepFromSeq: int64(start), CreatedAt: p.entries[root.n-1].CreatedAt}
		var meta struct {
			Trigger   string `json:"trigger"`
			PreTokens int64  `json:"preTokens"`
		}
		_ = json.Unmarshal(root.meta, &meta)
		c.TokensBefore = meta.PreTokens
		c.Details = jsonl.MustJSON(map[string]any{"source": "claude-code compact_boundary", "trigger": meta.Trigger, "line": root.line})
		out.Compactions = append(out.Compactions, c)
	case suffix && before:
		out.Compactions = append(out.Compactions, sessiondb.Compaction{
			KeepFromSeq: int64(start),
			Details:     jsonl.MustJSON(map[string]any{"source": "claude-code resume path", "reason": "earlier lines are not on the path from the newest message"}),
		})
	case suffix:
	default:
		sum := make([]sessiondb.Entry, 0, len(path))
		for _, n := range path {
			e := p.entryOf(n)
			e.Summary = true
			sum = append(sum, e)
		}
		c := sessiondb.Compaction{
			KeepFromSeq: int64(len(p.entries) + 1),
			Summary:     sum,
			Details:     jsonl.MustJSON(map[string]any{"source": "claude-code resume path", "reason": "the path from the newest message is not a suffix of the log (branches or side chains); its entries are copied here", "leaf": leaf}),
		}
		if root != nil && root.boundary {
			var meta struct {
				PreTokens int64 `json:"preTokens"`
			}
			_ = json.Unmarshal(root.meta, &meta)
			c.TokensBefore = meta.PreTokens
		}
		out.Compactions = append(out.Compactions, c)
	}
	p.reportPathEnd(path, open)

	// Backfill times of lines before the first timestamp.
	for i := range p.entries {
		if p.entries[i].CreatedAt.IsZero() {
			p.entries[i].CreatedAt = p.firstT
		}
	}
	for _, c := range p.countedUsage() {
		out.Usage = append(out.Usage, c.row)
	}
	jsonl.EstimateCosts(out.Usage)
	out.Entries = p.entries

	// Session metadata.
	stem := strings.TrimSuffix(filepath.Base(p.Path), ".jsonl")
	id, parent := stem, ""
	// A 2.0 sub-agent file beside the sessions (agent-<id>.jsonl) carries
	// its parent's sessionId and its agentId.
	agent2 := ccAgentFileRE.MatchString(filepath.Base(p.Path)) && p.agentID != "" && p.sid != "" && p.sid != stem
	switch {
	case p.agentFile || agent2:
	case p.sid != "" && p.sid != stem && p.ownLines:
		// Claude Code 1.0 and 2 continue a session in a new file whose
		// first lines are those of the session continued.
		p.attrs["continues"] = p.sid
	case p.sid != "" && p.sid != stem:
		p.Problem(0, "sessionId %s differs from the file name; the file name is the session ID (Claude Code resumes by file name)", p.sid)
	}
	if p.agentFile || agent2 {
		agent := p.agentID
		if agent == "" {
			agent = strings.TrimPrefix(stem, "agent-")
		}
		owner := p.owner
		if owner == "" {
			owner = p.sid
		}
		if owner == "" {
			owner = filepath.Base(filepath.Dir(filepath.Dir(p.Path)))
		}
		id, parent = owner+":agent-"+agent, owner
		p.attrs["agentId"] = agent
	}
	title := p.custom
	if title == "" {
		title = p.summary
	}
	if title == "" {
		title = p.aiTitle
	}
	if title == "" {
		// Found once and kept: a parse resumed under a Follow holds the
		// earlier entries without their bodies.
		if p.promptTitle == "" {
			p.promptTitle = jsonl.PromptTitle(Format{}, p.entries)
		}
		title = p.promptTitle
	}
	attrs := jsonl.MergeAttrs(p.attrs)
	out.Session = sessiondb.Session{ID: id, Title: title, Attrs: attrs, ParentID: parent, CreatedAt: p.firstT, UpdatedAt: p.lastT}
	// The project: the cwd its lines record, else the project folder the
	// file is in (Claude Code's encoding of the cwd).
	if cwd, _ := p.attrs["cwd"].(string); cwd != "" {
		out.Session.Project = cwd
	} else {
		out.Session.Project = projectFolder(p.Path)
	}
	out.Problems = p.Problems
	out.Notes = append(out.Notes, p.notes...)
	out.ResumeState = jsonl.MustJSON(ccResumeState{V: 2, ID: id, Files: p.placed, Entries: len(p.entries)})
	return out, nil
}

// reportPathEnd reports what can block a resume at the end of the path:
// <synthetic> stops, and tool calls without result (cut off: no line of
// the file answers them).
func (p *ccParser) reportPathEnd(path, open []*ccNode) {
	i := len(path) - 1
	for ; i >= 0 && p.synth[path[i].n]; i-- {
		p.notes = append(p.notes, jsonl.Problem{Path: p.Path, Line: path[i].line, Reason: "the path ends with a <synthetic> assistant stop (Claude Code wrote it, after an API error or an interruption; it can block resume); kept"})
	}
	for _, n := range open {
		ids := []string{}
		for _, id := range n.calls {
			if len(p.answers[id]) == 0 {
				ids = append(ids, id)
			}
		}
		if len(ids) > 0 {
			p.notes = append(p.notes, jsonl.Problem{Path: p.Path, Line: n.line, Reason: fmt.Sprintf("tool call(s) %s on the path have no result in the file (cut off: the session stopped, or the tool is still running); kept", strings.Join(ids, ", "))})
		}
	}
}

// parentNode returns the node of uuid, the parent of n (n nil: the
// leaf), resolving it through p.nodes once and then from n.up, until a
// uuid is written again.
func (n *ccNode) parentNode(p *ccParser, uuid string) (*ccNode, bool) {
	if n != nil && n.up != nil && n.upTree == p.tree+1 {
		return n.up, true
	}
	node, ok := p.nodes[uuid]
	if ok && n != nil {
		n.up, n.upTree = node, p.tree+1
	}
	return node, ok
}

// projectFolder is the folder of ~/.claude/projects a transcript is in
// (the path component after the last "projects"), "" when it is not in
// one.
func projectFolder(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := len(parts) - 2; i >= 0; i-- {
		if parts[i] == "projects" && i+1 < len(parts)-1 {
			return parts[i+1]
		}
	}
	return ""
}
