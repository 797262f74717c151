package viewer

import (
	"html"
	"strings"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/safetext"
)

// visible makes text safe to show: control characters, bidi marks and
// invalid UTF-8 become visible escapes (\x1b, \u202e, \xff), so that a
// right-to-left override in a tool's output cannot reorder what the reader
// sees. It is safetext.Visible, the rule the CLI and the MCP server use.
func visible(s string) string { return safetext.Visible(s) }

// needsEscape reports whether visible would change s.
func needsEscape[T string | []byte](s T) bool { return safetext.NeedsEscape(s) }

func unsafeRune(r rune) bool { return safetext.UnsafeRune(r) }

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
// sessiondb.HighlightStart/End ("**"), for query: the text is escaped,
// the matches are wrapped in <mark>. sessiondb.SplitSnippet tells a
// match from a "**" the text itself holds (a glob, markdown).
func highlight(snippet, query string) string {
	var b strings.Builder
	for _, p := range sessiondb.SplitSnippet(snippet, query) {
		if p.Match {
			b.WriteString("<mark>" + esc(p.Text) + "</mark>")
		} else {
			b.WriteString(esc(p.Text))
		}
	}
	return b.String()
}
