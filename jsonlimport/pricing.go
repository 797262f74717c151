package jsonlimport

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// Cost of the Claude Code and Codex usage rows. Neither tool writes what a
// call cost (pi does, per message; some old Claude Code versions wrote
// costUSD on the line, which is used when present, as ccusage does). For
// the others the cost is estimated from Prices, the providers' published
// list prices per million tokens for standard API use, as of PricesAsOf:
// no batch discount, no long-context surcharge (Sonnet above 200k input
// tokens is billed at a higher rate), and cache writes at the 5-minute
// rate. A subscription plan bills differently, so the figure is what the
// same calls would have cost through the API. A model that is not in the
// table keeps cost 0 and the import says so in a Note, once per model and
// file.

// PricesAsOf dates Prices.
const PricesAsOf = "2025-11"

// Price is a model's price in US dollars per million tokens.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// Prices maps model names, without a date suffix, to their prices.
var Prices = map[string]Price{
	// Anthropic: cache reads are 0.1x input, 5-minute cache writes 1.25x.
	"claude-opus-4-5":   {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25},
	"claude-opus-4-1":   {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
	"claude-opus-4":     {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
	"claude-3-opus":     {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75},
	"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-sonnet-4":   {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-3-7-sonnet": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-3-5-sonnet": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75},
	"claude-haiku-4-5":  {Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25},
	"claude-3-5-haiku":  {Input: 0.80, Output: 4, CacheRead: 0.08, CacheWrite: 1},
	"claude-3-haiku":    {Input: 0.25, Output: 1.25, CacheRead: 0.03, CacheWrite: 0.30},
	// OpenAI: cached input is billed at the cached rate; reasoning tokens
	// are output tokens (Codex's output count includes them).
	"gpt-5":              {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5-codex":        {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5.1":            {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5.1-codex":      {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5.1-codex-max":  {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5-mini":         {Input: 0.25, Output: 2, CacheRead: 0.025},
	"gpt-5.1-codex-mini": {Input: 0.25, Output: 2, CacheRead: 0.025},
	"gpt-5-nano":         {Input: 0.05, Output: 0.40, CacheRead: 0.005},
	"codex-mini-latest":  {Input: 1.50, Output: 6, CacheRead: 0.375},
	"o3":                 {Input: 2, Output: 8, CacheRead: 0.50},
	"o4-mini":            {Input: 1.10, Output: 4.40, CacheRead: 0.275},
	"gpt-4.1":            {Input: 2, Output: 8, CacheRead: 0.50},
	"gpt-4.1-mini":       {Input: 0.40, Output: 1.60, CacheRead: 0.10},
	"gpt-4o":             {Input: 2.50, Output: 10, CacheRead: 1.25},
	"gpt-4o-mini":        {Input: 0.15, Output: 0.60, CacheRead: 0.075},
}

// modelDateRE matches the suffixes that name a snapshot of a model:
// "-20250929", "-2025-08-07", "@20250929" (Vertex AI).
var modelDateRE = regexp.MustCompile(`(?:-\d{8}|-\d{4}-\d{2}-\d{2}|@\d{8})$`)

// PriceOf returns the price of model: the entry for its name, compared
// case-insensitively, without a "provider/" prefix and without a
// snapshot date. A name that only starts like a known one ("gpt-5.2",
// "claude-sonnet-4-6") has no price: a newer model is not assumed to cost
// what an older one did.
func PriceOf(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m = modelDateRE.ReplaceAllString(m, "")
	p, ok := Prices[m]
	return p, ok
}

// Estimate returns what u cost at price p. u.InputTokens excludes cache
// reads and writes, as both tools count them.
func (p Price) Estimate(u sessiondb.Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6
}

// priceRows fills in the cost of rows that have none from Prices and
// returns a note for each model without a price.
func priceRows(path string, rows []sessiondb.Usage) []Problem {
	var notes []Problem
	missing := map[string]bool{}
	for i := range rows {
		u := &rows[i]
		if u.Cost != 0 || u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens == 0 {
			continue
		}
		if p, ok := PriceOf(u.Model); ok {
			u.Cost = p.Estimate(*u)
			continue
		}
		if !missing[u.Model] {
			missing[u.Model] = true
			notes = append(notes, Problem{Path: path, Reason: fmt.Sprintf("model %q has no price in the table of %s; its calls are recorded with cost 0", u.Model, PricesAsOf)})
		}
	}
	return notes
}
