package sqlstore

import (
	"bytes"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/jsonscan"
)

// Text stored once (schema version 10, issue 26).
//
// entries.text is a column generated as coalesce(text_stored,
// json_extract(body, '$.content'), '') (the content only when it is a
// string of a valid body: see migration 10). An entry's extracted text goes to
// text_stored only when it is not what json_extract(body, '$.content')
// gives: for the common message, {"role": …, "content": "…"}, whose
// extracted text is its content, the text is stored once, in the body.
//
// The decision is made here, in Go, when the entry is described, before
// the write transaction (engine.DescribeAll: off the single writer), and
// only where Go can be sure of SQLite's answer (contentText); everywhere
// else the text is stored. Deciding in SQL (CASE WHEN json_valid(body) AND json_extract(…)
// IS text …) was exact by construction but raised the peak RSS of a bulk
// import from 96 to 142-149 MiB (bench workload 6): SQLite parsed every
// body twice more inside the multi-row INSERT.

// entryText writes text_stored: NULL (nil) when the text is derivable.
var entryText = backend.TextStore{Column: "text_stored", Value: storedText}

// storedText is what text_stored holds for an entry's text and body.
func storedText(text string, body []byte) any {
	if s, ok := contentText(body); ok && s == text {
		return nil
	}
	return text
}

// sqliteMaxDepth is below SQLite's JSON nesting limit (1000): a body nested
// deeper is one json_extract would refuse.
const sqliteMaxDepth = 500

// contentText returns json_extract(body, '$.content') as SQLite computes
// it, when that is certain: body is valid JSON, an object nested less than
// sqliteMaxDepth deep, whose top level holds the key "content" exactly
// once, spelled without escapes, with a string value that is valid UTF-8
// and has no \u escape (Go and SQLite decode the other escapes alike;
// they differ on lone surrogates). ok is false otherwise.
func contentText(body []byte) (s string, ok bool) {
	if !jsonscan.Valid(body) {
		return "", false
	}
	b := bytes.TrimLeft(body, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return "", false
	}
	var value []byte // the raw string value of "content"
	found := 0
	depth := 0
	expectKey := false // the next string at depth 1 is a key
	afterContentKey := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '{', '[':
			depth++
			if depth > sqliteMaxDepth {
				return "", false
			}
			expectKey = c == '{' && depth == 1
			afterContentKey = false
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			end := i + 1
			for end < len(b) && b[end] != '"' {
				if b[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(b) {
				return "", false
			}
			raw := b[i : end+1]
			if depth == 1 {
				if expectKey {
					expectKey = false
					if string(raw) == `"content"` {
						found++
						afterContentKey = true
					}
				} else if afterContentKey {
					value = raw
					afterContentKey = false
				}
			}
			i = end
		case ':', ' ', '\t', '\r', '\n':
		default:
			// A number, true, false or null: a value that is not a
			// string.
			if depth == 1 {
				afterContentKey = false
			}
		}
	}
	if found != 1 || value == nil || !utf8.Valid(value) || bytes.Contains(value, []byte(`\u`)) {
		return "", false
	}
	return unquote(value)
}

// unquote decodes raw, a JSON string literal (quotes included) of a valid
// body, valid UTF-8 and without \u escapes, as json.Unmarshal would: the
// bytes between the quotes with the one-character escapes replaced. It is
// not json.Unmarshal because that validates the literal again and decodes
// through reflection, a third pass over every body on the way to the
// INSERT (FuzzContentText holds the result to SQLite's json_extract).
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	out := make([]byte, 0, len(inner))
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i == len(inner) {
			return "", false
		}
		switch c = inner[i]; c {
		case '"', '\\', '/':
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		default:
			return "", false
		}
		out = append(out, c)
	}
	return string(out), true
}
