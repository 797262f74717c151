package sessiondb

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb/internal/jsonscan"
)

// Extractor derives the role and plain text of an entry body, for listing
// and search. Stores call it on every append; it must not fail: a body it
// does not understand yields an empty role and text.
type Extractor func(kind string, body json.RawMessage) (role, text string)

// maxExtractedText bounds the text extracted from one body.
const maxExtractedText = 1 << 20

// textKeys are the object keys whose values DefaultExtractor collects as
// text, in the order they are visited within one object.
//
// "message" and "payload" are the envelopes of line-shaped bodies (a Claude
// Code or pi line holds its message under "message", a Codex rollout line
// under "payload"), so that such bodies, kept whole by the importers, are
// searchable.
var textKeys = [...]string{"text", "thinking", "name", "arguments", "args", "input", "content", "output", "result", "summary", "label", "title", "message", "payload"}

// DefaultExtractor understands the common message shapes:
//
//	{"role": "...", "content": "text"}
//	{"role": "...", "content": [{"text": "..."}, {"name": "tool", "arguments": {...}}, ...]}
//	{"role": "...", "tool_calls": [{"function": {"name": "...", "arguments": "..."}}]}
//
// Role is the top-level "role" string. Text joins, in document order, the
// string values found under text, thinking, name, arguments, args, input,
// content, output, result, summary, label, title, message and payload at
// any depth (objects under arguments/args/input are rendered as compact
// JSON, &, < and > as themselves), separated by newlines and capped at 1
// MiB.
func DefaultExtractor(kind string, body json.RawMessage) (role, text string) {
	// What encoding/json would refuse to decode into Go values yields
	// nothing: invalid JSON, and a number beyond float64's range (which
	// json.Valid accepts and json.Unmarshal does not).
	if !jsonscan.Decodable(body) {
		return "", ""
	}
	// One walk over the bytes that visits only the values collected; the
	// rest is skipped, not decoded. It gives what decoding the body into
	// map[string]any and walking that would (extract_reference_test.go
	// holds it to exactly that), at a fraction of the cost: an import
	// describes every line it stores.
	x := extraction{body: body}
	i := jsonscan.SkipSpace(body, 0)
	switch body[i] {
	case '"':
		return "", capText(x.str(i, skipValue(body, i)))
	case '{':
	default:
		return "", ""
	}
	m := x.members(i, true)
	if r := m[keyRole]; r >= 0 && body[r] == '"' {
		role = x.str(r, skipValue(body, r))
	}
	x.object(m, 0)
	if calls := m[keyToolCalls]; calls >= 0 {
		x.collect(calls, 0)
	}
	return role, capText(x.b.String())
}

// extraction is one DefaultExtractor walk over a valid JSON body.
type extraction struct {
	body []byte
	b    strings.Builder
}

// collect appends the text of the value at i, by the rules of
// DefaultExtractor's doc.
func (x *extraction) collect(i, depth int) {
	if depth > 64 || x.b.Len() > maxExtractedText {
		return
	}
	switch x.body[i] {
	case '"':
		appendText(&x.b, x.str(i, skipValue(x.body, i)))
	case '[':
		for j := jsonscan.SkipSpace(x.body, i+1); x.body[j] != ']'; {
			x.collect(j, depth+1)
			j = jsonscan.SkipSpace(x.body, skipValue(x.body, j))
			if x.body[j] == ',' {
				j = jsonscan.SkipSpace(x.body, j+1)
			}
		}
	case '{':
		x.object(x.members(i, false), depth)
	}
}

// object appends the text of an object's members, textKeys in order, then
// "function".
func (x *extraction) object(m members, depth int) {
	for k := range textKeys {
		v := m[k]
		if v < 0 {
			continue
		}
		if k == keyArguments || k == keyArgs || k == keyInput {
			if x.body[v] != '"' {
				// Rendered as encoding/json renders the decoded value
				// (keys sorted, numbers as float64), but for HTML
				// escaping: the text is for people and search, so a
				// command's && and a file's <template> stay as written,
				// not \u0026\u0026 and \u003ctemplate\u003e (issue 39).
				var e any
				if json.Unmarshal(x.body[v:skipValue(x.body, v)], &e) == nil {
					if raw, ok := compactJSON(e); ok {
						appendText(&x.b, raw)
					}
				}
				continue
			}
		}
		x.collect(v, depth+1)
	}
	if f := m[keyFunction]; f >= 0 {
		x.collect(f, depth+1)
	}
}

// Indexes into members: those of textKeys, then the other keys
// DefaultExtractor reads.
const (
	keyArguments, keyArgs, keyInput = 3, 4, 5 // textKeys' indexes
)

const (
	keyFunction = len(textKeys) + iota
	keyRole
	keyToolCalls
	numKeys
)

// members holds where the value of each key DefaultExtractor reads
// starts in the body (-1 when absent); for a key given twice, the last,
// as in a decoded map.
type members [numKeys]int

// members finds the keys DefaultExtractor reads in the object at i; role
// and tool_calls only at the top level.
func (x *extraction) members(i int, top bool) members {
	var m members
	for k := range m {
		m[k] = -1
	}
	b := x.body
	for j := jsonscan.SkipSpace(b, i+1); b[j] != '}'; {
		kend := skipValue(b, j)
		v := jsonscan.SkipSpace(b, jsonscan.SkipSpace(b, kend)+1) // past the colon
		if k := keyIndex(x.key(j, kend), top); k >= 0 {
			m[k] = v
		}
		j = jsonscan.SkipSpace(b, skipValue(b, v))
		if b[j] == ',' {
			j = jsonscan.SkipSpace(b, j+1)
		}
	}
	return m
}

// keyIndex returns the members index of key, or -1.
func keyIndex(key string, top bool) int {
	for k, t := range textKeys {
		if key == t {
			return k
		}
	}
	switch {
	case key == "function":
		return keyFunction
	case top && key == "role":
		return keyRole
	case top && key == "tool_calls":
		return keyToolCalls
	}
	return -1
}

// key returns the object key b[i:end] (a string token) as decoded; a key
// that needs decoding is decoded by encoding/json.
func (x *extraction) key(i, end int) string {
	raw := x.body[i+1 : end-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) // may hold invalid UTF-8: then it matches no key, as decoded
	}
	return x.str(i, end)
}

// str decodes the string token body[i:end] as encoding/json does (invalid
// UTF-8 and lone surrogates become U+FFFD).
func (x *extraction) str(i, end int) string {
	raw := x.body[i+1 : end-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw)
	}
	var s string
	if json.Unmarshal(x.body[i:end], &s) != nil {
		return ""
	}
	return s
}

// skipValue returns the end of the value that starts at i in valid JSON.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default: // number or literal
		j := i
		for j < len(b) && !isDelim(b[j]) {
			j++
		}
		return j
	}
}

// stringEnd returns the index after the closing quote of the string that
// starts at i in valid JSON.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		n := 0 // backslashes right before the quote
		for b[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

func isDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func appendText(b *strings.Builder, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(s)
}

func capText(s string) string {
	if len(s) <= maxExtractedText {
		return s
	}
	s = s[:maxExtractedText]
	// Do not cut a UTF-8 sequence in half.
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s
}

// compactJSON renders v as encoding/json's Marshal does, without escaping
// &, < and > (SetEscapeHTML(false)).
func compactJSON(v any) (string, bool) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}
