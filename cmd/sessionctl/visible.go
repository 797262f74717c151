package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// visible makes s safe to print on a terminal. Text from imported archives,
// tool output and LLM summaries may hold terminal control sequences (ESC
// and CSI, OSC that sets the window title or the clipboard, BEL), C1
// controls and bidirectional overrides that reorder what the reader sees.
// Every C0 control except tab and newline, DEL, every C1 control, the bidi
// embedding/override/isolate marks and invalid UTF-8 bytes are replaced by
// a visible escape (\x1b, \u202e, \xff), so that what is printed is what is
// stored, readable. Machine output (--json, --csv) is not passed through
// it: it stays exact.
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

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// unsafeRune reports the non-ASCII runes visible escapes: C1 controls and
// the bidirectional formatting characters (LRM/RLM, ALM, embeddings,
// overrides, isolates).
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

// hasControl reports whether s holds a character visible would escape, or
// a newline or tab: such text is refused where a person types a
// single-line value (rename).
func hasControl(s string) bool {
	return needsEscape(s) || strings.ContainsAny(s, "\t\n")
}
