package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Placeholder is what replaces a secret of rule: [REDACTED:rule]. It is
// ASCII and holds no quote or backslash, so it may stand inside a JSON
// string as it is.
func Placeholder(rule string) string { return "[REDACTED:" + rule + "]" }

// Redact returns body with each span replaced by its Placeholder (body
// itself when spans is empty). Spans may come in any order; overlapping
// ones are merged (the first rule names them). Spans that fall outside
// body are ignored, so a stale span can never make Redact panic.
func Redact(body []byte, spans []Span) []byte {
	if len(spans) == 0 {
		return body
	}
	sp := slices.Clone(spans)
	slices.SortFunc(sp, func(a, b Span) int { return a.Start - b.Start })
	out := make([]byte, 0, len(body))
	done := 0
	for i := 0; i < len(sp); {
		s, e, rule := sp[i].Start, sp[i].End, sp[i].Rule
		for i++; i < len(sp) && sp[i].Start < e; i++ {
			e = max(e, sp[i].End)
		}
		if s < done || e > len(body) || s >= e {
			continue
		}
		out = append(out, body[done:s]...)
		out = append(out, Placeholder(rule)...)
		done = e
	}
	return append(out, body[done:]...)
}

// RedactText returns text with the secrets the detector finds in it
// replaced by their Placeholder: for short text read without stored
// spans (titles, summaries, documents read whole).
func (d *Detector) RedactText(text string) string {
	fs := d.Find(text)
	if len(fs) == 0 {
		return text
	}
	var b strings.Builder
	done := 0
	for _, f := range fs {
		b.WriteString(text[done:f.Start])
		b.WriteString(Placeholder(f.Rule))
		done = f.End
	}
	b.WriteString(text[done:])
	return b.String()
}

// RedactJSON returns body with the secrets the detector finds in it
// replaced (Redact over FindJSON).
func (d *Detector) RedactJSON(body []byte) []byte { return Redact(body, d.FindJSON(body)) }

// Fingerprint identifies a secret without holding it: the first 8 bytes
// of its SHA-256, in hex. sessionctl secrets groups sightings of one
// secret by it.
func Fingerprint(secret []byte) string {
	h := sha256.Sum256(secret)
	return hex.EncodeToString(h[:8])
}

// Mask shows enough of a secret to recognise it, and never enough to use
// it: its first four characters and its last four, when it has at least
// 20 (sk-p…a1b2); only its length otherwise.
func Mask(secret string) string {
	n := utf8.RuneCountInString(secret)
	if n < 20 {
		return fmt.Sprintf("…(%d chars)", n)
	}
	r := []rune(secret)
	return string(r[:4]) + "…" + string(r[n-4:])
}
