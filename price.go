package sessiondb

import (
	"context"
	"fmt"
	"math"
)

// LongContextTokens is the prompt size above which a call is billed at a
// model's long-context rates, where its Price has them: Anthropic bills a
// request whose prompt (uncached input, cache reads and cache writes
// together) exceeds 200,000 tokens at those rates, all of its tokens,
// output included. LiteLLM's price data names these rates
// "*_above_200k_tokens".
const LongContextTokens = 200_000

// MaxPrice bounds every rate of a Price: 1e9 US dollars per million
// tokens, that is $1,000 per token, some million times the dearest model's
// list price. Validate refuses a rate above it (a price file saying 1e300
// $/token is a mistake, not a price), and a bounded rate keeps every
// estimated cost finite: a row's tokens are at most 2^63, so its cost is
// at most 5 x 9.3e18 x 1e9 / 1e6, about 4.6e22 dollars, and any sum of
// such costs stays far from float64's overflow at 1.8e308 (issue 36).
const MaxPrice = 1e9

// MaxCost bounds the cost of one usage row as reads count it: 1e15 US
// dollars. A stored cost above it, below -MaxCost or not a number (a value
// written before MaxPrice was enforced, by an older binary, or by hand in
// SQL) counts as 0 in every total (usage reports, session totals, stats,
// MCP, the viewer), so that the totals stay finite and every surface can
// answer; sessionctl doctor reports such rows, and sessionctl reprice
// recomputes the estimated ones.
const MaxCost = 1e15

// Price is a model's price in US dollars per million tokens.
//
// CacheWrite is the rate of cache writes with the default (5-minute)
// lifetime, CacheWrite1h that of writes cached for one hour
// (Usage.CacheWrite1hTokens; Anthropic bills them at 2x input, LiteLLM
// names the rate "cache_creation_input_token_cost_above_1hr"); 0 means
// the model has no separate 1-hour rate and such writes cost CacheWrite.
//
// The *Above200k rates apply to a whole call whose prompt exceeds
// LongContextTokens; 0 means the base rate applies there too (the model
// has no long-context surcharge, or not for that kind of token).
type Price struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h float64

	InputAbove200k, OutputAbove200k, CacheReadAbove200k, CacheWriteAbove200k, CacheWrite1hAbove200k float64
}

// Long returns the rates of a long-context call: each *Above200k rate,
// or the base rate where that is 0. Its own *Above200k rates are 0.
func (p Price) Long() Price {
	or := func(above, base float64) float64 {
		if above != 0 {
			return above
		}
		return base
	}
	return Price{
		Input:        or(p.InputAbove200k, p.Input),
		Output:       or(p.OutputAbove200k, p.Output),
		CacheRead:    or(p.CacheReadAbove200k, p.CacheRead),
		CacheWrite:   or(p.CacheWriteAbove200k, p.CacheWrite),
		CacheWrite1h: or(p.CacheWrite1hAbove200k, p.CacheWrite1h),
	}
}

// Write1h returns the rate of p's 1-hour cache writes: CacheWrite1h, or
// CacheWrite where that is 0.
func (p Price) Write1h() float64 {
	if p.CacheWrite1h != 0 {
		return p.CacheWrite1h
	}
	return p.CacheWrite
}

// IsLongContext says whether u's prompt exceeds LongContextTokens (u's
// input tokens exclude its cache reads and writes, as Claude Code, Codex
// and pi count them).
func IsLongContext(u Usage) bool {
	return u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens > LongContextTokens
}

// Estimate returns what u cost at p, in US dollars. Stores compute the
// same figure in SQL when they reprice (Repricer) and their results are
// equal bit for bit: the products are rounded one by one (no fused
// multiply-add) and summed in this order, then divided by 1e6. The cache
// writes of u other than its 1-hour ones cost CacheWrite, the 1-hour ones
// Write1h (a row without 1-hour writes costs what it cost before
// CacheWrite1h existed, to the bit: the added term is 0).
func (p Price) Estimate(u Usage) float64 {
	r := p
	if IsLongContext(u) {
		r = p.Long()
	}
	in := float64(float64(u.InputTokens) * r.Input)
	out := float64(float64(u.OutputTokens) * r.Output)
	cr := float64(float64(u.CacheReadTokens) * r.CacheRead)
	cw := float64(float64(u.CacheWriteTokens-u.CacheWrite1hTokens) * r.CacheWrite)
	cw1h := float64(float64(u.CacheWrite1hTokens) * r.Write1h())
	return (in + out + cr + cw + cw1h) / 1e6
}

// Validate checks that every rate is a finite number, at least 0 and at
// most MaxPrice. The error wraps ErrInvalid.
func (p Price) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"input", p.Input}, {"output", p.Output}, {"cache read", p.CacheRead}, {"cache write", p.CacheWrite},
		{"1-hour cache write", p.CacheWrite1h},
		{"input above 200k", p.InputAbove200k}, {"output above 200k", p.OutputAbove200k},
		{"cache read above 200k", p.CacheReadAbove200k}, {"cache write above 200k", p.CacheWriteAbove200k},
		{"1-hour cache write above 200k", p.CacheWrite1hAbove200k},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return fmt.Errorf("%w: %s price %v is not a finite number >= 0", ErrInvalid, f.name, f.v)
		}
		if f.v > MaxPrice {
			return fmt.Errorf("%w: %s price $%g per million tokens ($%g per token) is above the limit of $%g per token",
				ErrInvalid, f.name, f.v, f.v/1e6, MaxPrice/1e6)
		}
	}
	return nil
}

// PriceFunc returns the price of a model, as the usage ledger names it,
// and whether it has one.
type PriceFunc func(model string) (Price, bool)

// Repricer is implemented by stores that recompute estimated usage costs
// in place. sqlstore and pgstore implement it.
type Repricer interface {
	// Reprice sets the cost of every usage row whose CostEstimated is
	// true, and whose model prices prices, to that price's Estimate of the
	// row. Rows whose cost a tool recorded (CostEstimated false) are never
	// changed, nor are rows of models prices does not price. All rows
	// change in one transaction, or none does. With dryRun nothing is
	// written and the report says what would change. Repricing changes no
	// session's Sequence or UpdatedAt: the usage ledger is accounting,
	// not conversation.
	Reprice(ctx context.Context, prices PriceFunc, dryRun bool) (RepriceReport, error)
}

// RepriceReport says what a Reprice changed (or, in a dry run, would
// change).
type RepriceReport struct {
	// Models lists every model that has rows with an estimated cost, by
	// name.
	Models []RepricedModel
}

// RepricedModel is one model's part of a RepriceReport.
type RepricedModel struct {
	// Model is the model as the usage rows name it.
	Model string
	// Priced says the price list had a price for it; rows of an unpriced
	// model keep their cost.
	Priced bool
	// Rows counts the model's rows with an estimated cost, Changed those
	// whose cost changes.
	Rows, Changed int64
	// Tokens sums the rows' input, output, cache read and cache write
	// tokens.
	Tokens int64
	// CostBefore and CostAfter sum the rows' costs before and after.
	CostBefore, CostAfter float64
}
