package cursor

// From a composer and its bubbles to what the importer writes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// InFlightFor is how long after a composer's last update a bubble it
// lists as generating is taken to be still streaming: it and the bubbles
// after it are held back (jsonl.UnfinishedMarker) until Cursor finishes
// it or this long has passed, after which they are imported as they are.
var InFlightFor = 10 * time.Minute

// now is the clock InFlightFor is measured by (tests replace it).
var now = time.Now

// header is one member of fullConversationHeadersOnly.
type header struct {
	BubbleID string `json:"bubbleId"`
}

// composer is what is read of a composerData value (or an inline
// composer of ItemTable's list).
type composer struct {
	ID            string            `json:"composerId"`
	Name          string            `json:"name"`
	CreatedAt     int64             `json:"-"`
	LastUpdatedAt int64             `json:"-"`
	Headers       []header          `json:"fullConversationHeadersOnly"`
	Conversation  []json.RawMessage `json:"conversation"`
	Generating    []string          `json:"generatingBubbleIds"`
	Status        string            `json:"status"`
	UnifiedMode   string            `json:"unifiedMode"`
	ModelConfig   struct {
		ModelName string `json:"modelName"`
	} `json:"modelConfig"`
	Version int `json:"_v"`
}

// decodeComposer reads a composer object. Its times are read leniently
// (numbers of milliseconds, or strings Cursor wrote in some versions).
func decodeComposer(raw []byte) (composer, error) {
	var c composer
	var loose struct {
		ID            any `json:"composerId"`
		Name          any `json:"name"`
		CreatedAt     any `json:"createdAt"`
		LastUpdatedAt any `json:"lastUpdatedAt"`
	}
	if err := json.Unmarshal(raw, &loose); err != nil {
		return c, err
	}
	// The typed fields one by one: a field of an unexpected type is
	// left empty rather than making the composer unreadable.
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	_ = json.Unmarshal(fields["fullConversationHeadersOnly"], &c.Headers)
	_ = json.Unmarshal(fields["conversation"], &c.Conversation)
	_ = json.Unmarshal(fields["generatingBubbleIds"], &c.Generating)
	_ = json.Unmarshal(fields["status"], &c.Status)
	_ = json.Unmarshal(fields["unifiedMode"], &c.UnifiedMode)
	_ = json.Unmarshal(fields["modelConfig"], &c.ModelConfig)
	_ = json.Unmarshal(fields["_v"], &c.Version)
	c.ID, _ = loose.ID.(string)
	c.Name, _ = loose.Name.(string)
	c.CreatedAt, c.LastUpdatedAt = msValue(loose.CreatedAt), msValue(loose.LastUpdatedAt)
	if _, ok := fields["tabId"]; ok && c.ID == "" {
		// A tab of the older chat pane: tabId, chatTitle, lastSendTime
		// (milliseconds, as a string) and its bubbles.
		var tab struct {
			ID       any `json:"tabId"`
			Title    any `json:"chatTitle"`
			LastSend any `json:"lastSendTime"`
		}
		_ = json.Unmarshal(raw, &tab)
		c.ID, _ = tab.ID.(string)
		c.Name, _ = tab.Title.(string)
		c.LastUpdatedAt = msValue(tab.LastSend)
		_ = json.Unmarshal(fields["bubbles"], &c.Conversation)
	}
	return c, nil
}

// inFlight reports whether the composer lists a bubble being generated
// and changed less than InFlightFor ago.
func (c composer) inFlight() bool {
	return len(c.Generating) > 0 && now().Sub(msTime(max(c.LastUpdatedAt, c.CreatedAt))) < InFlightFor
}

// msValue reads a time Cursor wrote: milliseconds since the epoch (a
// number, or a string of digits), or an RFC 3339 string.
func msValue(v any) int64 {
	switch x := v.(type) {
	case float64:
		if x > 0 && x < 1e15 {
			return int64(x)
		}
	case string:
		if i, err := strconv.ParseInt(x, 10, 64); err == nil && i > 0 && i < 1e15 {
			return i
		}
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil && t.Year() > 1970 && t.Year() < 10000 {
			return t.UnixMilli()
		}
	}
	return 0
}

// msTime is a time of milliseconds since the epoch (zero for none).
func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// bubbleTime is when a bubble was made: its createdAt (newer Cursor), else
// when its request was sent (timingInfo.clientRpcSendTime, then the
// other wall-clock times of timingInfo), else zero.
func bubbleTime(obj map[string]any) int64 {
	if t := msValue(obj["createdAt"]); t > 0 {
		return t
	}
	ti, _ := obj["timingInfo"].(map[string]any)
	for _, k := range []string{"clientRpcSendTime", "clientSettleTime", "clientEndTime"} {
		// clientStartTime is the renderer's performance.now(), not a
		// wall-clock time.
		if t := msValue(ti[k]); t > 1e12 {
			return t
		}
	}
	return 0
}

// roleOf names a bubble's type: 1 (user) and 2 (assistant) in
// composers, "user" and "ai" in the older chat pane.
func roleOf(v any) (string, bool) {
	if f, ok := number(v); ok {
		switch f {
		case 1:
			return "user", true
		case 2:
			return "assistant", true
		}
		return "", false
	}
	switch v {
	case "user":
		return "user", true
	case "ai":
		return "assistant", true
	}
	return "", false
}

// tokens reads a non-negative token count.
func tokens(m map[string]any, k string) int64 {
	f, _ := m[k].(float64)
	if f <= 0 || math.IsNaN(f) || f > 1e15 {
		return 0
	}
	return int64(f)
}

// build turns a composer (its raw value) and its bubble rows (by bubble
// id; none for an inline composer) into what the importer writes.
func build(u jsonl.Unit, raw []byte, bubbles map[string][]byte, folder string, rs resumeState) (*jsonl.Parsed, error) {
	c, err := decodeComposer(raw)
	if err != nil {
		return nil, fmt.Errorf("composer: not a JSON object: %w", err)
	}
	_, id, _ := jsonl.SplitSessionPath(u.Path)
	if c.ID != "" {
		id = c.ID
	}
	pd := &jsonl.Parsed{Unit: u}
	type item struct {
		id  string
		raw []byte
	}
	var items []item
	if len(c.Headers) > 0 {
		inHeaders := map[string]bool{}
		for _, h := range c.Headers {
			inHeaders[h.BubbleID] = true
			b, ok := bubbles[h.BubbleID]
			if !ok || b == nil {
				pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("bubble %s named by the composer's headers is not in the store; left out", h.BubbleID)})
				continue
			}
			items = append(items, item{h.BubbleID, b})
		}
		orphans := 0
		for bid := range bubbles {
			if !inHeaders[bid] {
				orphans++
			}
		}
		if orphans > 0 {
			pd.Notes = append(pd.Notes, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("%d bubbles of the composer are not in its headers (Cursor does not show them: a turn it replaced or dropped); not imported", orphans)})
		}
	} else {
		for _, b := range c.Conversation {
			items = append(items, item{"", b})
		}
	}
	generating := map[string]bool{}
	for _, g := range c.Generating {
		generating[g] = true
	}
	model := c.ModelConfig.ModelName
	prev := c.CreatedAt
	if prev == 0 {
		// A chat tab records only when its last prompt was sent.
		prev = c.LastUpdatedAt
	}
	for i, it := range items {
		obj := map[string]any{}
		trimmed := bytes.TrimSpace(it.raw)
		if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &obj) != nil {
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("bubble %d (%s) is not a JSON object; left out", i+1, it.id)})
			continue
		}
		bid := jsonl.OrString(jsonl.Str(obj, "bubbleId"), jsonl.OrString(jsonl.Str(obj, "id"), it.id)) // "id" in the chat pane
		if generating[bid] {
			if c.inFlight() {
				pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf(
					"%s: bubble %s is still being generated (Cursor is streaming it); imported once it is finished", jsonl.UnfinishedMarker, bid)})
				break
			}
			pd.Notes = append(pd.Notes, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("bubble %s was left generating (the composer has been quiet since); imported as Cursor left it", bid)})
		}
		role, ok := roleOf(obj["type"])
		if !ok {
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("bubble %s has type %v (neither 1, user, nor 2, assistant); left out", bid, obj["type"])})
			continue
		}
		t := bubbleTime(obj)
		if t < prev {
			t = prev
		}
		prev = t
		pd.Entries = append(pd.Entries, sessiondb.Entry{Kind: sessiondb.KindMessage, Role: role, CreatedAt: msTime(t), Body: append([]byte(nil), trimmed...)})
		if mi, _ := obj["modelInfo"].(map[string]any); jsonl.Str(mi, "modelName") != "" {
			model = jsonl.Str(mi, "modelName")
		} else if mt := jsonl.Str(obj, "modelType"); mt != "" {
			model = mt // the chat pane's bubbles
		}
		tc, _ := obj["tokenCount"].(map[string]any)
		if in, out := tokens(tc, "inputTokens"), tokens(tc, "outputTokens"); in > 0 || out > 0 {
			pd.Usage = append(pd.Usage, sessiondb.Usage{CallID: Name + ":" + bid, Provider: Name, Model: model,
				InputTokens: in, OutputTokens: out, CreatedAt: msTime(t)})
		}
	}
	title := c.Name
	if title == "" {
		if rs.Title == "" {
			rs.Title = jsonl.PromptTitle(Format{}, pd.Entries)
		}
		title = rs.Title
	}
	attrs := map[string]any{"model": model, "mode": c.UnifiedMode}
	if folder != "" {
		attrs["cwd"], attrs["project"] = folder, folder
	}
	pd.Session = sessiondb.Session{ID: id, Title: title, Attrs: jsonl.MergeAttrs(attrs),
		CreatedAt: msTime(c.CreatedAt), UpdatedAt: msTime(max(c.LastUpdatedAt, c.CreatedAt))}
	if len(pd.Entries) > 0 && (pd.Session.CreatedAt.IsZero() || pd.Entries[0].CreatedAt.Before(pd.Session.CreatedAt)) {
		pd.Session.CreatedAt = pd.Entries[0].CreatedAt
	}
	if n := len(pd.Entries); n > 0 && pd.Entries[n-1].CreatedAt.After(pd.Session.UpdatedAt) {
		pd.Session.UpdatedAt = pd.Entries[n-1].CreatedAt
	}
	pd.Offset = int64(len(pd.Entries))
	rs.V, rs.N = 1, len(pd.Entries)
	pd.ResumeState = jsonl.MustJSON(rs)
	return pd, nil
}

// workspaceFolder is the folder a workspace's state.vscdb belongs to: the
// "folder" (a file: URL) of the workspace.json beside it; "" for the
// global store or when there is none.
func workspaceFolder(storePath string) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(storePath), "workspace.json"))
	if err != nil {
		return ""
	}
	var w struct {
		Folder string `json:"folder"`
	}
	if json.Unmarshal(b, &w) != nil || w.Folder == "" {
		return ""
	}
	p, err := url.Parse(w.Folder)
	if err != nil || p.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(p.Path)
}
