package backend

import (
	"strings"
	"unicode/utf8"
)

// TextMarker starts every value that EncodeText escaped. U+FFFF is a
// noncharacter: no text is meant to start with it, and no JSON document
// can, so bodies and documents that PostgreSQL can hold are always stored
// as they are, readable in SQL.
const TextMarker = "\uFFFF"

// EncodeText makes s storable in a PostgreSQL text column, which cannot
// hold U+0000 nor bytes that are not UTF-8 (SQLite keeps both). Text that
// is valid UTF-8 without NUL, and does not start with TextMarker, is
// returned unchanged: the common case stays readable in SQL. Anything else
// becomes TextMarker followed by s in PostgreSQL's own "escape" format for
// bytes (what encode(b, 'escape') writes, except that valid UTF-8
// characters are kept whole): each backslash doubled, each byte
// PostgreSQL cannot hold written as a backslash and three octal digits. A
// title "a", NUL, "b" is stored as U+FFFF "a\000b", readable, and in SQL
// decode(substr(title, 2), 'escape') gives its exact bytes. DecodeText
// undoes it exactly.
//
// It is the one escape pgstore applies to every text value it sends, so
// every column a caller can fill (titles, summaries, bodies, documents,
// labels, paths, …) keeps any bytes; JSON bodies already escape U+0000
// themselves (\u0000) and reach it only with bytes that are not UTF-8.
func EncodeText(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(TextMarker) + len(s) + 8)
	b.WriteString(TextMarker)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
			i++
		case c == 0:
			b.WriteString(`\000`)
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b.WriteByte('\\')
				b.WriteByte('0' + c>>6)
				b.WriteByte('0' + c>>3&7)
				b.WriteByte('0' + c&7)
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
		}
	}
	return b.String()
}

// needsEscape reports whether s cannot be stored as it is.
func needsEscape(s string) bool {
	return strings.HasPrefix(s, TextMarker) || strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
}

// DecodeText returns the text EncodeText encoded as s. A value without
// TextMarker is returned as it is, and so is one whose escapes are not
// EncodeText's (written by hand in SQL): nothing read is ever refused.
func DecodeText(s string) string {
	if !strings.HasPrefix(s, TextMarker) {
		return s
	}
	body := s[len(TextMarker):]
	if strings.IndexByte(body, '\\') < 0 {
		return body
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		switch {
		case i+1 < len(body) && body[i+1] == '\\':
			b.WriteByte('\\')
			i++
		case i+3 < len(body) && '0' <= body[i+1] && body[i+1] <= '3' && isOctal(body[i+2]) && isOctal(body[i+3]):
			b.WriteByte((body[i+1]-'0')<<6 | (body[i+2]-'0')<<3 | (body[i+3] - '0'))
			i += 3
		default:
			return s // not EncodeText's: keep what is stored
		}
	}
	return b.String()
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// CleanText is text derived from a body (the role and plain text kept for
// search), made storable by repair rather than escape, on both backends: a
// NUL, a byte that is not UTF-8 and a leading TextMarker each become
// U+FFFD, so the derived columns never need DecodeText, PostgreSQL's
// ILIKE matches them as they read, and SQLite's LIKE and functions, which
// read text up to its first NUL, see all of it. The body keeps the exact
// bytes.
func CleanText(s string) string {
	if !needsEscape(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	if strings.HasPrefix(s, TextMarker) {
		s = "\uFFFD" + s[len(TextMarker):]
	}
	return s
}
