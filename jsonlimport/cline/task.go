package cline

// One task directory read: its API history, its UI messages, its
// metadata, its entry in the task index.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// task is one task directory as read.
type task struct {
	id       string
	api      *array // nil when the primary file is the UI's
	ui       *array // nil when there is none
	uiPath   string
	meta     []byte // task_metadata.json, as read (nil: none)
	item     []byte // history_item.json, as read
	hist     *historyItem
	problems []jsonl.Problem
	// uiMsgs are the UI messages decoded (same order as ui.Elems).
	uiMsgs []uiMessage
}

// uiMessage is what the reader reads of a UI message (ClineMessage).
type uiMessage struct {
	TS                     json.Number     `json:"ts"`
	Type                   string          `json:"type"`
	Say                    string          `json:"say"`
	Ask                    string          `json:"ask"`
	Text                   *string         `json:"text"`
	Partial                bool            `json:"partial"`
	ConversationHistoryIdx *json.Number    `json:"conversationHistoryIndex"`
	DeletedRange           []json.Number   `json:"conversationHistoryDeletedRange"`
	ModelInfo              json.RawMessage `json:"modelInfo"`
}

// historyItem is what the reader reads of a task's entry in the index
// (HistoryItem).
type historyItem struct {
	ID           string          `json:"id"`
	TS           json.Number     `json:"ts"`
	Task         string          `json:"task"`
	TokensIn     json.Number     `json:"tokensIn"`
	TokensOut    json.Number     `json:"tokensOut"`
	CacheWrites  json.Number     `json:"cacheWrites"`
	CacheReads   json.Number     `json:"cacheReads"`
	TotalCost    json.Number     `json:"totalCost"`
	CWD          string          `json:"cwdOnTaskInitialization"`
	Workspace    string          `json:"workspace"` // Roo Code
	ModelID      string          `json:"modelId"`
	Mode         string          `json:"mode"` // Roo Code
	DeletedRange []json.Number   `json:"conversationHistoryDeletedRange"`
	Raw          json.RawMessage `json:"-"`
}

// readTask reads the unit's files.
func readTask(ctx context.Context, u jsonl.Unit) (*task, error) {
	t := &task{id: taskID(u.Path)}
	problem := func(path string) func(int, string, ...any) {
		return func(line int, format string, args ...any) {
			t.problems = append(t.problems, jsonl.Problem{Path: path, Line: line, Reason: fmt.Sprintf(format, args...)})
		}
	}
	prim, err := readArray(ctx, u.Path, problem(u.Path))
	if err != nil {
		return nil, err
	}
	if isUIFile(u.Path) {
		t.ui, t.uiPath = prim, u.Path
	} else {
		t.api = prim
	}
	for _, x := range u.Extra {
		switch filepath.Base(x) {
		case UIFile, OldUIFile:
			if t.ui != nil {
				continue
			}
			a, err := readArray(ctx, x, problem(x))
			if err != nil {
				t.problems = append(t.problems, jsonl.Problem{Path: x, Reason: fmt.Sprintf("unreadable (%v); the task is read without its UI messages (times, usage)", err)})
				continue
			}
			t.ui, t.uiPath = a, x
		case MetadataFile:
			t.meta = readObject(x, &t.problems)
		case HistoryFile:
			t.item = readObject(x, &t.problems)
			if t.item != nil {
				var h historyItem
				if json.Unmarshal(t.item, &h) == nil {
					h.Raw = t.item
					t.hist = &h
				}
			}
		case "taskHistory.json":
			if t.hist == nil {
				t.hist = indexEntry(x, t.id, &t.problems)
			}
		}
	}
	if t.ui != nil {
		for i, e := range t.ui.Elems {
			var m uiMessage
			dec := json.NewDecoder(bytes.NewReader(e))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				t.problems = append(t.problems, jsonl.Problem{Path: t.uiPath, Reason: fmt.Sprintf("UI message %d is not a message object (%v); kept, without a time", i+1, err)})
			}
			t.uiMsgs = append(t.uiMsgs, m)
		}
	}
	return t, nil
}

// readObject reads a small JSON object file whole: its bytes, nil (with a
// problem) when it is not one JSON object.
func readObject(path string, problems *[]jsonl.Problem) []byte {
	f, err := jsonl.Open(path)
	if err != nil {
		*problems = append(*problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf("unreadable (%v); ignored", err)})
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize))
	var obj map[string]json.RawMessage
	if err != nil || json.Unmarshal(data, &obj) != nil {
		*problems = append(*problems, jsonl.Problem{Path: path, Reason: "not a JSON object; ignored"})
		return nil
	}
	return jsonl.ValidUTF8(data)
}

// indexEntry returns the entry of task id in the task index at path (nil
// when it has none: Cline's index loses tasks that are still on disk).
func indexEntry(path, id string, problems *[]jsonl.Problem) *historyItem {
	data, err := os.ReadFile(path)
	if err != nil {
		*problems = append(*problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf("unreadable (%v); the task is read without its index entry", err)})
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		*problems = append(*problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf("not a JSON array (%v); the task is read without its index entry", err)})
		return nil
	}
	for _, raw := range items {
		var h historyItem
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if dec.Decode(&h) == nil && h.ID == id {
			h.Raw = raw
			return &h
		}
	}
	return nil
}

// msTime converts a JavaScript millisecond time.
func msTime(n json.Number) time.Time {
	ms, err := n.Int64()
	if err != nil || ms <= 0 {
		f, ferr := n.Float64()
		if ferr != nil || f <= 0 {
			return time.Time{}
		}
		ms = int64(f)
	}
	return time.UnixMilli(ms).UTC()
}

// parsed builds the Parsed of the task.
func (t *task) parsed(u jsonl.Unit) (*jsonl.Parsed, error) {
	out := &jsonl.Parsed{Unit: u, Problems: t.problems}
	st, err := os.Stat(u.Path)
	if err != nil {
		return nil, err
	}
	// The offset consumed is the file less its closing bracket: a task
	// that went on rewrites the file with the same bytes up to there, so
	// the importer reads it again and keeps the entries it imported
	// (jsonl.ErrNotIncremental).
	out.Offset = st.Size()
	if prim := t.primary(); prim != nil && !prim.Damaged {
		if i := bytes.LastIndexByte(prim.Raw, ']'); i > 0 {
			out.Offset = int64(i)
		}
	}
	var first, last time.Time
	for _, m := range t.uiMsgs {
		if tm := msTime(m.TS); !tm.IsZero() {
			if first.IsZero() || tm.Before(first) {
				first = tm
			}
			if tm.After(last) {
				last = tm
			}
		}
	}
	if t.hist != nil {
		if tm := msTime(t.hist.TS); !tm.IsZero() {
			if first.IsZero() {
				first = tm
			}
			if tm.After(last) {
				last = tm
			}
		}
	}
	if t.api != nil {
		out.Entries = t.apiEntries(first)
	} else {
		out.Entries = t.uiEntries()
	}
	for _, e := range out.Entries {
		if first.IsZero() || (!e.CreatedAt.IsZero() && e.CreatedAt.Before(first)) {
			first = e.CreatedAt
		}
		if e.CreatedAt.After(last) {
			last = e.CreatedAt
		}
	}
	if first.IsZero() {
		first = st.ModTime().UTC()
	}
	if last.Before(first) {
		last = first
	}
	for i := range out.Entries {
		if out.Entries[i].CreatedAt.IsZero() {
			out.Entries[i].CreatedAt = first
		}
	}
	if len(out.Entries) == 0 {
		return nil, fmt.Errorf("%w: no message yet", jsonl.ErrNoConversation)
	}
	out.Usage = t.usage(out.Entries, first)
	if c, ok := t.compaction(len(out.Entries), out.Entries); ok {
		out.Compactions = append(out.Compactions, c)
	}
	out.State = t.state()
	model, provider := t.model()
	attrs := map[string]any{
		"model":     model,
		"provider":  provider,
		"extension": Extension(u.Path, t.item != nil),
	}
	if t.hist != nil {
		attrs["cwd"] = jsonl.OrString(t.hist.CWD, t.hist.Workspace)
		attrs["mode"] = t.hist.Mode
	}
	if t.api == nil {
		attrs["api_history"] = "missing"
	}
	out.Session = sessiondb.Session{ID: t.id, Title: t.title(out.Entries), Attrs: jsonl.MergeAttrs(attrs), CreatedAt: first, UpdatedAt: last}
	return out, nil
}

// primary is the unit's primary file as read.
func (t *task) primary() *array {
	if t.api != nil {
		return t.api
	}
	return t.ui
}

// apiEntries are the API history's messages, timed by the UI messages
// (see the package doc).
func (t *task) apiEntries(start time.Time) []sessiondb.Entry {
	// at[i] is the time of the last UI message written before the
	// history held message i (its conversationHistoryIndex, the index of
	// the history's last message then, is below i): once message i is
	// written no other such message comes, so the time does not move as
	// the task goes on.
	at := make([]time.Time, len(t.api.Elems))
	for _, m := range t.uiMsgs {
		if m.ConversationHistoryIdx == nil {
			continue
		}
		idx, err := m.ConversationHistoryIdx.Int64()
		tm := msTime(m.TS)
		if err != nil || tm.IsZero() {
			continue
		}
		for i := max(idx+1, 0); i < int64(len(at)); i++ {
			if tm.After(at[i]) {
				at[i] = tm
			}
		}
	}
	prev := start
	out := make([]sessiondb.Entry, 0, len(t.api.Elems))
	for i, body := range t.api.Elems {
		var m struct {
			Role string      `json:"role"`
			Type string      `json:"type"`
			TS   json.Number `json:"ts"`
		}
		_ = json.Unmarshal(body, &m)
		tm := msTime(m.TS)
		if tm.IsZero() {
			tm = at[i]
		}
		if tm.IsZero() || tm.Before(prev) {
			tm = prev
		}
		prev = tm
		kind, role := sessiondb.KindMessage, m.Role
		if role == "" {
			// Roo Code keeps OpenAI reasoning items ({"type":
			// "reasoning"}) in the history.
			kind, role = jsonl.EntryKind(Name, m.Type), m.Type
		}
		out = append(out, sessiondb.Entry{Kind: kind, Role: role, CreatedAt: tm, Body: body})
	}
	return out
}

// uiEntries are the UI messages, for a task without API history.
func (t *task) uiEntries() []sessiondb.Entry {
	out := make([]sessiondb.Entry, 0, len(t.ui.Elems))
	for i, body := range t.ui.Elems {
		m := t.uiMsgs[i]
		role := jsonl.OrString(m.Say, m.Ask)
		if r := uiMessageOf(jsonl.DecodeObject(body)); !r.Bookkeeping {
			role = r.Role
		}
		out = append(out, sessiondb.Entry{Kind: KindUI, Role: role, CreatedAt: msTime(m.TS), Body: body})
	}
	return out
}

// taskTag matches the <task> block of the first API message.
var taskTag = regexp.MustCompile(`(?s)<task>\s*(.*?)\s*</task>`)

// title is the task's text: its "task" UI message, else its index entry's
// task, else the <task> block of its first API message.
func (t *task) title(entries []sessiondb.Entry) string {
	for _, m := range t.uiMsgs {
		if m.Type == "say" && m.Say == "task" && m.Text != nil {
			if s := jsonl.TitleOf(*m.Text); s != "" {
				return s
			}
		}
	}
	if t.hist != nil {
		if s := jsonl.TitleOf(t.hist.Task); s != "" {
			return s
		}
	}
	if t.api == nil {
		// A task whose first UI message is not its "task" (seen in the
		// wild): the first text the user or the model wrote.
		for _, m := range t.uiMsgs {
			if m.Type == "say" && (m.Say == "text" || m.Say == "user_feedback") && m.Text != nil {
				if s := jsonl.TitleOf(*m.Text); s != "" {
					return s
				}
			}
		}
	}
	if t.api != nil && len(entries) > 0 {
		msg := jsonl.ReadMessage(Format{}, entries[0])
		if sm := taskTag.FindStringSubmatch(msg.Text); sm != nil {
			return jsonl.TitleOf(sm[1])
		}
		return jsonl.TitleOf(msg.Text)
	}
	return ""
}

// model returns the task's model and provider: the last of the
// metadata's model_usage, else the last UI message's modelInfo, else the
// index entry's modelId.
func (t *task) model() (model, provider string) {
	if t.meta != nil {
		var md struct {
			ModelUsage []struct {
				ModelID    string `json:"model_id"`
				ProviderID string `json:"model_provider_id"`
			} `json:"model_usage"`
		}
		if json.Unmarshal(t.meta, &md) == nil && len(md.ModelUsage) > 0 {
			last := md.ModelUsage[len(md.ModelUsage)-1]
			return last.ModelID, last.ProviderID
		}
	}
	for i := len(t.uiMsgs) - 1; i >= 0; i-- {
		if mi := modelInfo(t.uiMsgs[i].ModelInfo); mi.ModelID != "" {
			return mi.ModelID, mi.ProviderID
		}
	}
	if t.hist != nil {
		return t.hist.ModelID, ""
	}
	return "", ""
}

type modelInfoT struct {
	ModelID    string `json:"modelId"`
	ProviderID string `json:"providerId"`
}

func modelInfo(raw json.RawMessage) modelInfoT {
	var mi modelInfoT
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &mi)
	}
	return mi
}

// compaction is Cline's context truncation: the UI's last
// conversationHistoryDeletedRange [from, to] (else the index entry's)
// leaves the API history's messages from..to out of what Cline sends (it
// keeps the first pair, messages 0 and 1). The summary is a copy of the
// messages before the range; the transcript resumes after it.
func (t *task) compaction(n int, entries []sessiondb.Entry) (sessiondb.Compaction, bool) {
	if t.api == nil {
		return sessiondb.Compaction{}, false
	}
	var rng []json.Number
	for i := len(t.uiMsgs) - 1; i >= 0 && rng == nil; i-- {
		if len(t.uiMsgs[i].DeletedRange) == 2 {
			rng = t.uiMsgs[i].DeletedRange
		}
	}
	if rng == nil && t.hist != nil && len(t.hist.DeletedRange) == 2 {
		rng = t.hist.DeletedRange
	}
	if rng == nil {
		return sessiondb.Compaction{}, false
	}
	from, err1 := rng[0].Int64()
	to, err2 := rng[1].Int64()
	if err1 != nil || err2 != nil || from < 1 || to < from || to+1 >= int64(n) {
		return sessiondb.Compaction{}, false
	}
	c := sessiondb.Compaction{AtSeq: 0, KeepFromSeq: to + 2, Details: jsonl.MustJSON(map[string]any{"reason": "cline conversationHistoryDeletedRange", "range": []int64{from, to}})}
	for i := int64(0); i < from; i++ {
		c.Summary = append(c.Summary, sessiondb.Entry{Kind: entries[i].Kind, Role: entries[i].Role, CreatedAt: entries[i].CreatedAt, Body: entries[i].Body})
	}
	return c, true
}

// state is the session's state document: the task's other files, as
// their text (so that an export writes them back byte for byte).
func (t *task) state() json.RawMessage {
	files := map[string]string{}
	if t.api != nil && t.ui != nil {
		files[filepath.Base(t.uiPath)] = string(t.ui.Raw)
	}
	if t.meta != nil {
		files[MetadataFile] = string(t.meta)
	}
	if t.item != nil {
		files[HistoryFile] = string(t.item)
	}
	if len(files) == 0 {
		return nil
	}
	return jsonl.MustJSON(map[string]any{"files": files})
}
