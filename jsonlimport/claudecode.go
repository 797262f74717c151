package jsonlimport

// Claude Code (Anthropic's CLI) keeps one JSONL transcript per session:
// ~/.claude/projects/<encoded-cwd>/<session-id>.jsonl, sub-agent transcripts
// in <session-id>/subagents/agent-<agentId>.jsonl and oversized tool
// outputs in <session-id>/tool-results/. The format is undocumented; the
// shapes read here are those of formats/wild.md §1.
//
// How the ClaudeCode reader maps that onto sessiondb:
//
//   - Every readable line is one log entry whose Body is the line's exact
//     bytes. Lines of type "user" and "assistant" are entries of Kind
//     "message" (Role from message.role); every other type ("system",
//     "summary", "file-history-snapshot", "progress", "last-prompt", and
//     types nobody has seen yet) is kept as data, Kind = its type.
//   - The transcript: Claude Code resumes by walking parentUuid links from
//     the newest message back to a root. The leaf is the last user or
//     assistant line in file order that is not a side chain (in a sub-agent
//     file, the last one); the walk passes through lines of any type that
//     carry a uuid and stops at a null parent, at a parent never written (a
//     Problem: the history before it is not on the resume path, as in
//     Claude Code), or at a cycle. When the messages on that path are exactly
//     the message entries from some entry on (the usual, linear case), the
//     transcript is that suffix of the log: a compaction with that
//     KeepFromSeq is recorded when it does not start at the first entry.
//     When the path is not a suffix (an edited prompt left an abandoned
//     branch, side-chain lines are interleaved), a compaction whose summary
//     holds copies of the path's entries (Summary true) and which keeps no
//     log entry makes the effective transcript exactly the path.
//   - Compaction: a "system" line with subtype "compact_boundary" has a
//     null parentUuid, so the resume path starts there; the compaction
//     recorded then carries compactMetadata.preTokens as TokensBefore and
//     the trigger in Details. The isCompactSummary user line after it is an
//     ordinary message entry on the path. Pre-compaction lines stay in the
//     log.
//   - Filtered to Kind "message", the effective transcript is the resume
//     path; the other entries after KeepFromSeq are bookkeeping lines.
//   - Title: the last "summary" line's text. Attrs: cwd, version,
//     gitBranch, entrypoint and model (of the last assistant line), plus
//     agentId for a sub-agent file. Lines without a timestamp
//     (bookkeeping) take the previous line's.
//   - Sub-agents: a file under "subagents/" whose lines carry agentId is a
//     session of its own, ID "<sessionId>:agent-<agentId>", whose ParentID
//     is the parent session's ID.
//   - Usage: one row per API response. A response spans several assistant
//     lines that repeat message.id (one content block each) and the same
//     usage; rows are de-duplicated by message.id + requestId, the first
//     line counting (the rule of ccusage-style cost tools). Lines without
//     message.id are counted each. Model "<synthetic>" (a stop inserted by
//     the CLI, not an API call) is not counted. De-duplication is within
//     one file: the same response copied into another file counts there
//     again.
//   - Oversized tool outputs (<session-id>/tool-results/*) are read with
//     the session: each file becomes an entry of Kind "tool-result-file"
//     whose body is {"file": name, "content": text}.
//   - Corruption: torn lines and NUL runs anywhere are reported and what
//     they still hold is recovered (see wildScan); a `<synthetic>` stop or
//     an unanswered tool_use at the end of the path is reported (it can
//     block resume in Claude Code) and kept.
//   - Resume: a file that only grew is read from the offset when the new
//     messages continue the previous leaf in a line (or start after a new
//     compact_boundary); otherwise Parse returns ErrNotIncremental and the
//     file is read whole.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
)

// FormatClaudeCode names the Claude Code transcript format.
const FormatClaudeCode = "claude-code"

// ClaudeCode reads Claude Code transcripts. It does not export.
type ClaudeCode struct{}

var _ Format = ClaudeCode{}

// Name returns FormatClaudeCode.
func (ClaudeCode) Name() string { return FormatClaudeCode }

// ccKindToolFile is the Kind of an entry holding a tool-results/ file.
const ccKindToolFile = "tool-result-file"

var ccAgentFileRE = regexp.MustCompile(`^agent-[A-Za-z0-9_.-]+\.jsonl$`)

// ccTypes are the line types seen in Claude Code transcripts, used to
// recognise a file by content.
var ccTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "progress": true,
	"file-history-snapshot": true, "last-prompt": true, "queue-operation": true, "mode": true,
	"permission-mode": true, "attachment": true, "bridge-session": true,
}

// Claim takes .jsonl files whose first lines are Claude Code lines, and the
// files of a tool-results directory (read with their session).
func (ClaudeCode) Claim(files []string) (units []Unit, rest []string) {
	for _, f := range files {
		if filepath.Base(filepath.Dir(f)) == "tool-results" && ccSessionFile(filepath.Dir(filepath.Dir(f))) != "" {
			continue // read by the session's unit
		}
		if strings.HasSuffix(f, ".jsonl") && sniffClaudeCode(f) {
			u := Unit{Format: FormatClaudeCode, Path: f}
			u.Extra = ccToolFiles(f)
			units = append(units, u)
			continue
		}
		rest = append(rest, f)
	}
	return units, rest
}

// ccSessionFile returns the transcript that owns the directory
// <session-id>/ (dir), or "".
func ccSessionFile(dir string) string {
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
// Codex envelope or pi header.
func sniffClaudeCode(path string) bool {
	objs := firstObjects(path, 8)
	for _, m := range objs {
		if _, ok := m["payload"]; ok {
			return false
		}
		typ := rawString(m, "type")
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

// ccResumeState is Parsed.ResumeState for Claude Code files.
type ccResumeState struct {
	V         int             `json:"v"`
	ID        string          `json:"id"`
	Lines     int             `json:"lines"`
	Leaf      string          `json:"leaf,omitempty"`
	View      bool            `json:"view,omitempty"`
	Keys      []string        `json:"keys,omitempty"`
	Title     string          `json:"title,omitempty"`
	Attrs     json.RawMessage `json:"attrs,omitempty"`
	Parent    string          `json:"parent,omitempty"`
	Created   time.Time       `json:"created"`
	Last      time.Time       `json:"last"`
	ToolFiles []string        `json:"tool_files,omitempty"`
}

type ccNode struct {
	uuid     string
	parent   string
	n        int // entry number within the parse (1-based)
	line     int
	msg      bool
	side     bool
	boundary bool
	meta     json.RawMessage // compactMetadata of a boundary
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
	CompactMetadata json.RawMessage `json:"compactMetadata"`
	CostUSD         float64         `json:"costUSD"`
	Message         *struct {
		ID      string          `json:"id"`
		Role    string          `json:"role"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
		Usage   *struct {
			Input      int64 `json:"input_tokens"`
			Output     int64 `json:"output_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

type ccParser struct {
	wildScan
	agentFile bool
	resumed   bool
	prev      ccResumeState

	entries []sessiondb.Entry
	nodes   map[string]*ccNode
	byN     map[int]*ccNode // message entries by number
	msgNs   []int           // entry numbers of message lines (eligible for the path)
	keys    map[string]bool
	keyList []string
	usage   []sessiondb.Usage
	title   string
	sid     string
	agentID string
	attrs   map[string]any
	lastT   time.Time
	firstT  time.Time
	models  []string
	tails   map[int][]string // tool_use ids of an assistant entry
	results map[int][]string // tool_result ids of a user entry
	synth   map[int]bool
}

// Parse reads one Claude Code transcript (see the package notes above).
func (ClaudeCode) Parse(ctx context.Context, u Unit, from Resume) (parsed *Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse claude-code %s: internal error: %v", u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse claude-code %s: %w", u.Path, err)
	}
	p := &ccParser{
		wildScan:  wildScan{ctx: ctx, path: u.Path},
		agentFile: filepath.Base(filepath.Dir(u.Path)) == "subagents" && ccAgentFileRE.MatchString(filepath.Base(u.Path)),
		nodes:     map[string]*ccNode{},
		byN:       map[int]*ccNode{},
		keys:      map[string]bool{},
		attrs:     map[string]any{},
		tails:     map[int][]string{},
		results:   map[int][]string{},
		synth:     map[int]bool{},
	}
	if from.Offset > 0 {
		if len(from.State) == 0 || json.Unmarshal(from.State, &p.prev) != nil || p.prev.V != 1 || p.prev.ID == "" {
			return nil, fmt.Errorf("parse claude-code %s: %w", u.Path, ErrNotIncremental)
		}
		p.resumed = true
		p.lineBase = p.prev.Lines
		for _, k := range p.prev.Keys {
			p.keys[k] = true
		}
		p.keyList = append(p.keyList, p.prev.Keys...)
		p.title, p.lastT, p.firstT = p.prev.Title, p.prev.Last, p.prev.Created
		if len(p.prev.Attrs) > 0 {
			restoreAttrs(p.prev.Attrs, p.attrs)
		}
	}
	f, _, err := openAt(u.Path, from.Offset)
	if err != nil {
		return nil, fmt.Errorf("parse claude-code %s: %w", u.Path, err)
	}
	defer f.Close()
	if err := p.run(f, from.Offset, p.dispatch); err != nil {
		return nil, fmt.Errorf("parse claude-code %s: %w", u.Path, err)
	}
	if !p.resumed && len(p.entries) == 0 {
		return nil, fmt.Errorf("parse claude-code %s: %w: no readable line", u.Path, sessiondb.ErrInvalid)
	}
	p.toolFiles(u)
	return p.finish(u, from)
}

func (p *ccParser) dispatch(raw []byte, lineNo int) {
	var l ccLine
	if err := json.Unmarshal(raw, &l); err != nil {
		// Valid JSON of an unexpected shape (a field of another type): keep
		// it as data.
		p.problem(lineNo, "line has an unexpected shape (%v); kept as data", err)
		l = ccLine{}
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(raw, &head)
		l.Type = head.Type
		l.Message = nil
	}
	t := parseTime(l.Timestamp)
	if t.IsZero() {
		t = p.lastT
	} else {
		p.lastT = t
		if p.firstT.IsZero() || t.Before(p.firstT) {
			p.firstT = t
		}
	}
	n := len(p.entries) + 1
	e := sessiondb.Entry{Kind: entryKind(FormatClaudeCode, l.Type), CreatedAt: t, Body: raw}
	isMsg := (l.Type == "user" || l.Type == "assistant") && l.Message != nil
	if isMsg {
		e.Kind = sessiondb.KindMessage
		e.Role = l.Message.Role
		if e.Role == "" {
			e.Role = l.Type
		}
	} else if l.Type == "user" || l.Type == "assistant" {
		p.problem(lineNo, "%s line without a message object; kept as data", l.Type)
	}
	p.entries = append(p.entries, e)
	if p.sid == "" && l.SessionID != "" {
		p.sid = l.SessionID
	}
	if l.AgentID != "" && p.agentID == "" {
		p.agentID = l.AgentID
	}
	for k, v := range map[string]string{"cwd": l.CWD, "version": l.Version, "gitBranch": l.GitBranch, "entrypoint": l.Entrypoint} {
		if v != "" {
			p.attrs[k] = v
		}
	}
	if l.Type == "summary" {
		var s string
		if json.Unmarshal(l.Summary, &s) == nil && s != "" {
			p.title = s
		}
	}
	if l.UUID != "" {
		parent := ""
		if l.ParentUUID != nil {
			parent = *l.ParentUUID
		}
		node := &ccNode{uuid: l.UUID, parent: parent, n: n, line: lineNo, msg: isMsg, side: l.IsSidechain,
			boundary: l.Type == "system" && l.Subtype == "compact_boundary", meta: l.CompactMetadata}
		if old, dup := p.nodes[l.UUID]; dup {
			p.problem(lineNo, "uuid %s already used on line %d; the later line wins in the tree", l.UUID, old.line)
		}
		p.nodes[l.UUID] = node
		if isMsg {
			p.byN[n] = node
			p.msgNs = append(p.msgNs, n)
		}
	} else if isMsg {
		p.problem(lineNo, "%s line without uuid: kept in the log, not on the resume path", l.Type)
	}
	if isMsg {
		p.blocks(n, l.Message.Content)
	}
	if l.Type == "assistant" && l.Message != nil {
		m := l.Message
		if m.Model == "<synthetic>" {
			p.synth[n] = true
		} else if m.Model != "" {
			p.attrs["model"] = m.Model
		}
		if m.Usage != nil && m.Model != "<synthetic>" {
			key := ""
			if m.ID != "" {
				key = m.ID + "|" + l.RequestID
			}
			if key != "" && p.keys[key] {
				return
			}
			if key != "" {
				p.keys[key] = true
				p.keyList = append(p.keyList, key)
			}
			p.usage = append(p.usage, sessiondb.Usage{
				Seq: int64(n), Provider: "anthropic", Model: m.Model,
				InputTokens: m.Usage.Input, OutputTokens: m.Usage.Output,
				CacheReadTokens: m.Usage.CacheRead, CacheWriteTokens: m.Usage.CacheWrite,
				Cost: l.CostUSD, CreatedAt: t,
			})
		}
	}
}

// blocks records the tool_use and tool_result ids of a message's content.
func (p *ccParser) blocks(n int, content json.RawMessage) {
	var bs []struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		ToolUseID string `json:"tool_use_id"`
	}
	if json.Unmarshal(content, &bs) != nil {
		return
	}
	for _, b := range bs {
		switch b.Type {
		case "tool_use":
			p.tails[n] = append(p.tails[n], b.ID)
		case "tool_result":
			p.results[n] = append(p.results[n], b.ToolUseID)
		}
	}
}

// toolFiles appends the unit's tool-results files not imported before.
func (p *ccParser) toolFiles(u Unit) {
	done := map[string]bool{}
	for _, f := range p.prev.ToolFiles {
		done[f] = true
	}
	for _, x := range u.Extra {
		name := filepath.Base(x)
		if done[name] {
			continue
		}
		data, err := os.ReadFile(x)
		if err != nil {
			p.problem(0, "tool-results file %s: %v", name, err)
			continue
		}
		if len(data) > MaxLineSize {
			p.problem(0, "tool-results file %s is %d bytes (over %d); not imported", name, len(data), MaxLineSize)
			continue
		}
		body, _ := json.Marshal(map[string]string{"file": name, "content": string(zotValidUTF8(data))})
		p.entries = append(p.entries, sessiondb.Entry{Kind: ccKindToolFile, CreatedAt: p.lastT, Body: body})
		p.prev.ToolFiles = append(p.prev.ToolFiles, name)
	}
}

func (p *ccParser) finish(u Unit, from Resume) (*Parsed, error) {
	base := from.Entries
	out := &Parsed{Unit: u, Offset: p.offset}

	// The leaf: the newest message line eligible for the main path.
	leaf := ""
	for i := len(p.msgNs) - 1; i >= 0 && leaf == ""; i-- {
		node := p.byN[p.msgNs[i]]
		if !node.side || p.agentFile {
			leaf = node.uuid
		}
	}
	var path []*ccNode // leaf first
	var root *ccNode
	connected := false
	if leaf != "" {
		seen := map[string]bool{}
		for cur := leaf; cur != ""; {
			if seen[cur] {
				p.problem(root.line, "parentUuid cycle at %s; the resume path stops there", cur)
				break
			}
			seen[cur] = true
			node, ok := p.nodes[cur]
			if !ok {
				if p.resumed && cur == p.prev.Leaf {
					connected = true
				} else if !p.resumed {
					p.problem(root.line, "parentUuid %s was never written; the resume path starts at this line (as Claude Code resumes), earlier lines stay in the log", cur)
				}
				break
			}
			if node.msg {
				path = append(path, node)
			}
			root = node
			cur = node.parent
		}
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	if p.resumed && leaf != "" && !connected && (root == nil || !root.boundary) {
		return nil, fmt.Errorf("parse claude-code %s: %w: the new lines do not continue the previous leaf", p.path, ErrNotIncremental)
	}
	if p.resumed && leaf == "" && len(p.msgNs) > 0 {
		return nil, fmt.Errorf("parse claude-code %s: %w: new side-chain messages only", p.path, ErrNotIncremental)
	}
	if p.resumed && leaf != "" && p.prev.View {
		return nil, fmt.Errorf("parse claude-code %s: %w: the previous import used a tree view", p.path, ErrNotIncremental)
	}

	// Is the path a suffix of the message entries?
	onPath := map[int]bool{}
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
	suffix, before := true, false
	for _, n := range p.msgNs {
		if n >= start && !onPath[n] {
			suffix = false
		}
		if n < start {
			before = true
			// On a resume the earlier entries stay in the transcript
			// unless a new boundary cuts them off.
			if p.resumed && !onPath[n] && (root == nil || !root.boundary) {
				suffix = false
			}
		}
	}
	view := p.prev.View
	if leaf != "" {
		view = false
	}
	switch {
	case leaf == "":
	case suffix && root != nil && root.boundary:
		c := sessiondb.Compaction{KeepFromSeq: int64(base + start), CreatedAt: p.entries[root.n-1].CreatedAt}
		var meta struct {
			Trigger   string `json:"trigger"`
			PreTokens int64  `json:"preTokens"`
		}
		_ = json.Unmarshal(root.meta, &meta)
		c.TokensBefore = meta.PreTokens
		c.Details = mustJSON(map[string]any{"source": "claude-code compact_boundary", "trigger": meta.Trigger, "line": root.line})
		out.Compactions = append(out.Compactions, c)
	case suffix && p.resumed:
	case suffix && before:
		out.Compactions = append(out.Compactions, sessiondb.Compaction{
			KeepFromSeq: int64(base + start),
			Details:     mustJSON(map[string]any{"source": "claude-code resume path", "reason": "earlier lines are not on the path from the newest message"}),
		})
	case !suffix && p.resumed:
		return nil, fmt.Errorf("parse claude-code %s: %w: the new lines branch", p.path, ErrNotIncremental)
	case !suffix:
		view = true
		sum := make([]sessiondb.Entry, 0, len(path))
		for _, n := range path {
			e := p.entries[n.n-1]
			e.Summary = true
			sum = append(sum, e)
		}
		c := sessiondb.Compaction{
			KeepFromSeq: int64(base + len(p.entries) + 1),
			Summary:     sum,
			Details:     mustJSON(map[string]any{"source": "claude-code resume path", "reason": "the path from the newest message is not a suffix of the log (branches or side chains); its entries are copied here", "leaf": leaf}),
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
	i := len(path) - 1
	for ; i >= 0 && p.synth[path[i].n]; i-- {
		p.problem(path[i].line, "the path ends with a <synthetic> assistant stop (it can block resume in Claude Code); kept")
	}
	if i >= 0 {
		if ids := p.tails[path[i].n]; len(ids) > 0 {
			p.problem(path[i].line, "tool call(s) %s at the end of the path have no result; kept", strings.Join(ids, ", "))
		}
	}

	// Backfill times of lines before the first timestamp.
	for i := range p.entries {
		if p.entries[i].CreatedAt.IsZero() {
			p.entries[i].CreatedAt = p.firstT
		}
	}
	for _, us := range p.usage {
		us.Seq += int64(base)
		out.Usage = append(out.Usage, us)
	}
	out.Notes = append(out.Notes, priceRows(u.Path, out.Usage)...)
	out.Entries = p.entries

	// Session metadata.
	id := p.prev.ID
	parent := p.prev.Parent
	if id == "" {
		stem := strings.TrimSuffix(filepath.Base(p.path), ".jsonl")
		id = stem
		if p.sid != "" && !p.agentFile && p.sid != stem {
			p.problem(0, "sessionId %s differs from the file name; the file name is the session ID (Claude Code resumes by file name)", p.sid)
		}
		if p.agentFile || (p.agentID != "" && p.sid != "" && p.sid != stem) {
			agent := p.agentID
			if agent == "" {
				agent = strings.TrimPrefix(stem, "agent-")
			}
			owner := p.sid
			if owner == "" {
				owner = filepath.Base(filepath.Dir(filepath.Dir(p.path)))
			}
			id, parent = owner+":agent-"+agent, owner
			p.attrs["agentId"] = agent
		}
	}
	attrs := mergeAttrs(p.attrs)
	s := sessiondb.Session{ID: id, Title: p.title, Attrs: attrs, ParentID: parent, CreatedAt: p.firstT, UpdatedAt: p.lastT}
	if p.resumed && !p.prev.Created.IsZero() {
		s.CreatedAt = p.prev.Created
	}
	out.Session = s
	out.Problems = p.problems

	newLeaf := p.prev.Leaf
	if leaf != "" {
		newLeaf = leaf
	}
	keys := p.keyList
	rs := ccResumeState{V: 1, ID: id, Lines: p.lines, Leaf: newLeaf, View: view, Keys: keys, Title: p.title,
		Attrs: attrs, Parent: parent, Created: s.CreatedAt, Last: p.lastT, ToolFiles: p.prev.ToolFiles}
	out.ResumeState = mustJSON(rs)
	return out, nil
}

// Export is not supported for Claude Code: its loader cannot be run here to
// check what it would resume from a written file.
func (ClaudeCode) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return nil, fmt.Errorf("export claude-code: %w: writing Claude Code transcripts is not supported", sessiondb.ErrInvalid)
}
