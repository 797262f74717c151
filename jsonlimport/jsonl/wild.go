package jsonl

// The line handling the Claude Code, Codex and pi readers share ("wild"
// formats: their files are written by tools whose crashes leave torn lines
// and NUL runs anywhere, see formats/wild.md).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb/internal/jsonnest"
	"github.com/sessiondb/sessiondb/internal/jsonscan"
)

// WildScan is the state of one scan of a wild JSONL file. A reader embeds
// it in its parser and reads the position (Offset, Lines) and the problems
// it reported after Run.
type WildScan struct {
	Ctx      context.Context
	Path     string
	LineBase int // physical lines before the scan's start offset
	Problems []Problem

	Offset int64 // end of the last consumed line
	Lines  int   // physical lines consumed
	// BodyAt is where the object handed to obj starts in the file when
	// it is a verbatim slice of the file (-1 otherwise: a recovered or
	// repaired object).
	BodyAt int64
}

// Problem reports a problem at physical line line of the scanned file.
func (s *WildScan) Problem(line int, format string, args ...any) {
	s.Problems = append(s.Problems, Problem{Path: s.Path, Line: line, Reason: fmt.Sprintf(format, args...)})
}

// maxGlueCandidates bounds the start positions tried when recovering JSON
// objects from a damaged line, so that a long line of garbage costs linear
// time.
const maxGlueCandidates = 64

// Run scans f (positioned at from) and calls obj for every JSON object the
// file holds, with its 1-based physical line number. Rules:
//
//   - empty lines (and a lone '\r') are ignored; a trailing '\r' is dropped;
//   - invalid UTF-8 is replaced with U+FFFD (one per byte, as encoding/json
//     decodes it), reported;
//   - a line that is not one JSON object is damaged: NUL runs split it, and
//     every segment is searched for a complete object at its end (a torn
//     fragment with the next append glued onto it); what is recovered is
//     read, the rest reported and skipped;
//   - a last line without '\n' is consumed only when it is a complete JSON
//     object (it cannot grow any more); otherwise it is reported and left
//     for the next import (offset stops before it).
func (s *WildScan) Run(f io.Reader, from int64, obj func(raw []byte, lineNo int)) error {
	s.Offset = from
	return ScanLines(f, from, func(line []byte, n int, start, end int64, complete bool) error {
		if n%256 == 0 {
			if err := s.Ctx.Err(); err != nil {
				return err
			}
		}
		lineNo := s.LineBase + n
		if Oversized(line) {
			s.Problem(lineNo, "oversized line: longer than %d bytes; skipped", MaxLineSize)
			if complete {
				s.Offset, s.Lines = end, lineNo
			}
			return nil
		}
		line = TrimCR(line)
		if !complete {
			t := bytes.TrimSpace(line)
			if len(t) == 0 {
				return nil
			}
			if t[0] == '{' && jsonscan.Valid(t) && utf8.Valid(t) {
				s.Offset, s.Lines = end, lineNo
				s.BodyAt = start + int64(len(line)-len(bytes.TrimLeftFunc(line, unicode.IsSpace)))
				obj(bytes.Clone(t), lineNo)
				return nil
			}
			if nestedTooDeep(t) {
				s.Problem(lineNo, "JSON nested too deep (more than %d levels of arrays and objects, more than the JSON decoder reads; last line, no trailing newline): not imported", maxJSONDepth)
				return nil
			}
			s.Problem(lineNo, "torn last line (%d bytes, no trailing newline, not a complete JSON object): not imported; it is read again once complete", len(line))
			return nil
		}
		s.Offset, s.Lines = end, lineNo
		if len(line) == 0 {
			return nil
		}
		s.BodyAt = start + int64(len(line)-len(bytes.TrimLeftFunc(line, unicode.IsSpace)))
		if !utf8.Valid(line) {
			s.Problem(lineNo, "invalid UTF-8: invalid bytes replaced with U+FFFD")
			line = ValidUTF8(line)
			s.BodyAt = -1
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			s.Problem(lineNo, "blank line (whitespace only); skipped")
			return nil
		}
		if t[0] == '{' && jsonscan.Valid(t) {
			obj(bytes.Clone(t), lineNo)
			return nil
		}
		good := recoverObjects(line)
		hasNUL := bytes.IndexByte(line, 0) >= 0
		switch {
		case hasNUL && len(good) == 0:
			s.Problem(lineNo, "NUL bytes: line of %d bytes holds no readable JSON object; skipped", len(line))
		case hasNUL:
			s.Problem(lineNo, "NUL bytes: %d JSON object(s) recovered from the line, the rest skipped", len(good))
		case len(good) == 0 && nestedTooDeep(t):
			s.Problem(lineNo, "JSON nested too deep (more than %d levels of arrays and objects, more than the JSON decoder reads, %d bytes); skipped", maxJSONDepth, len(line))
		case len(good) == 0:
			s.Problem(lineNo, "invalid JSON (torn or corrupt line, %d bytes); skipped", len(line))
		default:
			s.Problem(lineNo, "invalid JSON: torn line with %d complete object(s) glued after it; the torn part is skipped, the complete object(s) recovered", len(good))
		}
		s.BodyAt = -1
		for _, g := range good {
			obj(bytes.Clone(g), lineNo)
		}
		return nil
	})
}

// maxJSONDepth is the deepest nesting of arrays and objects that
// encoding/json reads (its scanner's own limit); a deeper document is not
// valid to json.Valid, although nothing in it is torn.
const maxJSONDepth = 10000

// nestedTooDeep reports whether b opens more than maxJSONDepth arrays and
// objects at once (outside strings): why json.Valid refused a line that may
// well be complete.
func nestedTooDeep(b []byte) bool { return jsonnest.Exceeds(b, maxJSONDepth) }

// recoverObjects splits a damaged line at NUL runs and returns, for every
// segment, the longest suffix that is a complete JSON object (a torn write
// followed by the next append).
func recoverObjects(line []byte) [][]byte {
	var out [][]byte
	for _, seg := range bytes.FieldsFunc(line, func(r rune) bool { return r == 0 }) {
		seg = bytes.TrimSpace(seg)
		tried := 0
		for i := 0; i < len(seg) && tried < maxGlueCandidates; i++ {
			if seg[i] != '{' {
				continue
			}
			tried++
			if jsonscan.Valid(seg[i:]) {
				out = append(out, seg[i:])
				break
			}
		}
	}
	return out
}

// OpenAt opens path and positions it at from; it checks that from is not
// past the end of the file.
func OpenAt(path string, from int64) (*os.File, int64, error) {
	f, err := Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if from > st.Size() {
		f.Close()
		return nil, 0, ErrNotIncremental
	}
	if from > 0 {
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			f.Close()
			return nil, 0, err
		}
	}
	return f, st.Size(), nil
}

// FirstObjects returns up to n JSON objects from the first lines of path
// (at most 1 MiB read), skipping blank and unreadable lines.
func FirstObjects(path string, n int) []map[string]json.RawMessage {
	f, err := Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(io.LimitReader(f, 1<<20), 64<<10)
	var out []map[string]json.RawMessage
	for tries := 0; len(out) < n && tries < 4*n; tries++ {
		line, err := br.ReadBytes('\n')
		var m map[string]json.RawMessage
		if json.Unmarshal(bytes.TrimSpace(line), &m) == nil && m != nil {
			out = append(out, m)
		}
		if err != nil {
			break
		}
	}
	return out
}

// RawString decodes a JSON string member ("" when missing or not a string).
func RawString(m map[string]json.RawMessage, key string) string {
	var s string
	if raw, ok := m[key]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// ParseTime parses an ISO 8601 / RFC 3339 timestamp (zero when it cannot).
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// EntryKind is the Kind of a non-message line of type typ: the type itself,
// unless it is empty, too long or one of sessiondb's own kinds.
func EntryKind(format, typ string) string {
	switch {
	case typ == "", typ == "message", typ == "custom", len(typ) > 64, strings.ContainsFunc(typ, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return format + ".other"
	}
	return typ
}

// MergeAttrs returns a JSON object of the non-empty values.
func MergeAttrs(kv map[string]any) json.RawMessage {
	out := map[string]any{}
	for k, v := range kv {
		switch x := v.(type) {
		case string:
			if x == "" {
				continue
			}
		case json.RawMessage:
			if len(x) == 0 || string(x) == "null" {
				continue
			}
		case nil:
			continue
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return MustJSON(out)
}

// RestoreAttrs puts the members of the attrs object raw (saved in a
// resume state) into kv as raw JSON, so that MergeAttrs writes them back
// byte for byte, as a read of the whole file does.
func RestoreAttrs(raw json.RawMessage, kv map[string]any) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) == nil {
			kv[k] = s // strings stay strings: readers compare them
			continue
		}
		kv[k] = v
	}
}
