package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSnippetHighlightsMatch: a snippet shows and wraps the match, whatever
// the rest of the text holds. Lowering a text can change the byte length
// of its runes (İ 2 bytes to i 1, Ⱥ 2 to ⱥ 3, the Kelvin sign 3 to k 1),
// which used to move the excerpt to the start of the text (no match in
// it) or, when the changes cancelled out, wrap bytes in the middle of a
// rune (invalid UTF-8); a term longer than the excerpt's context was cut
// and not highlighted at all.
func TestSnippetHighlightsMatch(t *testing.T) {
	long := strings.Repeat("longterm", 12)
	for _, tc := range []struct {
		text  string
		terms []string
		want  string // must appear, highlighted, in the snippet
	}{
		{"İ" + strings.Repeat("x", 200) + " needle end", []string{"needle"}, "**needle**"},
		{"Ⱥİ(北 x", []string{"北"}, "**北**"},
		{"Ⱥ\u212A( ȺBC", []string{"ⱥbc"}, "**ȺBC**"},
		{strings.Repeat("y", 300) + " " + long + " tail", []string{long}, "**" + long + "**"},
		{"abcd", []string{"abc", "bcd"}, "**abcd**"},
		{"a*b", []string{"a", "*"}, "**a***b"}, // the markers are never matched again
	} {
		got := Snippet(tc.text, tc.terms)
		if !utf8.ValidString(got) {
			t.Errorf("Snippet(%q, %q) = %q: not UTF-8", tc.text, tc.terms, got)
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("Snippet(%q, %q) = %q, want it to hold %q", tc.text, tc.terms, got, tc.want)
		}
	}
}
