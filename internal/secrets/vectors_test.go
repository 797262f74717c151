package secrets

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/internal/longtest"
)

// vectorFile is testdata/gitleaks-vectors.json: per gitleaks rule, the
// true positives and false positives gitleaks validates it with.
type vectorFile struct {
	Source string `json:"source"`
	Rules  map[string]struct {
		TPs []string `json:"tps"`
		FPs []string `json:"fps"`
	} `json:"rules"`
}

func readVectors(t testing.TB) vectorFile {
	t.Helper()
	b, err := os.ReadFile("testdata/gitleaks-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectorFile
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestGitleaksVectors runs every gitleaks rule alone (with the global
// allowlist, as gitleaks validates it) over the rule's own test vectors:
// each true positive must be found, each false positive must not.
func TestGitleaksVectors(t *testing.T) {
	v := readVectors(t)
	d := Default()
	ids := d.Rules()
	var tps, fps int
	for id, vec := range v.Rules {
		if !slices.Contains(ids, id) {
			t.Errorf("rule %s has vectors but is not in the rule set", id)
			continue
		}
		one := d.only(id)
		for _, tp := range vec.TPs {
			tps++
			if len(one.Find(tp)) == 0 {
				t.Errorf("%s: true positive not found: %q", id, clip(tp))
			}
		}
		for _, fp := range vec.FPs {
			fps++
			if fs := one.Find(fp); len(fs) > 0 {
				t.Errorf("%s: false positive found: %q (%q)", id, clip(fp), fp[fs[0].Start:fs[0].End])
			}
		}
	}
	if len(v.Rules) < 200 || tps < 5000 {
		t.Fatalf("only %d rules, %d true positives read: vectors file damaged?", len(v.Rules), tps)
	}
	t.Logf("%d rules, %d true positives, %d false positives", len(v.Rules), tps, fps)
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return strings.TrimSpace(s)
}

// TestGitleaksVectorsInLongText finds every true positive again inside a
// long text (prose holding the rules' keywords, no line breaks), where
// rules read windows around their keywords instead of the whole text:
// the same secrets must be found. The prose comes before the vector, and
// after it too unless the rule's expression needs the end of the text
// ($ or \z, which gitleaks' rules use without the m flag). The quick
// run takes three vectors per rule, the long run all of them.
func TestGitleaksVectorsInLongText(t *testing.T) {
	perRule := 3
	if longtest.Enabled() {
		perRule = 1 << 30
	}
	v := readVectors(t)
	d := Default()
	pad := strings.Repeat("the key to the token api is access to the secret auth, they said; ", 160)
	var rs []ruleSpec
	if err := json.Unmarshal(gitleaksJSON, &struct {
		Rules *[]ruleSpec `json:"rules"`
	}{&rs}); err != nil {
		t.Fatal(err)
	}
	atEnd := map[string]bool{}
	for _, r := range rs {
		atEnd[r.ID] = strings.Contains(r.Regex, "$") || strings.Contains(r.Regex, `\z`)
	}
	for id, vec := range v.Rules {
		one := d.only(id)
		for i, tp := range vec.TPs {
			if i >= perRule {
				break
			}
			short := one.Find(tp)
			if len(short) == 0 {
				continue // reported by TestGitleaksVectors
			}
			long := pad + " " + tp
			if !atEnd[id] {
				long += " " + pad
			}
			want := tp[short[0].Start:short[0].End]
			got := false
			for _, f := range one.Find(long) {
				got = got || long[f.Start:f.End] == want
			}
			if !got {
				t.Errorf("%s: %q not found inside a long text", id, want)
			}
		}
	}
}
