package jsonl

import "unicode/utf8"

// ValidUTF8 replaces every invalid byte with U+FFFD, as encoding/json
// does when it decodes a string (one replacement per byte).
func ValidUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// FileSafe returns id with every byte outside [A-Za-z0-9_.-] replaced by
// '_', cut to max bytes.
func FileSafe(id string, max int) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b[:min(len(b), max)])
}
