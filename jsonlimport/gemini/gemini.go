package gemini

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/geminichat"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the Gemini CLI chat format.
const Name = "gemini-cli"

// assistant is the type of the model's records.
const assistant = "gemini"

// Format reads Gemini CLI chat files and writes them back (export.go).
type Format struct{}

var _ jsonl.Format = Format{}

// Name returns Name.
func (Format) Name() string { return Name }

// Entry kinds of the lines that are not messages.
const (
	// KindSession is a header line (and a whole-JSON chat's top-level
	// object).
	KindSession = geminichat.KindSession
	// KindSet is a {"$set": …} line.
	KindSet = "set"
	// KindRewind is a {"$rewindTo": …} line.
	KindRewind = "rewind"
)

// Claim takes .jsonl files whose first line is a Gemini CLI chat header
// (sessionId and projectHash), and whole-JSON chats (.json) that are
// Gemini CLI's (SniffLegacy; a chat of Qwen Code's is left to it) and that
// Gemini CLI has not migrated to a .jsonl beside them.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	for _, f := range files {
		switch {
		case strings.HasSuffix(f, ".jsonl") && sniffChat(f):
			units = append(units, jsonl.Unit{Format: Name, Path: f})
		case strings.HasSuffix(f, ".json") && !migrated(f) && !underQwen(f) && geminichat.SniffLegacy(f, assistant):
			units = append(units, jsonl.Unit{Format: Name, Path: f})
		default:
			rest = append(rest, f)
		}
	}
	return units, rest
}

// Reclaim implements jsonl.Reclaimer for JSONL chats, whose claim rests on
// their header; a whole-JSON chat's depends on whether Gemini CLI migrated
// it beside it, so it is offered to Claim again.
func (Format) Reclaim(path string) (jsonl.Unit, bool) {
	if !strings.HasSuffix(path, ".jsonl") {
		return jsonl.Unit{}, false
	}
	return jsonl.Unit{Format: Name, Path: path}, true
}

// sniffChat reports whether the first object of path is a chat header: a
// sessionId and a projectHash (Qwen Code's lines have a uuid and no
// projectHash).
func sniffChat(path string) bool {
	objs := jsonl.FirstObjects(path, 1)
	if len(objs) == 0 {
		return false
	}
	m := objs[0]
	_, uuid := m["uuid"]
	return !uuid && jsonl.RawString(m, "sessionId") != "" && isString(m["projectHash"])
}

// migrated reports whether Gemini CLI has migrated the whole-JSON chat at
// path to a JSONL chat beside it (it does so when it resumes one: it
// writes <name>.jsonl and leaves the .json).
func migrated(path string) bool {
	fi, err := os.Stat(path + "l")
	return err == nil && fi.Mode().IsRegular()
}

// underQwen reports whether path lies in a Qwen Code home (a ".qwen"
// folder): its whole-JSON chats are Qwen Code's, whatever their messages.
func underQwen(path string) bool {
	return strings.Contains(filepath.ToSlash(path), "/.qwen/")
}

// devtoolsLogRE matches Gemini CLI's devtools log of a session,
// tmp/<project>/logs/session-<id>.jsonl (console and network events).
var devtoolsLogRE = regexp.MustCompile(`(^|/)tmp/[^/]+/logs/session-[^/]+\.jsonl$`)

// SkipReason implements jsonl.Skipper: a whole-JSON chat Gemini CLI has
// migrated to JSONL, and its devtools logs, are skipped with a note.
func (Format) SkipReason(path string) string {
	switch {
	case strings.HasSuffix(path, ".json") && migrated(path) && geminichat.SniffLegacy(path, assistant):
		return "Gemini CLI whole-JSON chat that Gemini CLI migrated to " + filepath.Base(path) + "l when it resumed it (that file holds its messages); skipped"
	case devtoolsLogRE.MatchString(filepath.ToSlash(path)) && !sniffChat(path):
		return "Gemini CLI devtools log (console and network events), not a chat; skipped"
	}
	return ""
}

func isString(raw json.RawMessage) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil
}

func isObject(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '{'
}

// Parse reads one Gemini CLI chat (see the package doc). A JSONL chat's
// transcript depends on every line (a message is rewritten in place, a
// $set replaces the list, a $rewindTo cuts it), so a file that grew is
// read whole again (ErrNotIncremental for a Resume with an offset); a
// whole-JSON chat is rewritten whole by its writer.
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse %s %s: internal error: %v", Name, u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	if from.Offset > 0 {
		return nil, jsonl.ErrNotIncremental
	}
	if strings.HasSuffix(u.Path, ".json") {
		return parseLegacy(ctx, u)
	}
	p := &parser{WildScan: jsonl.WildScan{Ctx: ctx, Path: u.Path}, index: map[string]int{}, rowOf: map[string]int{}}
	f, _, err := jsonl.OpenAt(u.Path, 0)
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	defer f.Close()
	if err := p.Run(f, 0, p.dispatch); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	if len(p.entries) == 0 && p.Offset == 0 && len(p.Problems) == 0 {
		return nil, fmt.Errorf("%w: empty file", jsonl.ErrNoConversation)
	}
	if len(p.entries) == 0 {
		return nil, fmt.Errorf("parse %s %s: %w: no readable line", Name, u.Path, sessiondb.ErrInvalid)
	}
	if !p.resumable {
		// A chat Gemini CLI opened and recorded nothing in yet (a header
		// and its own context): it lists no such session either.
		return nil, fmt.Errorf("%w: no prompt or answer yet (%d line(s))", jsonl.ErrNoConversation, len(p.entries))
	}
	return p.finish(u)
}

// msg is one message of the chat's current list.
type msg struct {
	id, typ string
	n       int  // entry number of the line that holds it
	elem    bool // an element of line n's messages list, not line n itself
	body    []byte
	t       time.Time
}

type parser struct {
	jsonl.WildScan
	entries []sessiondb.Entry
	list    []*msg         // the current message list, in order
	index   map[string]int // message id → position in list
	rows    []sessiondb.Usage
	rowOf   map[string]int // message id → its row

	sid, hash, summary, kind string
	dirs                     json.RawMessage
	start, last              time.Time
	model                    string
	headers                  int
	resumable                bool
	prompt                   string // the title made of the first real prompt
}

// put sets message m in the list: in the place of the message with its
// id, else at the end (a JavaScript Map's set).
func (p *parser) put(m *msg) {
	if i, ok := p.index[m.id]; ok {
		p.list[i] = m
		return
	}
	p.index[m.id] = len(p.list)
	p.list = append(p.list, m)
}

// cut removes the messages from position i on.
func (p *parser) cut(i int) {
	for _, m := range p.list[i:] {
		delete(p.index, m.id)
	}
	p.list = p.list[:i]
}

func (p *parser) dispatch(raw []byte, lineNo int) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		p.Problem(lineNo, "line has an unexpected shape (%v); kept as data", err)
	}
	n := len(p.entries) + 1
	e := sessiondb.Entry{Kind: Name + ".other", Body: raw}
	t := time.Time{}
	// The order of Gemini CLI's own loader (loadConversationRecord).
	switch {
	case isString(obj["$rewindTo"]):
		e.Kind, e.Role = KindRewind, KindRewind
		var id string
		_ = json.Unmarshal(obj["$rewindTo"], &id)
		if i, ok := p.index[id]; ok {
			p.cut(i)
		} else {
			p.Problem(lineNo, "$rewindTo %q names no message of the list; the list is emptied, as Gemini CLI does", id)
			p.cut(0)
		}
	case isString(obj["id"]):
		m := p.record(raw, n, false)
		e.Kind, e.Role = geminichat.RecordKind(m.typ, assistant), geminichat.RecordRole(m.typ, assistant)
		t = m.t
	case isObject(obj["$set"]):
		e.Kind, e.Role = KindSet, KindSet
		t = p.set(obj["$set"], n, lineNo)
	case isString(obj["sessionId"]) && isString(obj["projectHash"]):
		e.Kind, e.Role = KindSession, KindSession
		p.headers++
		t = p.meta(obj, n, lineNo)
	default:
		if obj != nil {
			p.Problem(lineNo, "line of no known shape (no id, $set, $rewindTo or session header); kept as data")
		}
	}
	if t.IsZero() {
		t = p.last
	}
	if t.After(p.last) {
		p.last = t
	}
	if p.start.IsZero() {
		p.start = t
	}
	e.CreatedAt = t
	p.entries = append(p.entries, e)
}

// record reads a message record (its bytes raw, on line n or an element
// of its messages list) into the list and the usage.
func (p *parser) record(raw []byte, n int, elem bool) *msg {
	var r struct {
		ID        string          `json:"id"`
		Type      string          `json:"type"`
		Timestamp json.RawMessage `json:"timestamp"`
		Model     string          `json:"model"`
		Tokens    json.RawMessage `json:"tokens"`
	}
	_ = json.Unmarshal(raw, &r)
	m := &msg{id: r.ID, typ: r.Type, n: n, elem: elem, body: raw, t: geminichat.RecordTime(r.Timestamp)}
	p.put(m)
	if r.Type == assistant && r.Model != "" {
		p.model = r.Model
	}
	if c, ok := geminichat.RecordTokens(r.Tokens); ok && r.Type == assistant {
		u := geminichat.Usage(c, true)
		u.Seq, u.CallID, u.Model, u.CreatedAt = int64(n), r.ID, jsonl.OrString(r.Model, p.model), m.t
		if i, ok := p.rowOf[r.ID]; ok {
			p.rows[i] = u
		} else {
			p.rowOf[r.ID] = len(p.rows)
			p.rows = append(p.rows, u)
		}
	}
	if (!p.resumable || p.prompt == "") && (r.Type == "user" || r.Type == assistant) {
		if obj := jsonl.DecodeObject(raw); obj != nil {
			um := geminichat.UnderstandRecord(obj, assistant)
			conv := !um.Bookkeeping && !um.Context
			p.resumable = p.resumable || conv && (um.Text != "" || um.Thinking != "" || len(um.Calls) > 0 || len(um.Results) > 0)
			if p.prompt == "" && conv && r.Type == "user" && len(um.Results) == 0 {
				p.prompt = jsonl.TitleOf(um.Text)
			}
		}
	}
	return m
}

// set applies a $set patch of line n and returns its time (lastUpdated).
func (p *parser) set(raw json.RawMessage, n, lineNo int) time.Time {
	var s map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil {
		return time.Time{}
	}
	if list, ok := s["messages"]; ok && len(list) > 0 && list[0] == '[' {
		p.cut(0)
		p.elements(list, n, lineNo)
	}
	return p.fields(s, lineNo)
}

// elements reads the messages list of line n.
func (p *parser) elements(list json.RawMessage, n, lineNo int) {
	var items []json.RawMessage
	if json.Unmarshal(list, &items) != nil {
		p.Problem(lineNo, "messages is not a list of messages; ignored")
		return
	}
	for _, it := range items {
		var id struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(it, &id) == nil && isString(id.ID) {
			p.record(it, n, true)
		}
	}
}

// fields takes the metadata members of a header or $set and returns its
// time.
func (p *parser) fields(s map[string]json.RawMessage, lineNo int) time.Time {
	str := func(k string) (string, bool) {
		var v string
		if raw, ok := s[k]; ok && json.Unmarshal(raw, &v) == nil {
			return v, true
		}
		return "", false
	}
	if v, ok := str("sessionId"); ok && v != "" {
		if err := sessiondb.ValidateID(v); err != nil {
			p.Problem(lineNo, "sessionId %.80q is not a valid session ID (%v); ignored", v, err)
		} else {
			p.sid = v
		}
	}
	if v, ok := str("projectHash"); ok {
		p.hash = v
	}
	if v, ok := str("summary"); ok {
		p.summary = v
	}
	if v, ok := str("kind"); ok {
		p.kind = v
	}
	if d, ok := s["directories"]; ok {
		p.dirs = d
	}
	var t time.Time
	if v, ok := str("startTime"); ok {
		t = jsonl.ParseTime(v)
	}
	if v, ok := str("lastUpdated"); ok {
		if lu := jsonl.ParseTime(v); !lu.IsZero() {
			t = lu
		}
	}
	return t
}

// meta reads a header line: its members merge into the metadata (a header
// written again when a session is resumed into its file included), and a
// messages list on it (a whole chat on one line) adds its messages.
func (p *parser) meta(obj map[string]json.RawMessage, n, lineNo int) time.Time {
	if list, ok := obj["messages"]; ok && len(list) > 0 && list[0] == '[' {
		p.elements(list, n, lineNo)
	}
	var start string
	_ = json.Unmarshal(obj["startTime"], &start)
	if st := jsonl.ParseTime(start); !st.IsZero() && p.headers == 1 {
		p.start = st
	}
	return p.fields(obj, lineNo)
}

func (p *parser) finish(u jsonl.Unit) (*jsonl.Parsed, error) {
	out := &jsonl.Parsed{Unit: u, Offset: p.Offset}
	total := len(p.entries)
	var final []*msg
	for _, m := range p.list {
		if m.typ == "user" || m.typ == assistant {
			final = append(final, m)
		}
	}
	var msgNs []int
	for i, e := range p.entries {
		if e.Kind == sessiondb.KindMessage {
			msgNs = append(msgNs, i+1)
		}
	}
	// The longest tail of the list that is the tail of the message lines:
	// those lines stay the transcript; the messages before them are copied
	// into a compaction's summary.
	i, j := len(final)-1, len(msgNs)-1
	for i >= 0 && j >= 0 && !final[i].elem && final[i].n == msgNs[j] {
		i, j = i-1, j-1
	}
	keep := total + 1
	if j+1 < len(msgNs) {
		keep = msgNs[j+1]
	}
	switch {
	case i < 0 && j < 0:
		// Every message line, in order: the log is the transcript.
	default:
		c := sessiondb.Compaction{KeepFromSeq: int64(keep), CreatedAt: p.last}
		reason := "Gemini CLI rewrote messages of its list (tool calls completed, a $set of the list, a rewind): the lines before the kept ones are not the list"
		if i >= 0 {
			for _, m := range final[:i+1] {
				c.Summary = append(c.Summary, sessiondb.Entry{Kind: sessiondb.KindMessage, Role: geminichat.RecordRole(m.typ, assistant),
					CreatedAt: orTime(m.t, p.entries[m.n-1].CreatedAt), Body: m.body, Summary: true})
			}
			reason += "; the messages before them are copied here"
		}
		c.Details = jsonl.MustJSON(map[string]any{"source": Name + " message list", "reason": reason, "messages": len(final)})
		out.Compactions = append(out.Compactions, c)
	}
	for i := range p.entries {
		if p.entries[i].CreatedAt.IsZero() {
			p.entries[i].CreatedAt = p.start
		}
	}
	out.Entries = p.entries
	out.Usage = p.rows
	for i := range out.Usage {
		if out.Usage[i].CreatedAt.IsZero() {
			out.Usage[i].CreatedAt = p.entries[out.Usage[i].Seq-1].CreatedAt
		}
	}
	jsonl.EstimateCosts(out.Usage)
	out.Session, out.Problems = p.session(u, p.prompt), p.Problems
	return out, nil
}

func orTime(t, alt time.Time) time.Time {
	if t.IsZero() {
		return alt
	}
	return t
}

// session is the session's metadata.
func (p *parser) session(u jsonl.Unit, prompt string) sessiondb.Session {
	id := p.sid
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(u.Path), filepath.Ext(u.Path))
		p.Problem(0, "no sessionId; the session ID %q is taken from the file name", id)
	}
	// Gemini CLI lists a session by its summary, else by its first real
	// prompt in file order (a rewound one included). A sub-agent's
	// summary is what it returned (its complete_task result): the
	// session's Summary, not a title.
	title := prompt
	if t := jsonl.TitleOf(p.summary); t != "" && p.kind != "subagent" {
		title = t
	}
	attrs := map[string]any{"projectHash": p.hash, "kind": p.kind, "model": p.model, "cwd": ProjectRoot(u.Path, p.hash)}
	if len(p.dirs) > 0 && string(p.dirs) != "null" {
		attrs["directories"] = p.dirs
	}
	s := sessiondb.Session{ID: id, Title: title, Summary: p.summary, Attrs: jsonl.MergeAttrs(attrs), ParentID: parentOf(u.Path, p.kind, id),
		CreatedAt: p.start, UpdatedAt: p.last}
	if s.UpdatedAt.Before(s.CreatedAt) {
		s.UpdatedAt = s.CreatedAt
	}
	return s
}

// parentOf is the session a sub-agent's chat belongs to: Gemini CLI keeps
// it in chats/<parent session id>/<agent session id>.jsonl.
func parentOf(path, kind, id string) string {
	dir := filepath.Dir(path)
	if kind != "subagent" || filepath.Base(filepath.Dir(dir)) != "chats" {
		return ""
	}
	if parent := filepath.Base(dir); parent != id {
		return parent
	}
	return ""
}

// ProjectRoot returns the folder of the project whose chats folder holds
// the chat at path, "" when it cannot be told: the .project_root file in
// the project's temporary folder (~/.gemini/tmp/<project>/), else the
// entry of ~/.gemini/projects.json whose path hashes (sha256) to hash, the
// projectHash of the chat. A .project_root whose path does not hash to a
// non-empty hash is not taken.
func ProjectRoot(path, hash string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "chats" {
		dir = filepath.Dir(dir) // a sub-agent's folder
	}
	if filepath.Base(dir) != "chats" {
		return ""
	}
	proj := filepath.Dir(dir)
	matches := func(root string) bool {
		if hash == "" {
			return true
		}
		sum := sha256.Sum256([]byte(root))
		return hex.EncodeToString(sum[:]) == hash
	}
	if b, err := jsonl.ReadFile(filepath.Join(proj, ".project_root"), jsonl.MaxLineSize); err == nil {
		if root := strings.TrimSpace(string(b)); root != "" && matches(root) {
			return root
		}
	}
	if hash == "" {
		return ""
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	b, err := jsonl.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(proj)), "projects.json"), jsonl.MaxLineSize)
	if err != nil || json.Unmarshal(b, &reg) != nil {
		return ""
	}
	for root := range reg.Projects {
		if matches(root) {
			return root
		}
	}
	return ""
}

// parseLegacy reads a whole-JSON chat.
func parseLegacy(ctx context.Context, u jsonl.Unit) (*jsonl.Parsed, error) {
	l, err := geminichat.ParseLegacy(ctx, u.Path, assistant, true)
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	out := &jsonl.Parsed{Unit: u, Offset: l.Size, Entries: l.Entries, Usage: l.Usage, Problems: l.Problems}
	jsonl.EstimateCosts(out.Usage)
	id := l.SessionID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(u.Path), ".json")
		out.Problems = append(out.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("no sessionId; the session ID %q is taken from the file name", id)})
	}
	title := jsonl.TitleOf(l.Summary)
	if title == "" || l.Kind == "subagent" {
		title = jsonl.PromptTitle(Format{}, l.Entries)
	}
	attrs := map[string]any{"projectHash": l.ProjectHash, "kind": l.Kind, "model": l.Model, "cwd": ProjectRoot(u.Path, l.ProjectHash)}
	if len(l.Directories) > 0 && string(l.Directories) != "null" {
		attrs["directories"] = l.Directories
	}
	out.Session = sessiondb.Session{ID: id, Title: title, Summary: l.Summary, Attrs: jsonl.MergeAttrs(attrs), ParentID: parentOf(u.Path, l.Kind, id),
		CreatedAt: l.Start, UpdatedAt: l.Last}
	return out, nil
}
