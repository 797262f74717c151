package jsonlimport

// opencode in the neutral conversation (translate.go): the reader of its
// messages, and the writer of `opencode export` JSON for a session of
// another format.
//
// Reading: only the transcript's messages opencode sends (Kind message);
// a user message's text parts (ignored ones left out) and file parts that
// carry an image as a data: URL; a user message made only of text opencode
// added itself (synthetic) is a context message; a compaction request is
// the text opencode sends for it ("What did we do so far?"). An assistant
// message's reasoning parts are thinking (its signature is the part's
// metadata.anthropic.signature, or metadata.sessiondb.signature where our
// writer put it), its text parts text, and each tool part a call (its
// state's input) followed, after the message, by its result: the output
// of a completed call, the error of a failed one. A call opencode never
// ran (pending, running) has no result (opencode sends one saying it was
// interrupted). Bookkeeping parts (step-start, step-finish, snapshot,
// patch, retry) are left out. Refused: subtask and agent parts, file parts
// other than images, attachments of a tool's output, parts of types
// opencode may add later.
//
// Writing: one export document ({"info", "messages"}), which `opencode
// import` loads: the session's info (its ID when it is an opencode ID,
// else one made from it; title, directory from the session's cwd, times);
// a user message per user message, with text parts and image file parts
// (data: URLs); a context message as a user message whose text part is
// synthetic, its role kept in the part's metadata.sessiondb.context; an
// assistant message per assistant message, its parts in the order of its
// blocks (reasoning, text, tool), each tool part holding its result
// (completed, or error) or, without one, pending; times and the model
// from the message, zero tokens and cost (the usage stays in the store),
// finish "tool-calls" when it ends in calls that have results, else
// "stop". Messages, parts and the session get opencode's kind of ID
// (prefix, time, then 14 characters made from the session's ID), so the
// same session is written the same way each time. Refused: redacted
// thinking, images in an assistant's message or in a tool result, a tool
// result whose call is not in the assistant message before it, and results
// not in the order of their calls (parallel calls answered in another
// order: opencode holds each result in its call's part, and gives them back
// in the calls' order).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/opencode"
)

// ocCompactionText is what opencode sends the model for a compaction
// request.
const ocCompactionText = "What did we do so far?"

// opencode reads one opencode message entry into the neutral conversation.
func (r *xReader) opencode(e sessiondb.Entry) {
	if e.Kind != sessiondb.KindMessage {
		return // kept by opencode, not sent (a failed call)
	}
	var m struct {
		Info struct {
			Role       string `json:"role"`
			ProviderID string `json:"providerID"`
			ModelID    string `json:"modelID"`
		} `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	}
	if err := json.Unmarshal(e.Body, &m); err != nil {
		r.loss.add("unreadable opencode message")
		return
	}
	type part struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Synthetic bool            `json:"synthetic"`
		Ignored   bool            `json:"ignored"`
		Mime      string          `json:"mime"`
		URL       string          `json:"url"`
		Tool      string          `json:"tool"`
		CallID    string          `json:"callID"`
		Metadata  json.RawMessage `json:"metadata"`
		State     struct {
			Status      string          `json:"status"`
			Input       json.RawMessage `json:"input"`
			Output      json.RawMessage `json:"output"`
			Error       string          `json:"error"`
			Attachments json.RawMessage `json:"attachments"`
		} `json:"state"`
	}
	parts := make([]part, 0, len(m.Parts))
	for _, raw := range m.Parts {
		var p part
		if err := json.Unmarshal(raw, &p); err != nil {
			r.loss.add("unreadable opencode part")
			continue
		}
		parts = append(parts, p)
	}
	switch m.Info.Role {
	case "user":
		var blocks []xBlock
		typed, context := false, ""
		for _, p := range parts {
			switch p.Type {
			case "text":
				if p.Ignored || p.Text == "" {
					continue
				}
				blocks = append(blocks, xBlock{Type: xText, Text: p.Text})
				if !p.Synthetic {
					typed = true
				} else if name := ocMetaString(p.Metadata, "sessiondb", "context"); name != "" {
					context = name
				}
			case "file":
				if mime, data, ok := dataURL(p.URL); ok && strings.HasPrefix(mime, "image/") {
					blocks = append(blocks, xBlock{Type: xImage, Data: data, MIME: mime})
					typed = true
					continue
				}
				if p.Mime == "text/plain" || p.Mime == "application/x-directory" {
					continue // opencode does not send these (their content is a synthetic text part)
				}
				r.loss.add("opencode file part")
			case "compaction":
				blocks = append(blocks, xBlock{Type: xText, Text: ocCompactionText})
				typed = true
			default:
				r.loss.add("opencode " + orDefault(p.Type, "untyped") + " part")
			}
		}
		if len(blocks) == 0 {
			return
		}
		if !typed {
			r.msgs = append(r.msgs, xMsg{Role: xContext, Name: orDefault(context, "opencode"), Time: e.CreatedAt, Blocks: blocks})
			return
		}
		r.msgs = append(r.msgs, xMsg{Role: xUser, Time: e.CreatedAt, Blocks: blocks})
	case "assistant":
		msg := xMsg{Role: xAssistant, Time: e.CreatedAt, Provider: m.Info.ProviderID, Model: m.Info.ModelID}
		var results []xMsg
		for _, p := range parts {
			switch p.Type {
			case "text":
				if p.Text != "" {
					msg.Blocks = append(msg.Blocks, xBlock{Type: xText, Text: p.Text})
				}
			case "reasoning":
				sig := ocMetaString(p.Metadata, "anthropic", "signature")
				if sig == "" {
					sig = ocMetaString(p.Metadata, "sessiondb", "signature")
				}
				msg.Blocks = append(msg.Blocks, xBlock{Type: xThinking, Text: p.Text, Signature: sig})
			case "tool":
				args := p.State.Input
				if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
					args = []byte("{}")
				}
				obj, ok := jsonObject(args)
				if !ok {
					r.loss.add("opencode tool call whose input is not a JSON object")
					continue
				}
				r.names[p.CallID] = p.Tool
				msg.Blocks = append(msg.Blocks, xBlock{Type: xCall, ID: p.CallID, Name: p.Tool, Args: obj})
				if a := bytes.TrimSpace(p.State.Attachments); len(a) > 0 && string(a) != "null" && string(a) != "[]" {
					r.loss.add("opencode tool output attachment")
				}
				res := xMsg{Role: xToolResult, Time: e.CreatedAt, CallID: p.CallID, ToolName: p.Tool}
				switch p.State.Status {
				case "completed":
					var out string
					if json.Unmarshal(p.State.Output, &out) != nil {
						var o struct {
							Text *string `json:"text"`
						}
						if json.Unmarshal(p.State.Output, &o) != nil || o.Text == nil {
							r.loss.add("opencode tool output that is not text")
							continue
						}
						out = *o.Text
					}
					if out != "" {
						res.Blocks = []xBlock{{Type: xText, Text: out}}
					}
				case "error":
					res.IsError = true
					if p.State.Error != "" {
						res.Blocks = []xBlock{{Type: xText, Text: p.State.Error}}
					}
				default:
					continue // never ran: no result
				}
				results = append(results, res)
			case "step-start", "step-finish", "snapshot", "patch", "retry":
			default:
				r.loss.add("opencode " + orDefault(p.Type, "untyped") + " part")
			}
		}
		if len(msg.Blocks) == 0 && len(results) == 0 {
			return
		}
		r.msgs = append(r.msgs, msg)
		r.msgs = append(r.msgs, results...)
	default:
		r.loss.add(fmt.Sprintf("opencode message of role %q", m.Info.Role))
	}
}

// ocMetaString returns metadata[provider][key] when it is a string.
func ocMetaString(meta json.RawMessage, provider, key string) string {
	var m map[string]map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(m[provider][key], &s)
	return s
}

// ocIDs makes opencode IDs for one translated session: a prefix, 12 hex
// digits of the time (milliseconds × 4096 + a counter, as opencode's
// ascending IDs), then 14 characters from a hash of the session's ID.
type ocIDs struct {
	seed string
	n    int
}

func (g *ocIDs) next(prefix string, t time.Time) string {
	g.n++
	v := uint64(max(t.UnixMilli(), 0))*4096 + uint64(g.n%4096)
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d", g.seed, prefix, g.n)))
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	var tail [14]byte
	for i := range tail {
		tail[i] = alphabet[int(sum[i])%62]
	}
	return fmt.Sprintf("%s_%012x%s", prefix, v&(1<<48-1), tail[:])
}

// ocObj builds one JSON object member by member, in order.
type ocObj struct {
	b bytes.Buffer
}

func (o *ocObj) add(key string, v any) *ocObj {
	if o.b.Len() == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	k, _ := json.Marshal(key)
	o.b.Write(k)
	o.b.WriteByte(':')
	switch x := v.(type) {
	case json.RawMessage:
		o.b.Write(x)
	case []byte:
		o.b.Write(x)
	default:
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		o.b.Write(bytes.TrimSuffix(vb.Bytes(), []byte("\n")))
	}
	return o
}

func (o *ocObj) raw() json.RawMessage {
	if o.b.Len() == 0 {
		return json.RawMessage("{}")
	}
	out := append([]byte{}, o.b.Bytes()...)
	return append(out, '}')
}

// opencodeTranslated writes session sess of another format as opencode's
// export JSON (see above), or refuses it naming what opencode cannot hold.
func opencodeTranslated(ctx context.Context, s sessiondb.Store, sess sessiondb.Session) ([]byte, error) {
	msgs, loss, err := readForeign(ctx, s, sess)
	if err != nil {
		return nil, fmt.Errorf("export %s %s: %w", FormatOpencode, sess.ID, err)
	}
	if cps, err := s.ListCheckpoints(ctx, sess.ID); err != nil {
		return nil, fmt.Errorf("export %s %s: %w", FormatOpencode, sess.ID, err)
	} else if len(cps) > 0 {
		loss.add("checkpoint")
	}
	var attrs struct {
		CWD   string `json:"cwd"`
		Model string `json:"model"`
	}
	if len(sess.Attrs) > 0 {
		_ = json.Unmarshal(sess.Attrs, &attrs)
	}
	cwd := orDefault(attrs.CWD, "/")
	ids := &ocIDs{seed: sess.ID}
	created := sess.CreatedAt
	if created.IsZero() && len(msgs) > 0 {
		created = msgs[0].Time
	}
	sid := sess.ID
	if !strings.HasPrefix(sid, "ses_") || strings.ContainsAny(sid, "/\\ ") {
		sid = ids.next("ses", created)
	}
	sidJSON := jsonl.MustJSON(sid)
	// The model every user message names: the first assistant's, else the
	// session's.
	provider, model := "", ""
	for _, m := range msgs {
		if m.Role == xAssistant && m.Model != "" {
			provider, model = m.Provider, m.Model
			break
		}
	}
	if model == "" {
		if p, mo, ok := strings.Cut(attrs.Model, "/"); ok {
			provider, model = p, mo
		} else {
			model = attrs.Model
		}
	}
	provider, model = orDefault(provider, "unknown"), orDefault(model, "unknown")

	results := map[string]int{} // call id -> index of its first result
	for i, m := range msgs {
		if m.Role == xToolResult {
			if _, ok := results[m.CallID]; !ok {
				results[m.CallID] = i
			}
		}
	}
	used := map[int]bool{}
	last := created
	at := func(t time.Time) time.Time {
		if t.IsZero() || !t.After(last) {
			t = last.Add(time.Millisecond)
		}
		last = t
		return t
	}
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	var out []json.RawMessage
	lastUser := ""
	for i, m := range msgs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t := at(m.Time)
		switch m.Role {
		case xUser, xContext:
			mid := ids.next("msg", t)
			lastUser = mid
			info := (&ocObj{}).add("role", "user").add("time", (&ocObj{}).add("created", ms(t)).raw()).
				add("agent", "build").add("model", (&ocObj{}).add("providerID", provider).add("modelID", model).raw()).
				add("id", mid).add("sessionID", sidJSON).raw()
			var parts []json.RawMessage
			for _, b := range m.Blocks {
				p := &ocObj{}
				switch b.Type {
				case xText:
					p.add("type", "text").add("text", b.Text)
					if m.Role == xContext {
						p.add("synthetic", true).add("metadata", (&ocObj{}).add("sessiondb", (&ocObj{}).add("context", m.Name).raw()).raw())
					}
				case xImage:
					if m.Role == xContext {
						loss.add("image in a context message")
						continue
					}
					p.add("type", "file").add("mime", b.MIME).add("filename", "image").add("url", "data:"+b.MIME+";base64,"+b.Data)
				default:
					loss.add(b.Type + " block in a user message")
					continue
				}
				p.add("id", ids.next("prt", t)).add("sessionID", sidJSON).add("messageID", mid)
				parts = append(parts, p.raw())
			}
			if len(parts) == 0 {
				continue
			}
			out = append(out, ocMessage(info, parts))
		case xAssistant:
			mid := ids.next("msg", t)
			var parts []json.RawMessage
			ranAll, calls := true, 0
			next := i + 1 // where this message's next result must be
			for _, b := range m.Blocks {
				p := &ocObj{}
				switch b.Type {
				case xText:
					p.add("type", "text").add("text", b.Text).add("time", (&ocObj{}).add("start", ms(t)).add("end", ms(t)).raw())
				case xThinking:
					if b.Redacted {
						loss.add("redacted thinking block")
						continue
					}
					p.add("type", "reasoning").add("text", b.Text)
					if b.Signature != "" {
						key := "sessiondb"
						if m.Provider == "anthropic" {
							key = "anthropic"
						}
						p.add("metadata", (&ocObj{}).add(key, (&ocObj{}).add("signature", b.Signature).raw()).raw())
					}
					p.add("time", (&ocObj{}).add("start", ms(t)).add("end", ms(t)).raw())
				case xCall:
					calls++
					state := &ocObj{}
					if k, ok := results[b.ID]; ok && k > i && !used[k] {
						used[k] = true
						if k != next {
							// opencode keeps a result in its call's part:
							// results come back in the order of the calls,
							// right after their message.
							loss.add("tool result not in its call's order")
						}
						next = k + 1
						res := msgs[k]
						var text []string
						for _, rb := range res.Blocks {
							if rb.Type != xText {
								loss.add(rb.Type + " block in a tool result")
								continue
							}
							text = append(text, rb.Text)
						}
						tm := (&ocObj{}).add("start", ms(t)).add("end", ms(t)).raw()
						if res.IsError {
							state.add("status", "error").add("input", b.Args).add("error", strings.Join(text, "\n\n")).add("time", tm)
						} else {
							state.add("status", "completed").add("input", b.Args).add("output", strings.Join(text, "\n\n")).
								add("title", "").add("metadata", json.RawMessage("{}")).add("time", tm)
						}
					} else {
						ranAll = false
						state.add("status", "pending").add("input", b.Args).add("raw", "")
					}
					p.add("type", "tool").add("callID", b.ID).add("tool", b.Name).add("state", state.raw())
				case xImage:
					loss.add("image in an assistant's message")
					continue
				default:
					loss.add(b.Type + " block")
					continue
				}
				p.add("id", ids.next("prt", t)).add("sessionID", sidJSON).add("messageID", mid)
				parts = append(parts, p.raw())
			}
			finish := "stop"
			if calls > 0 && ranAll {
				finish = "tool-calls"
			}
			zero := json.RawMessage(`{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}`)
			info := (&ocObj{}).add("role", "assistant").add("time", (&ocObj{}).add("created", ms(t)).add("completed", ms(t)).raw()).
				add("parentID", lastUser).add("modelID", orDefault(m.Model, model)).add("providerID", orDefault(m.Provider, provider)).
				add("mode", "build").add("agent", "build").add("path", (&ocObj{}).add("cwd", cwd).add("root", cwd).raw()).
				add("cost", 0).add("tokens", zero).add("finish", finish).add("id", mid).add("sessionID", sidJSON).raw()
			out = append(out, ocMessage(info, parts))
		case xToolResult:
			if !used[i] {
				loss.add("tool result without its call in the assistant message before it")
			}
		default:
			loss.add(m.Role + " message")
		}
	}
	if !loss.empty() {
		return nil, untranslatable(FormatOpencode, sess, "opencode has no shape for "+loss.String())
	}
	updated := sess.UpdatedAt
	if updated.Before(last) {
		updated = last
	}
	info := (&ocObj{}).add("id", sid).add("slug", "sessiondb").add("projectID", "global").add("directory", cwd).
		add("title", orDefault(sess.Title, "Imported session")).add("version", "sessiondb").
		add("time", (&ocObj{}).add("created", ms(created)).add("updated", ms(updated)).raw()).raw()
	var doc bytes.Buffer
	doc.WriteString(`{"info":`)
	doc.Write(info)
	doc.WriteString(`,"messages":[`)
	for i, m := range out {
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.Write(m)
	}
	doc.WriteString("]}")
	return opencode.Indent(doc.Bytes())
}

// ocMessage is one message of an export: its info and parts.
func ocMessage(info json.RawMessage, parts []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"info":`)
	b.Write(info)
	b.WriteString(`,"parts":[`)
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(p)
	}
	b.WriteString("]}")
	return b.Bytes()
}
