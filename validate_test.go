package sessiondb

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestValidateCommit(t *testing.T) {
	good := json.RawMessage(`{"role":"user","content":"x"}`)
	for _, tc := range []struct {
		name string
		c    Commit
		ok   bool
	}{
		{"empty", Commit{}, true},
		{"append", Commit{Append: []Entry{{Body: good}}}, true},
		{"non-json body", Commit{Append: []Entry{{Body: json.RawMessage(`{"a":`)}}}, false},
		{"empty body", Commit{Append: []Entry{{}}}, false},
		{"control char kind", Commit{Append: []Entry{{Kind: "a\x00", Body: good}}}, false},
		{"oversized body", Commit{Append: []Entry{{Body: json.RawMessage(`"` + strings.Repeat("a", MaxBodySize) + `"`)}}}, false},
		{"bad state", Commit{State: json.RawMessage(`nope`)}, false},
		{"state set and cleared", Commit{State: good, ClearState: true}, false},
		{"interrupt set and cleared", Commit{Interrupt: good, ClearInterrupt: true}, false},
		{"keep-from zero", Commit{Compactions: []Compaction{{KeepFromSeq: 0}}}, false},
		{"bad summary", Commit{Compactions: []Compaction{{KeepFromSeq: 1, Summary: []Entry{{Body: json.RawMessage(`x`)}}}}}, false},
		{"bad alias", Commit{Meta: &MetaPatch{Aliases: &[]string{""}}}, false},
		{"bad scope", Commit{Create: &Session{Scope: json.RawMessage(`{`)}}, false},
		{"source without path", Commit{Source: &SourceFile{}}, false},
	} {
		err := ValidateCommit("s1", tc.c)
		if tc.ok && err != nil {
			t.Errorf("%s: %v, want nil", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tc.name, err)
		}
	}
}

// TestValidateCostsAndPrices (issue 36 item 4): a usage cost that is not a
// finite number, and a price rate above MaxPrice ($1,000 per token), are
// ErrInvalid; rates at the limit and finite costs pass.
func TestValidateCostsAndPrices(t *testing.T) {
	for _, cost := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		if err := ValidateCommit("s", Commit{Usage: []Usage{{Model: "m", Cost: cost}}}); !errors.Is(err, ErrInvalid) {
			t.Errorf("usage cost %v: %v, want ErrInvalid", cost, err)
		}
	}
	if err := ValidateCommit("s", Commit{Usage: []Usage{{Model: "m", Cost: 1e300}}}); err != nil {
		t.Errorf("a finite cost: %v", err)
	}
	for _, p := range []Price{{Input: MaxPrice * 1.0000001}, {Output: 1e306}, {CacheWrite1hAbove200k: math.Inf(1)}, {CacheRead: math.NaN()}, {Input: -1}} {
		if err := p.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", p, err)
		}
	}
	at := Price{Input: MaxPrice, Output: MaxPrice, CacheRead: MaxPrice, CacheWrite: MaxPrice, CacheWrite1h: MaxPrice, InputAbove200k: MaxPrice}
	if err := at.Validate(); err != nil {
		t.Errorf("rates at MaxPrice: %v", err)
	}
	// At the limit, the largest possible row costs a finite amount.
	if c := at.Estimate(Usage{InputTokens: math.MaxInt64, OutputTokens: math.MaxInt64, CacheReadTokens: math.MaxInt64}); math.IsInf(c, 0) {
		t.Errorf("a row at the price limit costs %v", c)
	}
}
