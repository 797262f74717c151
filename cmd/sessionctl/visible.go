package main

import (
	"strings"

	"github.com/sessiondb/sessiondb/internal/safetext"
)

// visible makes s safe to print on a terminal: safetext.Visible, the one
// copy of the rule (control characters, C1 controls, bidi marks and
// invalid UTF-8 become visible escapes such as \x1b and \u202e), so that
// what is printed is what is stored, readable. Machine output (--json,
// --csv) is not passed through it: it stays exact.
func visible(s string) string { return safetext.Visible(s) }

func needsEscape(s string) bool { return safetext.NeedsEscape(s) }

// hasControl reports whether s holds a character visible would escape, or
// a newline or tab: such text is refused where a person types a
// single-line value (rename).
func hasControl(s string) bool {
	return needsEscape(s) || strings.ContainsAny(s, "\t\n")
}
