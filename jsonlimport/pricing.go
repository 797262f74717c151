package jsonlimport

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/sessiondb/sessiondb"
)

// Cost of the Claude Code and Codex usage rows. Neither tool writes what a
// call cost (pi does, per message; some old Claude Code versions wrote
// costUSD on the line, which is used when present, as ccusage does). For
// the others the cost is estimated from a price table and the row says so
// (sessiondb.Usage.CostEstimated), so that `sessionctl reprice` can
// recompute it when prices change; a cost a tool recorded is never
// estimated nor changed.
//
// The table is Prices, the providers' list prices per million tokens for
// standard API use as of PricesAsOf, optionally overridden and extended by
// a price file in LiteLLM's shape (LoadPrices, `--prices FILE`,
// $SESSIONDB_PRICES). What an estimate is:
//
//   - standard API prices: no batch, flex or priority tier, no regional
//     (Bedrock, Vertex, Azure data zone) surcharge, no "fast" mode;
//   - the long-context tier: a call whose prompt (input, cache read and
//     cache write tokens) exceeds 200,000 tokens is billed, all of its
//     tokens, at the *Above200k rates where the model has them (Sonnet 4
//     and 4.5 with the 1M-token context window), as Anthropic bills it;
//   - cache writes by lifetime: Claude Code 2.x writes most of its cache
//     with the 1-hour TTL and splits each response's cache writes into
//     ephemeral_5m_input_tokens and ephemeral_1h_input_tokens; the 1-hour
//     ones (sessiondb.Usage.CacheWrite1hTokens) cost Price.CacheWrite1h
//     (2x input for Anthropic's models), the others Price.CacheWrite
//     (1.25x), as Anthropic bills them and ccusage prices them;
//   - a subscription plan bills differently: the figure is what the same
//     calls would have cost through the API.
//
// A model that is not in the table keeps cost 0 (still marked estimated,
// so that a reprice with a newer table prices it): such a call is
// "unpriced" (sessiondb.UsageTotals.Unpriced), and every view says so
// rather than $0.00. The import names it in one Note per model. A model
// the table prices at 0 (free: glm-4.7-flash at Z.ai) gets cost 0 marked
// not estimated: a known zero.

// PricesAsOf dates Prices: the day their figures were last checked
// against LiteLLM's model_prices_and_context_window.json.
const PricesAsOf = "2026-12-01"

// Price is a model's price in US dollars per million tokens.
type Price = sessiondb.Price

// Prices maps model names, lower case and without a provider prefix, to
// their prices: a model's name without a snapshot date, and the dated
// names of the snapshots that cost another price (see PriceOf).
//
// Source, unless a line says otherwise: LiteLLM's
// model_prices_and_context_window.json as embedded in ccusage 20.0.24
// (npm, published 2026-09-22; the same figures ccusage prices with
// offline), each entry the LiteLLM key of that name, per-token figures
// times 10^6. The Anthropic entries and the o-series were checked against
// BerriAI/litellm at commit 00035b69 on 2026-12-01 (unchanged). LiteLLM
// gives no cache-write price for OpenAI models (they have none).
var Prices = map[string]Price{
	// Anthropic. Cache reads are 0.1x input, 5-minute cache writes 1.25x,
	// 1-hour cache writes 2x (LiteLLM's
	// cache_creation_input_token_cost_above_1hr, which ccusage's subset
	// leaves out: Anthropic's list prices, as BerriAI/litellm gives them).
	"claude-fable-5":        {Input: 10, Output: 50, CacheRead: 1, CacheWrite: 12.5, CacheWrite1h: 20},
	"claude-fable-5-1":      {Input: 10, Output: 50, CacheRead: 0.25, CacheWrite: 12.5, CacheWrite1h: 20},
	"claude-mythos-5":       {Input: 10, Output: 50, CacheRead: 1, CacheWrite: 12.5, CacheWrite1h: 20},
	"claude-mythos-5-1":     {Input: 10, Output: 50, CacheRead: 0.25, CacheWrite: 12.5, CacheWrite1h: 20},
	"claude-mythos-preview": {Input: 10, Output: 50, CacheRead: 1, CacheWrite: 12.5, CacheWrite1h: 20},
	"claude-opus-5":         {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25, CacheWrite1h: 10},
	"claude-opus-4-8":       {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25, CacheWrite1h: 10},
	"claude-opus-4-7":       {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25, CacheWrite1h: 10},
	"claude-opus-4-6":       {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25, CacheWrite1h: 10},
	"claude-opus-4-5":       {Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25, CacheWrite1h: 10},
	"claude-opus-4-1":       {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75, CacheWrite1h: 30},
	"claude-opus-4":         {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75, CacheWrite1h: 30}, // claude-opus-4-20250514
	"claude-3-opus":         {Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75, CacheWrite1h: 30}, // claude-3-opus-20240229
	"claude-sonnet-5":       {Input: 2, Output: 10, CacheRead: 0.20, CacheWrite: 2.50, CacheWrite1h: 4},
	"claude-sonnet-4-6":     {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75, CacheWrite1h: 6},
	"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75, CacheWrite1h: 6,
		InputAbove200k: 6, OutputAbove200k: 22.5, CacheReadAbove200k: 0.60, CacheWriteAbove200k: 7.5, CacheWrite1hAbove200k: 12},
	"claude-sonnet-4": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75, CacheWrite1h: 6, // claude-sonnet-4-20250514
		InputAbove200k: 6, OutputAbove200k: 22.5, CacheReadAbove200k: 0.60, CacheWriteAbove200k: 7.5, CacheWrite1hAbove200k: 12},
	"claude-3-7-sonnet": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75, CacheWrite1h: 6}, // claude-3-7-sonnet-20250219
	// Retired, no longer in LiteLLM's file: Anthropic's last list price
	// (this table of 2025-11).
	"claude-3-5-sonnet": {Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75, CacheWrite1h: 6},
	"claude-haiku-4-5":  {Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25, CacheWrite1h: 2},
	"claude-3-5-haiku":  {Input: 0.80, Output: 4, CacheRead: 0.08, CacheWrite: 1, CacheWrite1h: 1.6}, // anthropic.claude-3-5-haiku-20241022-v1:0
	"claude-3-haiku":    {Input: 0.25, Output: 1.25, CacheRead: 0.03, CacheWrite: 0.30, CacheWrite1h: 0.5},

	// OpenAI. Cached input is billed at the cached rate; reasoning tokens
	// are output tokens (Codex's output count includes them).
	"gpt-6-astra":        {Input: 10, Output: 50, CacheRead: 1, CacheWrite: 12.5},
	"gpt-5.6":            {Input: 4, Output: 20, CacheRead: 0.40, CacheWrite: 5},
	"gpt-5.6-sol":        {Input: 4, Output: 20, CacheRead: 0.40, CacheWrite: 5},
	"gpt-5.6-terra":      {Input: 2, Output: 12, CacheRead: 0.20, CacheWrite: 2.5},
	"gpt-5.6-luna":       {Input: 0.20, Output: 1.20, CacheRead: 0.02, CacheWrite: 0.25},
	"gpt-5.5":            {Input: 5, Output: 30, CacheRead: 0.50},
	"gpt-5.5-pro":        {Input: 30, Output: 180},
	"gpt-5.4":            {Input: 2.50, Output: 15, CacheRead: 0.25},
	"gpt-5.4-mini":       {Input: 0.75, Output: 4.50, CacheRead: 0.075},
	"gpt-5.4-nano":       {Input: 0.20, Output: 1.25, CacheRead: 0.02},
	"gpt-5.4-pro":        {Input: 30, Output: 180},
	"gpt-5.3-codex":      {Input: 1.75, Output: 14, CacheRead: 0.175},
	"gpt-5.2":            {Input: 1.75, Output: 14, CacheRead: 0.175},
	"gpt-5.2-codex":      {Input: 1.75, Output: 14, CacheRead: 0.175},
	"gpt-5.2-pro":        {Input: 21, Output: 168},
	"gpt-5.1":            {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5.1-codex":      {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5.1-codex-max":  {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5.1-codex-mini": {Input: 0.25, Output: 2, CacheRead: 0.025},
	"gpt-5":              {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5-codex":        {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5-mini":         {Input: 0.25, Output: 2, CacheRead: 0.025},
	"gpt-5-nano":         {Input: 0.05, Output: 0.40, CacheRead: 0.005},
	"gpt-5-pro":          {Input: 15, Output: 120},
	"gpt-4.1":            {Input: 2, Output: 8, CacheRead: 0.50},
	"gpt-4.1-mini":       {Input: 0.40, Output: 1.60, CacheRead: 0.10},
	"gpt-4.1-nano":       {Input: 0.10, Output: 0.40, CacheRead: 0.025},
	"gpt-4o":             {Input: 2.50, Output: 10, CacheRead: 1.25},
	"gpt-4o-2024-05-13":  {Input: 5, Output: 15},
	"gpt-4o-mini":        {Input: 0.15, Output: 0.60, CacheRead: 0.075},
	// The o-series: BerriAI/litellm@00035b69's own entries (ccusage does
	// not embed them). codex-mini-latest: LiteLLM's azure/codex-mini (its
	// openai entry is not in ccusage's subset; OpenAI's list price is the
	// same).
	"o1":                {Input: 15, Output: 60, CacheRead: 7.50},
	"o3":                {Input: 2, Output: 8, CacheRead: 0.50},
	"o3-mini":           {Input: 1.10, Output: 4.40, CacheRead: 0.55},
	"o3-pro":            {Input: 20, Output: 80},
	"o4-mini":           {Input: 1.10, Output: 4.40, CacheRead: 0.275},
	"codex-mini-latest": {Input: 1.50, Output: 6, CacheRead: 0.375},

	// Third-party models met in real Claude Code files, served through
	// Anthropic-compatible endpoints. Z.ai GLM: LiteLLM's zai/ entries
	// (GLM 4.7 Flash is free).
	"glm-4.7":       {Input: 0.60, Output: 2.20, CacheRead: 0.11},
	"glm-4.7-flash": {},
	// DeepSeek V4: the rates DeepSeek listed until 2026-08-16, as ccusage
	// 20.0.24 prices them (its pricing.rs; not in its LiteLLM subset).
	// Since 2026-08-17 DeepSeek bills by time of day (off-peak and peak
	// rates), which a price per model cannot express: later calls are
	// estimated at these rates, below what DeepSeek bills.
	"deepseek-v4-pro":   {Input: 0.435, Output: 0.87, CacheRead: 0.003625, CacheWrite: 0.435},
	"deepseek-v4-flash": {Input: 0.14, Output: 0.28, CacheRead: 0.0028, CacheWrite: 0.14},

	// Google Gemini, as Gemini CLI calls them (the Gemini API): the
	// entries gemini/<model> of BerriAI/litellm@00035b69 (not in ccusage's
	// subset; their price fields are in testdata/prices/litellm-gemini.json).
	// Thinking tokens are output tokens (Gemini CLI's rows count them in
	// OutputTokens); implicit cache reads cost CacheRead, and there is no
	// cache-write price. The Pro models cost more when the prompt exceeds
	// 200k tokens, as the tier this table applies to the whole call.
	// Qwen models are not priced: LiteLLM prices them (dashscope/…) by
	// tiers of prompt size (0–32k, 32k–128k, …) that one price per model
	// cannot express; give their prices with --prices.
	"gemini-2.0-flash":      {Input: 0.10, Output: 0.40, CacheRead: 0.025},
	"gemini-2.5-flash":      {Input: 0.30, Output: 2.50, CacheRead: 0.03},
	"gemini-2.5-flash-lite": {Input: 0.10, Output: 0.40, CacheRead: 0.01},
	"gemini-2.5-pro": {Input: 1.25, Output: 10, CacheRead: 0.125,
		InputAbove200k: 2.50, OutputAbove200k: 15, CacheReadAbove200k: 0.25},
	"gemini-3-flash-preview": {Input: 0.50, Output: 3, CacheRead: 0.05},
	"gemini-3-pro-preview": {Input: 2, Output: 12, CacheRead: 0.20,
		InputAbove200k: 4, OutputAbove200k: 18, CacheReadAbove200k: 0.40},
	"gemini-3.1-flash-lite": {Input: 0.25, Output: 1.50, CacheRead: 0.025},
	"gemini-3.1-pro-preview": {Input: 2, Output: 12, CacheRead: 0.20,
		InputAbove200k: 4, OutputAbove200k: 18, CacheReadAbove200k: 0.40},
	"gemini-3.5-flash": {Input: 1.50, Output: 9, CacheRead: 0.15},
}

// modelDateRE matches the suffixes that name a snapshot of a model:
// "-20250929", "-2025-08-07", "@20250929" (Vertex AI).
var modelDateRE = regexp.MustCompile(`(?:-\d{8}|-\d{4}-\d{2}-\d{2}|@\d{8})$`)

// modelName is model as a price table names it: lower case, without a
// "provider/" prefix (the part up to the last '/'); prefixed says there
// was one.
func modelName(model string) (name string, prefixed bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		return strings.TrimSpace(m[i+1:]), true
	}
	return m, false
}

// undated is name without its snapshot date ("" when it has none).
func undated(name string) string {
	if d := modelDateRE.ReplaceAllString(name, ""); d != name {
		return strings.TrimSpace(d)
	}
	return ""
}

// lookup finds model in prices under the first of its names
// (nameVariants) that prices has: its name exactly, else the name
// without its snapshot date (the dated name comes first because a
// snapshot may cost another price than the model's current one:
// gpt-4o-2024-05-13 does), else either with its version's dots and
// dashes swapped.
func lookup(prices map[string]Price, model string) (Price, bool) {
	for _, name := range nameVariants(model) {
		if p, ok := prices[name]; ok {
			return p, true
		}
	}
	return Price{}, false
}

// PriceOf returns the price of model in the binary's prices: the built-in
// table, else the embedded LiteLLM snapshot (litellm.go), each under the
// names people write the model by (compared case-insensitively, without
// a provider prefix or a snapshot date, dots or dashes in its version). A
// name that only starts like a known one ("gpt-5.7", "claude-sonnet-4-7")
// has no price: a newer model is not assumed to cost what an older one
// did.
func PriceOf(model string) (Price, bool) {
	return (*PriceTable)(nil).Lookup(model)
}

// PriceTable is the price list an import or a reprice uses: the built-in
// Prices, overridden and extended by the entries of a price file. The nil
// *PriceTable is the built-in table alone.
type PriceTable struct {
	prices map[string]Price // by modelName; nil for the built-in table
	file   string           // the price file, "" for none
	added  int              // file entries that extend the built-in table
}

// Lookup returns the price of model, matched as PriceOf matches it: the
// price file's and the built-in table's entries first, then the embedded
// LiteLLM snapshot's.
func (t *PriceTable) Lookup(model string) (Price, bool) {
	base := Prices
	if t != nil && t.prices != nil {
		base = t.prices
	}
	if p, ok := lookup(base, model); ok {
		return p, true
	}
	return lookup(litellmPrices(), model)
}

// Func returns Lookup as a sessiondb.PriceFunc, for the stores' Reprice
// and UsageQuery.Prices.
func (t *PriceTable) Func() sessiondb.PriceFunc { return t.Lookup }

// Source names the table in messages: "the built-in prices of
// 2026-12-01", with the price file when there is one.
func (t *PriceTable) Source() string {
	info, _ := LiteLLMSnapshot()
	builtin := "the built-in prices of " + PricesAsOf + " and LiteLLM's of " + info.AsOf
	if t == nil || t.file == "" {
		return builtin
	}
	return fmt.Sprintf("%s over %s", t.file, builtin)
}

// estimateCosts is the jsonl.Estimator: it marks the rows a reader
// produced for a tool that records no cost (Claude Code but for the
// costUSD of old versions, Codex) as estimated, and estimates them from the
// built-in table so that a Parsed is complete on its own. Rows with a cost
// keep it: the tool recorded it. The importer prices the estimated rows
// again with the table of the import (Options.Prices) and notes each model
// without a price once per import.
func estimateCosts(rows []sessiondb.Usage) {
	for i := range rows {
		u := &rows[i]
		if u.Cost != 0 && !u.CostEstimated {
			continue
		}
		u.CostEstimated = true
		u.Cost = 0
		if p, ok := PriceOf(u.Model); ok {
			u.Cost = p.Estimate(*u)
			u.CostEstimated = p != Price{} // a free model's zero is known
		}
	}
}

// pricer prices the estimated usage rows of one import with its table and
// remembers the models it could not price, for one note per model.
type pricer struct {
	table *PriceTable

	mu       sync.Mutex
	unpriced map[string]*unpricedModel
}

type unpricedModel struct {
	calls int
	files map[string]bool
	first string // the first file, in path order
}

func newPricer(table *PriceTable) *pricer {
	return &pricer{table: table, unpriced: map[string]*unpricedModel{}}
}

// price sets the cost of path's estimated rows from the table. It is
// called from the parser goroutines.
func (pr *pricer) price(path string, rows []sessiondb.Usage) {
	for i := range rows {
		u := &rows[i]
		if !u.CostEstimated {
			continue
		}
		if p, ok := pr.table.Lookup(u.Model); ok {
			u.Cost = p.Estimate(*u)
			// A free model's zero is known, not an estimate waiting for a
			// price (sessiondb.UsageTotals.Unpriced).
			u.CostEstimated = p != Price{}
			continue
		}
		u.Cost = 0
		if u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens == 0 {
			continue // nothing to price: Claude Code's <synthetic> stops
		}
		pr.mu.Lock()
		m := pr.unpriced[u.Model]
		if m == nil {
			m = &unpricedModel{files: map[string]bool{}, first: path}
			pr.unpriced[u.Model] = m
		}
		m.calls++
		m.files[path] = true
		if path < m.first {
			m.first = path
		}
		pr.mu.Unlock()
	}
}

// notes returns one note per unpriced model, by model name.
func (pr *pricer) notes() []Problem {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	models := make([]string, 0, len(pr.unpriced))
	for m := range pr.unpriced {
		models = append(models, m)
	}
	sort.Strings(models)
	var out []Problem
	for _, m := range models {
		u := pr.unpriced[m]
		where := "in this file"
		if len(u.files) > 1 {
			where = fmt.Sprintf("in %d files, the first this one", len(u.files))
		}
		out = append(out, Problem{Path: u.first, Reason: fmt.Sprintf(
			"model %q has no price in %s: its %d call(s) %s are recorded with cost 0, marked estimated (give a price with --prices FILE, then run sessionctl reprice)",
			m, pr.table.Source(), u.calls, where), Action: true})
	}
	return out
}
