package jsonscan

import (
	"bytes"
	"strconv"
)

// MaxDepth is encoding/json's nesting limit: json.Valid refuses a
// document with more containers open at once.
const MaxDepth = 10000

// Valid reports what json.Valid reports, in one pass over b without
// encoding/json's per-byte state machine (about three times as fast; the
// fuzz target FuzzValid holds it to json.Valid).
func Valid(b []byte) bool { return scan(b, false) }

// Decodable reports whether json.Unmarshal can decode b into an any: b
// is valid and each of its numbers parses as a float64 (one beyond that
// range, 1e400, is valid JSON and fails the whole decode). One pass, as
// Valid.
func Decodable(b []byte) bool { return scan(b, true) }

// scan is Valid, and with floats also checks each number's range.
func scan(b []byte, floats bool) bool {
	var open []byte // '{' or '[' of each container not yet closed
	i := SkipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(open) == MaxDepth {
				return false
			}
			open = append(open, c)
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				i = scanKey(b, i)
			}
			if i < 0 {
				return false
			}
			continue
		case c == '"':
			i = scanString(b, i)
		case c == '-' || c >= '0' && c <= '9':
			start := i
			i = scanNumber(b, i)
			if floats && i > 0 && !fitsFloat(b[start:i]) {
				return false
			}
		case c == 't':
			i = scanLiteral(b, i, "true")
		case c == 'f':
			i = scanLiteral(b, i, "false")
		case c == 'n':
			i = scanLiteral(b, i, "null")
		default:
			return false
		}
		if i < 0 {
			return false
		}
		// After a value: close the containers that end here, then a comma
		// (and, in an object, the next key) or the end.
		for {
			i = SkipSpace(b, i)
			if len(open) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := open[len(open)-1]
			if b[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return false
			}
			i = SkipSpace(b, i+1)
			if top == '{' {
				if i = scanKey(b, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// scanKey scans `"key" :` from i and returns where the value starts, or
// -1.
func scanKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = scanString(b, i); i < 0 {
		return -1
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return SkipSpace(b, i+1)
}

// scanString returns the index after the string that starts at i (a
// quote), or -1: control characters must be escaped, and an escape is
// one of JSON's nine. Other bytes, invalid UTF-8 included, pass, as in
// json.Valid.
func scanString(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		switch c := b[j]; {
		case c == '"':
			return j + 1
		case c == '\\':
			if j+1 >= len(b) {
				return -1
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
					return -1
				}
				j += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			j++
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanNumber returns the index after the number that starts at i, or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digits(b, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

// digits returns the index after the run of decimal digits at i.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// scanLiteral returns the index after lit at i, or -1.
func scanLiteral(b []byte, i int, lit string) int {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space (len(b) if none).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// fitsFloat reports whether the JSON number n parses as a float64. Only an
// exponent, or more digits than a float64 spans, can take it out of range.
func fitsFloat(n []byte) bool {
	if len(n) <= 300 && bytes.IndexAny(n, "eE") < 0 {
		return true
	}
	_, err := strconv.ParseFloat(string(n), 64)
	return err == nil
}
