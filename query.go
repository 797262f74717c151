package sessiondb

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SearchTerms splits a user's search query into the terms that must all
// match: runs of non-space characters, or "double-quoted phrases" kept
// whole (an unclosed quote runs to the end). Nothing else is syntax: -, :,
// *, parentheses and words like AND/OR/NOT/NEAR are searched for as they
// are. The error wraps ErrInvalid for an empty, oversized or non-UTF-8
// query.
func SearchTerms(query string) ([]string, error) {
	if len(query) > MaxQueryLen {
		return nil, invalidf("search query is %d bytes, the limit is %d", len(query), MaxQueryLen)
	}
	if !utf8.ValidString(query) {
		return nil, invalidf("search query is not valid UTF-8")
	}
	var terms []string
	rest := query
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		var term string
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				term, rest = rest[1:], ""
			} else {
				term, rest = rest[1:1+end], rest[2+end:]
			}
			term = strings.Join(strings.Fields(term), " ")
		} else {
			end := strings.IndexFunc(rest, unicode.IsSpace)
			if end < 0 {
				end = len(rest)
			}
			term, rest = rest[:end], rest[end:]
		}
		if strings.ContainsFunc(term, unicode.IsControl) {
			return nil, invalidf("search query contains a control character")
		}
		if term != "" {
			terms = append(terms, term)
		}
	}
	if len(terms) == 0 {
		return nil, invalidf("empty search query")
	}
	return terms, nil
}
