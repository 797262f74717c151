package secrets

import (
	"math"
	"slices"
	"strings"
	"sync"
)

// Finding is a secret found in a text: the rule that found it and the
// byte offsets of the secret itself (not of the rule's whole match: for
// postgres://app:pw@db it is pw).
type Finding struct {
	Rule       string
	Start, End int
}

// Detector finds secrets with a rule set. It is safe for concurrent use.
type Detector struct {
	rules   []*rule
	global  []allowlist
	version string
	kw      *keywordMatcher
	// kwRules[k] lists the rules whose keyword is keyword k.
	kwRules [][]int
	kwLen   []int
}

var (
	defaultOnce sync.Once
	defaultDet  *Detector
	defaultErr  error
)

// Default returns the detector of the embedded rule set (gitleaks' rules
// and sessiondb's own), compiled on first use (about 20 ms).
func Default() *Detector {
	defaultOnce.Do(func() {
		rules, global, version, err := loadRules()
		if err != nil {
			defaultErr = err
			return
		}
		defaultDet = newDetector(rules, global, version)
	})
	if defaultErr != nil {
		// The rule set is embedded and its tests compile every rule: a
		// failure here is a broken build, not bad input.
		panic("secrets: " + defaultErr.Error())
	}
	return defaultDet
}

func newDetector(rules []*rule, global []allowlist, version string) *Detector {
	d := &Detector{rules: rules, global: global, version: version}
	index := map[string]int{}
	var keywords []string
	for ri, r := range rules {
		for _, k := range r.keywords {
			ki, ok := index[k]
			if !ok {
				ki = len(keywords)
				index[k] = ki
				keywords = append(keywords, k)
				d.kwRules = append(d.kwRules, nil)
				d.kwLen = append(d.kwLen, len(k))
			}
			d.kwRules[ki] = append(d.kwRules[ki], ri)
		}
	}
	d.kw = newKeywordMatcher(keywords)
	return d
}

// only returns a detector of the one rule id of d's set (tests).
func (d *Detector) only(id string) *Detector {
	for _, r := range d.rules {
		if r.id == id {
			return newDetector([]*rule{r}, d.global, d.version)
		}
	}
	return nil
}

// Version identifies the rule set: a store records it with what it
// scanned, and scans again what an older set scanned.
func (d *Detector) Version() string { return d.version }

// Rules returns the IDs of the rules, in the set's order.
func (d *Detector) Rules() []string {
	out := make([]string, len(d.rules))
	for i, r := range d.rules {
		out[i] = r.id
	}
	return out
}

// window bounds the text a rule's regular expression reads around each
// of its keywords, on either side: matches are found within the lines
// holding a keyword, and within window bytes of it on a longer line. The
// longest match of a rule that is not multiline (a JWT, a generic
// assignment) is well under it.
const window = 4096

// Find returns the secrets in text, ordered by Start, without overlaps:
// where two findings overlap, a provider's rule wins over a generic one,
// then the earlier and longer finding.
func (d *Detector) Find(text string) []Finding {
	if len(text) == 0 {
		return nil
	}
	// Which rules have a keyword in text, and where.
	var at map[int][][2]int
	d.kw.match(text, func(k int32, end int) {
		if at == nil {
			at = map[int][][2]int{}
		}
		for _, ri := range d.kwRules[k] {
			at[ri] = append(at[ri], [2]int{end - d.kwLen[k], end})
		}
	})
	if at == nil {
		return nil
	}
	var found []found
	ris := make([]int, 0, len(at))
	for ri := range at {
		ris = append(ris, ri)
	}
	slices.Sort(ris)
	for _, ri := range ris {
		r := d.rules[ri]
		if r.prepare() != nil || !holdsAll(text, r.need) {
			continue
		}
		switch {
		case r.multiline:
			found = d.matchRule(r, text, 0, len(text), found)
		case r.assign:
			for _, w := range assignWindows(text, at[ri], r.generic && r.id == "generic-api-key") {
				found = d.matchRule(r, text, w[0], w[1], found)
			}
		case len(text) <= 2*window:
			found = d.matchRule(r, text, 0, len(text), found)
		default:
			for _, w := range windows(text, at[ri]) {
				found = d.matchRule(r, text, w[0], w[1], found)
			}
		}
	}
	return resolve(found)
}

func holdsAll(text string, lits []string) bool {
	for _, l := range lits {
		if !strings.Contains(text, l) {
			return false
		}
	}
	return true
}

// found is a finding with what resolve needs.
type found struct {
	Finding
	generic bool
}

// windows returns the merged ranges of text around the keywords at
// (ascending), window bytes on either side, an edge moved to a separator
// so that a range does not start or end inside a token. Ranges are not
// cut at line ends: a rule may read a name on one line and its value on
// the next (<lobToken>\n    test_…\n</lobToken>).
func windows(text string, at [][2]int) [][2]int {
	var out [][2]int
	for _, k := range at {
		p := k[0]
		lo := max(0, p-window)
		if lo > 0 {
			lo = toSeparator(text, lo, p)
		}
		hi := min(len(text), k[1]+window)
		if hi < len(text) {
			hi = backToSeparator(text, hi, k[1])
		}
		if n := len(out); n > 0 && lo <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], hi)
			continue
		}
		out = append(out, [2]int{lo, hi})
	}
	return out
}

func isSeparator(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '"', '\'', '`', ',', ';', '{', '}', '[', ']', '(', ')', '<', '>':
		return true
	}
	return false
}

// toSeparator moves lo forward past the next separator (not beyond p).
func toSeparator(text string, lo, p int) int {
	for i := lo; i < p; i++ {
		if isSeparator(text[i]) {
			return i + 1
		}
	}
	return lo
}

// backToSeparator moves hi back to the last separator (not before p).
func backToSeparator(text string, hi, p int) int {
	for i := hi - 1; i > p; i-- {
		if isSeparator(text[i]) {
			return i + 1
		}
	}
	return hi
}

// nearAssignment reports whether, right after a keyword of an assignment
// rule, what follows may be the rest of a name and an assignment
// operator (=, :, :=, =>, >, ||, ?=, ,): up to nameMax name characters
// ([ \t\w.-]), up to quoteMax quotes or spaces, an operator. With value,
// the operator must also be followed (after up to five quotes, spaces or
// =) by ten characters of a value ([\w.=+/-]). It is written by hand,
// not as an expression, because it runs at every occurrence of "key",
// "token", "api" in a text; it accepts at least what the rules' own
// expressions accept after a keyword (gitleaks' semi-generic rules: 20
// name characters, 3 quotes or spaces; the test vectors hold it), so it
// only ever skips places where a rule cannot match.
func nearAssignment(s string, nameMax, quoteMax int, value bool) bool {
	i := 0
	for i < len(s) && i < nameMax && isNameByte(s[i]) {
		i++
	}
	for j := 0; i < len(s) && j < quoteMax && isQuoteOrSpace(s[i]); j++ {
		i++
	}
	if i >= len(s) {
		return false
	}
	switch s[i] {
	case '=':
		i++
		if i < len(s) && s[i] == '>' {
			i++
		}
	case '>', ',':
		i++
	case ':':
		for j := 0; i < len(s) && j < 3 && s[i] == ':'; j++ {
			i++
		}
		if i < len(s) && s[i] == '=' {
			i++
		}
	case '|':
		if i+1 >= len(s) || s[i+1] != '|' {
			return false
		}
		i += 2
	case '?':
		if i+1 >= len(s) || s[i+1] != '=' {
			return false
		}
		i += 2
	default:
		return false
	}
	if !value {
		return true
	}
	// Up to five quotes, spaces or = before the value; the value class
	// holds = too, so every split is tried.
	skip := 0
	for skip < 5 && i+skip < len(s) && (isQuoteOrSpace(s[i+skip]) || s[i+skip] == '`' || s[i+skip] == '=') {
		skip++
	}
	for k := skip; k >= 0; k-- {
		if valueAhead(s[i+k:], 10) {
			return true
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '.' || c == '-' || c == '_' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isQuoteOrSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '\'', '"':
		return true
	}
	return false
}

// valueAhead reports whether s starts with n characters of [\w.=+/-].
func valueAhead(s string, n int) bool {
	if len(s) < n {
		return false
	}
	for i := range n {
		c := s[i]
		if !(isNameByte(c) && c != ' ' && c != '\t' || c == '=' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

const (
	// assignBefore and assignAfter bound what an assignment rule reads
	// around a keyword: the name before it (gitleaks' rules allow 50
	// characters, or 100 in a few), and the operator and a value of up
	// to 150 characters after it.
	assignBefore = 128
	assignAfter  = 512
)

// assignWindows returns the ranges of text an assignment rule reads:
// around each keyword that an assignment operator follows (nearAssignment;
// for gitleaks' generic rule, whose keywords "token" and "key" end the
// names of the numbers in every Claude Code line, and a value too),
// from the start of the keyword's line or assignBefore bytes before it,
// to assignAfter bytes after it, edges moved to a separator. Most keywords of the generic
// rule ("key", "token", "api") are words of prose or names in code, not
// assignments: the rule's expression, which starts with a lazy run of
// up to 50 characters and so is tried at every position of what it
// reads, then reads only the few places that may match.
func assignWindows(text string, at [][2]int, value bool) [][2]int {
	var out [][2]int
	for _, k := range at {
		s, e := k[0], k[1]
		if !nearAssignment(text[e:min(len(text), e+64)], 40, 8, value) {
			continue
		}
		lo := max(0, s-assignBefore)
		if i := strings.LastIndexByte(text[lo:s], '\n'); i >= 0 {
			lo += i + 1
		} else if lo > 0 {
			lo = toSeparator(text, lo, s)
		}
		// Not cut at the line's end: the value may follow on the next
		// line (<apiToken>\n    value\n</apiToken>).
		hi := min(len(text), e+assignAfter)
		if hi < len(text) {
			hi = forwardToSeparator(text, hi)
		}
		if n := len(out); n > 0 && lo <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], hi)
			continue
		}
		out = append(out, [2]int{lo, hi})
	}
	return out
}

// forwardToSeparator moves hi forward to just after the next separator or
// newline (at most window bytes), so that a range does not end inside a
// value.
func forwardToSeparator(text string, hi int) int {
	for i := hi; i < len(text) && i < hi+window; i++ {
		if isSeparator(text[i]) {
			return i + 1
		}
	}
	return min(len(text), hi+window)
}

// matchRule appends the findings of r in text[lo:hi].
func (d *Detector) matchRule(r *rule, text string, lo, hi int, out []found) []found {
	part := text[lo:hi]
	for _, m := range r.re.FindAllStringSubmatchIndex(part, -1) {
		ms, me := m[0], m[1]
		// gitleaks trims newlines around a match.
		for ms < me && part[ms] == '\n' {
			ms++
		}
		for me > ms && part[me-1] == '\n' {
			me--
		}
		ss, se := ms, me
		if r.secretGroup > 0 {
			if 2*r.secretGroup+1 >= len(m) || m[2*r.secretGroup] < 0 {
				continue
			}
			ss, se = m[2*r.secretGroup], m[2*r.secretGroup+1]
		} else {
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					ss, se = m[2*g], m[2*g+1]
					break
				}
			}
		}
		if r.secretGroup == 0 && len(m) == 2 {
			// No group: the secret is the match, less the character
			// some rules match after it ([^a-zA-Z0-9+/]|\z).
			for se > ss && isSeparator(part[se-1]) {
				se--
			}
		}
		if se <= ss {
			continue
		}
		secret := part[ss:se]
		if r.entropy > 0 && entropy(secret) <= r.entropy {
			continue
		}
		if r.generic && hashLike.MatchString(secret) && !strongKey.MatchString(part[ms:ss]) {
			continue
		}
		match := part[ms:me]
		line := lineOf(text, lo+ms, lo+me)
		if allowedBy(d.global, secret, match, line) || allowedBy(r.allow, secret, match, line) {
			continue
		}
		out = append(out, found{Finding{Rule: r.id, Start: lo + ss, End: lo + se}, r.generic})
	}
	return out
}

func allowedBy(as []allowlist, secret, match, line string) bool {
	for _, a := range as {
		if a.allowed(secret, match, line) {
			return true
		}
	}
	return false
}

// lineOf returns the lines of text holding text[s:e].
func lineOf(text string, s, e int) string {
	lo := strings.LastIndexByte(text[:s], '\n') + 1
	hi := strings.IndexByte(text[e:], '\n')
	if hi < 0 {
		hi = len(text)
	} else {
		hi += e
	}
	return text[lo:hi]
}

// resolve orders findings and removes overlaps: a provider's rule wins
// over a generic one, then the earlier, then the longer. It is O(n log n):
// a text may hold very many findings.
func resolve(fs []found) []Finding {
	if len(fs) == 0 {
		return nil
	}
	slices.SortFunc(fs, func(a, b found) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return (b.End - b.Start) - (a.End - a.Start)
	})
	// Providers' findings, greedily by start.
	var kept []Finding
	end := -1
	for _, f := range fs {
		if !f.generic && f.Start >= end {
			kept = append(kept, f.Finding)
			end = f.End
		}
	}
	// Generic findings where no provider's finding is.
	out := slices.Clone(kept)
	end = -1
	for _, f := range fs {
		if !f.generic || f.Start < end {
			continue
		}
		i, _ := slices.BinarySearchFunc(kept, f.End, func(k Finding, e int) int { return k.Start - e })
		// kept[:i] start before f ends: only kept[i-1] can reach into f.
		if i > 0 && kept[i-1].End > f.Start {
			continue
		}
		out = append(out, f.Finding)
		end = f.End
	}
	slices.SortFunc(out, func(a, b Finding) int { return a.Start - b.Start })
	return out
}

// entropy is the Shannon entropy of s in bits per character, counted
// over runes as gitleaks does (and divided by the length in bytes, as
// gitleaks does too, so that its thresholds mean the same here).
func entropy(s string) float64 {
	var ascii [128]int
	var other map[rune]int
	for _, r := range s {
		if r < 128 {
			ascii[r]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[r]++
	}
	inv := 1 / float64(len(s))
	h := 0.0
	add := func(n int) {
		if n > 0 {
			p := float64(n) * inv
			h -= p * math.Log2(p)
		}
	}
	for _, n := range ascii {
		add(n)
	}
	for _, n := range other {
		add(n)
	}
	return h
}
