package copilot

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Name names the GitHub Copilot CLI session-event format.
const Name = "copilot-cli"

// Format reads GitHub Copilot CLI's events.jsonl files and writes them
// back (export.go).
type Format struct{}

var _ jsonl.Format = Format{}

// Name returns Name.
func (Format) Name() string { return Name }

// EventsName is the name of a session's event log in its folder.
const EventsName = "events.jsonl"

// WorkspaceName is the name of the session's summary file beside its
// event log (id, cwd, name, summary, times), read with it for the title.
const WorkspaceName = "workspace.yaml"

// Claim takes .jsonl files whose first line is a Copilot CLI session.start
// event (type "session.start", an id, a timestamp, and data with a
// sessionId), never a file by its path alone; the workspace.yaml beside
// such a file is read with it.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	taken := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, ".jsonl") && Sniff(f) {
			u := jsonl.Unit{Format: Name, Path: f}
			if ws := filepath.Join(filepath.Dir(f), WorkspaceName); regular(ws) && filepath.Base(f) == EventsName {
				u.Extra = []string{ws}
				taken[ws] = true
			}
			units = append(units, u)
		}
	}
	for _, f := range files {
		if !taken[f] && !claimed(units, f) {
			rest = append(rest, f)
		}
	}
	return units, rest
}

// Reclaim implements jsonl.Reclaimer: an events file's claim rests on its
// first line; its workspace.yaml is listed as Claim lists it.
func (Format) Reclaim(path string) (jsonl.Unit, bool) {
	if !strings.HasSuffix(path, ".jsonl") {
		return jsonl.Unit{}, false
	}
	u := jsonl.Unit{Format: Name, Path: path}
	if ws := filepath.Join(filepath.Dir(path), WorkspaceName); regular(ws) && filepath.Base(path) == EventsName {
		u.Extra = []string{ws}
	}
	return u, true
}

func claimed(units []jsonl.Unit, f string) bool {
	for _, u := range units {
		if u.Path == f {
			return true
		}
	}
	return false
}

func regular(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

// Sniff reports whether the first object of path is a Copilot CLI
// session.start event.
func Sniff(path string) bool {
	objs := jsonl.FirstObjects(path, 1)
	if len(objs) == 0 {
		return false
	}
	m := objs[0]
	if jsonl.RawString(m, "type") != "session.start" || jsonl.RawString(m, "id") == "" {
		return false
	}
	if _, ok := m["timestamp"]; !ok {
		return false
	}
	var d struct {
		SessionID string `json:"sessionId"`
	}
	return json.Unmarshal(m["data"], &d) == nil && d.SessionID != ""
}

// tokens is a usage record's or a shutdown's token counts.
type tokens struct {
	Input      int64 `json:"inputTokens"`
	Output     int64 `json:"outputTokens"`
	CacheRead  int64 `json:"cacheReadTokens"`
	CacheWrite int64 `json:"cacheWriteTokens"`
	Reasoning  int64 `json:"reasoningTokens"`
}

func (t tokens) minus(o tokens) tokens {
	return tokens{t.Input - o.Input, t.Output - o.Output, t.CacheRead - o.CacheRead, t.CacheWrite - o.CacheWrite, t.Reasoning - o.Reasoning}
}

func (t tokens) negative() bool {
	return t.Input < 0 || t.Output < 0 || t.CacheRead < 0 || t.CacheWrite < 0 || t.Reasoning < 0
}

// resumeState is Parsed.ResumeState: what a read of the file so far knew.
type resumeState struct {
	V       int             `json:"v"`
	ID      string          `json:"id"`
	Lines   int             `json:"lines"`
	Attrs   json.RawMessage `json:"attrs,omitempty"`
	Prompt  string          `json:"prompt,omitempty"`
	Model   string          `json:"model,omitempty"`
	Records bool            `json:"records,omitempty"` // a session.usage_record was read
	// Totals are the per-model totals of the last session.shutdown read,
	// counted from when the file has no usage records.
	Totals  map[string]tokens `json:"totals,omitempty"`
	Created time.Time         `json:"created"`
	Last    time.Time         `json:"last"`
	// Start is the entry number of a compaction_start not completed yet.
	Start int `json:"start,omitempty"`
}

type parser struct {
	jsonl.WildScan
	resumed bool
	rs      resumeState
	attrs   map[string]any
	entries []sessiondb.Entry
	comps   []sessiondb.Compaction
	usage   []sessiondb.Usage
	base    int // entries imported before this read
}

// Parse reads one events.jsonl (see the package doc). Copilot CLI only
// appends to it, so a file that grew is read from where the last import
// stopped.
func (Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (parsed *jsonl.Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			parsed, err = nil, fmt.Errorf("parse %s %s: internal error: %v", Name, u.Path, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	p := &parser{WildScan: jsonl.WildScan{Ctx: ctx, Path: u.Path}, attrs: map[string]any{}}
	if from.Offset > 0 {
		if len(from.State) == 0 || json.Unmarshal(from.State, &p.rs) != nil || p.rs.V != 1 || p.rs.ID == "" {
			return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, jsonl.ErrNotIncremental)
		}
		p.resumed, p.base = true, from.Entries
		p.LineBase = p.rs.Lines
		if len(p.rs.Attrs) > 0 {
			jsonl.RestoreAttrs(p.rs.Attrs, p.attrs)
		}
	}
	f, _, err := jsonl.OpenAt(u.Path, from.Offset)
	if err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	defer f.Close()
	if err := p.Run(f, from.Offset, p.dispatch); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", Name, u.Path, err)
	}
	if !p.resumed && len(p.entries) == 0 {
		if p.Offset == 0 && len(p.Problems) == 0 {
			return nil, fmt.Errorf("%w: empty file", jsonl.ErrNoConversation)
		}
		return nil, fmt.Errorf("parse %s %s: %w: no readable line", Name, u.Path, sessiondb.ErrInvalid)
	}
	return p.finish(u), nil
}

// event is the envelope of every line.
type event struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	ParentID  *string         `json:"parentId"`
	Ephemeral bool            `json:"ephemeral"`
	AgentID   string          `json:"agentId"`
}

// Kinds of the entries that are not messages: the event type itself
// (jsonl.EntryKind), e.g. "session.start", "assistant.turn_start".

func (p *parser) dispatch(raw []byte, lineNo int) {
	var ev event
	if err := json.Unmarshal(raw, &ev); err != nil {
		p.Problem(lineNo, "line has an unexpected shape (%v); kept as data", err)
		ev = event{}
	}
	t := jsonl.ParseTime(ev.Timestamp)
	if t.IsZero() {
		t = p.rs.Last
	} else {
		if t.After(p.rs.Last) {
			p.rs.Last = t
		}
		if p.rs.Created.IsZero() {
			p.rs.Created = t
		}
	}
	n := p.base + len(p.entries) + 1
	e := sessiondb.Entry{Kind: jsonl.EntryKind(Name, ev.Type), Role: ev.Type, CreatedAt: t, Body: raw}
	hasData := len(ev.Data) > 0 && string(ev.Data) != "null"
	switch {
	case ev.Type == "":
		p.Problem(lineNo, "event without a type; kept as data")
	case !hasData:
		p.Problem(lineNo, "%s event without data; kept as data", ev.Type)
	case ev.Type == "session.start" || ev.Type == "session.resume":
		p.start(ev, lineNo)
	case ev.Type == "user.message":
		e.Kind, e.Role = sessiondb.KindMessage, "user"
		p.user(ev.Data)
	case ev.Type == "assistant.message":
		e.Kind, e.Role = sessiondb.KindMessage, "assistant"
		var d struct {
			Model  string `json:"model"`
			Parent string `json:"parentToolCallId"`
		}
		// A sub-agent's answer names its own model, not the session's.
		if json.Unmarshal(ev.Data, &d) == nil && d.Model != "" && d.Parent == "" && ev.AgentID == "" {
			p.rs.Model = d.Model
			p.attrs["model"] = d.Model
		}
	case ev.Type == "tool.execution_complete":
		e.Kind, e.Role = sessiondb.KindMessage, "tool"
	case ev.Type == "system.message":
		e.Kind, e.Role = sessiondb.KindMessage, "system"
	case ev.Type == "session.model_change":
		var d struct {
			New string `json:"newModel"`
		}
		if json.Unmarshal(ev.Data, &d) == nil && d.New != "" {
			p.rs.Model = d.New
			p.attrs["model"] = d.New
		}
	case ev.Type == "session.usage_record":
		p.record(ev.Data, n, t, lineNo)
	case ev.Type == "session.shutdown":
		p.shutdown(ev.Data, n, t, lineNo)
	case ev.Type == "session.compaction_start":
		p.rs.Start = n
	case ev.Type == "session.compaction_complete":
		p.compaction(ev, n, t, lineNo)
	}
	p.entries = append(p.entries, e)
}

// start reads session.start and session.resume: the session ID (the
// start's), versions, model and working directory.
func (p *parser) start(ev event, lineNo int) {
	var d struct {
		SessionID      string `json:"sessionId"`
		Version        *int   `json:"version"`
		Producer       string `json:"producer"`
		CopilotVersion string `json:"copilotVersion"`
		SelectedModel  string `json:"selectedModel"`
		Reasoning      string `json:"reasoningEffort"`
		Context        *struct {
			CWD        string `json:"cwd"`
			GitRoot    string `json:"gitRoot"`
			Repository string `json:"repository"`
			Branch     string `json:"branch"`
		} `json:"context"`
	}
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		p.Problem(lineNo, "unreadable %s data (%v); kept as data", ev.Type, err)
		return
	}
	if ev.Type == "session.start" {
		switch {
		case d.SessionID == "":
			p.Problem(lineNo, "session.start without a sessionId")
		case p.rs.ID == "":
			if err := sessiondb.ValidateID(d.SessionID); err != nil {
				p.Problem(lineNo, "sessionId %.80q is not a valid session ID (%v); ignored", d.SessionID, err)
			} else {
				p.rs.ID = d.SessionID
			}
		case d.SessionID != p.rs.ID:
			p.Problem(lineNo, "second session.start with sessionId %.80q; the session keeps id %s", d.SessionID, p.rs.ID)
		}
		if d.Version != nil {
			p.attrs["eventsVersion"] = *d.Version
		}
		if d.Producer != "" {
			p.attrs["producer"] = d.Producer
		}
		if d.CopilotVersion != "" {
			p.attrs["copilotVersion"] = d.CopilotVersion
		}
	}
	if d.SelectedModel != "" {
		p.rs.Model = d.SelectedModel
		p.attrs["model"] = d.SelectedModel
	}
	if d.Reasoning != "" {
		p.attrs["reasoningEffort"] = d.Reasoning
	}
	if c := d.Context; c != nil {
		for k, v := range map[string]string{"cwd": c.CWD, "gitRoot": c.GitRoot, "repository": c.Repository, "branch": c.Branch} {
			if v != "" {
				p.attrs[k] = v
			}
		}
	}
}

// user remembers the first prompt a person typed (not one a skill or
// autopilot injected), the title of last resort.
func (p *parser) user(data json.RawMessage) {
	if p.rs.Prompt != "" {
		return
	}
	var d struct {
		Content  string `json:"content"`
		Source   string `json:"source"`
		Autopilt bool   `json:"isAutopilotContinuation"`
	}
	if json.Unmarshal(data, &d) != nil || (d.Source != "" && d.Source != "user") || d.Autopilt {
		return
	}
	if jsonl.TitleOf(d.Content) != "" {
		p.rs.Prompt = d.Content
	}
}

// record reads a session.usage_record: one model call's tokens, written
// as the call ends (1.0.102; earlier versions kept them in the ephemeral
// assistant.usage event, never written, and only the shutdown's totals).
func (p *parser) record(data json.RawMessage, n int, t time.Time, lineNo int) {
	var d struct {
		Usage *struct {
			tokens
			Model string `json:"model"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &d); err != nil || d.Usage == nil {
		p.Problem(lineNo, "session.usage_record without a readable usage; not counted")
		return
	}
	p.rs.Records = true
	model := d.Usage.Model
	if model == "" {
		model = p.rs.Model
	}
	p.add(d.Usage.tokens, model, n, t)
}

func (p *parser) add(tk tokens, model string, n int, t time.Time) {
	if tk == (tokens{}) {
		return
	}
	// Copilot's inputTokens are the prompt's, cached tokens included
	// (the OpenAI-style prompt_tokens its provider reported).
	in := max(tk.Input-tk.CacheRead-tk.CacheWrite, 0)
	p.usage = append(p.usage, sessiondb.Usage{
		Seq: int64(n), Model: model, InputTokens: in, OutputTokens: tk.Output,
		CacheReadTokens: tk.CacheRead, CacheWriteTokens: tk.CacheWrite, ReasoningTokens: tk.Reasoning, CreatedAt: t,
	})
}

// shutdown reads a session.shutdown: its per-model totals (cumulative over
// the session's runs) are counted, as the growth since the previous
// shutdown, only when the file has no usage records.
func (p *parser) shutdown(data json.RawMessage, n int, t time.Time, lineNo int) {
	type metric struct {
		Usage tokens `json:"usage"`
	}
	var d struct {
		ModelMetrics map[string]metric `json:"modelMetrics"`
		Snapshot     *struct {
			ModelMetrics map[string]metric `json:"modelMetrics"`
		} `json:"accountingSnapshot"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		p.Problem(lineNo, "unreadable session.shutdown data (%v); its totals are not counted", err)
		return
	}
	mm := d.ModelMetrics
	if len(mm) == 0 && d.Snapshot != nil {
		mm = d.Snapshot.ModelMetrics
	}
	if len(mm) == 0 {
		return
	}
	prev := p.rs.Totals
	p.rs.Totals = map[string]tokens{}
	for model, m := range mm {
		p.rs.Totals[model] = m.Usage
	}
	if p.rs.Records {
		return
	}
	for _, model := range sortedKeys(mm) {
		delta := mm[model].Usage.minus(prev[model])
		if delta.negative() {
			p.Problem(lineNo, "session.shutdown totals of %s decreased; counted whole", model)
			delta = mm[model].Usage
		}
		p.add(delta, model, n, t)
	}
}

// compaction reads a successful session.compaction_complete: its summary
// replaces what came before the matching compaction_start.
func (p *parser) compaction(ev event, n int, t time.Time, lineNo int) {
	var d struct {
		Success bool   `json:"success"`
		Summary string `json:"summaryContent"`
		Pre     int64  `json:"preCompactionTokens"`
		Post    int64  `json:"postCompactionTokens"`
	}
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		p.Problem(lineNo, "unreadable session.compaction_complete data (%v); no compaction recorded", err)
		return
	}
	start := p.rs.Start
	p.rs.Start = 0
	if !d.Success || d.Summary == "" {
		return
	}
	keep := n + 1
	if start > 0 {
		keep = start + 1
	}
	body := jsonl.MustJSON(map[string]any{"type": "user.message", "id": ev.ID + "-summary", "timestamp": ev.Timestamp,
		"parentId": nil, "data": map[string]any{"content": d.Summary, "source": "compaction"}})
	p.comps = append(p.comps, sessiondb.Compaction{
		AtSeq: int64(n), KeepFromSeq: int64(keep), TokensBefore: d.Pre, TokensAfter: d.Post, CreatedAt: t,
		Summary: []sessiondb.Entry{{Kind: sessiondb.KindMessage, Role: "user", CreatedAt: t, Body: body, Summary: true}},
		Details: jsonl.MustJSON(map[string]any{"source": "copilot compaction_complete", "line": lineNo}),
	})
}

func (p *parser) finish(u jsonl.Unit) *jsonl.Parsed {
	out := &jsonl.Parsed{Unit: u, Offset: p.Offset, Entries: p.entries, Compactions: p.comps, Usage: p.usage}
	for i := range out.Entries {
		if out.Entries[i].CreatedAt.IsZero() {
			out.Entries[i].CreatedAt = p.rs.Created
		}
	}
	jsonl.EstimateCosts(out.Usage)
	if p.rs.ID == "" {
		id := filepath.Base(filepath.Dir(u.Path))
		if sessiondb.ValidateID(id) != nil {
			id = strings.TrimSuffix(filepath.Base(u.Path), ".jsonl")
		}
		p.rs.ID = id
		p.Problem(0, "no session.start with a sessionId; the session ID %q is taken from the path", id)
	}
	title := jsonl.TitleOf(p.rs.Prompt)
	for _, x := range u.Extra {
		if t := workspaceTitle(x); t != "" {
			title = t
		}
	}
	attrs := jsonl.MergeAttrs(p.attrs)
	p.rs.Attrs, p.rs.Lines = attrs, p.Lines
	out.Session = sessiondb.Session{ID: p.rs.ID, Title: title, Attrs: attrs, CreatedAt: p.rs.Created, UpdatedAt: p.rs.Last}
	if out.Session.UpdatedAt.Before(out.Session.CreatedAt) {
		out.Session.UpdatedAt = out.Session.CreatedAt
	}
	out.Problems = p.Problems
	p.rs.V = 1
	out.ResumeState = jsonl.MustJSON(p.rs)
	return out
}

// workspaceTitle is the title workspace.yaml gives: the name the user gave
// the session (user_named: true), else the summary Copilot wrote; "" when
// it gives neither (the name Copilot takes from the first prompt is that
// prompt, which the events give already).
func workspaceTitle(path string) string {
	f, err := jsonl.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	kv := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.HasPrefix(k, " ") || strings.HasPrefix(k, "#") {
			continue
		}
		kv[k] = yamlScalar(strings.TrimSpace(v))
	}
	if kv["user_named"] == "true" && kv["name"] != "" {
		return jsonl.TitleOf(kv["name"])
	}
	return jsonl.TitleOf(kv["summary"])
}

// yamlScalar unquotes a flat YAML scalar ("…" with JSON-like escapes,
// '…' with ” for a quote); a block scalar (| or >) reads as "".
func yamlScalar(v string) string {
	switch {
	case strings.HasPrefix(v, `"`):
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			return s
		}
		return strings.Trim(v, `"`)
	case strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2:
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	case v == "|" || v == ">" || strings.HasPrefix(v, "|-") || strings.HasPrefix(v, ">-"):
		return ""
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
