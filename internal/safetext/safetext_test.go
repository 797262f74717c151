package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, tab\tand\nnewline": "plain text, tab\tand\nnewline",
		"a\x1b[31mb":                    `a\x1b[31mb`,
		"bell\x07":                      `bell\x07`,
		"c1\u009bx":                     `c1\u009bx`,
		"rlo\u202eabc":                  `rlo\u202eabc`,
		"isolate\u2066x\u2069":          `isolate\u2066x\u2069`,
		"bad\xffutf8":                   `bad\xffutf8`,
		"del\x7f":                       `del\x7f`,
		"ünïcode ✓":                     "ünïcode ✓",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
		if got := NeedsEscape(in); got != (in != want) {
			t.Errorf("NeedsEscape(%q) = %v", in, got)
		}
		if got := NeedsEscape([]byte(in)); got != (in != want) {
			t.Errorf("NeedsEscape([]byte(%q)) = %v", in, got)
		}
	}
}

// FuzzVisible checks Visible's promise on any input: the result is valid
// UTF-8 without a control (other than tab and newline) or bidi mark, and
// text that needed nothing comes back unchanged.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x1b[2Jb", "\u202egnp.exe", "\xff\xfe", "tab\tnl\n", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := Visible(s)
		if !utf8.ValidString(v) {
			t.Fatalf("Visible(%q) = %q: invalid UTF-8", s, v)
		}
		if NeedsEscape(v) {
			t.Fatalf("Visible(%q) = %q still needs escaping", s, v)
		}
		if strings.IndexFunc(v, func(r rune) bool { return UnsafeRune(r) || (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f }) >= 0 {
			t.Fatalf("Visible(%q) = %q holds an unsafe rune", s, v)
		}
		if !NeedsEscape(s) && v != s {
			t.Fatalf("Visible changed clean text %q to %q", s, v)
		}
	})
}
