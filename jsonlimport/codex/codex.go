package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the Codex CLI rollout format.
const Name = "codex"

// Format reads Codex CLI rollout files and writes them back (export.go).
type Format struct{}

var _ jsonl.Format = Format{}

// Name returns Name.
func (Format) Name() string { return Name }

// codexItemTypes are the payload types of response items (bare in legacy
// files).
var codexItemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"web_search_call": true, "ghost_snapshot": true,
}

// ItemType reports whether typ is the payload type of a response item (a
// legacy file's lines are bare items of these types).
func ItemType(typ string) bool { return codexItemTypes[typ] }

var codexKinds = map[string]bool{
	"session_meta": true, "turn_context": true, "response_item": true, "event_msg": true, "compacted": true,
}

// IndexName is the name of the file, beside sessions/ in Codex's home,
// where Codex keeps the names of its threads.
const IndexName = "session_index.jsonl"

// Claim takes .jsonl files whose first line is a Codex session_meta (either
// envelope or legacy) or a Codex envelope, and the session_index.jsonl of a
// Codex home (read with the rollouts).
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	for _, f := range files {
		if filepath.Base(f) == IndexName && sniffCodexIndex(f) {
			continue
		}
		if strings.HasSuffix(f, ".jsonl") && sniffCodex(f) {
			u := jsonl.Unit{Format: Name, Path: f}
			if idx := codexIndexFor(f); idx != "" {
				u.Extra = []string{idx}
			}
			units = append(units, u)
			continue
		}
		rest = append(rest, f)
	}
	return units, rest
}

// Reclaim implements jsonl.Reclaimer: a rollout's claim rests on its
// first line; the session index is listed as Claim lists it.
func (Format) Reclaim(path string) (jsonl.Unit, bool) {
	if !strings.HasSuffix(path, ".jsonl") || filepath.Base(path) == IndexName {
		return jsonl.Unit{}, false
	}
	u := jsonl.Unit{Format: Name, Path: path}
	if idx := codexIndexFor(path); idx != "" {
		u.Extra = []string{idx}
	}
	return u, true
}

func sniffCodex(path string) bool {
	objs := jsonl.FirstObjects(path, 1)
	if len(objs) == 0 {
		return false
	}
	m := objs[0]
	typ := jsonl.RawString(m, "type")
	if _, ok := m["payload"]; ok {
		_, ts := m["timestamp"]
		return ts && codexKinds[typ]
	}
	// Legacy: the meta fields at top level.
	_, id := m["id"]
	_, ts := m["timestamp"]
	_, instr := m["instructions"]
	_, cwd := m["cwd"]
	return (typ == "session_meta" && id) || (typ == "" && id && ts && (instr || cwd))
}

func sniffCodexIndex(path string) bool {
	objs := jsonl.FirstObjects(path, 1)
	if len(objs) == 0 {
		return false
	}
	_, id := objs[0]["id"]
	_, name := objs[0]["thread_name"]
	return id && name
}

// codexIndexFor returns the session_index.jsonl of the Codex home holding
// rollout path (…/sessions/YYYY/MM/DD/rollout-….jsonl), or "".
func codexIndexFor(path string) string {
	d := filepath.Dir(path)
	for range 3 {
		d = filepath.Dir(d)
	}
	if filepath.Base(d) != "sessions" && filepath.Base(d) != "archived_sessions" {
		return ""
	}
	idx := filepath.Join(filepath.Dir(d), IndexName)
	if fi, err := os.Stat(idx); err == nil && fi.Mode().IsRegular() {
		return idx
	}
	return ""
}

// codexTokens is Codex's TokenUsage.
type codexTokens struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
	Total     int64 `json:"total_tokens"`
}

// codexResumeState is Parsed.ResumeState for Codex rollouts.
type codexResumeState struct {
	V        int             `json:"v"`
	ID       string          `json:"id"`
	Lines    int             `json:"lines"`
	Attrs    json.RawMessage `json:"attrs,omitempty"`
	Parent   string          `json:"parent,omitempty"`
	Title    string          `json:"title,omitempty"`
	Model    string          `json:"model,omitempty"`
	Provider string          `json:"provider,omitempty"`
	Total    codexTokens     `json:"total"`
	// Forked is set for a fork (session_meta forked_from_id) whose first
	// token_count has not been read yet: its total carries the parent's.
	Forked  bool      `json:"forked,omitempty"`
	Created time.Time `json:"created"`
	Last    time.Time `json:"last"`
}

type codexParser struct {
	jsonl.WildScan
	resumed   bool
	rs        codexResumeState
	attrs     map[string]any
	entries   []sessiondb.Entry
	comps     []sessiondb.Compaction
	usage     []sessiondb.Usage
	prompt    string // first user_message text
	firstUser string // first user response item typed by a person
	base      *historyBase
	metaEntry int // entry number of the session_meta line
}

// Parse reads one Codex rollout (see the package doc).
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse codex %s: internal error: %v", u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse codex %s: %w", u.Path, err)
	}
	p := &codexParser{WildScan: jsonl.WildScan{Ctx: ctx, Path: u.Path}, attrs: map[string]any{}}
	if from.Offset > 0 {
		if len(from.State) == 0 || json.Unmarshal(from.State, &p.rs) != nil || p.rs.V != 1 || p.rs.ID == "" {
			return nil, fmt.Errorf("parse codex %s: %w", u.Path, jsonl.ErrNotIncremental)
		}
		p.resumed = true
		p.LineBase = p.rs.Lines
		if len(p.rs.Attrs) > 0 {
			jsonl.RestoreAttrs(p.rs.Attrs, p.attrs)
		}
	}
	f, _, err := jsonl.OpenAt(u.Path, from.Offset)
	if err != nil {
		return nil, fmt.Errorf("parse codex %s: %w", u.Path, err)
	}
	defer f.Close()
	if err := p.Run(f, from.Offset, p.dispatch); err != nil {
		return nil, fmt.Errorf("parse codex %s: %w", u.Path, err)
	}
	if !p.resumed && len(p.entries) == 0 {
		return nil, fmt.Errorf("parse codex %s: %w: no readable line", u.Path, sessiondb.ErrInvalid)
	}
	if !p.resumed {
		p.inherit(0)
	}
	return p.finish(u, from)
}

type codexMeta struct {
	ID            string          `json:"id"`
	SessionID     string          `json:"session_id"`
	Timestamp     string          `json:"timestamp"`
	CWD           string          `json:"cwd"`
	Originator    string          `json:"originator"`
	CLIVersion    string          `json:"cli_version"`
	Source        json.RawMessage `json:"source"`
	ModelProvider string          `json:"model_provider"`
	Git           json.RawMessage `json:"git"`
	ForkedFrom    string          `json:"forked_from_id"`
	ParentThread  string          `json:"parent_thread_id"`
	HistoryBase   *historyBase    `json:"history_base"`
}

// historyBase is where a fork's history starts (session_meta history_base,
// Codex 0.171): the parent thread's rollout up to EndByteOffset. The fork's
// file holds none of those lines.
type historyBase struct {
	ThreadID      string `json:"thread_id"`
	EndByteOffset int64  `json:"end_byte_offset"`
}

func (p *codexParser) meta(m codexMeta, lineNo int) {
	if m.ID == "" {
		p.Problem(lineNo, "session_meta without id")
		return
	}
	if p.rs.ID == "" {
		p.rs.ID = m.ID
	} else if m.ID != p.rs.ID {
		p.Problem(lineNo, "second session_meta with id %s; the session keeps id %s", m.ID, p.rs.ID)
		return
	}
	if t := jsonl.ParseTime(m.Timestamp); !t.IsZero() && p.rs.Created.IsZero() {
		p.rs.Created = t
	}
	for k, v := range map[string]any{"cwd": m.CWD, "originator": m.Originator, "cli_version": m.CLIVersion,
		"source": m.Source, "model_provider": m.ModelProvider, "git": m.Git, "forked_from_id": m.ForkedFrom,
		"parent_thread_id": m.ParentThread} {
		p.attrs[k] = v
	}
	if m.SessionID != "" && m.SessionID != m.ID {
		p.attrs["session_id"] = m.SessionID
	}
	if m.ModelProvider != "" {
		p.rs.Provider = m.ModelProvider
	}
	if m.HistoryBase != nil && m.HistoryBase.ThreadID != "" && p.base == nil {
		p.base, p.metaEntry = m.HistoryBase, len(p.entries)+1
	}
	switch {
	case m.ForkedFrom != "":
		p.rs.Parent = m.ForkedFrom
		if p.rs.Total == (codexTokens{}) {
			p.rs.Forked = true
		}
	case m.ParentThread != "":
		p.rs.Parent = m.ParentThread
	}
}

func (p *codexParser) dispatch(raw []byte, lineNo int) {
	var env struct {
		Timestamp string          `json:"timestamp"`
		Type      string          `json:"type"`
		Payload   json.RawMessage `json:"payload"`
		ID        string          `json:"id"`
		Role      string          `json:"role"`
		Record    json.RawMessage `json:"record_type"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		p.Problem(lineNo, "line has an unexpected shape (%v); kept as data", err)
		env.Type, env.Payload = "", nil
	}
	t := jsonl.ParseTime(env.Timestamp)
	if t.IsZero() {
		t = p.rs.Last
	} else {
		p.rs.Last = t
		if p.rs.Created.IsZero() {
			p.rs.Created = t
		}
	}
	n := len(p.entries) + 1
	e := sessiondb.Entry{Kind: jsonl.EntryKind(Name, env.Type), CreatedAt: t, Body: raw}
	hasPayload := len(env.Payload) > 0 && string(env.Payload) != "null"
	switch {
	case env.Type == "session_meta" && hasPayload:
		var m codexMeta
		if err := json.Unmarshal(env.Payload, &m); err != nil {
			p.Problem(lineNo, "unreadable session_meta payload (%v); kept as data", err)
		} else {
			p.meta(m, lineNo)
		}
	case env.Type == "session_meta" || (env.Type == "" && env.ID != "" && !hasPayload && n == 1 && !p.resumed):
		// Legacy meta: the fields at top level.
		var m codexMeta
		if err := json.Unmarshal(raw, &m); err == nil {
			p.meta(m, lineNo)
		}
		e.Kind = "session_meta"
	case env.Type == "response_item" && hasPayload:
		e.Kind, e.Role = sessiondb.KindMessage, codexRole(env.Payload)
		p.userText(env.Payload)
	case !hasPayload && codexItemTypes[env.Type]:
		// Legacy bare response item.
		e.Kind, e.Role = sessiondb.KindMessage, codexRole(raw)
		p.userText(raw)
	case env.Type == "turn_context" && hasPayload:
		var tc struct {
			Model  string `json:"model"`
			Effort string `json:"effort"`
		}
		if json.Unmarshal(env.Payload, &tc) == nil {
			if tc.Model != "" {
				p.rs.Model = tc.Model
				p.attrs["model"] = tc.Model
			}
			if tc.Effort != "" {
				p.attrs["effort"] = tc.Effort
			}
		}
	case env.Type == "event_msg" && hasPayload:
		p.event(env.Payload, n, t, lineNo)
	case env.Type == "compacted" && hasPayload:
		p.compacted(env.Payload, env.Timestamp, n, t, lineNo)
	case env.Type == "" && len(env.Record) > 0:
		// Filler lines of old rollouts ({"record_type":"state"}), which
		// Codex's own listing tolerates.
		e.Kind = "record"
	case env.Type == "":
		p.Problem(lineNo, "line without a type; kept as data")
	}
	p.entries = append(p.entries, e)
}

// userText remembers the first user message typed by a person (not
// injected context such as <environment_context> or AGENTS.md), the title
// of last resort.
func (p *codexParser) userText(item []byte) {
	if p.firstUser != "" {
		return
	}
	var it struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(item, &it) != nil || it.Type != "message" || it.Role != "user" {
		return
	}
	for _, c := range it.Content {
		if jsonl.TitleOf(c.Text) != "" {
			p.firstUser = c.Text
			return
		}
	}
}

// codexRole returns the role of a response item.
func codexRole(item []byte) string {
	var it struct {
		Type string `json:"type"`
		Role string `json:"role"`
	}
	_ = json.Unmarshal(item, &it)
	switch {
	case it.Role != "":
		return it.Role
	case strings.HasSuffix(it.Type, "_output"):
		return "tool"
	}
	return "assistant"
}

func (p *codexParser) event(payload json.RawMessage, n int, t time.Time, lineNo int) {
	var ev struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Info    *struct {
			Total *codexTokens `json:"total_token_usage"`
			Last  *codexTokens `json:"last_token_usage"`
		} `json:"info"`
	}
	if json.Unmarshal(payload, &ev) != nil {
		return
	}
	switch ev.Type {
	case "user_message":
		if p.prompt == "" && jsonl.TitleOf(ev.Message) != "" {
			p.prompt = ev.Message
		}
	case "token_count":
		if ev.Info == nil || ev.Info.Total == nil {
			return
		}
		tot := *ev.Info.Total
		prev := p.rs.Total
		d := codexTokens{tot.Input - prev.Input, tot.Cached - prev.Cached, tot.Output - prev.Output, tot.Reasoning - prev.Reasoning, tot.Total - prev.Total}
		if p.rs.Forked && tot != (codexTokens{}) {
			// A fork's first total includes every call of the parent, which
			// the parent's session counts: only the fork's own last call is
			// new (ccusage counts the same).
			p.rs.Forked = false
			p.rs.Total = tot
			if ev.Info.Last == nil {
				p.Problem(lineNo, "first token_count of a fork without last_token_usage; the usage it carries from the parent is not counted again")
				return
			}
			d = *ev.Info.Last
		} else if d.Input < 0 || d.Cached < 0 || d.Output < 0 || d.Reasoning < 0 {
			if ev.Info.Last == nil {
				p.Problem(lineNo, "token_count total decreased and no last_token_usage; the count restarts here")
				p.rs.Total = tot
				return
			}
			d = *ev.Info.Last
			p.Problem(lineNo, "token_count total decreased; counted from last_token_usage")
		}
		p.rs.Total = tot
		if d == (codexTokens{}) {
			return // a repeated count
		}
		p.usage = append(p.usage, sessiondb.Usage{
			Seq: int64(n), Provider: p.rs.Provider, Model: p.rs.Model,
			InputTokens: d.Input - d.Cached, CacheReadTokens: d.Cached,
			OutputTokens: d.Output, ReasoningTokens: d.Reasoning, CreatedAt: t,
		})
	}
}

func (p *codexParser) compacted(payload json.RawMessage, ts string, n int, t time.Time, lineNo int) {
	var c struct {
		Message string            `json:"message"`
		History []json.RawMessage `json:"replacement_history"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		p.Problem(lineNo, "unreadable compacted payload (%v); kept as data, no compaction recorded", err)
		return
	}
	tsJSON := jsonl.MustJSON(ts)
	wrap := func(item []byte) sessiondb.Entry {
		var b bytes.Buffer
		b.WriteString(`{"timestamp":`)
		b.Write(tsJSON)
		b.WriteString(`,"type":"response_item","payload":`)
		b.Write(item)
		b.WriteByte('}')
		return sessiondb.Entry{Kind: sessiondb.KindMessage, Role: codexRole(item), CreatedAt: t, Body: b.Bytes(), Summary: true}
	}
	var sum []sessiondb.Entry
	if c.History != nil {
		for _, it := range c.History {
			sum = append(sum, wrap(it))
		}
	} else if c.Message != "" {
		msg := jsonl.MustJSON(map[string]any{"type": "message", "role": "user", "content": []map[string]string{{"type": "input_text", "text": c.Message}}})
		sum = append(sum, wrap(msg))
	}
	p.comps = append(p.comps, sessiondb.Compaction{
		AtSeq: int64(n), KeepFromSeq: int64(n + 1), Summary: sum, CreatedAt: t,
		Details: jsonl.MustJSON(map[string]any{"source": "codex compacted", "line": lineNo}),
	})
}

// maxForkDepth bounds the chain of parents read for one fork's history (a
// fork of a fork of …), and so a cycle of history_base references.
const maxForkDepth = 16

// inherit gives a fork whose file starts from a parent's history
// (history_base) that history: the parent's effective response items at
// history_base's byte offset, as the summary of a compaction at the
// session_meta line that keeps every entry of the fork's own file. Codex
// resumes such a fork with that history (it reads the parent's rollout up
// to the offset). depth counts the forks already followed.
func (p *codexParser) inherit(depth int) {
	b := p.base
	if b == nil {
		return
	}
	if depth >= maxForkDepth {
		p.Problem(0, "fork of thread %s: more than %d forks in a chain; the transcript holds the fork's own items only", b.ThreadID, maxForkDepth)
		return
	}
	parent := findRollout(p.Path, b.ThreadID)
	if parent == "" {
		p.Problem(0, "fork of thread %s: its rollout is not beside this one; the transcript holds the fork's own items only", b.ThreadID)
		return
	}
	items, err := historyAt(p.Ctx, parent, b.EndByteOffset, depth+1)
	if err != nil {
		p.Problem(0, "fork of thread %s: %v; the transcript holds the fork's own items only", b.ThreadID, err)
		return
	}
	sum := make([]sessiondb.Entry, len(items))
	for i, e := range items {
		e.Seq, e.Summary = 0, true
		sum[i] = e
	}
	c := sessiondb.Compaction{
		AtSeq: int64(p.metaEntry), KeepFromSeq: 1, Summary: sum, CreatedAt: p.rs.Created,
		Details: jsonl.MustJSON(map[string]any{"source": "codex fork", "parent": b.ThreadID, "parent_bytes": b.EndByteOffset}),
	}
	p.comps = append([]sessiondb.Compaction{c}, p.comps...)
}

// historyAt reads the first end bytes of the rollout at path and returns
// its effective response items there: after its last compaction, that
// compaction's summary and the items it keeps; a fork's inherited history
// included.
func historyAt(ctx context.Context, path string, end int64, depth int) ([]sessiondb.Entry, error) {
	f, err := jsonl.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if fi.Size() < end {
		return nil, fmt.Errorf("%s has %d bytes, fewer than the %d the fork continues", path, fi.Size(), end)
	}
	q := &codexParser{WildScan: jsonl.WildScan{Ctx: ctx, Path: path}, attrs: map[string]any{}}
	if err := q.Run(io.LimitReader(f, end), 0, q.dispatch); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	q.inherit(depth)
	var out []sessiondb.Entry
	start := 0
	if n := len(q.comps); n > 0 {
		c := q.comps[n-1]
		out = append(out, c.Summary...)
		start = min(max(int(c.KeepFromSeq)-1, 0), len(q.entries))
	}
	for _, e := range q.entries[start:] {
		if e.Kind == sessiondb.KindMessage {
			out = append(out, e)
		}
	}
	return out, nil
}

// findRollout returns the rollout of thread id: in the folder of the
// rollout at path, else in the Codex home holding it (path under
// sessions/YYYY/MM/DD or archived_sessions, where Codex 0.171 archives
// rollouts flat); "" when there is none. Only regular files count: a
// symbolic link in an archive someone sent could lead to one of the user's
// own rollouts, which must not become part of that archive's session (the
// walk skips such links for the same reason).
func findRollout(path, id string) string {
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == '-') {
			return "" // not a thread id; nothing to glob for
		}
	}
	name := "rollout-*-" + id + ".jsonl"
	pats := []string{filepath.Join(filepath.Dir(path), name)}
	home := ""
	if filepath.Base(filepath.Dir(path)) == "archived_sessions" {
		home = filepath.Dir(filepath.Dir(path))
	} else {
		d := filepath.Dir(path)
		for range 3 {
			d = filepath.Dir(d)
		}
		if b := filepath.Base(d); b == "sessions" || b == "archived_sessions" {
			home = filepath.Dir(d)
		}
	}
	if home != "" {
		pats = append(pats,
			filepath.Join(home, "sessions", "*", "*", "*", name),
			filepath.Join(home, "archived_sessions", name),
			filepath.Join(home, "archived_sessions", "*", "*", "*", name))
	}
	for _, pat := range pats {
		matches, _ := filepath.Glob(pat)
		for _, m := range matches {
			if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() {
				return m
			}
		}
	}
	return ""
}

func (p *codexParser) finish(u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	base := int64(from.Entries)
	out := &jsonl.Parsed{Unit: u, Offset: p.Offset}
	for i := range p.entries {
		if p.entries[i].CreatedAt.IsZero() {
			p.entries[i].CreatedAt = p.rs.Created
		}
	}
	out.Entries = p.entries
	for _, c := range p.comps {
		c.AtSeq += base
		c.KeepFromSeq += base
		out.Compactions = append(out.Compactions, c)
	}
	for _, us := range p.usage {
		us.Seq += base
		out.Usage = append(out.Usage, us)
	}
	jsonl.EstimateCosts(out.Usage)
	if p.rs.ID == "" {
		id := strings.TrimSuffix(filepath.Base(u.Path), ".jsonl")
		if len(id) > 36 && strings.HasPrefix(id, "rollout-") {
			id = id[len(id)-36:]
		}
		p.rs.ID = id
		p.Problem(0, "no session_meta with an id; the session ID %q is taken from the file name", id)
	}
	switch {
	case p.rs.Title != "":
	case p.prompt != "":
		p.rs.Title = jsonl.TitleOf(p.prompt)
	case p.firstUser != "":
		p.rs.Title = jsonl.TitleOf(p.firstUser)
	}
	title := p.rs.Title
	for _, x := range u.Extra {
		if name := codexThreadName(x, p.rs.ID); name != "" {
			title = name
		}
	}
	attrs := jsonl.MergeAttrs(p.attrs)
	p.rs.Attrs, p.rs.Lines = attrs, p.Lines
	out.Session = sessiondb.Session{ID: p.rs.ID, Title: title, Attrs: attrs, ParentID: p.rs.Parent,
		CreatedAt: p.rs.Created, UpdatedAt: p.rs.Last}
	if out.Session.UpdatedAt.Before(out.Session.CreatedAt) {
		out.Session.UpdatedAt = out.Session.CreatedAt
	}
	out.Problems = p.Problems
	p.rs.V = 1
	out.ResumeState = jsonl.MustJSON(p.rs)
	return out, nil
}

// codexThreadName returns the last thread_name session_index.jsonl gives id.
func codexThreadName(index, id string) string {
	f, err := jsonl.Open(index)
	if err != nil {
		return ""
	}
	defer f.Close()
	name := ""
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if bytes.Contains(line, []byte(id)) {
			var row struct {
				ID   string `json:"id"`
				Name string `json:"thread_name"`
			}
			if json.Unmarshal(line, &row) == nil && row.ID == id && row.Name != "" {
				name = row.Name
			}
		}
		if err == io.EOF || err != nil {
			return name
		}
	}
}
