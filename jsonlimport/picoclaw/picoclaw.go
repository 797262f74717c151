package picoclaw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/jsonscan"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// Format reads and writes picoclaw's session directories
// (github.com/sipeed/picoclaw, pkg/memory.JSONLStore): {key}.jsonl with one
// providers.Message per line plus {key}.meta.json, meta-only sessions, and
// the legacy pre-JSONL {key}.json session files.
type Format struct{}

// Name is the format name of picoclaw sessions.
const Name = "picoclaw"

var _ jsonl.Format = Format{}

// picoclawScannerMax is picoclaw's bufio.Scanner limit: a line of this many
// bytes or more makes picoclaw's loader fail for the whole session.
const picoclawScannerMax = 10 * 1024 * 1024

// picoclawMaxKey is the longest key whose files fit a 255-byte file name.
const picoclawMaxKey = 245

// Name implements Format.
func (Format) Name() string { return Name }

// picoMeta mirrors picoclaw's SessionMeta; Export writes it too (its field
// order is picoclaw's).
type picoMeta struct {
	Key       string          `json:"key"`
	Summary   string          `json:"summary"`
	Skip      int             `json:"skip"`
	Count     int             `json:"count"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	Scope     json.RawMessage `json:"scope,omitempty"`
	Aliases   []string        `json:"aliases,omitempty"`
}

// picoMessage mirrors the persisted fields of picoclaw's
// protocoltypes.Message; decoding a line into it with encoding/json fails
// exactly when picoclaw's loader skips the line as corrupt.
type picoMessage struct {
	Role             string             `json:"role"`
	Content          string             `json:"content"`
	ModelName        string             `json:"model_name,omitempty"`
	CreatedAt        *time.Time         `json:"created_at,omitempty"`
	Media            []string           `json:"media,omitempty"`
	Attachments      []picoAttachment   `json:"attachments,omitempty"`
	ReasoningContent string             `json:"reasoning_content,omitempty"`
	SystemParts      []picoContentBlock `json:"system_parts,omitempty"`
	ToolCalls        []picoToolCall     `json:"tool_calls,omitempty"`
	ToolCallID       string             `json:"tool_call_id,omitempty"`
}

type picoAttachment struct {
	Type        string `json:"type,omitempty"`
	Ref         string `json:"ref,omitempty"`
	URL         string `json:"url,omitempty"`
	Filename    string `json:"filename,omitempty"`
	ContentType string `json:"content_type,omitempty"`
}

type picoContentBlock struct {
	Type         string `json:"type"`
	Text         string `json:"text"`
	CacheControl *struct {
		Type string `json:"type"`
	} `json:"cache_control,omitempty"`
}

type picoToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type,omitempty"`
	Function *struct {
		Name             string `json:"name"`
		Arguments        string `json:"arguments"`
		ThoughtSignature string `json:"thought_signature,omitempty"`
	} `json:"function,omitempty"`
	ExtraContent *struct {
		Google *struct {
			ThoughtSignature string `json:"thought_signature,omitempty"`
		} `json:"google,omitempty"`
		ToolFeedbackExplanation string `json:"tool_feedback_explanation,omitempty"`
	} `json:"extra_content,omitempty"`
}

// transient reports picoclaw's IsTransientAssistantThoughtMessage: such
// messages are dropped on write and on read.
func (m *picoMessage) transient() bool {
	return m.Role == "assistant" &&
		strings.TrimSpace(m.Content) == "" &&
		strings.TrimSpace(m.ReasoningContent) != "" &&
		len(m.ToolCalls) == 0 && len(m.Media) == 0 && len(m.Attachments) == 0 &&
		strings.TrimSpace(m.ToolCallID) == ""
}

// picoLine is the outcome of reading one raw picoclaw line.
type picoLine struct {
	// body is the message to import (a sub-slice of the line when a
	// message was recovered from a damaged line); nil when none.
	body []byte
	msg  picoMessage
	// problem describes the damage ("" for a good line).
	problem string
	// dropped is true for a transient thought (not a defect).
	dropped bool
}

var picoRoleMarker = []byte(`{"role":`)

// parsePicoclawLine applies picoclaw's rules to one non-empty line (already
// without "\n" and trailing "\r"): json.Unmarshal into Message, skip on
// error. Beyond picoclaw, it recovers a complete message that follows NUL
// padding or a torn fragment on the same line (what picoclaw's append after
// a crash produces, and loses); such a line still reports a problem.
func parsePicoclawLine(line []byte) picoLine {
	var out picoLine
	err := json.Unmarshal(line, &out.msg)
	if err == nil {
		if out.msg.transient() {
			return picoLine{dropped: true, problem: "transient assistant thought (reasoning only) dropped, as picoclaw's loader does"}
		}
		out.body = line
		if !utf8.Valid(line) {
			out.problem = "invalid UTF-8 (picoclaw's loader reads it as U+FFFD); imported byte for byte"
		}
		return out
	}
	out.msg = picoMessage{}
	reason := "invalid JSON: " + err.Error()
	switch {
	case jsonl.IsBlank(line):
		reason = "whitespace-only line"
	case jsonscan.Valid(line):
		reason = "not a picoclaw message: " + err.Error()
	}
	trimmed := bytes.TrimLeft(line, "\x00")
	if len(trimmed) < len(line) {
		if len(trimmed) == 0 {
			return picoLine{problem: fmt.Sprintf("NUL padding (%d bytes)", len(line))}
		}
		reason = fmt.Sprintf("NUL padding (%d bytes) before the line", len(line)-len(trimmed))
		if rec, ok := recoverPicoclaw(trimmed); ok {
			rec.problem = reason + "; the message after it was recovered (picoclaw's loader drops the whole line)"
			rec.body = trimmed
			return rec
		}
	}
	if i, rec, ok := recoverAfterFragment(trimmed); ok {
		rec.problem = fmt.Sprintf("%s; a complete message appended after a torn fragment of %d bytes was recovered (picoclaw's loader drops the whole line)", reason, len(line)-len(trimmed)+i)
		return rec
	} else if i < 0 {
		reason += " (recovery gave up: too many message starts on one line)"
	}
	if !utf8.Valid(line) {
		reason += " (line also holds invalid UTF-8)"
	}
	return picoLine{problem: reason}
}

// recoverBudget bounds the bytes recoverAfterFragment hands to the JSON
// decoder, as a multiple of the line's length (plus a floor): each attempt
// scans up to the rest of the line, so trying every message start of a
// hostile line (a megabyte of `{"role":"user","content":[` repeated) was
// quadratic — 15 s for 416 KB before this bound.
const (
	recoverBudgetFactor = 8
	recoverBudgetFloor  = 1 << 20
)

// recoverAfterFragment finds a complete message that ends the line and
// starts at a message start after its first byte, and returns where it
// starts. i < 0 reports that the search gave up at its work budget.
//
// At most one start can qualify: a message start cannot lie inside a JSON
// string (its quote would end the string), so a qualifying start inside
// another qualifying message would be a nested object ending where the
// outer one must still close. The search therefore goes from the last
// start backwards, where the usual case (one torn fragment, then the
// message) succeeds at once, and stops when its budget is spent.
func recoverAfterFragment(b []byte) (int, picoLine, bool) {
	end := bytes.TrimRight(b, " \t\r\n")
	if len(end) == 0 || end[len(end)-1] != '}' {
		return 0, picoLine{}, false // no object can end the line
	}
	budget := recoverBudgetFactor*len(b) + recoverBudgetFloor
	for i := len(b); ; {
		j := bytes.LastIndex(b[1:i], picoRoleMarker)
		if j < 0 {
			return 0, picoLine{}, false
		}
		i = j + 1
		if budget -= len(b) - i; budget < 0 {
			return -1, picoLine{}, false
		}
		if rec, ok := recoverPicoclaw(b[i:]); ok {
			return i, rec, true
		}
	}
}

// recoverPicoclaw parses b as a whole picoclaw message.
func recoverPicoclaw(b []byte) (picoLine, bool) {
	var m picoMessage
	if json.Unmarshal(b, &m) != nil {
		return picoLine{}, false
	}
	if m.transient() {
		return picoLine{dropped: true}, true
	}
	return picoLine{body: b, msg: m}, true
}

// picoResume is the picoclaw reader's continuation state.
type picoResume struct {
	// Raw is the number of counted (non-empty) lines consumed.
	Raw int `json:"raw"`
	// Phys is the number of physical lines consumed (for line numbers).
	Phys int `json:"phys"`
	// Skip and KeepEntries are the meta skip applied last time and the
	// number of entries on the raw lines 1..Skip (valid when Skip <= Raw).
	Skip        int `json:"skip"`
	KeepEntries int `json:"keep_entries"`
}

// Claim implements Format. It takes {base}.jsonl files that have a
// {base}.meta.json beside them or whose first line is a picoclaw message,
// meta-only sessions ({base}.meta.json alone), and legacy {base}.json
// session objects. Side files are looked up on disk too, so that a single
// .jsonl named on the command line finds its meta.
func (Format) Claim(files []string) (units []jsonl.Unit, rest []string) {
	inList := map[string]bool{}
	for _, f := range files {
		inList[f] = true
	}
	exists := func(p string) bool {
		if inList[p] {
			return true
		}
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	for _, f := range files {
		if jsonl.Reserved(f) {
			// Claude Code 2.1 keeps agent-<id>.meta.json beside a
			// sub-agent transcript: not a picoclaw session (ClaudeCode
			// reserves the pair).
			rest = append(rest, f)
			continue
		}
		switch {
		case strings.HasSuffix(f, ".meta.json"):
			base := strings.TrimSuffix(f, ".meta.json")
			if inList[base+".jsonl"] {
				continue // claimed with its .jsonl
			}
			if exists(base + ".jsonl") {
				// Only the meta was named: import the session it describes.
				units = append(units, jsonl.Unit{Format: Name, Path: base + ".jsonl", Extra: []string{f}})
				continue
			}
			units = append(units, jsonl.Unit{Format: Name, Path: f})
		case strings.HasSuffix(f, ".jsonl"):
			base := strings.TrimSuffix(f, ".jsonl")
			if meta := base + ".meta.json"; exists(meta) {
				units = append(units, jsonl.Unit{Format: Name, Path: f, Extra: []string{meta}})
			} else if firstLineIsPicoclaw(f) {
				units = append(units, jsonl.Unit{Format: Name, Path: f})
			} else {
				rest = append(rest, f)
			}
		case strings.HasSuffix(f, ".json") && isLegacyPicoclaw(f):
			units = append(units, jsonl.Unit{Format: Name, Path: f})
		default:
			rest = append(rest, f)
		}
	}
	return units, rest
}

// firstLineIsPicoclaw reports whether the first non-empty line of a file
// starts like a line json.Marshal writes for a picoclaw message.
func firstLineIsPicoclaw(path string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	ok := false
	_ = jsonl.ScanLines(io.LimitReader(f, 1<<20), 0, func(line []byte, _ int, _, _ int64, _ bool) error {
		line = bytes.TrimLeft(jsonl.TrimCR(line), " \t\x00")
		if len(line) == 0 {
			return nil
		}
		ok = bytes.HasPrefix(line, picoRoleMarker)
		return jsonl.ErrStopScan
	})
	return ok
}

// legacyKeys are the members of picoclaw's legacy session object.
var legacyKeys = map[string]bool{"key": true, "messages": true, "summary": true, "created": true, "updated": true}

// isLegacyPicoclaw reports whether path holds a legacy picoclaw session:
// a JSON object whose members are among key, messages, summary, created,
// updated, with key or messages present. Only the start of the file is read.
func isLegacyPicoclaw(path string) bool {
	f, err := jsonl.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, 1<<20))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	found := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return found
		}
		name, _ := t.(string)
		if !legacyKeys[strings.ToLower(name)] {
			return false
		}
		if n := strings.ToLower(name); n == "key" || n == "messages" {
			found = true
		}
		if n := strings.ToLower(name); n == "messages" {
			return true // do not read the messages here
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return found
		}
	}
	return found
}

// Parse implements Format.
func (p Format) Parse(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	switch {
	case strings.HasSuffix(u.Path, ".meta.json"):
		if from.Offset > 0 {
			return nil, jsonl.ErrNotIncremental
		}
		return p.parseMetaOnly(u)
	case strings.HasSuffix(u.Path, ".jsonl"):
		return p.parseJSONL(ctx, u, from)
	case strings.HasSuffix(u.Path, ".json"):
		if from.Offset > 0 {
			return nil, jsonl.ErrNotIncremental
		}
		return p.parseLegacy(ctx, u)
	}
	return nil, fmt.Errorf("picoclaw: %s is not a picoclaw file", u.Path)
}

// picoBase returns the file base (sanitizeKey(key)) of a picoclaw file.
func picoBase(path string) string {
	name := filepath.Base(path)
	for _, ext := range []string{".meta.json", ".jsonl", ".json"} {
		if strings.HasSuffix(name, ext) {
			return strings.TrimSuffix(name, ext)
		}
	}
	return name
}

// readPicoMeta reads a .meta.json the way picoclaw does (json.Unmarshal of
// the whole file). A corrupt meta makes picoclaw's loader fail for the whole
// session; here the members before the damage are recovered, and the
// problem is reported. ok is false when the file does not exist.
func readPicoMeta(path string) (m picoMeta, ok bool, problems []jsonl.Problem, err error) {
	f, err := jsonl.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, false, nil, nil
	}
	if err != nil {
		return m, false, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return m, false, nil, err
	}
	if fi.Size() > jsonl.MaxLineSize {
		return m, true, []jsonl.Problem{{Path: path, Reason: fmt.Sprintf("meta file of %d bytes exceeds %d; ignored", fi.Size(), jsonl.MaxLineSize)}}, nil
	}
	// Bounded again while read: a meta that grows past the limit after the
	// check is not read on (jsonl.ReadFile's rule).
	data, err := io.ReadAll(io.LimitReader(f, jsonl.MaxLineSize+1))
	if err != nil {
		return m, false, nil, err
	}
	if len(data) > jsonl.MaxLineSize {
		return m, true, []jsonl.Problem{{Path: path, Reason: fmt.Sprintf("meta file grew over %d bytes while read; ignored", jsonl.MaxLineSize)}}, nil
	}
	if err := json.Unmarshal(data, &m); err == nil {
		return m, true, nil, nil
	} else {
		m = picoMeta{}
		rec, n := recoverMembers(data)
		_ = json.Unmarshal(rec, &m)
		reason := fmt.Sprintf("corrupt meta (picoclaw: \"memory: decode meta: %v\", the session is unreadable there)", err)
		if n > 0 {
			reason += fmt.Sprintf("; recovered %d member(s) before the damage", n)
		}
		if m.Skip != 0 {
			reason += fmt.Sprintf(", including skip %d", m.Skip)
		} else {
			reason += "; skip taken as 0"
		}
		return m, true, []jsonl.Problem{{Path: path, Reason: reason}}, nil
	}
}

// recoverMembers returns a JSON object made of the top-level members of a
// damaged JSON object that decode completely, and their number. Members
// decoded with type errors are kept out so that the rest still applies.
func recoverMembers(data []byte) ([]byte, int) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return []byte("{}"), 0
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		name, ok := t.(string)
		if !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		var probe picoMeta
		one, _ := json.Marshal(map[string]json.RawMessage{name: v})
		if json.Unmarshal(one, &probe) != nil {
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
		n++
	}
	buf.WriteByte('}')
	return buf.Bytes(), n
}

// session builds the session metadata from a meta (or its absence).
func (m *picoMeta) session(base string, haveMeta bool) sessiondb.Session {
	s := sessiondb.Session{
		ID:        m.Key,
		Summary:   m.Summary,
		CreatedAt: m.CreatedAt,
		UpdatedAt: m.UpdatedAt,
		Aliases:   m.Aliases,
	}
	if s.ID == "" {
		s.ID = base
	}
	if len(m.Scope) > 0 && string(m.Scope) != "null" {
		var buf bytes.Buffer
		if json.Compact(&buf, m.Scope) == nil {
			s.Scope = buf.Bytes()
		}
	}
	attrs := map[string]any{"file_base": base}
	if haveMeta {
		attrs["skip"] = m.Skip
		attrs["count"] = m.Count
	}
	top := map[string]any{"picoclaw": attrs}
	if slices.Contains(m.Aliases, s.ID) {
		// A meta can list its own key as an alias: UpsertSessionMeta
		// through a key that collides with it on disk ("discord:555" for
		// the file of "discord_555") drops only the key it was called
		// with. The store drops a session's own ID from its aliases, so
		// the list picoclaw's GetSessionMeta returns is kept whole where
		// jsonl.SourceAliases (and Export) find it.
		top[jsonl.DroppedAliasesKey] = m.Aliases
	}
	s.Attrs = mustJSON(top)
	return s
}

func (Format) parseMetaOnly(u jsonl.Unit) (*jsonl.Parsed, error) {
	m, ok, problems, err := readPicoMeta(u.Path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("picoclaw: %s: %w", u.Path, os.ErrNotExist)
	}
	base := picoBase(u.Path)
	var notes []jsonl.Problem
	if m.Key != "" && sanitizePicoclawKey(m.Key) != base {
		// Not the meta of the session it names: picoclaw reads key K's
		// meta and history from sanitizeKey(K).meta.json and .jsonl. Its
		// SessionManager writes a legacy session whose key ends in ".meta"
		// to {key}.json, which MigrateFromJSON never migrates (it skips
		// *.meta.json) and ListSessions lists by its key; GetSessionMeta,
		// GetSummary and GetHistory then answer from files that do not
		// exist: an empty session.
		dir := filepath.Dir(u.Path)
		own := filepath.Join(dir, sanitizePicoclawKey(m.Key))
		if fileExists(own+".meta.json") || fileExists(own+".jsonl") {
			return nil, fmt.Errorf("%w: %s names session %q, whose own files are %s.meta.json/.jsonl", jsonl.ErrNoConversation, filepath.Base(u.Path), m.Key, filepath.Base(own))
		}
		notes = append(notes, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("names session %q, whose meta picoclaw reads from %s.meta.json (absent): imported empty, as picoclaw's GetSessionMeta/GetHistory return it", m.Key, filepath.Base(own))})
		m = picoMeta{Key: m.Key}
		base = filepath.Base(own)
	}
	pd := &jsonl.Parsed{Unit: u, Session: m.session(base, true), Problems: problems, Notes: notes, Offset: fileSize(u.Path)}
	if err := sessiondb.ValidateID(pd.Session.ID); err != nil {
		return pd, fmt.Errorf("picoclaw: session key: %w", err)
	}
	return pd, nil
}

// parseJSONL reads {base}.jsonl with picoclaw's readMessages rules:
// bufio.ScanLines splitting (one trailing '\r' dropped), zero-length lines
// ignored and not counted, every other line counted; lines 1..skip hidden
// (imported here as log entries before a truncation compaction), lines that
// do not decode as a Message skipped, transient thoughts dropped.
func (Format) parseJSONL(ctx context.Context, u jsonl.Unit, from jsonl.Resume) (*jsonl.Parsed, error) {
	base := picoBase(u.Path)
	metaPath := strings.TrimSuffix(u.Path, ".jsonl") + ".meta.json"
	m, haveMeta, problems, err := readPicoMeta(metaPath)
	if err != nil {
		return nil, fmt.Errorf("picoclaw: read meta: %w", err)
	}
	var notes []jsonl.Problem
	if !haveMeta {
		notes = append(notes, jsonl.Problem{Path: u.Path, Reason: "no .meta.json: all lines imported (skip 0), as picoclaw's GetHistory reads them; picoclaw's ListSessions does not list this session"})
	}
	var rs picoResume
	if from.Offset > 0 {
		if err := json.Unmarshal(from.State, &rs); err != nil {
			return nil, jsonl.ErrNotIncremental
		}
	}
	skip := max(m.Skip, 0)
	// When the skip moved inside the part already imported, the entries
	// on lines 1..skip must be counted again: rescan from the start and
	// emit only the entries not imported yet.
	offset := from.Offset
	emitAfter := 0 // entries with numbers <= emitAfter are not emitted
	raw, phys, entries := 0, 0, 0
	keepEntries := -1 // entries on raw lines 1..skip; -1 until known
	if offset > 0 {
		switch {
		case skip >= rs.Raw:
			raw, phys, entries = rs.Raw, rs.Phys, from.Entries
		case skip == rs.Skip:
			raw, phys, entries = rs.Raw, rs.Phys, from.Entries
			keepEntries = rs.KeepEntries
		default:
			offset, emitAfter = 0, from.Entries
		}
	}
	if keepEntries < 0 && skip == raw {
		keepEntries = entries
	}
	pd := &jsonl.Parsed{Unit: u, Session: m.session(base, haveMeta), Offset: offset, Problems: problems, Notes: notes}
	if err := sessiondb.ValidateID(pd.Session.ID); err != nil {
		return nil, fmt.Errorf("picoclaw: session key %q: %w", pd.Session.ID, err)
	}
	f, err := jsonl.Open(u.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	var firstCreated time.Time
	physBase := phys
	tooLongForPicoclaw := false
	err = jsonl.ScanLines(f, offset, func(line []byte, lineNo int, start, end int64, complete bool) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := physBase + lineNo
		if jsonl.Oversized(line) {
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Line: n, Reason: fmt.Sprintf("line of %d bytes exceeds the %d-byte limit; skipped (picoclaw cannot read this session at all)", end-start, jsonl.MaxLineSize)})
			if complete {
				raw++
				phys = n
				pd.Offset = end
			}
			if raw == skip {
				keepEntries = entries
			}
			return nil
		}
		line = jsonl.TrimCR(line)
		if len(line) == 0 {
			if complete {
				phys = n
				pd.Offset = end
			}
			return nil
		}
		if len(line) >= picoclawScannerMax && !tooLongForPicoclaw {
			tooLongForPicoclaw = true
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Line: n, Reason: fmt.Sprintf("line of %d bytes is beyond picoclaw's 10 MiB scanner limit (picoclaw cannot read this session at all); imported", len(line))})
		}
		pl := parsePicoclawLine(line)
		if !complete && pl.body == nil && !pl.dropped {
			// A torn last line: not consumed, so that it is read again
			// once the writer completes it.
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Line: n, Reason: "torn last line (no trailing newline), not imported: " + pl.problem})
			return nil
		}
		raw++
		phys = n
		pd.Offset = end
		if pl.problem != "" {
			reason := pl.problem
			if !complete {
				reason = "last line has no trailing newline; " + reason
			}
			if raw <= skip {
				reason += " (in the part hidden by meta skip)"
			}
			pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Line: n, Reason: reason})
		}
		if pl.body != nil {
			entries++
			if entries > emitAfter {
				e := sessiondb.Entry{Kind: sessiondb.KindMessage, Role: pl.msg.Role, Body: bytes.Clone(pl.body)}
				if pl.msg.CreatedAt != nil {
					e.CreatedAt = *pl.msg.CreatedAt
					if firstCreated.IsZero() {
						firstCreated = e.CreatedAt
					}
				}
				pd.Entries = append(pd.Entries, e)
			}
		}
		if raw == skip {
			keepEntries = entries
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("picoclaw: read %s: %w", u.Path, err)
	}
	if keepEntries < 0 {
		keepEntries = entries // skip beyond the last line hides everything
	}
	if skip > raw {
		pd.Problems = append(pd.Problems, jsonl.Problem{Path: metaPath, Reason: fmt.Sprintf("meta skip %d exceeds the %d lines of the .jsonl; everything is hidden", skip, raw)})
	}
	if skip > 0 {
		pd.Compactions = []sessiondb.Compaction{{
			KeepFromSeq: int64(keepEntries) + 1,
			Details:     mustJSON(map[string]any{"source": "picoclaw", "reason": "meta skip (TruncateHistory)", "skip": skip}),
			CreatedAt:   m.UpdatedAt,
		}}
	}
	if !haveMeta && from.Offset == 0 && entries == 0 && raw == 0 {
		// No meta and no complete line yet (a file being written): no
		// time to date a session by but the clock's.
		return nil, fmt.Errorf("%w: no .meta.json and no complete line", jsonl.ErrNoConversation)
	}
	if !haveMeta {
		pd.Session.UpdatedAt = fi.ModTime()
		pd.Session.CreatedAt = firstCreated
		if firstCreated.IsZero() {
			pd.Session.CreatedAt = fi.ModTime()
		}
	}
	pd.ResumeState = mustJSON(picoResume{Raw: raw, Phys: phys, Skip: skip, KeepEntries: keepEntries})
	return pd, nil
}

// picoLegacy mirrors the legacy SessionManager file, without messages.
type picoLegacy struct {
	Key     string    `json:"key"`
	Summary string    `json:"summary"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// parseLegacy reads a legacy {base}.json session. picoclaw's migration
// unmarshals the whole file and skips it on any error; here the messages
// are decoded one by one (streaming), so that one bad message costs only
// itself. Messages are stored compacted, exactly as the migration's
// SetHistory writes them to the .jsonl (json.Compact of the indented
// encoding equals json.Marshal). The legacy created/updated times, which the
// migration drops, become the session's timestamps.
func (Format) parseLegacy(ctx context.Context, u jsonl.Unit) (*jsonl.Parsed, error) {
	base := picoBase(u.Path)
	if fileSize(strings.TrimSuffix(u.Path, ".json")+".jsonl") > 0 || fileExists(strings.TrimSuffix(u.Path, ".json")+".meta.json") {
		return nil, fmt.Errorf("legacy session superseded by %s.jsonl/.meta.json (picoclaw migrates it over them); skipped", base)
	}
	f, err := jsonl.Open(u.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pd := &jsonl.Parsed{Unit: u, Offset: fi.Size()}
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("picoclaw: %s is not a legacy session object", u.Path)
	}
	members := map[string]json.RawMessage{}
	broken := ""
	msgNo := 0
loop:
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			broken = err.Error()
			break
		}
		name, _ := t.(string)
		if !strings.EqualFold(name, "messages") {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				broken = err.Error()
				break
			}
			members[strings.ToLower(name)] = v
			continue
		}
		t, err = dec.Token()
		if err != nil {
			broken = err.Error()
			break
		}
		if t == nil {
			continue // "messages": null
		}
		if t != json.Delim('[') {
			broken = "messages is not an array"
			break
		}
		pd.Entries = pd.Entries[:0] // duplicate member: the last one wins
		for dec.More() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				broken = err.Error()
				break loop
			}
			msgNo++
			var buf bytes.Buffer
			if err := json.Compact(&buf, raw); err != nil {
				pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message %d: %v; skipped", msgNo, err)})
				continue
			}
			pl := parsePicoclawLine(buf.Bytes())
			if pl.body == nil {
				pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("message %d: %s; skipped (picoclaw's migration skips the whole file)", msgNo, pl.problem)})
				continue
			}
			e := sessiondb.Entry{Kind: sessiondb.KindMessage, Role: pl.msg.Role, Body: pl.body}
			if pl.msg.CreatedAt != nil {
				e.CreatedAt = *pl.msg.CreatedAt
			}
			pd.Entries = append(pd.Entries, e)
		}
		if _, err := dec.Token(); err != nil {
			broken = err.Error()
			break
		}
	}
	if broken != "" {
		pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("damaged legacy session (%s); imported what precedes the damage (picoclaw's migration skips the whole file)", broken)})
	}
	var lg picoLegacy
	obj, _ := json.Marshal(members)
	if err := json.Unmarshal(obj, &lg); err != nil {
		pd.Problems = append(pd.Problems, jsonl.Problem{Path: u.Path, Reason: fmt.Sprintf("legacy metadata: %v", err)})
		rec, _ := recoverLegacy(members)
		lg = rec
	}
	pd.Session = sessiondb.Session{
		ID:        lg.Key,
		Summary:   lg.Summary,
		CreatedAt: lg.Created,
		UpdatedAt: lg.Updated,
		Attrs:     mustJSON(map[string]any{"picoclaw": map[string]any{"file_base": base, "legacy": true}}),
	}
	if pd.Session.ID == "" {
		pd.Session.ID = base
	}
	if err := sessiondb.ValidateID(pd.Session.ID); err != nil {
		return nil, fmt.Errorf("picoclaw: session key: %w", err)
	}
	return pd, nil
}

// recoverLegacy decodes the legacy members one by one, ignoring bad ones.
func recoverLegacy(members map[string]json.RawMessage) (picoLegacy, int) {
	var lg picoLegacy
	n := 0
	for k, v := range members {
		one, _ := json.Marshal(map[string]json.RawMessage{k: v})
		if json.Unmarshal(one, &lg) == nil {
			n++
		}
	}
	return lg, n
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// sanitizePicoclawKey is picoclaw's sanitizeKey: ':', '/' and '\' become
// '_', nothing else changes.
func sanitizePicoclawKey(key string) string {
	return strings.NewReplacer(":", "_", "/", "_", `\`, "_").Replace(key)
}

// Export implements Format. It writes {sanitizeKey(id)}.jsonl and
// {sanitizeKey(id)}.meta.json atomically (temporary file, then rename).
//
// When the session's only compaction is a truncation (no summary), the
// whole log is written and meta skip hides the entries before it, as
// picoclaw's TruncateHistory leaves a file; otherwise the effective
// transcript is written with skip 0 (as after picoclaw's Compact). Either
// way picoclaw's GetHistory returns the effective transcript. Bodies are
// written as they are, compacted onto one line when they span several; a
// body that is not a picoclaw Message (another format's message shape) is
// written too, but picoclaw's own loader will skip it.
func (p Format) Export(ctx context.Context, s sessiondb.Store, id string, dir string) ([]string, error) {
	return jsonl.ExportDir(ctx, p, s, id, dir)
}

// ExportFiles implements jsonl.Exporter. The files are named
// {sanitizeKey(id)}.jsonl and .meta.json as one file name each, so that an
// ID such as ".." or "." names files inside the directory ("..jsonl")
// rather than its parent; the key itself is in the meta file, which is
// where the importer (and picoclaw) read it from.
func (Format) ExportFiles(ctx context.Context, s sessiondb.Store, id string) ([]jsonl.File, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(sess.ID) > picoclawMaxKey {
		return nil, fmt.Errorf("picoclaw: key of %d bytes does not fit a file name (limit %d): %w", len(sess.ID), picoclawMaxKey, sessiondb.ErrInvalid)
	}
	comps, err := s.Compactions(ctx, id)
	if err != nil {
		return nil, err
	}
	var lines []sessiondb.Entry
	skip := 0
	if len(comps) == 1 && len(comps[0].Summary) == 0 {
		all, err := s.Entries(ctx, id, 1, 0)
		if err != nil {
			return nil, err
		}
		contiguous := len(all) > 0 && all[0].Seq == 1 && all[len(all)-1].Seq == int64(len(all))
		if contiguous || len(all) == 0 {
			lines = all
			for _, e := range all {
				if e.Seq < comps[0].KeepFromSeq {
					skip++
				}
			}
		}
	}
	if lines == nil {
		lines, err = s.Load(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			return nil, err
		}
		skip = 0
	}
	base := sanitizePicoclawKey(sess.ID)
	writeLines := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		for _, e := range lines {
			body := e.Body
			if bytes.ContainsAny(body, "\n\r") {
				var c bytes.Buffer
				if err := json.Compact(&c, body); err != nil {
					return fmt.Errorf("picoclaw: entry %d: %w", e.Seq, err)
				}
				body = c.Bytes()
			}
			bw.Write(body)
			bw.WriteByte('\n')
		}
		return bw.Flush()
	}
	meta := picoMeta{
		Key:       sess.ID,
		Summary:   sess.Summary,
		Skip:      skip,
		Count:     len(lines),
		CreatedAt: sess.CreatedAt,
		UpdatedAt: sess.UpdatedAt,
		Aliases:   jsonl.SourceAliases(sess),
	}
	if len(sess.Scope) > 0 && string(sess.Scope) != "null" {
		meta.Scope = sess.Scope
	}
	metaJSON, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("picoclaw: meta: %w", err)
	}
	return []jsonl.File{
		{Rel: base + ".jsonl", Write: writeLines},
		jsonl.BytesFile(base+".meta.json", metaJSON),
	}, nil
}

// mustJSON marshals v, which always marshals.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with values that always marshal
	}
	return b
}

// fileSize returns the size of path, 0 when it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Understand implements jsonl.MessageReader. A picoclaw entry is one
// OpenAI message: {"role", "content", "tool_calls": [{"id", "function":
// {"name", "arguments"}}], "reasoning_content"}, and {"role": "tool",
// "tool_call_id"} results, which jsonl.MessageObject reads.
func (Format) Understand(e sessiondb.Entry, obj map[string]any) jsonl.Message {
	if obj["role"] == nil {
		return jsonl.Extracted(e)
	}
	return jsonl.MessageObject(obj)
}
