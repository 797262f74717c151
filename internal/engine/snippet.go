package engine

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
)

// snippetContext is how many bytes of text a snippet shows on each side
// of the first match.
const snippetContext = 80

// Snippet cuts the text around the first match and highlights every term
// occurrence in the excerpt. Matching is the search's: each rune compared
// lowered by itself (unicode.ToLower), whatever that does to byte lengths
// (İ lowers to a shorter i, Ⱥ to a longer ⱥ), so the excerpt always holds
// the first match whole and every highlight wraps whole runes of the
// original text. Overlapping or adjacent matches of different terms are
// wrapped once, together.
func Snippet(text string, terms []string) string {
	ft, orig := foldMap(text)
	first, firstEnd := len(text), len(text)
	for _, t := range terms {
		ftt := foldString(t)
		if ftt == "" {
			continue
		}
		if i := strings.Index(ft, ftt); i >= 0 && orig(i) < first {
			first, firstEnd = orig(i), orig(i+len(ftt))
		}
	}
	if first == len(text) {
		first, firstEnd = 0, 0
	}
	start, end := max(0, first-snippetContext), min(len(text), max(firstEnd, first+snippetContext))
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	excerpt := highlight(text[start:end], terms)
	if start > 0 {
		excerpt = "…" + excerpt
	}
	if end < len(text) {
		excerpt += "…"
	}
	return excerpt
}

// highlight wraps every occurrence of every term in s, merging the
// matches that overlap or touch.
func highlight(s string, terms []string) string {
	fs, orig := foldMap(s)
	type span struct{ from, to int }
	var spans []span
	for _, t := range terms {
		ft := foldString(t)
		if ft == "" {
			continue
		}
		for at := 0; ; {
			i := strings.Index(fs[at:], ft)
			if i < 0 {
				break
			}
			i += at
			spans = append(spans, span{orig(i), orig(i + len(ft))})
			at = i + len(ft)
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var b strings.Builder
	done := 0
	for i := 0; i < len(spans); {
		from, to := spans[i].from, spans[i].to
		for i++; i < len(spans) && spans[i].from <= to; i++ {
			to = max(to, spans[i].to)
		}
		b.WriteString(s[done:from])
		b.WriteString(sessiondb.HighlightStart + s[from:to] + sessiondb.HighlightEnd)
		done = to
	}
	b.WriteString(s[done:])
	return b.String()
}

// foldString lowers every rune of s by itself, as search compares text.
func foldString(s string) string { return strings.Map(unicode.ToLower, s) }

// foldMap returns s folded (foldString) and a function from a byte offset
// in the folded text at a rune boundary to the offset of the same rune
// boundary in s (len(folded) maps to len(s)). A byte of s that is not
// UTF-8 folds to U+FFFD.
func foldMap(s string) (string, func(int) int) {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s), func(i int) int { return i }
	}
	var b strings.Builder
	b.Grow(len(s))
	off := make([]int32, 0, len(s)+1)
	for i, r := range s {
		n := b.Len()
		b.WriteRune(unicode.ToLower(r))
		for range b.Len() - n {
			off = append(off, int32(i))
		}
	}
	off = append(off, int32(len(s)))
	return b.String(), func(i int) int { return int(off[i]) }
}
