package engine

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// Search compares text with every rune lowered by itself (unicode.ToLower),
// on both backends (PostgreSQL's lower and ILIKE do the same). This file is
// that rule; a backend that prefilters with something else (SQLite's
// trigram tokenizer, which folds with its own tables) asks FoldClass which
// runes its prefilter must let through.

// Fold lowers every rune of s by itself: two texts match where their Fold
// does.
func Fold(s string) string { return foldString(s) }

// AppendFold appends Fold(s) to dst (a byte that is not UTF-8 folds to
// U+FFFD, as in Fold), ASCII a byte at a time: for callers that fold many
// texts into a buffer they reuse (SQLite's rank function).
func AppendFold(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += n
	}
	return dst
}

// lowerInverse maps each lowered rune to the other runes that lower to it.
// Only the runes of unicode.CaseRanges have a case mapping (ToLower leaves
// every other rune as it is), so it walks those, about 2,900 runes,
// instead of all 1.1 million (11 ms of every cold sessionctl search).
var lowerInverse = sync.OnceValue(func() map[rune][]rune {
	inv := map[rune][]rune{}
	for _, cr := range unicode.CaseRanges {
		for r := rune(cr.Lo); r <= rune(cr.Hi); r++ {
			if l := unicode.ToLower(r); l != r {
				inv[l] = append(inv[l], r)
			}
		}
	}
	return inv
})

// FoldClass returns every rune that search takes for r: those that lower
// to what r lowers to, the lowered rune first. For an ASCII letter other
// than i and k it is just the letter's two cases; i also stands for İ
// (U+0130) and k for the Kelvin sign (U+212A).
func FoldClass(r rune) []rune {
	l := unicode.ToLower(r)
	return append([]rune{l}, lowerInverse()[l]...)
}
