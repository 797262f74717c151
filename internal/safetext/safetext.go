// Package safetext makes stored text safe to show to a person or a model.
// Text from imported archives, tool output and LLM summaries may hold
// terminal control sequences (ESC and CSI, OSC that sets the window title
// or the clipboard, BEL), C1 controls and bidirectional overrides that
// reorder what the reader sees. Visible replaces each of them with a
// visible escape, so that what is shown is what is stored, readable.
//
// It is the one copy of that rule: the CLI's human output, the viewer's
// pages and the MCP server's tool results all call it.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible returns s with every C0 control except tab and newline, DEL,
// every C1 control, the bidi embedding/override/isolate marks and invalid
// UTF-8 bytes replaced by a visible escape (\x1b, \u202e, \xff). Text that
// needs none is returned as it is, without copying.
func Visible(s string) string {
	if !NeedsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case UnsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// NeedsEscape reports whether Visible would change s. ASCII other than
// controls, the bulk of most text, is checked without decoding runes.
func NeedsEscape[T string | []byte](s T) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		if r == utf8.RuneError && size == 1 || UnsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// UnsafeRune reports the non-ASCII runes Visible escapes: C1 controls and
// the bidirectional formatting characters (LRM/RLM, ALM, embeddings,
// overrides, isolates).
func UnsafeRune(r rune) bool {
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
