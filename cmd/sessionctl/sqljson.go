package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"
)

// writeJSONValue writes v as json.Marshal would, byte for byte, streaming
// texts and blobs into w without building the encoding in memory: for a
// 200 MB value json.Marshal holds its growing buffer and its result besides
// the value (measured: sql --json peaked at 5x the value; now 2x, the
// driver's copy and SQLite's own).
func writeJSONValue(w *bufio.Writer, v any) error {
	switch x := v.(type) {
	case string:
		return writeJSONString(w, x)
	case []byte:
		w.WriteByte('"')
		enc := base64.NewEncoder(base64.StdEncoding, w)
		enc.Write(x)
		if err := enc.Close(); err != nil {
			return err
		}
		return w.WriteByte('"')
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(enc)
	return err
}

// writeJSONString writes s as a JSON string exactly as encoding/json does
// (HTML characters escaped, \b \f \n \r \t, other control characters as
// \u00XX, each byte of invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped); TestWriteJSONStringIsMarshal holds it to that.
func writeJSONString(w *bufio.Writer, s string) error {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			w.WriteString(s[start:i])
			switch b {
			case '"', '\\':
				w.WriteByte('\\')
				w.WriteByte(b)
			case '\b':
				w.WriteString(`\b`)
			case '\f':
				w.WriteString(`\f`)
			case '\n':
				w.WriteString(`\n`)
			case '\r':
				w.WriteString(`\r`)
			case '\t':
				w.WriteString(`\t`)
			default:
				w.WriteString(`\u00`)
				w.WriteByte(hex[b>>4])
				w.WriteByte(hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			w.WriteString(s[start:i])
			w.WriteString(`\ufffd`)
		case c == '\u2028' || c == '\u2029':
			w.WriteString(s[start:i])
			w.WriteString(`\u202`)
			w.WriteByte(hex[c&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	w.WriteString(s[start:])
	return w.WriteByte('"')
}
