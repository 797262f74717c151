package opencode

// opencode is JavaScript: it writes JSON with JSON.stringify, and builds
// the objects it exports by spreading a row's data and adding members
// ({...data, id, sessionID}). What is written here the way JavaScript
// writes it, so that an export reads as opencode's own.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsString appends s as JSON.stringify writes a string: only '"', '\\'
// and the control characters are escaped (\b \f \n \r \t by name, the
// others as \u00xx); everything else, "<" and U+2028 included, is
// written as it is. Bytes that are not UTF-8 become U+FFFD (JavaScript
// strings from a file or database decoded as UTF-8 hold that).
func jsString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString("\ufffd")
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// jsNumber formats f as JavaScript's Number.prototype.toString does (and
// so JSON.stringify): the shortest decimal that reads back as f, in
// plain notation for exponents from -7 to 20, else as d.ddde±x.
// Non-finite numbers are written null, as JSON.stringify does.
func jsNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	if f == 0 {
		return "0"
	}
	// Shortest digits and the decimal exponent.
	s := strconv.FormatFloat(math.Abs(f), 'e', -1, 64) // d.ddde±xx
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	sign := ""
	if f < 0 {
		sign = "-"
	}
	k := len(digits)
	n := exp + 1 // position of the decimal point after the first n digits
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	e := n - 1
	es := "+" + strconv.Itoa(e)
	if e < 0 {
		es = strconv.Itoa(e)
	}
	if k == 1 {
		return sign + digits + "e" + es
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es
}

// member is one member of an object being composed: its key and its
// value, already JSON.
type member struct {
	key   string
	value []byte
}

// spread returns the JSON object obj (a compact JSON text, as opencode
// stores a row's data) with the members adds set as JavaScript's
// {...obj, a, b} sets them: a member obj already has keeps its place and
// takes the new value; the others are appended in order. obj's other
// members are kept byte for byte.
func spread(obj []byte, adds ...member) ([]byte, error) {
	members, err := objectMembers(obj)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	used := make([]bool, len(adds))
	first := true
	sep := func() {
		if !first {
			b.WriteByte(',')
		}
		first = false
	}
	for _, m := range members {
		v := m.value
		for i, a := range adds {
			if a.key == m.key {
				v, used[i] = a.value, true
			}
		}
		sep()
		b.Write(m.rawKey)
		b.WriteByte(':')
		b.Write(v)
	}
	for i, a := range adds {
		if used[i] {
			continue
		}
		sep()
		jsString(&b, a.key)
		b.WriteByte(':')
		b.Write(a.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// rawMember is a member of a JSON object as written: its key (decoded
// and as written) and its value's bytes.
type rawMember struct {
	key    string
	rawKey []byte
	value  []byte
}

// objectMembers splits a JSON object into its members, in order, each
// key and value as written (whitespace between tokens dropped). A key
// written twice is kept twice (JavaScript keeps the last value at the
// first place; opencode never writes one twice).
func objectMembers(obj []byte) ([]rawMember, error) {
	obj = bytes.TrimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' || !json.Valid(obj) {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []rawMember
	i := 1
	skipWS := func() {
		for i < len(obj) && (obj[i] == ' ' || obj[i] == '\t' || obj[i] == '\n' || obj[i] == '\r') {
			i++
		}
	}
	for {
		skipWS()
		if obj[i] == '}' {
			return out, nil
		}
		if obj[i] == ',' {
			i++
			skipWS()
		}
		start := i
		end, err := valueEnd(obj, i)
		if err != nil {
			return nil, err
		}
		rawKey := obj[start:end]
		var key string
		if err := json.Unmarshal(rawKey, &key); err != nil {
			return nil, err
		}
		i = end
		skipWS()
		if obj[i] != ':' {
			return nil, fmt.Errorf("bad object")
		}
		i++
		skipWS()
		vstart := i
		vend, err := valueEnd(obj, i)
		if err != nil {
			return nil, err
		}
		out = append(out, rawMember{key: key, rawKey: rawKey, value: obj[vstart:vend]})
		i = vend
	}
}

// valueEnd returns the offset just after the JSON value starting at i of
// a valid JSON text.
func valueEnd(b []byte, i int) (int, error) {
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, err := valueEnd(b, j)
				if err != nil {
					return 0, err
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
	default:
		j := i
		for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
			j++
		}
		return j, nil
	}
	return 0, fmt.Errorf("unterminated value")
}

// jsonStr returns s as a JSON string value.
func jsonStr(s string) []byte {
	var b bytes.Buffer
	jsString(&b, s)
	return b.Bytes()
}

// compact returns a JSON text without the whitespace between tokens
// (opencode's files are written with JSON.stringify(x, null, 2)).
func compact(b []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
