package viewer

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// visible makes text safe to show: C0 controls other than tab and
// newline, DEL, C1 controls, the bidirectional embedding, override and
// isolate marks and invalid UTF-8 bytes become a visible escape (\x1b,
// \u202e, \xff), so that a right-to-left override in a tool's output cannot
// reorder what the reader sees. It is the CLI's visible, mirrored (the CLI
// is package main).
func visible(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether visible would change s. ASCII other than
// controls, the bulk of a page, is checked without decoding runes.
func needsEscape[T string | []byte](s T) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		if r == utf8.RuneError && size == 1 || (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// esc escapes text for HTML after making it visible.
func esc(s string) string { return html.EscapeString(visible(s)) }

// clip cuts s to at most max bytes on a rune boundary and reports whether
// it cut.
func clip(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// highlight renders a search snippet whose matches are wrapped in
// sessiondb.HighlightStart/End ("**"): the text between markers is
// escaped, the matches are wrapped in <mark>.
func highlight(snippet string) string {
	parts := strings.Split(snippet, "**")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<mark>" + esc(p) + "</mark>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("**") // an unpaired marker is text
		}
		b.WriteString(esc(p))
	}
	return b.String()
}
