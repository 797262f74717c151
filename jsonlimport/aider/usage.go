package aider

import (
	"regexp"
	"strconv"
	"strings"
)

// tokensLine is aider's report after each model response:
// "Tokens: 2.4k sent, 1.1k cache write, 3.2k cache hit, 91 received.
// Cost: $0.0085 message, $0.02 session." (cache parts only when the
// provider reports them, the cost part only when aider knows a price;
// older versions say "request" for "message").
var (
	tokensPart = regexp.MustCompile(`([0-9][0-9,]*(?:\.[0-9]+)?[kKmM]?) (sent|received|cache write|cache hit)`)
	costPart   = regexp.MustCompile(`Cost: \$([0-9][0-9,]*(?:\.[0-9]+)?) (?:message|request), \$([0-9][0-9,]*(?:\.[0-9]+)?) session`)
)

// reported is one Tokens line read.
type reported struct {
	sent, received, cacheWrite, cacheHit int64
	cost, session                        float64
	hasCost                              bool
}

// readTokens reads a Tokens line (the output block's text); ok is false
// for any other line.
func readTokens(text string) (reported, bool) {
	rest, ok := strings.CutPrefix(text, "Tokens: ")
	if !ok {
		return reported{}, false
	}
	var r reported
	seen := false
	for _, m := range tokensPart.FindAllStringSubmatch(rest, -1) {
		n, ok := tokenCount(m[1])
		if !ok {
			continue
		}
		seen = true
		switch m[2] {
		case "sent":
			r.sent = n
		case "received":
			r.received = n
		case "cache write":
			r.cacheWrite = n
		case "cache hit":
			r.cacheHit = n
		}
	}
	if m := costPart.FindStringSubmatch(rest); m != nil {
		c, err1 := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		s, err2 := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
		if err1 == nil && err2 == nil {
			r.cost, r.session, r.hasCost = c, s, true
		}
	}
	return r, seen
}

// tokenCount reads aider's rounded count: "638", "1,234", "1.9k", "30k",
// "1.2M".
func tokenCount(s string) (int64, bool) {
	s = strings.ReplaceAll(s, ",", "")
	mul := 1.0
	switch {
	case strings.HasSuffix(s, "k") || strings.HasSuffix(s, "K"):
		mul, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "m") || strings.HasSuffix(s, "M"):
		mul, s = 1e6, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*mul > 1e15 {
		return 0, false
	}
	return int64(f*mul + 0.5), true
}
