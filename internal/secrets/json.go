package secrets

import (
	"bytes"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Span is a secret found in a stored JSON body: its rule and the byte
// offsets [Start, End) in the body as stored. A span always lies inside
// the contents of one JSON string and never cuts an escape sequence, so
// replacing it with any text that needs no escaping leaves valid JSON
// (Redact). A secret that runs over several strings is one span per
// string.
type Span struct {
	Rule       string
	Start, End int
}

// FindJSON returns the secrets in a JSON body. The body is read as text
// with its strings decoded in place (\n is a newline, \" a quote, \u00e9
// é), so that a rule sees what the transcript said — a key after an
// escaped newline, a PEM block whose lines are \n-separated — and the
// JSON structure around them, so that "api_key": "…" is an assignment.
// Offsets found in that text are mapped back to the stored bytes.
// A body that is not valid JSON is scanned as plain text (a span may
// then be anywhere).
func (d *Detector) FindJSON(body []byte) []Span { return d.findJSON(body, false) }

// FindJSONPrefix is FindJSON for a prefix of a JSON body, cut at any
// byte (a large body read only in part): its strings are decoded as far
// as they go, the one the cut leaves open ending at the cut. A secret the
// cut splits may go unrecognised: scan a prefix longer than what is shown
// (see the stores' EntriesClipped).
func (d *Detector) FindJSONPrefix(prefix []byte) []Span { return d.findJSON(prefix, true) }

func (d *Detector) findJSON(body []byte, partial bool) []Span {
	if bytes.IndexByte(body, '\\') < 0 {
		// No escape: the text is the body itself, and string bounds
		// are only needed for what is found (rare).
		fs := d.Find(string(body))
		if len(fs) == 0 {
			return nil
		}
	}
	v, ok := decodeJSON(body, partial)
	if !ok {
		var out []Span
		for _, f := range d.Find(string(body)) {
			out = append(out, Span{f.Rule, f.Start, f.End})
		}
		return out
	}
	fs := d.Find(v.text)
	if len(fs) == 0 {
		return nil
	}
	var out []Span
	for _, f := range fs {
		// The strings the finding overlaps.
		i := sort.Search(len(v.strs), func(i int) bool { return v.strs[i][1] > f.Start })
		for ; i < len(v.strs) && v.strs[i][0] < f.End; i++ {
			s, e := max(f.Start, v.strs[i][0]), min(f.End, v.strs[i][1])
			if s >= e {
				continue
			}
			rs, re := v.rawStart(s), v.rawEnd(e)
			if rs < re {
				out = append(out, Span{f.Rule, rs, re})
			}
		}
	}
	return out
}

// jsonText is a JSON body with its strings decoded in place.
type jsonText struct {
	text string
	// strs are the contents of the strings, [start, end) in text,
	// ascending.
	strs [][2]int
	// escs are the escape sequences, ascending: text[u0:u1] is what
	// body[r0:r1] decodes to.
	escs []escape
}

type escape struct{ u0, u1, r0, r1 int }

// rawStart maps an offset of text at the start of a span to the body: an
// offset inside a decoded escape goes to the escape's start.
func (v *jsonText) rawStart(u int) int {
	i := sort.Search(len(v.escs), func(i int) bool { return v.escs[i].u0 > u }) - 1
	if i < 0 {
		return u
	}
	e := v.escs[i]
	if u < e.u1 {
		return e.r0
	}
	return e.r1 + u - e.u1
}

// rawEnd maps an offset of text at the end of a span to the body: an
// offset inside a decoded escape goes to the escape's end.
func (v *jsonText) rawEnd(u int) int {
	i := sort.Search(len(v.escs), func(i int) bool { return v.escs[i].u0 >= u }) - 1
	if i < 0 {
		return u
	}
	e := v.escs[i]
	if u <= e.u1 {
		return e.r1
	}
	return e.r1 + u - e.u1
}

// decodeJSONText decodes the strings of body in place. ok is false when
// body is not well-formed JSON text as far as strings go (an unterminated
// string, a bad escape).
func decodeJSONText(body []byte) (v jsonText, ok bool) { return decodeJSON(body, false) }

// decodeJSON is decodeJSONText; with partial, body may be a prefix of a
// JSON body cut at any byte: a string the cut leaves open ends at the cut
// (an escape the cut splits is left out of it).
func decodeJSON(body []byte, partial bool) (v jsonText, ok bool) {
	var buf []byte // nil until the first escape: text is body itself
	v.strs = make([][2]int, 0, bytes.Count(body, []byte{'"'})/2)
	for i := 0; i < len(body); {
		c := body[i]
		if c != '"' {
			if buf != nil {
				buf = append(buf, c)
			}
			i++
			continue
		}
		// A string: body[i] is its opening quote.
		if buf != nil {
			buf = append(buf, '"')
		}
		i++
		start := i
		if buf != nil {
			start = len(buf)
		}
		cut := false
	str:
		for {
			if i >= len(body) {
				if !partial {
					return v, false
				}
				cut = true
				break
			}
			c := body[i]
			if c == '"' {
				break
			}
			if c != '\\' {
				if buf != nil {
					buf = append(buf, c)
				}
				i++
				continue
			}
			if buf == nil {
				buf = make([]byte, i, len(body))
				copy(buf, body[:i])
				v.escs = make([]escape, 0, bytes.Count(body[i:], []byte{'\\'}))
			}
			u0, r0 := len(buf), i
			if i+1 >= len(body) {
				if !partial {
					return v, false
				}
				cut = true
				break
			}
			switch e := body[i+1]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
				i += 2
			case 'n':
				buf, i = append(buf, '\n'), i+2
			case 't':
				buf, i = append(buf, '\t'), i+2
			case 'r':
				buf, i = append(buf, '\r'), i+2
			case 'b':
				buf, i = append(buf, '\b'), i+2
			case 'f':
				buf, i = append(buf, '\f'), i+2
			case 'u':
				r, n := decodeU(body[i:])
				if n == 0 && partial && len(body)-i < 12 {
					cut = true // \uXXXX (and its low surrogate) split by the cut
					break str
				}
				if n == 0 {
					return v, false
				}
				buf, i = utf8.AppendRune(buf, r), i+n
			default:
				return v, false
			}
			v.escs = append(v.escs, escape{u0, len(buf), r0, i})
		}
		end := i
		if buf != nil {
			end = len(buf)
			buf = append(buf, '"')
		}
		v.strs = append(v.strs, [2]int{start, end})
		if cut {
			break
		}
		i++ // the closing quote
	}
	if buf == nil {
		v.text = string(body)
	} else {
		v.text = string(buf)
	}
	return v, true
}

// decodeU decodes a \uXXXX escape (with its low surrogate when it is a
// high one) at the start of b, and returns the rune and the bytes read (0
// when malformed). A lone surrogate is U+FFFD, as encoding/json reads it.
func decodeU(b []byte) (rune, int) {
	hex4 := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(b[2:6]), 16, 32)
		return rune(n), err == nil
	}
	r, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(b[6:]); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}
