package cline

// The Cline SDK's sessions (the CLI 3, Cline 4): sessions/<id>/ with
// <id>.messages.json, <id>.json and <id>.compaction.json (see the
// package doc, "The SDK layout").

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// The files of an SDK session folder (sessions/<id>/), by suffix after
// the session's ID.
const (
	SDKMessagesSuffix   = ".messages.json"   // the conversation (the primary file)
	SDKManifestSuffix   = ".json"            // the session's manifest
	SDKCompactionSuffix = ".compaction.json" // the last compaction, when there was one
)

// KindDisplay is the Kind of an SDK message marked metadata.displayOnly:
// shown to the user, never sent to the model.
const KindDisplay = "cline.display"

// sdkID returns the session ID of an SDK messages file
// (<id>.messages.json), "" when path is not named so.
func sdkID(path string) string {
	id, ok := strings.CutSuffix(filepath.Base(path), SDKMessagesSuffix)
	if !ok || id == "" {
		return ""
	}
	return id
}

// IsSDK reports whether path is the primary file of an SDK session
// (<id>.messages.json).
func IsSDK(path string) bool { return sdkID(path) != "" }

// claimSDK takes the SDK sessions among files: each <id>.messages.json
// that is a JSON object whose first member is "version" (as Cline writes
// it), with its manifest and compaction state beside it as side files.
func claimSDK(files []string) (units []jsonl.Unit, rest []string) {
	taken := map[string]bool{}
	present := map[string]bool{}
	for _, f := range files {
		present[f] = true
	}
	for _, f := range files {
		id := sdkID(f)
		if id == "" || !sniffObject(f, "version") {
			continue
		}
		u := jsonl.Unit{Format: Name, Path: f}
		taken[f] = true
		for _, suffix := range []string{SDKManifestSuffix, SDKCompactionSuffix} {
			p := filepath.Join(filepath.Dir(f), id+suffix)
			if present[p] || regular(p) {
				u.Extra = append(u.Extra, p)
				taken[p] = true
			}
		}
		units = append(units, u)
	}
	for _, f := range files {
		if !taken[f] {
			rest = append(rest, f)
		}
	}
	return units, rest
}

// sniffObject reports whether the file at path is a JSON object whose
// first member is key.
func sniffObject(path, key string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 4096))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	t, err := dec.Token()
	return err == nil && t == key
}

// sdkFile is an SDK messages file as read.
type sdkFile struct {
	raw   []byte
	elems []json.RawMessage // the messages, each compacted
	// head and tail are the file's bytes before and after the messages
	// array; indent is the file's indentation unit ("" when compact).
	head, tail []byte
	indent     string
	// exact reports whether head + the messages laid out as
	// JSON.stringify lays them out + tail is the file.
	exact, damaged bool
	updatedAt      string
}

// readSDK reads an SDK messages file. Damage (invalid JSON, a file cut
// short, an oversized message, invalid UTF-8) is a problem; the messages
// before it are kept. It fails when the file cannot be read or is not a
// JSON object.
func readSDK(ctx context.Context, path string, problem func(format string, args ...any)) (*sdkFile, error) {
	raw, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	s := &sdkFile{raw: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %w", sessiondb.ErrInvalid)
	}
	found := false
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			problem("invalid JSON at byte %d (%v): the messages before it are read", dec.InputOffset(), err)
			s.damaged = true
			return s, nil
		}
		if key != "messages" || found {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				problem("invalid JSON in member %q at byte %d (%v): the messages before it are read", key, dec.InputOffset(), err)
				s.damaged = true
				return s, nil
			}
			if key == "updated_at" {
				_ = json.Unmarshal(v, &s.updatedAt)
			}
			continue
		}
		found = true
		if !s.readMessages(dec, problem) {
			return s, nil
		}
	}
	if _, err := dec.Token(); err != nil {
		problem("object not closed (byte %d): the file ends early; the messages before are read", dec.InputOffset())
		s.damaged = true
		return s, nil
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		problem("data after the object (byte %d); ignored", dec.InputOffset())
		s.damaged = true
	}
	if !found {
		problem("no messages member; the session has no conversation")
	}
	if found && !s.damaged {
		// (Around the messages, invalid UTF-8 would not survive the
		// state document: such a file is kept whole.)
		s.exact = utf8.Valid(s.head) && utf8.Valid(s.tail) && bytes.Equal(s.rebuild(s.elems), raw)
	}
	return s, nil
}

// readMessages reads the messages array at the decoder's position (after
// its key), recording the bytes around it. It reports false when the
// read stopped at damage.
func (s *sdkFile) readMessages(dec *json.Decoder, problem func(format string, args ...any)) bool {
	t, err := dec.Token()
	if err != nil || t != json.Delim('[') {
		problem("messages is not a JSON array (byte %d)", dec.InputOffset())
		s.damaged = true
		return false
	}
	open := int(dec.InputOffset()) - 1
	s.head = bytes.Clone(s.raw[:open])
	// The indentation unit: what precedes the "messages" key on its line
	// (JSON.stringify(v, null, 2) puts it at depth 1).
	if line := bytes.LastIndexByte(s.head, '\n'); line >= 0 {
		rest := s.head[line+1:]
		if k := bytes.Index(rest, []byte(`"messages"`)); k > 0 && len(bytes.Trim(rest[:k], " \t")) == 0 {
			s.indent = string(rest[:k])
		}
	}
	for dec.More() {
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			problem("invalid JSON in message %d at byte %d (%v): the messages before it are read", len(s.elems)+1, dec.InputOffset(), err)
			s.damaged = true
			return false
		}
		body := compact(elem)
		if len(body) > sessiondb.MaxBodySize {
			problem("message %d is larger than %d bytes; skipped", len(s.elems)+1, sessiondb.MaxBodySize)
			s.damaged = true
			continue
		}
		if v := jsonl.ValidUTF8(body); !bytes.Equal(v, body) {
			problem("message %d: invalid UTF-8 replaced with U+FFFD", len(s.elems)+1)
			body = v
			s.damaged = true
		}
		s.elems = append(s.elems, body)
	}
	if _, err := dec.Token(); err != nil {
		problem("messages array not closed (byte %d): the file ends early; the messages before are read", dec.InputOffset())
		s.damaged = true
		return false
	}
	s.tail = bytes.Clone(s.raw[int(dec.InputOffset()):])
	return true
}

// rebuild lays out elems in the file's style between its head and tail.
func (s *sdkFile) rebuild(elems []json.RawMessage) []byte {
	return layoutSDK(s.head, s.tail, s.indent, elems)
}

// layoutSDK writes head, the messages array as JSON.stringify(v, null,
// indent) writes it at depth 1 (compact when indent is ""), and tail.
func layoutSDK(head, tail []byte, indent string, elems []json.RawMessage) []byte {
	var b bytes.Buffer
	b.Write(head)
	switch {
	case len(elems) == 0:
		b.WriteString("[]")
	case indent == "":
		b.Write(joinArray(elems))
	default:
		inner := indent + indent
		b.WriteString("[\n")
		for i, e := range elems {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			if json.Indent(&b, e, inner, indent) != nil {
				b.Write(e)
			}
		}
		b.WriteString("\n" + indent + "]")
	}
	b.Write(tail)
	return b.Bytes()
}

// sdkManifest is what the reader reads of a session's manifest
// (<id>.json, SessionManifest).
type sdkManifest struct {
	SessionID     string `json:"session_id"`
	Source        string `json:"source"`
	StartedAt     string `json:"started_at"`
	EndedAt       string `json:"ended_at"`
	Status        string `json:"status"`
	Provider      string `json:"provider"`
	Model         string `json:"model"`
	CWD           string `json:"cwd"`
	WorkspaceRoot string `json:"workspace_root"`
	Prompt        string `json:"prompt"`
	Metadata      struct {
		Title  string `json:"title"`
		Origin struct {
			Version string `json:"version"`
		} `json:"sessionHistoryOrigin"`
	} `json:"metadata"`
}

// sdkMessage is what the reader reads of a message (MessageWithMetadata).
type sdkMessage struct {
	ID        string      `json:"id"`
	Role      string      `json:"role"`
	TS        json.Number `json:"ts"`
	ModelInfo struct {
		ID       string `json:"id"`
		Provider string `json:"provider"`
	} `json:"modelInfo"`
	Metrics *struct {
		InputTokens      *json.Number `json:"inputTokens"`
		OutputTokens     *json.Number `json:"outputTokens"`
		CacheReadTokens  *json.Number `json:"cacheReadTokens"`
		CacheWriteTokens *json.Number `json:"cacheWriteTokens"`
		Cost             *json.Number `json:"cost"`
	} `json:"metrics"`
	Metadata struct {
		DisplayOnly bool `json:"displayOnly"`
	} `json:"metadata"`
}

// decodeSDKMessage decodes a message body (numbers kept as written).
func decodeSDKMessage(body []byte) sdkMessage {
	var m sdkMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	_ = dec.Decode(&m)
	return m
}

// sdkCompaction is a session's compaction state (<id>.compaction.json,
// SessionCompactionState).
type sdkCompaction struct {
	SourceMessageCount *int64            `json:"source_message_count"`
	SourcePrefixHash   string            `json:"source_prefix_hash"`
	SourceLastKey      string            `json:"source_last_message_key"`
	Messages           []json.RawMessage `json:"messages"`
}

// parseSDK reads one SDK session.
func parseSDK(ctx context.Context, u jsonl.Unit) (*jsonl.Parsed, error) {
	id := sdkID(u.Path)
	var problems []jsonl.Problem
	sf, err := readSDK(ctx, u.Path, func(format string, args ...any) {
		problems = append(problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf(format, args...)})
	})
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	var man *sdkManifest
	var comp []byte
	for _, x := range u.Extra {
		name := filepath.Base(x)
		switch name {
		case id + SDKManifestSuffix:
			if data := readObject(x, &problems); data != nil {
				files[name] = string(data)
				var m sdkManifest
				if json.Unmarshal(data, &m) == nil {
					man = &m
				}
			}
		case id + SDKCompactionSuffix:
			if data := readObject(x, &problems); data != nil {
				files[name] = string(data)
				comp = data
			}
		}
	}
	st, err := os.Stat(u.Path)
	if err != nil {
		return nil, err
	}
	out := &jsonl.Parsed{Unit: u, Problems: problems, Offset: st.Size()}
	var start time.Time
	if man != nil {
		start = rfcTime(man.StartedAt)
	}
	prev := start
	var model, provider string
	for _, body := range sf.elems {
		m := decodeSDKMessage(body)
		tm := msTime(m.TS)
		if tm.IsZero() || tm.Before(prev) {
			tm = prev
		}
		prev = tm
		kind := sessiondb.KindMessage
		if m.Metadata.DisplayOnly {
			kind = KindDisplay
		}
		out.Entries = append(out.Entries, sessiondb.Entry{Kind: kind, Role: m.Role, CreatedAt: tm, Body: body})
		if m.ModelInfo.ID != "" {
			model, provider = m.ModelInfo.ID, m.ModelInfo.Provider
		}
	}
	if len(out.Entries) == 0 {
		return nil, fmt.Errorf("%w: no message yet", jsonl.ErrNoConversation)
	}
	first, last := start, time.Time{}
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
	for i := range out.Entries {
		if out.Entries[i].CreatedAt.IsZero() {
			out.Entries[i].CreatedAt = first
		}
	}
	if man != nil {
		if tm := rfcTime(man.EndedAt); tm.After(last) {
			last = tm
		}
	}
	if tm := rfcTime(sf.updatedAt); tm.After(last) {
		last = tm
	}
	if last.Before(first) {
		last = first
	}
	out.Usage = sdkUsage(out.Entries, first)
	if comp != nil {
		if c, ok, why := sdkCompactionOf(comp, out.Entries); ok {
			out.Compactions = append(out.Compactions, c)
		} else if why != "" {
			out.Problems = append(out.Problems, jsonl.Problem{Path: filepath.Join(filepath.Dir(u.Path), id+SDKCompactionSuffix), Reason: why})
		}
	}
	var layout map[string]any
	switch {
	case sf.exact:
		layout = map[string]any{"indent": sf.indent, "head": string(sf.head), "tail": string(sf.tail)}
	case sf.damaged:
		// The messages read, in a file that closes where the damage
		// began (an export writes what was imported, as valid JSON).
		head, tail := string(jsonl.ValidUTF8(sf.head)), "}"
		if sf.head == nil {
			head, sf.indent = `{"messages":`, ""
		}
		if sf.indent != "" {
			tail = "\n}"
		}
		layout = map[string]any{"indent": sf.indent, "head": head, "tail": tail}
	default:
		// Not JSON.stringify's layout: the file as read.
		layout = map[string]any{"raw": string(jsonl.ValidUTF8(sf.raw))}
	}
	state := map[string]any{"sdk": layout}
	if len(files) > 0 {
		state["files"] = files
	}
	out.State = jsonl.MustJSON(state)
	attrs := map[string]any{"model": model, "provider": provider, "extension": "cline", "layout": "sdk"}
	title := ""
	if man != nil {
		attrs["model"] = jsonl.OrString(model, man.Model)
		attrs["provider"] = jsonl.OrString(provider, man.Provider)
		attrs["cwd"] = jsonl.OrString(man.CWD, man.WorkspaceRoot)
		attrs["status"] = man.Status
		attrs["source"] = man.Source
		attrs["cline_version"] = man.Metadata.Origin.Version
		title = jsonl.OrString(jsonl.TitleOf(man.Metadata.Title), jsonl.TitleOf(normalizeUserInput(man.Prompt)))
	}
	if title == "" {
		for _, e := range out.Entries {
			if e.Role == "user" && e.Kind == sessiondb.KindMessage {
				if msg := jsonl.ReadMessage(Format{}, e); len(msg.Results) == 0 && msg.Text != "" {
					title = jsonl.TitleOf(msg.Text)
					break
				}
			}
		}
	}
	out.Session = sessiondb.Session{ID: id, Title: title, Attrs: jsonl.MergeAttrs(attrs), CreatedAt: first, UpdatedAt: last}
	return out, nil
}

// rfcTime parses an ISO time ("" and garbage: zero).
func rfcTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// sdkUsage returns a row per assistant message with metrics, as the SDK
// sums them into the manifest's metadata.usage: the SDK's inputTokens
// counts the whole input (its pricing subtracts the cache reads and
// writes from it), so InputTokens is what remains of it after the cache.
// The cost is the message's metrics.cost, else priced (estimated).
func sdkUsage(entries []sessiondb.Entry, start time.Time) []sessiondb.Usage {
	var rows []sessiondb.Usage
	var unpriced []int
	for i, e := range entries {
		if e.Role != "assistant" {
			continue
		}
		m := decodeSDKMessage(e.Body)
		if m.Metrics == nil {
			continue
		}
		in, out := num(m.Metrics.InputTokens), num(m.Metrics.OutputTokens)
		cr, cw := num(m.Metrics.CacheReadTokens), num(m.Metrics.CacheWriteTokens)
		u := sessiondb.Usage{
			Seq:              int64(i + 1),
			CallID:           jsonl.OrString(m.ID, fmt.Sprintf("msg-%d", i+1)),
			Model:            m.ModelInfo.ID,
			Provider:         m.ModelInfo.Provider,
			InputTokens:      max(in-cr-cw, 0),
			OutputTokens:     out,
			CacheReadTokens:  cr,
			CacheWriteTokens: cw,
			CreatedAt:        e.CreatedAt,
		}
		if u.CreatedAt.IsZero() {
			u.CreatedAt = start
		}
		if m.Metrics.Cost != nil {
			u.Cost, _ = m.Metrics.Cost.Float64()
		} else {
			unpriced = append(unpriced, len(rows))
		}
		rows = append(rows, u)
	}
	if len(unpriced) > 0 {
		batch := make([]sessiondb.Usage, len(unpriced))
		for k, i := range unpriced {
			batch[k] = rows[i]
		}
		jsonl.EstimateCosts(batch)
		for k, i := range unpriced {
			rows[i] = batch[k]
		}
	}
	return rows
}

// sdkKey is a message's boundary key as the SDK's compaction writes it
// (source_last_message_key): "id:<id>", else "ts:<role>:<ts>".
func sdkKey(body []byte) string {
	m := decodeSDKMessage(body)
	if id := strings.TrimSpace(m.ID); id != "" {
		return "id:" + id
	}
	if m.TS != "" {
		return "ts:" + m.Role + ":" + m.TS.String()
	}
	return ""
}

// sdkCompactionOf reads a compaction state against the session's
// messages as the SDK projects it (projectSessionCompactionState) onto
// the messages that are not display-only: when its source_message_count
// first of them are the ones it was made from — their hash is its
// source_prefix_hash, or, for a state without one, the last of them has
// its source_last_message_key — what the model is sent is its messages
// followed by the rest. why says why a state is not applied ("" when
// there is none).
func sdkCompactionOf(data []byte, entries []sessiondb.Entry) (c sessiondb.Compaction, ok bool, why string) {
	var st sdkCompaction
	if err := json.Unmarshal(data, &st); err != nil || st.SourceMessageCount == nil {
		return c, false, "not a compaction state (no source_message_count); not applied"
	}
	var visible []int
	for i, e := range entries {
		if e.Kind != KindDisplay {
			visible = append(visible, i)
		}
	}
	n := *st.SourceMessageCount
	if n < 0 || n > int64(len(visible)) {
		return c, false, fmt.Sprintf("compaction state made from %d messages, the session has %d; not applied (as Cline)", n, len(visible))
	}
	switch {
	case st.SourcePrefixHash != "":
		bodies := make([][]byte, n)
		for i := range bodies {
			bodies[i] = entries[visible[i]].Body
		}
		if sdkPrefixHash(bodies) != st.SourcePrefixHash {
			return c, false, "compaction state made from other messages (source_prefix_hash); not applied (as Cline)"
		}
	case n > 0 && st.SourceLastKey != "":
		if sdkKey(entries[visible[n-1]].Body) != st.SourceLastKey {
			return c, false, "compaction state made from other messages (source_last_message_key); not applied (as Cline)"
		}
	default:
		return c, false, "compaction state without source_prefix_hash or source_last_message_key; not applied (as Cline)"
	}
	var at time.Time
	keep := int64(1)
	if n > 0 {
		last := visible[n-1]
		keep, at = int64(last+2), entries[last].CreatedAt
	}
	c = sessiondb.Compaction{
		AtSeq:       keep - 1,
		KeepFromSeq: keep,
		Details:     jsonl.MustJSON(map[string]any{"reason": "cline sdk compaction", "source_message_count": n}),
	}
	for _, raw := range st.Messages {
		body := compact(raw)
		m := decodeSDKMessage(body)
		tm := msTime(m.TS)
		if tm.IsZero() {
			tm = at
		}
		c.Summary = append(c.Summary, sessiondb.Entry{Kind: sessiondb.KindMessage, Role: m.Role, CreatedAt: tm, Body: body})
	}
	return c, true, ""
}

// sdkPrefixHash is the SDK's hash of the messages a compaction was made
// from: SHA-256 of "cline-session-compaction-source-v2\n", their number
// and "\n", then per message the JSON.stringify of
// [["role", …], ["content", …], ["agent", …], ["sessionId", …],
// ["metadata", …], ["modelInfo", …], ["metrics", …]] (absent members
// null; a user message's texts as formatDisplayUserInput shows them) and
// "\n".
func sdkPrefixHash(bodies [][]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "cline-session-compaction-source-v2\n%d\n", len(bodies))
	for _, body := range bodies {
		members := objectMembers(body)
		var b bytes.Buffer
		b.WriteByte('[')
		for i, k := range []string{"role", "content", "agent", "sessionId", "metadata", "modelInfo", "metrics"} {
			if i > 0 {
				b.WriteByte(',')
			}
			v := members[k]
			if len(v) == 0 {
				v = []byte("null")
			}
			if k == "content" {
				var role string
				_ = json.Unmarshal(members["role"], &role)
				if role == "user" {
					v = displayContent(v)
				}
			}
			b.WriteString(`["` + k + `",`)
			b.Write(v)
			b.WriteByte(']')
		}
		b.WriteByte(']')
		h.Write(b.Bytes())
		h.Write([]byte("\n"))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// member is one member of a JSON object, in order.
type member struct {
	key   string
	value json.RawMessage
}

// orderedMembers returns the members of the compact JSON object raw in
// their order (nil when raw is not an object).
func orderedMembers(raw []byte) []member {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return nil
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil
		}
		out = append(out, member{k, v})
	}
	return out
}

// objectMembers returns the members of the JSON object raw by key (the
// last of a repeated key, as JSON.parse keeps it).
func objectMembers(raw []byte) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, m := range orderedMembers(raw) {
		out[m.key] = m.value
	}
	return out
}

// displayContent is a user message's content with its texts as the SDK's
// formatDisplayUserInput shows them ({...block, text: …}: the members
// kept in their order), laid out as JSON.stringify lays it out.
func displayContent(content json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return jsString(displayUserInput(s))
	}
	var list []json.RawMessage
	if json.Unmarshal(content, &list) != nil {
		return content
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, blk := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		ms := orderedMembers(blk)
		byKey := objectMembers(blk)
		if ms == nil || string(byKey["type"]) != `"text"` {
			b.Write(blk)
			continue
		}
		// A spread copy: each key once, where it first stood, with its
		// last value.
		b.WriteByte('{')
		seen := map[string]bool{}
		first := true
		for _, m := range ms {
			if seen[m.key] {
				continue
			}
			seen[m.key] = true
			v := byKey[m.key]
			if m.key == "text" {
				var t string
				if json.Unmarshal(v, &t) == nil {
					v = jsString(displayUserInput(t))
				}
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.Write(jsString(m.key))
			b.WriteByte(':')
			b.Write(v)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.Bytes()
}

// jsString is JSON.stringify of the string s: quotes, backslashes and
// control characters escaped (\b \f \n \r \t, else \u00xx), nothing else.
func jsString(s string) []byte {
	const hexDigits = "0123456789abcdef"
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// displayUserInput is the SDK's formatDisplayUserInput: the text without
// its envelopes and <mode_notice> elements, a <user_command slash="x">
// envelope shown as "/x text".
func displayUserInput(s string) string {
	t := stripModeNotices(normalizeUserInput(s))
	slash, ok := userCommandSlash(s)
	if !ok {
		return t
	}
	if strings.EqualFold(slash, "team") {
		v := t
		if strings.HasPrefix(strings.ToLower(t), "spawn a team of agents for the following task:") {
			v = strings.TrimSpace(t[46:])
		}
		if v == "" {
			return "/team"
		}
		return "/team " + v
	}
	if t == "" {
		return "/" + slash
	}
	return "/" + slash + " " + t
}

// stripModeNotices removes each <mode_notice>…</mode_notice> and trims.
func stripModeNotices(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	const open, closing = "<mode_notice>", "</mode_notice>"
	i := strings.Index(s, open)
	for i != -1 {
		j := strings.Index(s[i+len(open):], closing)
		if j == -1 {
			break
		}
		s = s[:i] + s[i+len(open)+j+len(closing):]
		k := strings.Index(s[i:], open)
		if k == -1 {
			break
		}
		i += k
	}
	return strings.TrimSpace(s)
}

// userCommandSlash returns the slash attribute of a text that is one
// <user_command slash="…">…</user_command> envelope.
func userCommandSlash(s string) (string, bool) {
	t := strings.TrimSpace(s)
	lower := strings.ToLower(t)
	if !strings.HasPrefix(lower, "<user_command") || !strings.HasSuffix(lower, "</user_command>") {
		return "", false
	}
	rest := t[len("<user_command"):]
	if rest != "" && isWordByte(rest[0]) {
		return "", false
	}
	gt := strings.IndexByte(rest, '>')
	if gt < 0 {
		return "", false
	}
	attrs := strings.ToLower(rest[:gt])
	k := strings.Index(attrs, `slash="`)
	if k < 0 {
		return "", false
	}
	v := rest[k+len(`slash="`) : gt]
	end := strings.IndexByte(v, '"')
	if end <= 0 {
		return "", false
	}
	slash := strings.TrimSpace(v[:end])
	return slash, slash != ""
}

// normalizeUserInput is the SDK's normalizeUserInput (@cline/shared
// prompt/format): the text of the <user_input mode="…"> and
// <user_command …> envelopes the runtime stamps on a prompt (the
// envelope's tags removed), trimmed; what the SDK sends the model as
// the user's text.
func normalizeUserInput(s string) string {
	t := strings.TrimSpace(s)
	if t == "" {
		return ""
	}
	for _, tag := range []string{"user_input", "user_command"} {
		n := removeEnvelope(t, tag)
		if n == t {
			n = stripOpenTags(t, tag)
		}
		t = strings.TrimSpace(n)
	}
	return t
}

// removeEnvelope replaces each <tag …>x</tag> in s with x (the SDK's
// xmlTagsRemoval: the regular expression <tag\b[^>]*>([\s\S]*?)</tag>).
func removeEnvelope(s, tag string) string {
	var b strings.Builder
	open, closing := "<"+tag, "</"+tag+">"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		after := s[i+len(open):]
		// \b: the tag's name ends there.
		if after != "" && isWordByte(after[0]) {
			b.WriteString(s[:i+len(open)])
			s = after
			continue
		}
		gt := strings.IndexByte(after, '>')
		if gt < 0 {
			break
		}
		body := after[gt+1:]
		end := strings.Index(body, closing)
		if end < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(body[:end])
		s = body[end+len(closing):]
	}
	b.WriteString(s)
	return b.String()
}

// stripOpenTags removes each <tag…> (the regular expression <tag[^>]*>).
func stripOpenTags(s, tag string) string {
	var b strings.Builder
	open := "<" + tag
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		gt := strings.IndexByte(s[i:], '>')
		if gt < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+gt+1:]
	}
	b.WriteString(s)
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
