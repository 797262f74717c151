package jsonlimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// Price files: LiteLLM's model_prices_and_context_window.json, the file
// ccusage and other usage tools price with, or any file of its shape:
//
//	{"claude-opus-5": {"input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05,
//	                   "cache_read_input_token_cost": 5e-07, "cache_creation_input_token_cost": 6.25e-06},
//	 …}
//
// Figures are US dollars per token. Read per entry:
// input_cost_per_token, output_cost_per_token, cache_read_input_token_cost,
// cache_creation_input_token_cost, the 1-hour cache-write rate
// cache_creation_input_token_cost_above_1hr (sessiondb.Price.CacheWrite1h),
// and the long-context tier input_cost_per_token_above_200k_tokens,
// output_…, cache_read_…, cache_creation_…_above_200k_tokens and
// cache_creation_input_token_cost_above_1hr_above_200k_tokens (see
// sessiondb.LongContextTokens). Other fields are ignored: batch, flex and
// priority tiers, regional surcharges and "fast" multipliers (not standard
// API use), per-image, per-second and per-query prices (not token usage),
// and the other tier families such as *_above_128k_tokens (no tool met in
// real files reaches them, and their boundaries differ per provider).
//
// An entry with neither an input nor an output price is not a token price
// (image generation, speech, search) and is skipped, as is LiteLLM's
// "sample_spec". Without a cache read price, cache reads cost 0.1x input;
// without a cache write price, cache writes cost 1.25x input; without a
// 1-hour cache write price, 1-hour cache writes cost 2x input (2x the
// long-context input rate above 200,000 tokens) (ccusage's defaults,
// Anthropic's ratios; ccusage 20.0.24 reads no 1-hour field and prices
// every 1-hour write at 2x input). A field that is not a number >= 0 (or
// null), a rate above sessiondb.MaxPrice ($1,000 per token; a rate left
// out and derived from input counts too), an entry that is not an object,
// a key given twice (a model twice in the file, or a field twice in an
// entry), or a file that is not one JSON object is an error naming the
// entry.
//
// Keys are matched as model names are (PriceOf): case-insensitively,
// without a provider prefix, the dated name of a snapshot before the name
// without its date. When several keys of a file name one model, the
// closest wins: the key that is the name itself ("gpt-5"), then a dated
// key ("gpt-5-2025-08-07") for the undated name, then the
// provider-prefixed keys the same way, the maker's ("minimax/MiniMax-M3",
// "openai/gpt-5": litellm.go's makers) before the others ("azure/gpt-5",
// "openrouter/openai/gpt-5", "sambanova/…"); of dated keys the
// latest snapshot, then the shortest key, then byte order. The maker's
// own entry is thus preferred to resellers' and regional ones.

// MaxPricesFileSize bounds a price file (LiteLLM's whole file is about
// 1.6 MB).
const MaxPricesFileSize = 64 << 20

// priceFields are the fields of a LiteLLM entry a Price is read from.
var priceFields = []struct {
	name string
	set  func(p *Price, v float64)
}{
	{"input_cost_per_token", func(p *Price, v float64) { p.Input = v }},
	{"output_cost_per_token", func(p *Price, v float64) { p.Output = v }},
	{"cache_read_input_token_cost", func(p *Price, v float64) { p.CacheRead = v }},
	{"cache_creation_input_token_cost", func(p *Price, v float64) { p.CacheWrite = v }},
	{"input_cost_per_token_above_200k_tokens", func(p *Price, v float64) { p.InputAbove200k = v }},
	{"output_cost_per_token_above_200k_tokens", func(p *Price, v float64) { p.OutputAbove200k = v }},
	{"cache_read_input_token_cost_above_200k_tokens", func(p *Price, v float64) { p.CacheReadAbove200k = v }},
	{"cache_creation_input_token_cost_above_200k_tokens", func(p *Price, v float64) { p.CacheWriteAbove200k = v }},
	{"cache_creation_input_token_cost_above_1hr", func(p *Price, v float64) { p.CacheWrite1h = v }},
	{"cache_creation_input_token_cost_above_1hr_above_200k_tokens", func(p *Price, v float64) { p.CacheWrite1hAbove200k = v }},
}

// LoadPrices reads the price file at path and returns the built-in table
// overridden and extended by it. Errors name the file and, for a bad
// entry, the entry; they wrap sessiondb.ErrInvalid when the file is not a
// valid price file.
func LoadPrices(path string) (*PriceTable, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read prices file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read prices file %s: %w: not a regular file", path, sessiondb.ErrInvalid)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read prices file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPricesFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read prices file %s: %w", path, err)
	}
	if len(data) > MaxPricesFileSize {
		return nil, fmt.Errorf("read prices file %s: %w: larger than %d MiB", path, sessiondb.ErrInvalid, MaxPricesFileSize>>20)
	}
	prices, err := ParsePrices(data)
	if err != nil {
		return nil, fmt.Errorf("read prices file %s: %w", path, err)
	}
	t := &PriceTable{prices: make(map[string]Price, len(Prices)+len(prices)), file: path}
	for k, p := range Prices {
		t.prices[k] = p
	}
	for k, p := range prices {
		if _, ok := t.prices[k]; !ok {
			t.added++
		}
		t.prices[k] = p
	}
	return t, nil
}

// Added counts the models a price file adds to the built-in table (the
// others it overrides).
func (t *PriceTable) Added() int {
	if t == nil {
		return 0
	}
	return t.added
}

// ParsePrices reads a price file in LiteLLM's shape and returns its
// prices by model name (lower case, without provider prefix; a dated key
// under its own name and, unless a closer key names it, the undated name).
// The error wraps sessiondb.ErrInvalid.
func ParsePrices(data []byte) (map[string]Price, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%w: not a JSON object of model prices", sessiondb.ErrInvalid)
	}
	type candidate struct {
		key   string
		rank  int
		price Price
	}
	best := map[string]candidate{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: invalid JSON near byte %d: %v", sessiondb.ErrInvalid, dec.InputOffset(), err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("%w: invalid JSON near byte %d", sessiondb.ErrInvalid, dec.InputOffset())
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%w: entry %q: invalid JSON near byte %d: %v", sessiondb.ErrInvalid, key, dec.InputOffset(), err)
		}
		if seen[key] {
			return nil, fmt.Errorf("%w: entry %q appears twice", sessiondb.ErrInvalid, key)
		}
		seen[key] = true
		if key == "sample_spec" {
			continue
		}
		p, ok, err := parsePriceEntry(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: entry %q: %v", sessiondb.ErrInvalid, key, err)
		}
		name, prefixed := modelName(key)
		if !ok || name == "" {
			continue
		}
		offer := func(name string, rank int) {
			if prefixed {
				rank += 2 * keyTier(key, name)
			}
			c := candidate{key: key, rank: rank, price: p}
			if old, ok := best[name]; ok && !closer(c.rank, c.key, old.rank, old.key) {
				return
			}
			best[name] = c
		}
		offer(name, 0)
		if d := undated(name); d != "" {
			offer(d, 1)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, fmt.Errorf("%w: invalid JSON near byte %d", sessiondb.ErrInvalid, dec.InputOffset())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the JSON object, near byte %d", sessiondb.ErrInvalid, dec.InputOffset())
	}
	if len(best) == 0 {
		return nil, fmt.Errorf("%w: no token prices in it (want LiteLLM's model_prices_and_context_window.json shape: "+
			`{"model": {"input_cost_per_token": …, "output_cost_per_token": …}})`, sessiondb.ErrInvalid)
	}
	out := make(map[string]Price, len(best))
	for name, c := range best {
		out[name] = c.price
	}
	return out, nil
}

// closer says whether the key (rank, key) names its model more closely
// than (oldRank, oldKey) (see the rules above); of two dated keys, the
// later snapshot.
func closer(rank int, key string, oldRank int, oldKey string) bool {
	if rank != oldRank {
		return rank < oldRank
	}
	if rank%2 == 1 {
		if a, b := snapshotDate(key), snapshotDate(oldKey); a != b {
			return a > b
		}
	}
	if len(key) != len(oldKey) {
		return len(key) < len(oldKey)
	}
	return key < oldKey
}

// snapshotDate is the digits of key's snapshot date ("20250929").
func snapshotDate(key string) string {
	return strings.Map(func(r rune) rune {
		if r < '0' || r > '9' {
			return -1
		}
		return r
	}, modelDateRE.FindString(key))
}

// parsePriceEntry reads one entry. ok is false for an entry that prices
// no tokens.
func parsePriceEntry(raw json.RawMessage) (p Price, ok bool, err error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return p, false, errors.New("not a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return p, false, err
	}
	// json.Unmarshal keeps the last of two equal keys without a word;
	// which price was meant is then a guess, so it is an error.
	if k, dup := duplicateKey(raw); dup {
		return p, false, fmt.Errorf("key %q appears twice", k)
	}
	var has [10]bool
	for i, f := range priceFields {
		v, present := fields[f.name]
		if !present || string(bytes.TrimSpace(v)) == "null" {
			continue
		}
		x, err := perMillion(v)
		if err != nil {
			return p, false, fmt.Errorf("%s: %v", f.name, err)
		}
		f.set(&p, x)
		has[i] = true
	}
	if !has[0] && !has[1] {
		return Price{}, false, nil
	}
	if !has[2] {
		p.CacheRead = p.Input / 10
	}
	if !has[3] {
		p.CacheWrite = p.Input * 1.25
	}
	if !has[8] {
		p.CacheWrite1h = p.Input * 2
	}
	if !has[9] {
		p.CacheWrite1hAbove200k = p.InputAbove200k * 2
	}
	if err := p.Validate(); err != nil {
		// The caller wraps ErrInvalid once, naming the entry.
		return p, false, errors.New(strings.TrimPrefix(err.Error(), sessiondb.ErrInvalid.Error()+": "))
	}
	return p, true, nil
}

// duplicateKey returns the first key that the JSON object raw (valid JSON,
// already decoded once) gives twice, if any.
func duplicateKey(raw json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := tok.(string)
		if seen[k] {
			return k, true
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// perMillion reads a JSON number of dollars per token and returns dollars
// per million tokens, rounded once: 3e-06 gives exactly 3, as the
// built-in table writes it.
func perMillion(v json.RawMessage) (float64, error) {
	s := string(bytes.TrimSpace(v))
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, fmt.Errorf("%s is not a number", quoteClip(s))
	}
	if !json.Valid(v) {
		return 0, fmt.Errorf("%s is not a number", quoteClip(s))
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e < -400 || e > 400 {
			return 0, fmt.Errorf("%s is out of range", quoteClip(s))
		}
		mant, exp = s[:i], e
	}
	x, err := strconv.ParseFloat(mant+"e"+strconv.Itoa(exp+6), 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("%s is out of range", quoteClip(s))
	}
	if x < 0 {
		return 0, fmt.Errorf("%s is negative", quoteClip(s))
	}
	return x, nil
}

// quoteClip shows a JSON value in an error: as written (JSON has no raw
// control bytes), cut after 40 bytes.
func quoteClip(s string) string {
	if len(s) > 40 {
		return strings.ToValidUTF8(s[:40], "") + "…"
	}
	return s
}
