package geminichat

// Whole-JSON chats (see the package doc): reading one into entries, and
// writing the entries back as the file.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// KindSession is the Kind of the entry holding a chat's metadata: a
// whole-JSON chat's top-level object, a Gemini CLI JSONL chat's header
// line.
const KindSession = "session"

// Legacy is what ParseLegacy read of a whole-JSON chat.
type Legacy struct {
	// Entries are the session entry and one entry per message, in order.
	Entries []sessiondb.Entry
	// Usage has one row per assistant message with tokens (Seq its entry,
	// CallID its id).
	Usage []sessiondb.Usage
	// SessionID, ProjectHash, Summary and Kind are the chat's members.
	SessionID, ProjectHash, Summary, Kind string
	// Directories is the directories member, raw.
	Directories json.RawMessage
	// Start and Last are startTime and the newest time met.
	Start, Last time.Time
	// Model is the model of the last assistant message.
	Model string
	// Problems are the damage found.
	Problems []jsonl.Problem
	// Size is the file's size when read.
	Size int64
}

// SniffLegacy reports whether path holds a whole-JSON chat: a JSON object
// whose first members include sessionId and projectHash, read no further
// than its messages. assistant, when not "", is the assistant type the
// chat must show: the first assistant-like message (not user, info,
// error or warning) must have that type; a chat with none passes.
func SniffLegacy(path, assistant string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(io.LimitReader(f, 4<<20), 64<<10))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	var sid, hash bool
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := t.(string)
		if key == "messages" {
			if !sid || !hash {
				return false
			}
			if assistant == "" {
				return true
			}
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return false
			}
			for dec.More() {
				var m struct {
					Type string `json:"type"`
				}
				if dec.Decode(&m) != nil {
					return false
				}
				if m.Type != "user" && !uiTypes[m.Type] {
					return m.Type == assistant
				}
			}
			return true
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return false
		}
		var s string
		switch key {
		case "sessionId":
			sid = json.Unmarshal(v, &s) == nil && s != ""
		case "projectHash":
			hash = json.Unmarshal(v, &s) == nil
		}
	}
	return sid && hash
}

// ParseLegacy reads the whole-JSON chat at path (see the package doc),
// whose assistant type is assistant; separate is Usage's assumption about
// thoughts. Damage (invalid JSON, a document cut short) is a problem: the
// messages read before it are kept. It fails only when the file cannot be
// read or holds no chat object at all.
func ParseLegacy(ctx context.Context, path, assistant string, separate bool) (*Legacy, error) {
	f, err := jsonl.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	l := &Legacy{Size: st.Size()}
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	problem := func(format string, args ...any) {
		l.Problems = append(l.Problems, jsonl.Problem{Path: path, Reason: fmt.Sprintf(format, args...)})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("%s is not a JSON object: %w", path, sessiondb.ErrInvalid)
	}
	var top bytes.Buffer // the session entry: members in order, messages empty
	top.WriteByte('{')
	members := 0
	member := func(key string, val []byte) {
		if members > 0 {
			top.WriteByte(',')
		}
		members++
		top.Write(jsonl.MustJSON(key))
		top.WriteByte(':')
		top.Write(val)
	}
	damaged := false
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t, err := dec.Token()
		if err != nil {
			problem("invalid JSON at byte %d (%v): the chat is read up to there", dec.InputOffset(), err)
			damaged = true
			break
		}
		key, _ := t.(string)
		if key == "messages" {
			member(key, []byte("[]"))
			if !l.messages(ctx, dec, assistant, separate, problem) {
				damaged = true
				break
			}
			continue
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			problem("invalid JSON at byte %d (%v): the chat is read up to there", dec.InputOffset(), err)
			damaged = true
			break
		}
		c := compact(v)
		member(key, c)
		var s string
		_ = json.Unmarshal(c, &s)
		switch key {
		case "sessionId":
			l.SessionID = s
		case "projectHash":
			l.ProjectHash = s
		case "summary":
			l.Summary = s
		case "kind":
			l.Kind = s
		case "directories":
			l.Directories = c
		case "startTime":
			l.Start = jsonl.ParseTime(s)
		case "lastUpdated":
			if tm := jsonl.ParseTime(s); tm.After(l.Last) {
				l.Last = tm
			}
		}
	}
	if !damaged {
		if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
			problem("invalid JSON at byte %d (%v) after the chat's members", dec.InputOffset(), err)
		}
	}
	top.WriteByte('}')
	head := sessiondb.Entry{Kind: KindSession, Role: KindSession, CreatedAt: l.Start, Body: top.Bytes()}
	if head.CreatedAt.IsZero() {
		head.CreatedAt = l.Last
	}
	l.Entries = append([]sessiondb.Entry{head}, l.Entries...)
	for i := range l.Usage {
		l.Usage[i].Seq++ // the session entry comes first
	}
	if l.Last.Before(l.Start) {
		l.Last = l.Start
	}
	for i := range l.Entries {
		if l.Entries[i].CreatedAt.IsZero() {
			l.Entries[i].CreatedAt = l.Start
		}
	}
	return l, nil
}

// messages reads the messages array; false when the document is damaged
// in it.
func (l *Legacy) messages(ctx context.Context, dec *json.Decoder, assistant string, separate bool, problem func(string, ...any)) bool {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		problem("messages is not a list (byte %d); no message read", dec.InputOffset())
		return false
	}
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			problem("invalid JSON in message %d at byte %d (%v): the messages before it are read", len(l.Entries)+1, dec.InputOffset(), err)
			return false
		}
		body := compact(raw)
		if len(body) > sessiondb.MaxBodySize {
			problem("message %d is larger than %d bytes; skipped", len(l.Entries)+1, sessiondb.MaxBodySize)
			continue
		}
		if v := jsonl.ValidUTF8(body); len(v) != len(body) || !bytes.Equal(v, body) {
			problem("message %d: invalid UTF-8 replaced with U+FFFD", len(l.Entries)+1)
			body = v
		}
		var rec struct {
			ID        string          `json:"id"`
			Type      string          `json:"type"`
			Timestamp json.RawMessage `json:"timestamp"`
			Model     string          `json:"model"`
			Tokens    json.RawMessage `json:"tokens"`
		}
		if json.Unmarshal(body, &rec) != nil {
			problem("message %d is not an object; kept as data", len(l.Entries)+1)
		}
		t := RecordTime(rec.Timestamp)
		if t.After(l.Last) {
			l.Last = t
		}
		e := sessiondb.Entry{Kind: RecordKind(rec.Type, assistant), Role: RecordRole(rec.Type, assistant), CreatedAt: t, Body: body}
		l.Entries = append(l.Entries, e)
		if rec.Type == assistant {
			if rec.Model != "" {
				l.Model = rec.Model
			}
			if c, ok := RecordTokens(rec.Tokens); ok {
				u := Usage(c, separate)
				u.Seq, u.CallID, u.Model, u.CreatedAt = int64(len(l.Entries)), rec.ID, rec.Model, t
				l.Usage = append(l.Usage, u)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		problem("messages list not closed (byte %d): the chat ends early", dec.InputOffset())
		return false
	}
	return true
}

// RecordKind is the Kind of a record of type typ: "message" for the
// user's and the assistant's, else the type itself (jsonl.EntryKind).
func RecordKind(typ, assistant string) string {
	if typ == "user" || typ == assistant {
		return sessiondb.KindMessage
	}
	return jsonl.EntryKind("gemini-record", typ)
}

// RecordRole is the Role of a record of type typ: "user", "assistant", or
// the type.
func RecordRole(typ, assistant string) string {
	switch typ {
	case "user":
		return "user"
	case assistant:
		return "assistant"
	}
	return typ
}

// compact returns raw without insignificant white space (raw itself when
// it does not compact).
func compact(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return bytes.Clone(raw)
	}
	return b.Bytes()
}

// RenderLegacy writes a whole-JSON chat from its entries as ParseLegacy
// made them: the session entry's members, in order, with the messages
// (the other entries' bodies) in its messages array, indented by two
// spaces, without a trailing newline.
func RenderLegacy(entries []sessiondb.Entry) ([]byte, error) {
	if len(entries) == 0 || entries[0].Kind != KindSession {
		return nil, fmt.Errorf("no session entry: %w", sessiondb.ErrInvalid)
	}
	dec := json.NewDecoder(bytes.NewReader(entries[0].Body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("session entry is not a JSON object: %w", sessiondb.ErrInvalid)
	}
	var doc bytes.Buffer
	doc.WriteByte('{')
	for i := 0; dec.More(); i++ {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("session entry: %w", err)
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("session entry: %w", err)
		}
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.Write(jsonl.MustJSON(key))
		doc.WriteByte(':')
		if key != "messages" {
			doc.Write(v)
			continue
		}
		doc.WriteByte('[')
		for j, e := range entries[1:] {
			if j > 0 {
				doc.WriteByte(',')
			}
			doc.Write(compact(e.Body))
		}
		doc.WriteByte(']')
	}
	doc.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, doc.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("render chat: %w", err)
	}
	return out.Bytes(), nil
}
