package qwen

import (
	"context"
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

// Name names the Qwen Code chat format.
const Name = "qwen-code"

// assistant is the type of the model's records in Qwen Code's old
// whole-JSON chats.
const assistant = "qwen"

// Format reads Qwen Code chat files and writes them back (export.go).
type Format struct{}

var _ jsonl.Format = Format{}

// Name returns Name.
func (Format) Name() string { return Name }

// KindSystem is the Kind of Qwen Code's system records (telemetry, titles,
// snapshots, compressions, slash commands, rewinds).
const KindSystem = "system"

// recordTypes are the record types of Qwen Code's JSONL chats.
var recordTypes = map[string]bool{"user": true, "assistant": true, "tool_result": true, "system": true}

// agentFileRE matches a background sub-agent's transcript and its
// description: <project>/subagents/<session>/agent-<id>.jsonl and
// agent-<id>.meta.json.
var agentFileRE = regexp.MustCompile(`(^|/)subagents/[^/]+/agent-([A-Za-z0-9_-]+)\.(jsonl|meta\.json)$`)

// Claim takes .jsonl files whose first lines are Qwen Code records (a uuid
// and a sessionId around a Gemini-like message {role, parts}, or a system
// record with a systemPayload: never a Claude Code line), with a
// sub-agent's agent-<id>.meta.json as its side file; and whole-JSON chats
// of Qwen Code (a .json under a .qwen folder, or whose messages are of
// type "qwen").
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	inList := map[string]bool{}
	for _, f := range files {
		inList[f] = true
	}
	for _, f := range files {
		switch {
		case strings.HasSuffix(f, ".jsonl") && (Sniff(f) || agentFile(f)):
			u := jsonl.Unit{Format: Name, Path: f}
			if meta := agentMeta(f); meta != "" {
				u.Extra = []string{meta}
			}
			units = append(units, u)
		case strings.HasSuffix(f, ".meta.json") && inList[strings.TrimSuffix(f, ".meta.json")+".jsonl"] && agentFile(strings.TrimSuffix(f, ".meta.json")+".jsonl"):
			// read with its transcript
		case strings.HasSuffix(f, ".json") && !strings.HasSuffix(f, ".meta.json") && legacy(f):
			units = append(units, jsonl.Unit{Format: Name, Path: f})
		default:
			rest = append(rest, f)
		}
	}
	return units, rest
}

// Reclaim implements jsonl.Reclaimer for JSONL chats (a sub-agent's with
// its .meta.json, as Claim lists it); a whole-JSON chat is offered to
// Claim again.
func (Format) Reclaim(path string) (jsonl.Unit, bool) {
	if !strings.HasSuffix(path, ".jsonl") {
		return jsonl.Unit{}, false
	}
	u := jsonl.Unit{Format: Name, Path: path}
	if meta := agentMeta(path); meta != "" {
		u.Extra = []string{meta}
	}
	return u, true
}

// legacy reports whether path is a whole-JSON chat of Qwen Code.
func legacy(path string) bool {
	if strings.Contains(filepath.ToSlash(path), "/.qwen/") {
		return geminichat.SniffLegacy(path, "")
	}
	return geminichat.SniffLegacy(path, assistant)
}

// agentMeta returns the agent-<id>.meta.json beside a sub-agent's
// transcript, "" when there is none.
func agentMeta(path string) string {
	if !agentFileRE.MatchString(filepath.ToSlash(path)) {
		return ""
	}
	meta := strings.TrimSuffix(path, ".jsonl") + ".meta.json"
	if fi, err := os.Stat(meta); err == nil && fi.Mode().IsRegular() {
		return meta
	}
	return ""
}

// Sniff reports whether the first objects of path are Qwen Code records.
func Sniff(path string) bool {
	for _, m := range jsonl.FirstObjects(path, 8) {
		if _, ok := m["payload"]; ok {
			return false
		}
		typ := jsonl.RawString(m, "type")
		if !recordTypes[typ] || jsonl.RawString(m, "uuid") == "" || jsonl.RawString(m, "sessionId") == "" {
			continue
		}
		if _, ok := m["systemPayload"]; ok {
			return true
		}
		var msg struct {
			Parts json.RawMessage `json:"parts"`
		}
		if json.Unmarshal(m["message"], &msg) == nil && len(msg.Parts) > 0 {
			return true
		}
	}
	return false
}

// agentFile reports whether path is a background sub-agent's transcript
// (agentFileRE) that is Qwen Code's or holds no complete record yet (the
// agent is writing its first line): Claude Code keeps its sub-agents in
// <session>/subagents/agent-<id>.jsonl, never a folder deeper.
func agentFile(path string) bool {
	if !strings.HasSuffix(path, ".jsonl") || !agentFileRE.MatchString(filepath.ToSlash(path)) {
		return false
	}
	return Sniff(path) || len(jsonl.FirstObjects(path, 1)) == 0
}

// Reserves implements jsonl.Reserver: a background sub-agent's transcript
// and its agent-<id>.meta.json are Qwen Code's (picoclaw would take the
// pair for one of its sessions), also while the transcript has no complete
// line yet.
func (Format) Reserves(path string) bool {
	return agentFile(strings.TrimSuffix(strings.TrimSuffix(path, ".jsonl"), ".meta.json") + ".jsonl")
}

// SkipReason implements jsonl.Skipper: a sub-agent's description whose
// transcript is not imported with it.
func (Format) SkipReason(path string) string {
	if strings.HasSuffix(path, ".meta.json") && agentFile(strings.TrimSuffix(path, ".meta.json")+".jsonl") {
		return "Qwen Code sub-agent description (read with its transcript); skipped"
	}
	return ""
}

// Parse reads one Qwen Code chat (see the package doc). The transcript is
// a path through the records' parentUuid tree from the last record, which
// any appended line can move, so a file that grew is read whole again
// (ErrNotIncremental for a Resume with an offset).
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
	p := &parser{WildScan: jsonl.WildScan{Ctx: ctx, Path: u.Path}, nodes: map[string]*node{}, attrs: map[string]any{}}
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
	if p.messages == 0 {
		return nil, fmt.Errorf("%w: no message record yet, only %d other record(s)", jsonl.ErrNoConversation, len(p.entries))
	}
	return p.finish(u)
}

// node is one uuid of the record tree: the records that carry it (Qwen
// Code merges them into one message on resume) and its parent (the first
// record's).
type node struct {
	uuid, parent string
	ns           []int // entry numbers of its records
	line         int
	msg          bool // a record of it carries a message
	// compressed is the compressedHistory of a chat_compression record,
	// written at compressedAt.
	compressed   []json.RawMessage
	compressedAt time.Time
}

type parser struct {
	jsonl.WildScan
	entries  []sessiondb.Entry
	nodes    map[string]*node
	leaf     string // uuid of the last record that has one
	messages int
	rows     []sessiondb.Usage
	// covered: an api_response telemetry record came since the last
	// assistant record; that record's usage is then the telemetry's.
	covered bool

	sid, agentID, title string
	fork                string
	attrs               map[string]any
	model               string
	start, last         time.Time
	noUUID              int
}

type record struct {
	UUID          string          `json:"uuid"`
	ParentUUID    *string         `json:"parentUuid"`
	SessionID     string          `json:"sessionId"`
	Timestamp     string          `json:"timestamp"`
	Type          string          `json:"type"`
	Subtype       string          `json:"subtype"`
	CWD           string          `json:"cwd"`
	Version       string          `json:"version"`
	GitBranch     string          `json:"gitBranch"`
	Model         string          `json:"model"`
	Message       json.RawMessage `json:"message"`
	UsageMetadata json.RawMessage `json:"usageMetadata"`
	SystemPayload json.RawMessage `json:"systemPayload"`
	AgentID       string          `json:"agentId"`
	AgentName     string          `json:"agentName"`
	ForkedFrom    *struct {
		SessionID string `json:"sessionId"`
	} `json:"forkedFrom"`
}

func (p *parser) dispatch(raw []byte, lineNo int) {
	var r record
	if err := json.Unmarshal(raw, &r); err != nil {
		p.Problem(lineNo, "line has an unexpected shape (%v); kept as data", err)
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(raw, &head)
		r = record{Type: head.Type}
	}
	n := len(p.entries) + 1
	t := jsonl.ParseTime(r.Timestamp)
	if t.IsZero() {
		t = p.last
	} else if t.After(p.last) {
		p.last = t
	}
	if p.start.IsZero() {
		p.start = t
	}
	e := sessiondb.Entry{Kind: jsonl.EntryKind(Name, r.Type), Role: r.Type, CreatedAt: t, Body: raw}
	hasMsg := len(r.Message) > 0 && string(r.Message) != "null"
	var nd *node
	if r.UUID != "" {
		nd = p.nodes[r.UUID]
		if nd == nil {
			nd = &node{uuid: r.UUID, line: lineNo}
			if r.ParentUUID != nil {
				nd.parent = *r.ParentUUID
			}
			p.nodes[r.UUID] = nd
		}
		nd.ns = append(nd.ns, n)
		p.leaf = r.UUID
	} else {
		p.noUUID++
	}
	switch {
	case hasMsg && (r.Type == "user" || r.Type == "assistant" || r.Type == "tool_result"):
		p.messages++
		e.Kind = sessiondb.KindMessage
		if nd != nil && nd.msg {
			// A further record of a uuid: Qwen Code appends its parts to
			// the first one's.
			e.Kind = sessiondb.KindMessagePart
		}
		if nd != nil {
			nd.msg = true
		}
		e.Role = "user"
		if r.Type == "assistant" {
			e.Role = "assistant"
		}
	case r.Type == "system":
		e.Kind, e.Role = KindSystem, KindSystem
		p.system(r, nd, n, t, lineNo)
	case r.Type == "":
		p.Problem(lineNo, "record without a type; kept as data")
	}
	if r.SessionID != "" && p.sid == "" {
		if err := sessiondb.ValidateID(r.SessionID); err != nil {
			p.Problem(lineNo, "sessionId %.80q is not a valid session ID (%v); ignored", r.SessionID, err)
		} else {
			p.sid = r.SessionID
		}
	}
	if r.AgentID != "" {
		p.agentID = r.AgentID
		p.attrs["agentId"] = r.AgentID
		if r.AgentName != "" {
			p.attrs["agentName"] = r.AgentName
		}
	}
	if r.ForkedFrom != nil && r.ForkedFrom.SessionID != "" {
		p.fork = r.ForkedFrom.SessionID
	}
	for k, v := range map[string]string{"cwd": r.CWD, "version": r.Version, "gitBranch": r.GitBranch} {
		if v != "" {
			p.attrs[k] = v
		}
	}
	if r.Type == "assistant" {
		if r.Model != "" {
			p.model = r.Model
		}
		if len(r.UsageMetadata) > 0 && string(r.UsageMetadata) != "null" {
			if !p.covered {
				p.usage(usageMetadata(r.UsageMetadata), r.UUID, r.Model, n, t)
			}
			p.covered = false
		}
	}
	p.entries = append(p.entries, e)
}

// system reads a system record.
func (p *parser) system(r record, nd *node, n int, t time.Time, lineNo int) {
	switch r.Subtype {
	case "custom_title":
		var pl struct {
			Title string `json:"customTitle"`
		}
		if json.Unmarshal(r.SystemPayload, &pl) == nil && pl.Title != "" {
			p.title = pl.Title
		}
	case "ui_telemetry":
		var pl struct {
			Event map[string]json.RawMessage `json:"uiEvent"`
		}
		if json.Unmarshal(r.SystemPayload, &pl) != nil || jsonl.RawString(pl.Event, "event.name") != "qwen-code.api_response" {
			return
		}
		num := func(k string) int64 {
			var v int64
			_ = json.Unmarshal(pl.Event[k], &v)
			return v
		}
		c := geminichat.TokenCounts{Input: num("input_token_count"), Output: num("output_token_count"), Cached: num("cached_content_token_count"),
			Thoughts: num("thoughts_token_count"), Tool: num("tool_token_count"), Total: num("total_token_count")}
		if agent := subagentOf(jsonl.RawString(pl.Event, "prompt_id"), r.SessionID); agent != "" && p.agentTranscript(r.SessionID, agent) {
			// A sub-agent's call: counted in the sub-agent's session,
			// from its own transcript.
			return
		}
		id := jsonl.RawString(pl.Event, "response_id")
		if id == "" {
			id = "telemetry:" + r.UUID
		}
		if et := jsonl.ParseTime(jsonl.RawString(pl.Event, "event.timestamp")); !et.IsZero() {
			t = et
		}
		p.usage(c, id, jsonl.RawString(pl.Event, "model"), n, t)
		p.covered = true
	case "chat_compression":
		var pl struct {
			History []json.RawMessage `json:"compressedHistory"`
		}
		if json.Unmarshal(r.SystemPayload, &pl) != nil {
			p.Problem(lineNo, "chat_compression with an unreadable payload; no compaction recorded")
			return
		}
		if len(pl.History) > 0 && nd != nil {
			nd.compressed, nd.compressedAt = pl.History, t
		}
	}
}

// subagentOf returns the sub-agent a telemetry event's prompt_id names:
// Qwen Code makes it "<session>#<sub-agent id>#<turn>" for a sub-agent's
// requests and "<session>########<n>" for the session's own; "" for the
// latter.
func subagentOf(promptID, session string) string {
	rest, ok := strings.CutPrefix(promptID, session+"#")
	if !ok || strings.HasPrefix(rest, "#") {
		return ""
	}
	agent, _, _ := strings.Cut(rest, "#")
	return agent
}

// sanitizeRE is what Qwen Code replaces in the names of a sub-agent's
// files (sanitizeFilenameComponent).
var sanitizeRE = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// agentTranscript reports whether the sub-agent agent of session has a
// transcript of its own beside the chat being read:
// <project>/subagents/<session>/agent-<agent>.jsonl. A background
// sub-agent's calls are counted there; a helper that keeps no transcript
// (the memory extractor) is counted in the session.
func (p *parser) agentTranscript(session, agent string) bool {
	chats := filepath.Dir(p.Path)
	if filepath.Base(chats) != "chats" {
		return false
	}
	f := filepath.Join(filepath.Dir(chats), "subagents", sanitizeRE.ReplaceAllString(session, "_"), "agent-"+sanitizeRE.ReplaceAllString(agent, "_")+".jsonl")
	fi, err := os.Stat(f)
	return err == nil && fi.Mode().IsRegular()
}

// usageMetadata reads an assistant record's usageMetadata (Gemini's
// GenerateContentResponseUsageMetadata).
func usageMetadata(raw json.RawMessage) geminichat.TokenCounts {
	var u struct {
		Prompt     int64 `json:"promptTokenCount"`
		Candidates int64 `json:"candidatesTokenCount"`
		Cached     int64 `json:"cachedContentTokenCount"`
		Thoughts   int64 `json:"thoughtsTokenCount"`
		Tool       int64 `json:"toolUsePromptTokenCount"`
		Total      int64 `json:"totalTokenCount"`
	}
	_ = json.Unmarshal(raw, &u)
	return geminichat.TokenCounts{Input: u.Prompt, Output: u.Candidates, Cached: u.Cached, Thoughts: u.Thoughts, Tool: u.Tool, Total: u.Total}
}

// usage adds the row of one model call (a call id seen again replaces its
// row: the later report wins).
func (p *parser) usage(c geminichat.TokenCounts, id, model string, n int, t time.Time) {
	u := geminichat.Usage(c, false)
	u.Seq, u.CallID, u.Model, u.CreatedAt = int64(n), id, jsonl.OrString(model, p.model), t
	for i := range p.rows {
		if p.rows[i].CallID == id && id != "" {
			p.rows[i] = u
			return
		}
	}
	p.rows = append(p.rows, u)
}

func (p *parser) finish(u jsonl.Unit) (*jsonl.Parsed, error) {
	out := &jsonl.Parsed{Unit: u, Offset: p.Offset}
	total := len(p.entries)
	// The path from the last record back to a root, as Qwen Code's
	// reconstructHistory walks it.
	var chain []*node
	seen := map[string]bool{}
	for cur := p.leaf; cur != "" && !seen[cur]; {
		seen[cur] = true
		nd := p.nodes[cur]
		if nd == nil {
			if p.agentID == "" {
				p.Problem(0, "parentUuid %s was never written; the transcript starts after it, as Qwen Code resumes", cur)
			}
			break
		}
		chain = append(chain, nd)
		cur = nd.parent
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	if p.noUUID > 0 {
		p.Problem(0, "%d record(s) without a uuid: not in the tree Qwen Code resumes; kept as data", p.noUUID)
	}
	isMsg := func(n int) bool {
		k := p.entries[n-1].Kind
		return k == sessiondb.KindMessage || k == sessiondb.KindMessagePart
	}
	from := 0
	var compressed []json.RawMessage
	var compressedAt time.Time
	for i, nd := range chain {
		if nd.compressed != nil {
			from, compressed, compressedAt = i+1, nd.compressed, nd.compressedAt
		}
	}
	var path []int
	for _, nd := range chain[from:] {
		for _, n := range nd.ns {
			if isMsg(n) {
				path = append(path, n)
			}
		}
	}
	var logMsgs []int
	for n := 1; n <= total; n++ {
		if isMsg(n) {
			logMsgs = append(logMsgs, n)
		}
	}
	suffix := len(path) <= len(logMsgs)
	for i := 0; suffix && i < len(path); i++ {
		suffix = path[i] == logMsgs[len(logMsgs)-len(path)+i]
	}
	var summary []sessiondb.Entry
	for _, h := range compressed {
		summary = append(summary, wrap(h, compressedAt))
	}
	switch {
	case suffix && compressed == nil && len(path) == len(logMsgs):
		// Every message record is on the path: the log is the transcript.
	case suffix:
		keep := total + 1
		if len(path) > 0 {
			keep = path[0]
		}
		reason := "earlier records are not on the path from the last record"
		if compressed != nil {
			reason = "chat_compression: its compressed history, then the records after it"
		}
		out.Compactions = append(out.Compactions, sessiondb.Compaction{KeepFromSeq: int64(keep), Summary: summary, CreatedAt: p.last,
			Details: jsonl.MustJSON(map[string]any{"source": Name + " resume path", "reason": reason})})
	default:
		for _, n := range path {
			e := p.entries[n-1]
			e.Summary = true
			summary = append(summary, e)
		}
		out.Compactions = append(out.Compactions, sessiondb.Compaction{KeepFromSeq: int64(total + 1), Summary: summary, CreatedAt: p.last,
			Details: jsonl.MustJSON(map[string]any{"source": Name + " resume path", "reason": "the path from the last record is not a suffix of the log (a rewind, a fork); its records are copied here", "leaf": p.leaf})})
	}
	out.Entries = p.entries
	for i := range out.Entries {
		if out.Entries[i].CreatedAt.IsZero() {
			out.Entries[i].CreatedAt = p.start
		}
	}
	// Session metadata.
	id := p.sid
	stem := strings.TrimSuffix(filepath.Base(u.Path), ".jsonl")
	if id == "" {
		id = stem
		p.Problem(0, "no sessionId; the session ID %q is taken from the file name", id)
	}
	parent := ""
	if m := agentFileRE.FindStringSubmatch(filepath.ToSlash(u.Path)); m != nil || p.agentID != "" {
		agent := p.agentID
		if agent == "" {
			agent = m[2]
		}
		if sessiondb.ValidateID(id+":agent-"+agent) != nil {
			p.Problem(0, "agentId %.80q does not make a valid session ID; its file-safe form is used", agent)
			agent = jsonl.FileSafe(agent, 64)
		}
		parent, id = id, id+":agent-"+agent
		p.attrs["agentId"] = agent
		for _, x := range u.Extra {
			if model := agentAttrs(x, p.attrs); model != "" {
				for i := range p.rows {
					if p.rows[i].Model == "" {
						p.rows[i].Model = model
					}
				}
				if p.model == "" {
					p.model = model
				}
			}
		}
	} else if p.fork != "" && p.fork != id {
		parent = p.fork
		p.attrs["forkedFrom"] = p.fork
	}
	// Qwen Code lists a session by its custom title, else by the first
	// prompt of its file.
	title := jsonl.TitleOf(p.title)
	if title == "" {
		title = jsonl.PromptTitle(Format{}, p.entries)
	}
	p.attrs["model"] = p.model
	out.Usage = p.rows
	jsonl.EstimateCosts(out.Usage)
	out.Session = sessiondb.Session{ID: id, Title: title, Attrs: jsonl.MergeAttrs(p.attrs), ParentID: parent, CreatedAt: p.start, UpdatedAt: p.last}
	if out.Session.UpdatedAt.Before(out.Session.CreatedAt) {
		out.Session.UpdatedAt = out.Session.CreatedAt
	}
	out.Problems = p.Problems
	return out, nil
}

// wrap makes a compressed history item (a Content {role, parts}) a record
// of the transcript, {"type":"user"|"assistant","message":<item>}, dated
// by the compression.
func wrap(item json.RawMessage, t time.Time) sessiondb.Entry {
	var c struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(item, &c)
	typ := "user"
	if c.Role == "model" {
		typ = "assistant"
	}
	body := append([]byte(`{"type":"`+typ+`","message":`), item...)
	body = append(body, '}')
	return sessiondb.Entry{Kind: sessiondb.KindMessage, Role: typ, CreatedAt: t, Body: body, Summary: true}
}

// agentAttrs takes what a sub-agent's agent-<id>.meta.json says of it, and
// returns the model it ran with (its records do not name it).
func agentAttrs(path string, attrs map[string]any) string {
	b, err := jsonl.ReadFile(path, jsonl.MaxLineSize)
	if err != nil {
		return ""
	}
	var m struct {
		AgentType   string `json:"agentType"`
		Description string `json:"description"`
		Subagent    string `json:"subagentName"`
		ParentAgent string `json:"parentAgentId"`
		Flags       struct {
			Model string `json:"model"`
		} `json:"persistedCliFlags"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	for k, v := range map[string]string{"agentType": m.AgentType, "description": m.Description, "subagentName": m.Subagent,
		"parentAgentId": m.ParentAgent} {
		if v != "" {
			attrs[k] = v
		}
	}
	return m.Flags.Model
}

// parseLegacy reads a whole-JSON chat of Qwen Code.
func parseLegacy(ctx context.Context, u jsonl.Unit) (*jsonl.Parsed, error) {
	l, err := geminichat.ParseLegacy(ctx, u.Path, assistant, false)
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
	if title == "" {
		title = jsonl.PromptTitle(Format{}, l.Entries)
	}
	attrs := map[string]any{"projectHash": l.ProjectHash, "kind": l.Kind, "model": l.Model}
	out.Session = sessiondb.Session{ID: id, Title: title, Attrs: jsonl.MergeAttrs(attrs), CreatedAt: l.Start, UpdatedAt: l.Last}
	return out, nil
}
