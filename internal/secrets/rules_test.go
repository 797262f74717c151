package secrets

import "testing"

// TestEveryRuleCompiles: rules compile on first use (rule.prepare), so a
// rule whose expression or allowlist does not compile would find nothing,
// silently. Every rule of the embedded set must compile, and none may be
// compiled before it is used.
func TestEveryRuleCompiles(t *testing.T) {
	rules, _, _, err := loadRules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) < 200 {
		t.Fatalf("%d rules; the embedded set has more than 200", len(rules))
	}
	for _, r := range rules {
		if r.re != nil {
			t.Fatalf("rule %s compiled when the set was loaded", r.id)
		}
		if err := r.prepare(); err != nil {
			t.Error(err)
		}
		if r.re == nil {
			t.Errorf("rule %s: no expression after prepare", r.id)
		}
	}
	// A bad expression fails prepare and the rule finds nothing.
	bad := newRule(ruleSpec{ID: "bad", Regex: `(`, Keywords: []string{"x"}})
	if bad.prepare() == nil {
		t.Fatal("rule with expression ( compiled")
	}
	d := newDetector([]*rule{bad}, nil, "test")
	if got := d.Find("x x x"); len(got) != 0 {
		t.Fatalf("a rule that does not compile found %v", got)
	}
}
