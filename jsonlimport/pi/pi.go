package pi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the pi session format.
const Name = "pi"

// Format reads and writes pi session files.
type Format struct{}

var _ jsonl.Format = Format{}

// Name returns Name.
func (Format) Name() string { return Name }

var piUUIDRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// Claim takes .jsonl files whose first line is a pi session header.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	for _, f := range files {
		if strings.HasSuffix(f, ".jsonl") && sniffPi(f) {
			units = append(units, jsonl.Unit{Format: Name, Path: f})
			continue
		}
		rest = append(rest, f)
	}
	return units, rest
}

// Reclaim implements jsonl.Reclaimer: a pi session's claim rests on its
// header line alone.
func (Format) Reclaim(path string) (jsonl.Unit, bool) {
	if !strings.HasSuffix(path, ".jsonl") {
		return jsonl.Unit{}, false
	}
	return jsonl.Unit{Format: Name, Path: path}, true
}

func sniffPi(path string) bool {
	objs := jsonl.FirstObjects(path, 1)
	if len(objs) == 0 {
		return false
	}
	m := objs[0]
	_, cwd := m["cwd"]
	return jsonl.RawString(m, "type") == "session" && jsonl.RawString(m, "id") != "" && cwd
}

// piResumeState is Parsed.ResumeState for pi files.
type piResumeState struct {
	V       int               `json:"v"`
	ID      string            `json:"id"`
	Lines   int               `json:"lines"`
	Leaf    string            `json:"leaf,omitempty"`
	View    bool              `json:"view,omitempty"`
	Title   string            `json:"title,omitempty"`
	Attrs   json.RawMessage   `json:"attrs,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Parent  string            `json:"parent,omitempty"`
	ForkSeq int64             `json:"fork_seq,omitempty"`
	Created time.Time         `json:"created"`
	Last    time.Time         `json:"last"`
	// V1 is set for a version 1 (linear, id-less) file, whose entries get
	// the ids pi's migration would give their positions.
	V1 bool `json:"v1,omitempty"`
	// Prompt is the title made of the first real user prompt, the title
	// of a session without session_info.
	Prompt string `json:"prompt,omitempty"`
}

type piNode struct {
	id, parent string
	typ        string
	n          int // entry number within this parse
	line       int
	msg        bool
	firstKept  string
	provider   string
	model      string
	thinking   string
}

type piParser struct {
	jsonl.WildScan
	notes       []jsonl.Problem
	metaOfForks bool // a label or session_info entry was read
	resumed     bool
	rs          piResumeState
	attrs       map[string]any
	header      bool
	entries     []sessiondb.Entry
	nodes       map[string]*piNode
	order       []*piNode // entries with an id, file order
	msgNs       []int
	usage       []sessiondb.Usage
	parent      string // parentSession path
	base        int    // entries before this parse
}

// Parse reads one pi session file (see the package doc).
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse pi %s: internal error: %v", u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse pi %s: %w", u.Path, err)
	}
	p := &piParser{WildScan: jsonl.WildScan{Ctx: ctx, Path: u.Path}, attrs: map[string]any{}, nodes: map[string]*piNode{}, base: from.Entries}
	if from.Offset > 0 {
		if len(from.State) == 0 || json.Unmarshal(from.State, &p.rs) != nil || p.rs.V != 1 || p.rs.ID == "" {
			return nil, fmt.Errorf("parse pi %s: %w", u.Path, jsonl.ErrNotIncremental)
		}
		p.resumed, p.header = true, true
		p.LineBase = p.rs.Lines
		if len(p.rs.Attrs) > 0 {
			jsonl.RestoreAttrs(p.rs.Attrs, p.attrs)
		}
	}
	if p.rs.Labels == nil {
		p.rs.Labels = map[string]string{}
	}
	f, _, err := jsonl.OpenAt(u.Path, from.Offset)
	if err != nil {
		return nil, fmt.Errorf("parse pi %s: %w", u.Path, err)
	}
	defer f.Close()
	if err := p.Run(f, from.Offset, p.dispatch); err != nil {
		return nil, fmt.Errorf("parse pi %s: %w", u.Path, err)
	}
	if !p.header {
		return nil, fmt.Errorf("parse pi %s: %w: no session header", u.Path, sessiondb.ErrInvalid)
	}
	return p.finish(u, from)
}

type piLine struct {
	Type          string          `json:"type"`
	ID            json.RawMessage `json:"id"`
	ParentID      *string         `json:"parentId"`
	Timestamp     string          `json:"timestamp"`
	Version       json.RawMessage `json:"version"`
	CWD           string          `json:"cwd"`
	ParentSession string          `json:"parentSession"`
	FirstKept     string          `json:"firstKeptEntryId"`
	FirstKeptIdx  *float64        `json:"firstKeptEntryIndex"`
	Provider      string          `json:"provider"`
	ModelID       string          `json:"modelId"`
	ThinkingLevel string          `json:"thinkingLevel"`
	TargetID      string          `json:"targetId"`
	Label         *string         `json:"label"`
	Name          *string         `json:"name"`
	Summary       json.RawMessage `json:"summary"`
	Message       *struct {
		Role      string  `json:"role"`
		Provider  string  `json:"provider"`
		Model     string  `json:"model"`
		Timestamp float64 `json:"timestamp"`
		Usage     *struct {
			Input      int64 `json:"input"`
			Output     int64 `json:"output"`
			CacheRead  int64 `json:"cacheRead"`
			CacheWrite int64 `json:"cacheWrite"`
			Cost       *struct {
				Total float64 `json:"total"`
			} `json:"cost"`
		} `json:"usage"`
	} `json:"message"`
}

func (p *piParser) dispatch(raw []byte, lineNo int) {
	var l piLine
	if err := json.Unmarshal(raw, &l); err != nil {
		p.Problem(lineNo, "line has an unexpected shape (%v); kept as data", err)
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(raw, &head)
		l = piLine{Type: head.Type}
	}
	t := jsonl.ParseTime(l.Timestamp)
	if t.IsZero() {
		t = p.rs.Last
	} else {
		p.rs.Last = t
		if p.rs.Created.IsZero() {
			p.rs.Created = t
		}
	}
	n := len(p.entries) + 1
	e := sessiondb.Entry{Kind: jsonl.EntryKind(Name, l.Type), CreatedAt: t, Body: raw}
	var id string
	_ = json.Unmarshal(l.ID, &id)
	if l.Type == "session" {
		e.Kind = "session"
		if p.header {
			// pi's SessionManager writes its header a second time when
			// it opens an empty file (testdata/gen/pi: double-header);
			// pi loads the file all the same, the header being no entry.
			p.notes = append(p.notes, jsonl.Problem{Path: p.Path, Line: lineNo, Reason: "a second session header (pi writes one when it opens an empty file); kept as data, as pi loads it"})
		} else {
			p.header = true
			p.rs.ID = id
			p.attrs["cwd"] = l.CWD
			p.attrs["version"] = l.Version
			p.attrs["parentSession"] = l.ParentSession
			p.parent = l.ParentSession
			p.rs.Created = t
			var v float64
			if json.Unmarshal(l.Version, &v) != nil || v < 2 {
				// pi treats a header without a version as version 1.
				p.rs.V1 = true
			}
		}
		p.entries = append(p.entries, e)
		return
	}
	if !p.header {
		p.Problem(lineNo, "entry before the session header; pi refuses such a file")
	}
	node := &piNode{id: id, typ: l.Type, n: n, line: lineNo, firstKept: l.FirstKept}
	if l.ParentID != nil {
		node.parent = *l.ParentID
	}
	if p.rs.V1 {
		// pi's migrateV1ToV2: entries are chained in file order (position
		// k of the parsed entries, the header being 0), and a compaction's
		// firstKeptEntryIndex names a position.
		k := p.base + n - 1
		id = piV1ID(k)
		node.id, node.parent = id, ""
		if k > 1 {
			node.parent = piV1ID(k - 1)
		}
		if l.FirstKeptIdx != nil && *l.FirstKeptIdx >= 1 && *l.FirstKeptIdx == float64(int(*l.FirstKeptIdx)) {
			node.firstKept = piV1ID(int(*l.FirstKeptIdx))
		}
	}
	switch l.Type {
	case "message":
		if l.Message != nil {
			e.Kind, e.Role, node.msg = sessiondb.KindMessage, l.Message.Role, true
			if e.Role == "hookMessage" {
				e.Role = "custom" // renamed in session version 3
			}
			if l.Message.Role == "assistant" {
				node.provider, node.model = l.Message.Provider, l.Message.Model
				if us := l.Message.Usage; us != nil {
					// The call's time is the message's own timestamp (ms);
					// the entry's is when pi wrote the line.
					at := t
					if ms := l.Message.Timestamp; ms > 0 && ms < 253402300799000 {
						at = time.UnixMilli(int64(ms)).UTC()
					}
					row := sessiondb.Usage{Seq: int64(n), Provider: l.Message.Provider, Model: l.Message.Model,
						InputTokens: us.Input, OutputTokens: us.Output, CacheReadTokens: us.CacheRead,
						CacheWriteTokens: us.CacheWrite, CreatedAt: at}
					if us.Cost != nil {
						row.Cost = us.Cost.Total
					}
					p.usage = append(p.usage, row)
				}
			}
		} else {
			p.Problem(lineNo, "message entry without a message object; kept as data")
		}
	case "custom_message":
		e.Kind, e.Role, node.msg = sessiondb.KindMessage, "custom", true
	case "branch_summary":
		// pi adds a branch summary to the context only when its summary is
		// truthy.
		var sum any
		_ = json.Unmarshal(l.Summary, &sum)
		if truthy(sum) {
			e.Kind, e.Role, node.msg = sessiondb.KindMessage, "branchSummary", true
		}
	case "model_change":
		node.provider, node.model = l.Provider, l.ModelID
	case "thinking_level_change":
		node.thinking = l.ThinkingLevel
	case "label":
		p.metaOfForks = true
		if l.Label != nil && *l.Label != "" {
			p.rs.Labels[l.TargetID] = *l.Label
		} else {
			delete(p.rs.Labels, l.TargetID)
		}
	case "session_info":
		p.metaOfForks = true
		if l.Name != nil {
			p.rs.Title = strings.TrimSpace(*l.Name)
		}
	}
	if p.rs.Prompt == "" && e.Role == "user" {
		p.rs.Prompt = jsonl.PromptTitle(Format{}, []sessiondb.Entry{e})
	}
	p.entries = append(p.entries, e)
	if node.msg {
		p.msgNs = append(p.msgNs, n)
	}
	if id == "" {
		p.Problem(lineNo, "entry without id; kept in the log, not in the tree")
		return
	}
	if old, dup := p.nodes[id]; dup {
		p.Problem(lineNo, "entry id %s already used on line %d; the later entry wins in the tree, as in pi", id, old.line)
	}
	p.nodes[id] = node
	p.order = append(p.order, node)
}

func (p *piParser) finish(u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	base := from.Entries
	out := &jsonl.Parsed{Unit: u, Offset: p.Offset}
	var leaf *piNode
	if len(p.order) > 0 {
		leaf = p.order[len(p.order)-1]
	}
	var path []*piNode
	connected := false
	if leaf != nil {
		seen := map[string]bool{}
		for cur := leaf.id; cur != ""; {
			if seen[cur] {
				p.Problem(0, "parentId cycle at %s; the path stops there", cur)
				break
			}
			seen[cur] = true
			node, ok := p.nodes[cur]
			if !ok {
				if p.resumed && cur == p.rs.Leaf {
					connected = true
				} else if !p.resumed {
					// Nothing is lost (every line is in the log) and the
					// path is pi's: a note, not a problem.
					p.notes = append(p.notes, jsonl.Problem{Path: p.Path, Reason: fmt.Sprintf("parentId %s is in no line of this file; the path starts after it, as in pi, and every line is in the log", cur)})
				}
				break
			}
			path = append(path, node)
			cur = node.parent
		}
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	if p.resumed && p.metaOfForks {
		if _, forks := p.attrs["branches"]; forks {
			// A title or a label: the branch forks show them too.
			return nil, fmt.Errorf("parse pi %s: %w: a title or label for the branch forks", p.Path, jsonl.ErrNotIncremental)
		}
	}
	if p.resumed && leaf != nil {
		if !connected || p.rs.View {
			return nil, fmt.Errorf("parse pi %s: %w: the new entries do not continue the previous leaf", p.Path, jsonl.ErrNotIncremental)
		}
		if len(path) != len(p.order) {
			// A new entry off the new path (a compaction or a model
			// change pi went back before with /tree, say) is a branch
			// tip, or leads to one: its fork is made from the whole file.
			return nil, fmt.Errorf("parse pi %s: %w: a new entry off the path is a branch", p.Path, jsonl.ErrNotIncremental)
		}
		for _, n := range path {
			if n.typ == "compaction" {
				return nil, fmt.Errorf("parse pi %s: %w: a new compaction", p.Path, jsonl.ErrNotIncremental)
			}
		}
	}

	// Settings in force at the leaf, and the context entries in order.
	piSettings(path, p.attrs)
	comp, ctxNodes := piContext(path)
	inCtx := map[int]bool{}
	for _, n := range ctxNodes {
		inCtx[n.n] = true
	}
	start := len(p.entries) + 1
	if len(ctxNodes) > 0 {
		start = ctxNodes[0].n
	} else if comp != nil {
		start = comp.n + 1
	}
	suffix, before := true, false
	for _, n := range p.msgNs {
		if n >= start && !inCtx[n] {
			suffix = false
		}
		if n < start {
			before = true
			if p.resumed && !inCtx[n] {
				suffix = false // it would stay in the transcript
			}
		}
	}
	// Context entries must be in file order for a suffix.
	for i := 1; i < len(ctxNodes); i++ {
		if ctxNodes[i].n < ctxNodes[i-1].n {
			suffix = false
		}
	}
	view := p.rs.View && leaf == nil
	var sum []sessiondb.Entry
	if comp != nil {
		sum = append(sum, p.summaryEntry(comp))
	}
	switch {
	case leaf == nil || (p.resumed && suffix):
	case suffix && comp != nil:
		out.Compactions = append(out.Compactions, p.compaction(comp, leaf.id, int64(base+start)))
	case suffix && before:
		out.Compactions = append(out.Compactions, sessiondb.Compaction{KeepFromSeq: int64(base + start),
			Details: jsonl.MustJSON(map[string]any{"source": "pi context", "leaf": leaf.id})})
	case suffix:
	case p.resumed:
		return nil, fmt.Errorf("parse pi %s: %w: the new entries branch", p.Path, jsonl.ErrNotIncremental)
	default:
		view = true
		for _, n := range ctxNodes {
			e := p.entries[n.n-1]
			e.Summary = true
			sum = append(sum, e)
		}
		c := sessiondb.Compaction{KeepFromSeq: int64(base + len(p.entries) + 1), Summary: sum,
			Details: jsonl.MustJSON(map[string]any{"source": "pi context", "reason": "the context is not a suffix of the log (branches); its entries are copied here", "leaf": leaf.id})}
		if comp != nil {
			c.TokensBefore = piTokensBefore(p.entries[comp.n-1].Body)
		}
		out.Compactions = append(out.Compactions, c)
	}

	// jsonl.Branch tips other than the leaf.
	var tips []*piNode
	froms := map[*piNode]string{}
	if !p.resumed {
		hasChild := map[string]bool{}
		for _, n := range p.order {
			hasChild[n.parent] = true
		}
		onPath := map[string]bool{}
		for _, n := range path {
			onPath[n.id] = true
		}
		var branches []map[string]string
		for _, n := range p.order {
			if hasChild[n.id] || onPath[n.id] || p.nodes[n.id] != n {
				continue
			}
			tips = append(tips, n)
			if len(branches) < maxBranches {
				branches = append(branches, map[string]string{"tip": n.id, "from": p.branchFrom(n, onPath, froms)})
			}
		}
		if len(branches) > 0 {
			p.attrs["branches"] = branches
		}
		out.Continued = p.continued(from.State, hasChild)
		if len(tips) > maxBranches {
			p.attrs["branchCount"] = len(tips)
		}
	} else if _, ok := p.attrs["branches"]; !ok {
		delete(p.attrs, "branches")
	}
	if len(p.rs.Labels) > 0 {
		p.attrs["labels"] = p.rs.Labels
	} else {
		delete(p.attrs, "labels")
	}

	for i := range p.entries {
		if p.entries[i].CreatedAt.IsZero() {
			p.entries[i].CreatedAt = p.rs.Created
		}
	}
	out.Entries = p.entries
	budget := maxForkCopies
	for i, tip := range tips {
		var b jsonl.Branch
		ok := i < maxBranches
		if ok {
			b, ok = p.branch(tip, froms, &budget)
		}
		if !ok {
			out.Notes = append(out.Notes, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf(
				"%d of %d branch tips made fork sessions (at most %d forks and %d copied entries per file); every line is in the session's log",
				i, len(tips), maxBranches, maxForkCopies)})
			break
		}
		out.Branches = append(out.Branches, b)
	}
	var shared map[string]bool
	if !p.resumed && p.parent != "" {
		if m := piUUIDRE.FindAllString(filepath.Base(p.parent), -1); len(m) > 0 {
			p.rs.Parent = m[len(m)-1]
		}
		src := piSourceFile(p.parent, p.rs.Parent, u.Path)
		if id := piSessionID(src); id != "" && id != p.rs.ID {
			// The file name need not carry the session's id (pi --session
			// notes.jsonl; a /fork pi had not written yet when it opened
			// its path again starts a new session there): the source's
			// header says whose it is.
			p.rs.Parent = id
		}
		p.rs.ForkSeq, shared = piForkSeq(src, p.nodes)
	} else if p.resumed && p.rs.Parent != "" && len(p.nodes) > 0 {
		// The new entries of a /fork file may still be copies of the
		// source's (a prefix was imported before): their calls are the
		// source's, and the last of them is the fork's ForkSeq.
		src, _ := p.attrs["parentSession"].(string)
		var seq int64
		seq, shared = piForkSeq(piSourceFile(src, p.rs.Parent, u.Path), p.nodes)
		p.rs.ForkSeq = max(p.rs.ForkSeq, seq)
	}
	idOf := map[int]string{}
	for _, n := range p.order {
		idOf[n.n] = n.id
	}
	for _, us := range p.usage {
		if shared[idOf[int(us.Seq)]] {
			continue // a call of the source session, copied by /fork
		}
		us.Seq += int64(base)
		out.Usage = append(out.Usage, us)
	}
	attrs := jsonl.MergeAttrs(p.attrs)
	p.rs.Attrs, p.rs.Lines, p.rs.View = attrs, p.Lines, view
	if leaf != nil {
		p.rs.Leaf = leaf.id
	}
	if p.rs.ID == "" {
		p.rs.ID = strings.TrimSuffix(filepath.Base(u.Path), ".jsonl")
		p.Problem(0, "session header without id; the session ID %q is taken from the file name", p.rs.ID)
	}
	s := sessiondb.Session{ID: p.rs.ID, Title: jsonl.OrString(p.rs.Title, p.rs.Prompt), Attrs: attrs, ParentID: p.rs.Parent, ForkSeq: p.rs.ForkSeq,
		CreatedAt: p.rs.Created, UpdatedAt: p.rs.Last}
	if s.UpdatedAt.Before(s.CreatedAt) {
		s.UpdatedAt = s.CreatedAt
	}
	out.Session = s
	for i := range out.Branches {
		b := &out.Branches[i].Session
		b.Title, b.CreatedAt = s.Title, s.CreatedAt
		if b.UpdatedAt.Before(b.CreatedAt) {
			b.UpdatedAt = b.CreatedAt
		}
	}
	out.Problems = p.Problems
	out.Notes = append(out.Notes, p.notes...)
	p.rs.V = 1
	out.ResumeState = jsonl.MustJSON(p.rs)
	return out, nil
}

// piSettings records in attrs the model and thinking level in force at the
// end of path.
func piSettings(path []*piNode, attrs map[string]any) {
	for _, n := range path {
		switch {
		case n.typ == "thinking_level_change":
			attrs["thinkingLevel"] = n.thinking
		case n.provider != "" || n.model != "":
			attrs["model"] = map[string]string{"provider": n.provider, "modelId": n.model}
		}
	}
}

// piContext returns the latest compaction on path (nil: none) and the
// entries pi's buildSessionContext puts in the context, in order: with a
// compaction, the message entries from its firstKeptEntryId up to it, then
// those after it; without, every message entry of the path.
func piContext(path []*piNode) (comp *piNode, ctxNodes []*piNode) {
	compIdx := -1
	for i, n := range path {
		if n.typ == "compaction" {
			comp, compIdx = n, i
		}
	}
	if comp == nil {
		for _, n := range path {
			if n.msg {
				ctxNodes = append(ctxNodes, n)
			}
		}
		return nil, ctxNodes
	}
	kept := false
	for _, n := range path[:compIdx] {
		if n.id == comp.firstKept {
			kept = true
		}
		if kept && n.msg {
			ctxNodes = append(ctxNodes, n)
		}
	}
	for _, n := range path[compIdx+1:] {
		if n.msg {
			ctxNodes = append(ctxNodes, n)
		}
	}
	return comp, ctxNodes
}

// A hostile file can hold many tips on long paths, and each fork copies
// its path: the forks of one file are bounded, and the tips beyond the
// bounds are named in a Note (their lines are in the session's log).
const (
	maxBranches   = 1000    // forks, and tips listed in Attrs.branches
	maxForkCopies = 200_000 // entries copied into the forks
)

// branchPath returns the path from the root to tip through parentId,
// stopping at a parent never written or at a cycle; false when it is
// longer than budget.
func (p *piParser) branchPath(tip *piNode, budget int) ([]*piNode, bool) {
	var path []*piNode
	seen := map[string]bool{}
	for cur := tip; cur != nil && !seen[cur.id]; cur = p.nodes[cur.parent] {
		if len(path) >= budget {
			return nil, false
		}
		seen[cur.id] = true
		path = append(path, cur)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, true
}

// continued returns the branch tips of the import whose reader state is
// state (the forks it made, attrs.branches) that now have a child: pi
// went back to them with /tree and went on, so they are tips no more.
func (p *piParser) continued(state json.RawMessage, hasChild map[string]bool) []jsonl.Continued {
	var prev piResumeState
	var attrs struct {
		Branches []struct {
			Tip string `json:"tip"`
		} `json:"branches"`
	}
	if len(state) == 0 || json.Unmarshal(state, &prev) != nil || json.Unmarshal(prev.Attrs, &attrs) != nil {
		return nil
	}
	var out []jsonl.Continued
	for _, b := range attrs.Branches {
		n, ok := p.nodes[b.Tip]
		if !ok || !hasChild[b.Tip] {
			continue
		}
		path, _ := p.branchPath(n, len(p.entries)+1)
		c := jsonl.Continued{Tip: b.Tip, Entries: int64(len(path))}
		if len(p.entries) > 0 && p.entries[0].Kind == "session" {
			c.Entries++
		}
		out = append(out, c)
	}
	return out
}

// branchFrom returns the id of the last entry the branch ending at tip
// shares with the resumed path ("" when none). froms remembers the answer
// for every entry walked, so that the tips of one file cost one walk of
// the tree in all.
func (p *piParser) branchFrom(tip *piNode, onPath map[string]bool, froms map[*piNode]string) string {
	var walked []*piNode
	seen := map[*piNode]bool{}
	from := ""
	for cur := tip; cur != nil && !seen[cur]; cur = p.nodes[cur.parent] {
		if f, ok := froms[cur]; ok {
			from = f
			break
		}
		seen[cur] = true
		walked = append(walked, cur)
		if onPath[cur.parent] {
			from = cur.parent
			break
		}
	}
	for _, n := range walked {
		froms[n] = from
	}
	return from
}

// branch builds the fork of the branch ending at tip: its log is the
// header and the entries on the path from the root to tip (the bytes of
// the file's lines), and its transcript is what pi resumes once /tree has
// moved the leaf to tip.
//
// budget is the number of entries the forks may still copy; false when
// this one would exceed it.
func (p *piParser) branch(tip *piNode, froms map[*piNode]string, budget *int) (jsonl.Branch, bool) {
	path, ok := p.branchPath(tip, *budget-1)
	if !ok {
		return jsonl.Branch{}, false
	}
	*budget -= len(path) + 1
	b := jsonl.Branch{Tip: tip.id}
	if len(p.entries) > 0 && p.entries[0].Kind == "session" {
		b.Entries = append(b.Entries, p.entries[0])
	}
	num := map[*piNode]int64{}
	for _, n := range path {
		b.Entries = append(b.Entries, p.entries[n.n-1])
		num[n] = int64(len(b.Entries))
	}
	from := froms[tip]
	if n, ok := p.nodes[from]; ok && from != "" {
		b.FromEntry = int64(n.n)
	}
	attrs := map[string]any{"cwd": p.attrs["cwd"], "version": p.attrs["version"],
		"branch": map[string]string{"tip": tip.id, "from": from}}
	piSettings(path, attrs)
	labels := map[string]string{}
	for _, n := range path {
		if l, ok := p.rs.Labels[n.id]; ok {
			labels[n.id] = l
		}
	}
	if len(labels) > 0 {
		attrs["labels"] = labels
	}
	b.Session.Attrs = jsonl.MergeAttrs(attrs)
	b.Session.UpdatedAt = p.entries[tip.n-1].CreatedAt
	// The context is a suffix of the fork's message entries: the path holds
	// no other branch, and a firstKeptEntryId off the path keeps nothing
	// before the compaction.
	comp, ctxNodes := piContext(path)
	if comp != nil {
		start := num[comp] + 1
		if len(ctxNodes) > 0 {
			start = num[ctxNodes[0]]
		}
		b.Compactions = append(b.Compactions, p.compaction(comp, tip.id, start))
	}
	return b, true
}

// summaryEntry is pi's compaction entry comp as the one summary message of
// a sessiondb compaction (pi renders it as {"role":"compactionSummary"}).
func (p *piParser) summaryEntry(comp *piNode) sessiondb.Entry {
	e := p.entries[comp.n-1]
	e.Kind, e.Role, e.Summary = sessiondb.KindMessage, "compactionSummary", true
	return e
}

// compaction is pi's compaction comp, on the path to leaf, as a sessiondb
// compaction keeping the log from keep on.
func (p *piParser) compaction(comp *piNode, leaf string, keep int64) sessiondb.Compaction {
	e := p.summaryEntry(comp)
	return sessiondb.Compaction{KeepFromSeq: keep, Summary: []sessiondb.Entry{e},
		TokensBefore: piTokensBefore(e.Body), CreatedAt: e.CreatedAt,
		Details: jsonl.MustJSON(map[string]any{"source": "pi compaction", "line": comp.line, "firstKeptEntryId": comp.firstKept, "leaf": leaf})}
}

func piTokensBefore(body []byte) int64 {
	var c struct {
		TokensBefore int64 `json:"tokensBefore"`
	}
	_ = json.Unmarshal(body, &c)
	return c.TokensBefore
}

func piV1ID(k int) string { return fmt.Sprintf("v1:%d", k) }

// truthy reports whether v is truthy in JavaScript.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}

// piSourceFile finds the source file of a fork: parentSession as written,
// else a file of that name beside the fork, else a .jsonl beside the fork
// whose header id is parentID (archives are moved between machines).
func piSourceFile(parentSession, parentID, fork string) string {
	if fi, err := os.Stat(parentSession); err == nil && fi.Mode().IsRegular() {
		return parentSession
	}
	dir := filepath.Dir(fork)
	if p := filepath.Join(dir, filepath.Base(parentSession)); p != fork {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	if parentID == "" {
		return ""
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for i, e := range ents {
		if i >= 10000 {
			break
		}
		p := filepath.Join(dir, e.Name())
		if p == fork || !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if objs := jsonl.FirstObjects(p, 1); len(objs) == 1 && jsonl.RawString(objs[0], "type") == "session" && jsonl.RawString(objs[0], "id") == parentID {
			return p
		}
	}
	return ""
}

// piSessionID returns the id in the session header of the pi file at path
// ("" when path is "" or its first line is no session header).
func piSessionID(path string) string {
	if path == "" {
		return ""
	}
	objs := jsonl.FirstObjects(path, 1)
	if len(objs) != 1 || jsonl.RawString(objs[0], "type") != "session" {
		return ""
	}
	return jsonl.RawString(objs[0], "id")
}

// piForkSeq returns the entry number, in the source file of a fork, of the
// last entry (in that file's order) whose id the fork also holds, and the
// ids the fork shares with its source; 0 and nil when the source cannot be
// read.
func piForkSeq(source string, nodes map[string]*piNode) (int64, map[string]bool) {
	if source == "" {
		return 0, nil
	}
	f, err := jsonl.Open(source)
	if err != nil {
		return 0, nil
	}
	defer f.Close()
	shared := map[string]bool{}
	var n, last int64
	_ = jsonl.ScanLines(f, 0, func(line []byte, _ int, _, _ int64, _ bool) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		var e struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(bytes.TrimSpace(line), &e) != nil {
			return nil
		}
		n++
		if _, ok := nodes[e.ID]; ok && e.ID != "" {
			last = n
			shared[e.ID] = true
		}
		return nil
	})
	return last, shared
}

// ---- Export ----

// Export writes session id as a pi session file under dir, at
// --<cwd>--/<created>_<id>.jsonl (see the package doc).
func (f Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, f, s, id, dir)
}

// ExportFiles implements jsonl.Exporter.
func (Format) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("export pi %s: %w", id, err)
	}
	var attrs struct {
		CWD string `json:"cwd"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &attrs)
	}
	var buf bytes.Buffer
	if sess.SourceFormat == Name {
		// The log of the file's latest import: a file rewritten in place
		// was imported again after a "source file rewritten" compaction.
		log, err := jsonl.ImportedLog(ctx, s, id)
		if err != nil {
			return nil, fmt.Errorf("export pi %s: %w", id, err)
		}
		for _, e := range log {
			if err := jsonl.WriteLine(&buf, e.Body); err != nil {
				return nil, fmt.Errorf("export pi %s: entry %d: %w", id, e.Seq, err)
			}
		}
	} else {
		// Another format's session: translated (jsonlimport's
		// translate_pi.go, through jsonl.WriteForeign).
		body, err := jsonl.WriteForeign(ctx, s, sess, Name)
		if err != nil {
			return nil, err
		}
		buf.Write(body)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export pi %s: %w", id, err)
	}
	safe := "--" + strings.NewReplacer("/", "-", "\\", "-", ":", "-").Replace(strings.TrimLeft(attrs.CWD, "/\\")) + "--"
	// pi names a file <timestamp>_<session id>.jsonl; the whole ID keeps a
	// branch fork ("<id>@<tip>") and a disambiguated copy apart from the
	// session whose header they share.
	name := strings.NewReplacer(":", "-", ".", "-").Replace(Timestamp(sess.CreatedAt)) + "_" + jsonl.FileName(sess.ID) + ".jsonl"
	return []jsonl.File{jsonl.BytesFile(safe+"/"+name, buf.Bytes())}, nil
}

// Timestamp is how pi writes time t: UTC, in milliseconds, with a Z.
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
