package engine

import (
	"strings"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
)

// Snippet cuts the text around the first match and highlights every term
// occurrence in the excerpt (case folded where folding keeps lengths).
func Snippet(text string, terms []string) string {
	const context = 80
	lower := strings.ToLower(text)
	first := len(text)
	if len(lower) == len(text) {
		for _, t := range terms {
			if i := strings.Index(lower, strings.ToLower(t)); i >= 0 && i < first {
				first = i
			}
		}
	}
	if first == len(text) {
		first = 0
	}
	start, end := max(0, first-context), min(len(text), first+context)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	excerpt := text[start:end]
	for _, t := range terms {
		excerpt = highlight(excerpt, t)
	}
	if start > 0 {
		excerpt = "…" + excerpt
	}
	if end < len(text) {
		excerpt += "…"
	}
	return excerpt
}

func highlight(s, term string) string {
	if term == "" {
		return s
	}
	var b strings.Builder
	lower, lt := strings.ToLower(s), strings.ToLower(term)
	if len(lower) != len(s) || len(lt) != len(term) { // case folding changed lengths: match exactly
		lower, lt = s, term
	}
	for {
		i := strings.Index(lower, lt)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(sessiondb.HighlightStart + s[i:i+len(lt)] + sessiondb.HighlightEnd)
		s, lower = s[i+len(lt):], lower[i+len(lt):]
	}
}
