package secrets

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// gitleaksJSON is gitleaks' rule set as data (see "Rules" in doc.go).
//
//go:embed gitleaks.json
var gitleaksJSON []byte

// ruleSpec is a rule as written in gitleaks.json and in own.go.
type ruleSpec struct {
	ID          string      `json:"id"`
	Regex       string      `json:"regex"`
	SecretGroup int         `json:"secret_group"`
	Entropy     float64     `json:"entropy"`
	Keywords    []string    `json:"keywords"`
	Allow       []allowSpec `json:"allow"`
	// Assign: the rule has the semi-generic shape (see rule.assign).
	// gitleaks' rules of that shape are recognised by their expression.
	Assign bool `json:"assign,omitempty"`
}

// allowSpec is an allowlist: a finding it matches is not a secret.
type allowSpec struct {
	// Condition "AND" needs every criterion to match; "" (OR) any.
	Condition string `json:"condition"`
	// Paths: the allowlist also names file paths, which text in a
	// transcript never has (gitleaks scans files). Under AND it then
	// never matches; under OR the other criteria decide.
	Paths bool `json:"paths"`
	// Target is what Regexes match: "" the secret, "match" the whole
	// match of the rule, "line" the line holding it.
	Target    string   `json:"target"`
	Regexes   []string `json:"regexes"`
	StopWords []string `json:"stopwords"`
}

type ruleFile struct {
	Source string      `json:"source"`
	Global []allowSpec `json:"global_allow"`
	Rules  []ruleSpec  `json:"rules"`
}

// rule is a rule of the set. What matching needs of its expression
// (re, allow, assign, need, multiline) is compiled on the rule's first use
// (prepare): a process that redacts a page of search hits meets a few of
// the ~220 rules' keywords, and compiling them all took ~20 ms of every
// cold sessionctl search (issue 42). The package's tests compile every
// rule.
type rule struct {
	id          string
	spec        ruleSpec
	once        sync.Once
	err         error // the expression's compile error; the rule then finds nothing
	re          *regexp.Regexp
	secretGroup int
	entropy     float64
	keywords    []string
	allow       []allowlist
	// multiline: the rule's matches may span lines (a PEM block), so it
	// reads the whole text, not the lines around its keywords.
	multiline bool
	// generic: a rule about the shape of an assignment rather than a
	// provider's token format. A finding of another rule at the same
	// place wins over it (gitleaks does the same), and hashes and UUIDs
	// are never its secrets (see notSecret).
	generic bool
	// assign: the rule matches a name holding a keyword followed by an
	// assignment operator and a value (gitleaks' semi-generic shape, or
	// an own rule that says so), so it reads only where such an
	// operator follows one of its keywords (assignWindows).
	assign bool
	// need are literals every match holds (requiredLiterals): a text
	// without one of them is not read.
	need []string
}

type allowlist struct {
	and       bool
	paths     bool
	target    string
	regexes   []*regexp.Regexp
	stopwords []string
}

func compileAllow(specs []allowSpec) ([]allowlist, error) {
	var out []allowlist
	for _, a := range specs {
		al := allowlist{and: a.Condition == "AND", paths: a.Paths, target: a.Target}
		for _, r := range a.Regexes {
			re, err := regexp.Compile(r)
			if err != nil {
				return nil, err
			}
			al.regexes = append(al.regexes, re)
		}
		for _, w := range a.StopWords {
			al.stopwords = append(al.stopwords, strings.ToLower(w))
		}
		out = append(out, al)
	}
	return out, nil
}

// allowed reports whether the allowlist lets a finding go: secret is what
// the rule found, match its whole match, line the line around it.
func (a allowlist) allowed(secret, match, line string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	regex := false
	for _, re := range a.regexes {
		if re.MatchString(target) {
			regex = true
			break
		}
	}
	stop := false
	if len(a.stopwords) > 0 {
		ls := strings.ToLower(secret)
		for _, w := range a.stopwords {
			if strings.Contains(ls, w) {
				stop = true
				break
			}
		}
	}
	if !a.and {
		return regex || stop
	}
	if a.paths {
		return false // a path criterion, which no transcript text meets
	}
	ok := true
	if len(a.regexes) > 0 {
		ok = ok && regex
	}
	if len(a.stopwords) > 0 {
		ok = ok && stop
	}
	return ok && (len(a.regexes) > 0 || len(a.stopwords) > 0)
}

// newRule returns the rule of spec s, its expression not yet compiled
// (prepare).
func newRule(s ruleSpec) *rule {
	r := &rule{id: s.ID, spec: s, secretGroup: s.SecretGroup, entropy: s.Entropy,
		generic: strings.HasPrefix(s.ID, "generic") || slices.Contains(genericOwn, s.ID)}
	for _, k := range s.Keywords {
		k = strings.ToLower(k)
		if !slices.Contains(r.keywords, k) {
			r.keywords = append(r.keywords, k)
		}
	}
	return r
}

// prepare compiles r's expression and allowlists once, and returns the
// error of that compile (nil for every embedded rule: the tests compile
// them all).
func (r *rule) prepare() error {
	r.once.Do(func() { r.err = r.compile() })
	return r.err
}

func (r *rule) compile() error {
	s := r.spec
	re, err := regexp.Compile(s.Regex)
	if err != nil {
		return fmt.Errorf("rule %s: %w", s.ID, err)
	}
	allow, err := compileAllow(s.Allow)
	if err != nil {
		return fmt.Errorf("rule %s: %w", s.ID, err)
	}
	r.re, r.allow = re, allow
	r.assign = s.Assign
	if i := strings.Index(s.Regex, semiGeneric); i > 0 {
		// Only when every keyword is a whole name: some rules of that
		// shape take their keywords from the value (lob's test_pub).
		name, err := regexp.Compile(`^(?:` + s.Regex[:i] + `)$`)
		r.assign = err == nil
		for _, k := range r.keywords {
			r.assign = r.assign && name.MatchString(k)
		}
	}
	r.need = requiredLiterals(s.Regex)
	r.multiline = strings.Contains(s.Regex, `[\s\S`) || strings.Contains(s.Regex, `(?s`)
	return nil
}

// requiredLiterals returns the case-sensitive literals of three bytes or
// more that every match of expr holds: the literal parts of its top-level
// sequence (inside groups). jwt's ".ey", authress' ".acc": a rule whose
// keyword is common ("ey" is in "key" and "they") then reads only the
// texts that may match.
func requiredLiterals(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	var out []string
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpCapture:
			walk(re.Sub[0])
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				walk(sub)
			}
		case syntax.OpLiteral:
			if re.Flags&syntax.FoldCase == 0 && len(string(re.Rune)) >= 3 {
				out = append(out, string(re.Rune))
			}
		}
	}
	walk(re)
	return out
}

// semiGeneric is the part of the expressions of gitleaks' semi-generic
// rules (its utils.GenerateSemiGenericRegex) that follows the name.
const semiGeneric = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// loadRules compiles gitleaks' rules and sessiondb's own (own.go), and
// returns them with the global allowlist and the version of the set.
func loadRules() ([]*rule, []allowlist, string, error) {
	var f ruleFile
	if err := json.Unmarshal(gitleaksJSON, &f); err != nil {
		return nil, nil, "", fmt.Errorf("gitleaks.json: %w", err)
	}
	specs := append(slices.Clone(f.Rules), ownRules...)
	var rules []*rule
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.ID] {
			return nil, nil, "", fmt.Errorf("rule %s: defined twice", s.ID)
		}
		seen[s.ID] = true
		rules = append(rules, newRule(s))
	}
	global, err := compileAllow(f.Global)
	if err != nil {
		return nil, nil, "", err
	}
	own, err := json.Marshal(ownRules)
	if err != nil {
		return nil, nil, "", err
	}
	h := sha256.New()
	h.Write(gitleaksJSON)
	h.Write(own)
	h.Write([]byte(notSecretVersion))
	return rules, global, hex.EncodeToString(h.Sum(nil))[:16], nil
}
