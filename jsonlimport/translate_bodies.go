package jsonlimport

// The picoclaw, zot and swink writers of the neutral conversation
// (translate.go). Their exporters write a session's transcript bodies as
// stored, which is right for their own sessions and an application's; for
// a session of another known format, the transcript is first translated
// into message bodies of the target's shape, and the exporter writes those
// (translatedStore hands them to it in place of the stored transcript;
// the session's metadata, usage totals, state and interrupt are the
// store's). What the target has no shape for is refused with
// ErrUntranslatable, naming it:
//
//   - picoclaw (providers.Message): {"role":"user"|"assistant"|"tool"|
//     "system","content":string,"reasoning_content","tool_calls":[{"id",
//     "type":"function","function":{"name","arguments":string}}],
//     "tool_call_id"}. Text blocks are joined by a blank line. No place
//     for images, thinking signatures or redacted thinking, an error flag
//     on a tool result, a developer message, or an assistant message whose
//     blocks are not in the order thinking, text, tool calls (one string
//     each cannot keep another order), an assistant message holding only
//     thinking (picoclaw's loader drops it as a transient thought).
//   - zot: {"role":"user"|"assistant"|"tool","content":[blocks],"time"}
//     with zot's untyped blocks: {text}, {mime_type,data}, {id,name,
//     arguments}, {reasoning_id,summary,encrypted_content} (thinking: its
//     text is the summary, its signature the encrypted content) and, in a
//     "tool" message, {call_id,content,is_error}. No place for redacted
//     thinking or context messages.
//   - swink: {"role":"user"|"assistant"|"tool_result",…} with typed blocks
//     text, thinking{thinking,signature} and tool_call{id,name,arguments},
//     the assistant's provider, model_id, zero usage and cost, stop_reason
//     and error_message, and tool results {tool_call_id,content,is_error}.
//     No place for images, redacted thinking or context messages.
//
// A session with checkpoints is refused too: a checkpoint names a log
// position of the source, which the translated transcript does not have.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// translatedStore returns a Store that gives the exporter of target the
// transcript of session id translated into target's message shapes, or
// nil when the session's bodies are to be written as stored (target is
// not picoclaw, zot or swink, the session is target's own or an
// application's). A session whose content target cannot hold is refused.
func translatedStore(ctx context.Context, s sessiondb.Store, id, target string) (sessiondb.Store, error) {
	var write func([]xMsg, *xLoss) []sessiondb.Entry
	switch target {
	case FormatPicoclaw:
		write = picoclawBodies
	case FormatZot:
		write = zotBodies
	case FormatSwink:
		write = swinkBodies
	default:
		return nil, nil
	}
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, nil // the exporter reports it
	}
	if sess.SourceFormat == target || lookupFormat(sess.SourceFormat) == nil {
		return nil, nil
	}
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", target, id, err)
	}
	if cps, err := s.ListCheckpoints(ctx, sess.ID); err != nil {
		return nil, fmt.Errorf("export %s %s: %w", target, id, err)
	} else if len(cps) > 0 {
		loss.add("checkpoint")
	}
	entries := write(msgs, loss)
	if !loss.empty() {
		return nil, untranslatable(target, sess, "no "+target+" shape for "+loss.String()+"; nothing was written for this session")
	}
	for i := range entries {
		entries[i].Seq = int64(i + 1)
		entries[i].Kind = sessiondb.KindMessage
	}
	return &bodyStore{Store: s, id: sess.ID, entries: entries}, nil
}

// bodyStore is a Store whose session id has entries as its whole log and
// transcript, without compactions or checkpoints.
type bodyStore struct {
	sessiondb.Store
	id      string
	entries []sessiondb.Entry
}

func (b *bodyStore) LoadFull(ctx context.Context, id string, opts sessiondb.LoadOptions) (sessiondb.Full, error) {
	full, err := b.Store.LoadFull(ctx, id, opts)
	if err == nil && id == b.id {
		full.Transcript = b.entries
	}
	return full, err
}

func (b *bodyStore) Load(ctx context.Context, id string, opts sessiondb.LoadOptions) ([]sessiondb.Entry, error) {
	if id == b.id {
		return b.entries, nil
	}
	return b.Store.Load(ctx, id, opts)
}

func (b *bodyStore) Entries(ctx context.Context, id string, from, to int64) ([]sessiondb.Entry, error) {
	if id == b.id {
		return b.entries, nil
	}
	return b.Store.Entries(ctx, id, from, to)
}

func (b *bodyStore) Compactions(ctx context.Context, id string) ([]sessiondb.Compaction, error) {
	if id == b.id {
		return nil, nil
	}
	return b.Store.Compactions(ctx, id)
}

func (b *bodyStore) ListCheckpoints(ctx context.Context, id string) ([]sessiondb.Checkpoint, error) {
	if id == b.id {
		return nil, nil
	}
	return b.Store.ListCheckpoints(ctx, id)
}

// texts joins the text of blocks of type typ by a blank line.
func texts(blocks []xBlock, typ string) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == typ {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// picoclawBodies writes msgs as picoclaw messages, counting in loss what
// picoclaw cannot hold.
func picoclawBodies(msgs []xMsg, loss *xLoss) []sessiondb.Entry {
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	type msg struct {
		Role             string `json:"role"`
		Content          string `json:"content"`
		ReasoningContent string `json:"reasoning_content,omitempty"`
		ToolCalls        []call `json:"tool_calls,omitempty"`
		ToolCallID       string `json:"tool_call_id,omitempty"`
	}
	out := make([]sessiondb.Entry, len(msgs))
	for i, m := range msgs {
		p := msg{Role: m.Role, Content: texts(m.Blocks, xText)}
		rank := 0 // thinking 0, text 1, calls 2: the only order picoclaw keeps
		for _, b := range m.Blocks {
			r := map[string]int{xThinking: 0, xText: 1, xCall: 2}[b.Type]
			switch {
			case b.Type == xImage:
				loss.add("image")
			case b.Type == xThinking && (b.Signature != "" || b.Redacted):
				loss.add("thinking signature")
			case r < rank:
				loss.add("assistant message whose blocks are not thinking, then text, then tool calls")
			}
			rank = max(rank, r)
			if b.Type == xCall {
				p.ToolCalls = append(p.ToolCalls, call{ID: b.ID, Type: "function", Function: fn{Name: b.Name, Arguments: string(b.Args)}})
			}
		}
		p.ReasoningContent = texts(m.Blocks, xThinking)
		if m.Role == xAssistant && p.ReasoningContent != "" && p.Content == "" && len(p.ToolCalls) == 0 {
			loss.add("assistant message holding only thinking (picoclaw's loader drops it)")
		}
		switch m.Role {
		case xToolResult:
			p.Role, p.ToolCallID = "tool", m.CallID
			if m.IsError {
				loss.add("failed tool result (picoclaw has no error flag)")
			}
		case xContext:
			if m.Name != "system" {
				loss.add(m.Name + " message")
			}
			p.Role = "system"
		}
		out[i] = sessiondb.Entry{Role: p.Role, CreatedAt: m.Time, Body: noEscapeJSON(p, loss)}
	}
	return out
}

// zotBodies writes msgs as zot messages. The results of consecutive
// tool results go into one "tool" message, as zot writes the results of
// one response's calls (its loader answers a call whose result is not in
// the message after the call with a stub).
func zotBodies(msgs []xMsg, loss *xLoss) []sessiondb.Entry {
	type result struct {
		CallID  string `json:"call_id"`
		Content []any  `json:"content"`
		IsError bool   `json:"is_error"`
	}
	var out []sessiondb.Entry
	var blocks []any
	emit := func(role string, t time.Time) {
		if blocks == nil {
			blocks = []any{}
		}
		out = append(out, sessiondb.Entry{Role: role, CreatedAt: t, Body: noEscapeJSON(struct {
			Role    string `json:"role"`
			Content []any  `json:"content"`
			Time    string `json:"time"`
		}{role, blocks, t.UTC().Format(time.RFC3339Nano)}, loss)})
		blocks = nil
	}
	for i, m := range msgs {
		switch m.Role {
		case xToolResult:
			inner := make([]any, 0, len(m.Blocks))
			for _, b := range m.Blocks {
				switch b.Type {
				case xText:
					inner = append(inner, map[string]string{"text": b.Text})
				case xImage:
					inner = append(inner, zotImage(b))
				default:
					loss.add(b.Type + " block in a tool result")
				}
			}
			blocks = append(blocks, result{m.CallID, inner, m.IsError})
			if i+1 == len(msgs) || msgs[i+1].Role != xToolResult {
				emit("tool", m.Time)
			}
			continue
		case xContext:
			loss.add(m.Name + " message")
			continue
		}
		for k, b := range m.Blocks {
			switch b.Type {
			case xText:
				blocks = append(blocks, map[string]string{"text": b.Text})
			case xImage:
				blocks = append(blocks, zotImage(b))
			case xCall:
				blocks = append(blocks, struct {
					ID        string          `json:"id"`
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}{b.ID, b.Name, b.Args})
			case xThinking:
				if b.Redacted {
					loss.add("redacted thinking block")
				}
				blocks = append(blocks, struct {
					ID        string `json:"reasoning_id"`
					Summary   string `json:"summary,omitempty"`
					Encrypted string `json:"encrypted_content,omitempty"`
				}{fmt.Sprintf("reasoning-%d-%d", i+1, k+1), b.Text, b.Signature})
			}
		}
		emit(m.Role, m.Time)
	}
	return out
}

func zotImage(b xBlock) any {
	return struct {
		MimeType string          `json:"mime_type"`
		Data     json.RawMessage `json:"data"`
	}{b.MIME, jsonl.MustJSON(b.Data)}
}

// swinkBodies writes msgs as swink messages.
func swinkBodies(msgs []xMsg, loss *xLoss) []sessiondb.Entry {
	type usage struct {
		Input      int64 `json:"input"`
		Output     int64 `json:"output"`
		CacheRead  int64 `json:"cache_read"`
		CacheWrite int64 `json:"cache_write"`
		Total      int64 `json:"total"`
	}
	type cost struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cache_read"`
		CacheWrite float64 `json:"cache_write"`
		Total      float64 `json:"total"`
	}
	out := make([]sessiondb.Entry, len(msgs))
	for i, m := range msgs {
		blocks := make([]any, 0, len(m.Blocks))
		for _, b := range m.Blocks {
			switch b.Type {
			case xText:
				blocks = append(blocks, map[string]string{"type": "text", "text": b.Text})
			case xThinking:
				if b.Redacted {
					loss.add("redacted thinking block")
				}
				var sig *string
				if b.Signature != "" {
					sig = &b.Signature
				}
				blocks = append(blocks, struct {
					Type      string  `json:"type"`
					Thinking  string  `json:"thinking"`
					Signature *string `json:"signature"`
				}{"thinking", b.Text, sig})
			case xCall:
				blocks = append(blocks, struct {
					Type        string          `json:"type"`
					ID          string          `json:"id"`
					Name        string          `json:"name"`
					Arguments   json.RawMessage `json:"arguments"`
					PartialJSON *string         `json:"partial_json"`
				}{"tool_call", b.ID, b.Name, b.Args, nil})
			case xImage:
				loss.add("image")
			}
		}
		ts := m.Time.Unix()
		out[i].Role, out[i].CreatedAt = m.Role, m.Time
		switch m.Role {
		case xAssistant:
			stop := "stop"
			if n := len(m.Blocks); n > 0 && m.Blocks[n-1].Type == xCall {
				stop = "tool_use"
			}
			out[i].Body = noEscapeJSON(struct {
				Role         string  `json:"role"`
				Content      []any   `json:"content"`
				Provider     string  `json:"provider"`
				ModelID      string  `json:"model_id"`
				Usage        usage   `json:"usage"`
				Cost         cost    `json:"cost"`
				StopReason   string  `json:"stop_reason"`
				ErrorMessage *string `json:"error_message"`
				Timestamp    int64   `json:"timestamp"`
			}{"assistant", blocks, m.Provider, m.Model, usage{}, cost{}, stop, nil, ts}, loss)
		case xToolResult:
			out[i].Body = noEscapeJSON(struct {
				Role       string          `json:"role"`
				ToolCallID string          `json:"tool_call_id"`
				Content    []any           `json:"content"`
				IsError    bool            `json:"is_error"`
				Timestamp  int64           `json:"timestamp"`
				Details    json.RawMessage `json:"details"`
			}{"tool_result", m.CallID, blocks, m.IsError, ts, json.RawMessage("null")}, loss)
		case xContext:
			loss.add(m.Name + " message")
			out[i].Body = json.RawMessage("{}")
		default:
			out[i].Body = noEscapeJSON(struct {
				Role      string `json:"role"`
				Content   []any  `json:"content"`
				Timestamp int64  `json:"timestamp"`
			}{"user", blocks, ts}, loss)
		}
	}
	return out
}

// noEscapeJSON is json.Marshal without HTML escaping (text stays as
// written) and without the final newline; a value that cannot be encoded
// is counted in loss.
func noEscapeJSON(v any, loss *xLoss) json.RawMessage {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		loss.add("message that cannot be encoded")
		return json.RawMessage("{}")
	}
	return json.RawMessage(strings.TrimSuffix(b.String(), "\n"))
}
