package goose

// From a session's rows to what the importer writes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// placeholderNames are the names goose gives a session before its model
// names it (user_set_name false): the CLI's and ACP's (migration 9 of
// session_manager.rs tells the latter by it).
var placeholderNames = map[string]bool{"": true, "CLI Session": true, "ACP Session": true, "New Chat": true}

// visibility is a message's metadata as goose keeps it (MessageMetadata:
// userVisible, agentVisible; both true when absent).
type visibility struct {
	UserVisible  *bool `json:"userVisible"`
	AgentVisible *bool `json:"agentVisible"`
}

func (v visibility) agent() bool { return v.AgentVisible == nil || *v.AgentVisible }
func (v visibility) user() bool  { return v.UserVisible == nil || *v.UserVisible }

// bodyOf is the entry body of one message row: goose's own Message as it
// serializes it (id, role, created, content, metadata), from the row's
// message_id (or the id goose gives a row without one, msg_<session>_<row>,
// as its migration 7 does), role, created_timestamp, content_json and
// metadata_json. Content and metadata are kept as goose wrote them
// (compacted when they are JSON).
func bodyOf(sid string, r row) ([]byte, error) {
	raw := []byte(r.Str("content_json"))
	var content []json.RawMessage
	if err := json.Unmarshal(raw, &content); err != nil {
		return nil, fmt.Errorf("its content_json is not a JSON list (%v)", err)
	}
	mid := r.Str("message_id")
	if mid == "" {
		mid = fmt.Sprintf("msg_%s_%d", sid, r.Int("id"))
	}
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	b.Write(jsonl.MustJSON(mid))
	b.WriteString(`,"role":`)
	b.Write(jsonl.MustJSON(r.Str("role")))
	fmt.Fprintf(&b, `,"created":%d,"content":`, r.Int("created_timestamp"))
	compactInto(&b, raw)
	if meta := bytes.TrimSpace([]byte(r.Str("metadata_json"))); len(meta) > 0 && meta[0] == '{' && json.Valid(meta) {
		b.WriteString(`,"metadata":`)
		compactInto(&b, meta)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func compactInto(b *bytes.Buffer, raw []byte) {
	n := b.Len()
	if json.Compact(b, raw) != nil {
		b.Truncate(n)
		b.Write(raw)
	}
}

// build turns a session's row, its message rows (in goose's order) and
// its usage ledger rows into what the importer writes.
func build(u jsonl.Unit, srow row, mrows, lrows []row, rs resumeState) (*jsonl.Parsed, error) {
	pd := &jsonl.Parsed{Unit: u}
	id := srow.Str("id")
	for _, r := range mrows {
		role := r.Str("role")
		if role != "user" && role != "assistant" {
			// get_conversation skips a row of any other role.
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message row %d: role %q is neither user nor assistant (goose skips it); left out", r.Int("id"), role)})
			continue
		}
		body, err := bodyOf(id, r)
		if err != nil {
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message row %d: %v; left out", r.Int("id"), err)})
			continue
		}
		pd.Entries = append(pd.Entries, sessiondb.Entry{Kind: sessiondb.KindMessage, Role: role, CreatedAt: unixTime(r.Int("created_timestamp")), Body: body})
	}
	pd.Compactions = compactions(pd.Entries, "goose compaction")

	model, provider := modelOf(srow.Str("model_config_json")), srow.Str("provider_name")
	pd.Usage, pd.Problems = usageOf(u.Path, srow, lrows, model, provider, pd.Problems)

	title := srow.Str("name")
	if placeholderNames[title] && srow.Int("user_set_name") == 0 && srow.Str("description") != "" {
		title = srow.Str("description")
	}
	if placeholderNames[title] && srow.Int("user_set_name") == 0 {
		if rs.Title == "" {
			rs.Title = jsonl.PromptTitle(Format{}, pd.Entries)
		}
		if rs.Title != "" {
			title = rs.Title
		}
	}
	attrs := map[string]any{"model": model, "provider": provider, "cwd": srow.Str("working_dir")}
	for _, col := range []string{"session_type", "schedule_id", "thread_id", "project_id", "goose_mode"} {
		if v := srow.Str(col); v != "" {
			attrs[col] = v
		}
	}
	if srow.Has("archived_at") {
		attrs["archived_at"] = srow.Str("archived_at")
	}
	pd.Session = sessiondb.Session{ID: id, Title: title, ParentID: srow.Str("parent_session_id"), Attrs: jsonl.MergeAttrs(attrs),
		CreatedAt: rowTime(srow, "created_at"), UpdatedAt: rowTime(srow, "updated_at")}
	if n := len(pd.Entries); n > 0 && pd.Entries[n-1].CreatedAt.After(pd.Session.UpdatedAt) {
		pd.Session.UpdatedAt = pd.Entries[n-1].CreatedAt
	}
	if pd.Session.CreatedAt.IsZero() && len(pd.Entries) > 0 {
		pd.Session.CreatedAt = pd.Entries[0].CreatedAt
	}
	if pd.Session.UpdatedAt.Before(pd.Session.CreatedAt) {
		pd.Session.UpdatedAt = pd.Session.CreatedAt
	}
	pd.Offset = int64(len(pd.Entries))
	rs.V, rs.N = 1, len(pd.Entries)
	pd.ResumeState = jsonl.MustJSON(rs)
	return pd, nil
}

// modelOf reads the model's name from a session's model_config_json
// (goose's ModelConfig: model_name).
func modelOf(cfg string) string {
	var m struct {
		ModelName string `json:"model_name"`
	}
	_ = json.Unmarshal([]byte(cfg), &m)
	return m.ModelName
}

// validCost reports whether c is a cost (finite, not negative).
func validCost(c float64) bool { return !math.IsInf(c, 0) && !math.IsNaN(c) && c >= 0 }

// usageOf is a session's usage as goose records it. A store with a
// usage_ledger (newer goose) keeps one row per model call: each is a
// ledger row here (CallID goose:ledger:<id>), its cost as goose gave it.
// Otherwise goose keeps the session's totals only
// (accumulated_input_tokens, accumulated_output_tokens, their cache
// columns where the schema has them, accumulated_cost since schema 13):
// one ledger row holds them, replaced (its CallID) at each import; a
// session without accumulated counts falls back to its last call's
// (input_tokens, output_tokens).
func usageOf(path string, srow row, lrows []row, model, provider string, problems []jsonl.Problem) ([]sessiondb.Usage, []jsonl.Problem) {
	var out []sessiondb.Usage
	for _, l := range lrows {
		cost := l.Float("cost")
		if !validCost(cost) {
			problems = append(problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf("usage ledger row %d: cost %v is not a cost; left out", l.Int("id"), cost)})
			cost = 0
		}
		m := l.Str("model")
		if m == "" {
			m = model
		}
		out = append(out, sessiondb.Usage{CallID: fmt.Sprintf("%s:ledger:%d", Name, l.Int("id")), Provider: provider, Model: m,
			InputTokens: max(l.Int("input_tokens"), 0), OutputTokens: max(l.Int("output_tokens"), 0),
			CacheReadTokens: max(l.Int("cache_read_tokens"), 0), CacheWriteTokens: max(l.Int("cache_write_tokens"), 0),
			Cost: cost, CreatedAt: unixTime(l.Int("created_timestamp"))})
	}
	if len(out) > 0 {
		return out, problems
	}
	in, outT := srow.Int("accumulated_input_tokens"), srow.Int("accumulated_output_tokens")
	if !srow.Has("accumulated_input_tokens") && !srow.Has("accumulated_output_tokens") {
		in, outT = srow.Int("input_tokens"), srow.Int("output_tokens")
	}
	cost := srow.Float("accumulated_cost")
	if !validCost(cost) {
		problems = append(problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf("the session's accumulated_cost %v is not a cost; left out", cost)})
		cost = 0
	}
	cr, cw := srow.Int("accumulated_cache_read_tokens"), srow.Int("accumulated_cache_write_tokens")
	if in > 0 || outT > 0 || cost > 0 || cr > 0 || cw > 0 {
		out = append(out, sessiondb.Usage{CallID: Name + ":session", Provider: provider, Model: model,
			InputTokens: max(in, 0), OutputTokens: max(outT, 0), CacheReadTokens: max(cr, 0), CacheWriteTokens: max(cw, 0),
			Cost: cost, CreatedAt: rowTime(srow, "updated_at")})
	}
	return out, problems
}

// compactions finds goose's compaction in entries: when goose compacts a
// conversation it keeps the old messages for the user but hides them
// from the model (agentVisible false) and adds its summary after them;
// the model is sent what follows. A run of such messages at the start of
// the session (holding more than notices: goose's own notifications are
// never for the model either) followed by a message the model sees is a
// compaction that keeps from that message on.
func compactions(entries []sessiondb.Entry, source string) []sessiondb.Compaction {
	k, real := 0, false
	for k < len(entries) {
		m := decodeMessage(entries[k].Body)
		if m.Metadata.agent() {
			break
		}
		if !m.noticeOnly() {
			real = true
		}
		k++
	}
	if k == 0 || k == len(entries) || !real {
		return nil
	}
	at := int64(k + 1)
	return []sessiondb.Compaction{{AtSeq: at, KeepFromSeq: at, CreatedAt: entries[k].CreatedAt,
		Details: jsonl.MustJSON(map[string]any{"source": source, "hidden_from_model": k})}}
}

// message is a goose Message, as far as the reader needs it.
type message struct {
	ID       string            `json:"id"`
	Role     string            `json:"role"`
	Created  json.Number       `json:"created"`
	Content  []json.RawMessage `json:"content"`
	Metadata visibility        `json:"metadata"`
}

func decodeMessage(body []byte) message {
	var m message
	_ = json.Unmarshal(body, &m)
	return m
}

// noticeOnly reports whether the message holds only goose's notices to
// the user (systemNotification and the older notice items).
func (m message) noticeOnly() bool {
	for _, c := range m.Content {
		var t struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(c, &t)
		if !noticeTypes[t.Type] {
			return false
		}
	}
	return true
}

// noticeTypes are the content items goose shows the user and never sends
// to the model.
var noticeTypes = map[string]bool{"systemNotification": true, "conversationCompacted": true, "contextLengthExceeded": true,
	"summarizationRequested": true, "toolConfirmationRequest": true, "actionRequired": true}
