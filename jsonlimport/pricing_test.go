package jsonlimport

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

func TestPriceOf(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  string // key of Prices, "" for none
	}{
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-sonnet-4-20250514", "claude-sonnet-4"},
		{"claude-3-5-sonnet-20241022", "claude-3-5-sonnet"},
		{"claude-opus-4-1@20250805", "claude-opus-4-1"},
		{"anthropic/claude-haiku-4-5", "claude-haiku-4-5"},
		{"Claude-Opus-4-5", "claude-opus-4-5"},
		{"claude-opus-5", "claude-opus-5"},
		{"claude-sonnet-4-6", "claude-sonnet-4-6"},
		{"gpt-5-codex", "gpt-5-codex"},
		{"gpt-5.3-codex", "gpt-5.3-codex"},
		{"gpt-5-2025-08-07", "gpt-5"},
		{"openai/gpt-5-mini", "gpt-5-mini"},
		{"codex-mini-latest", "codex-mini-latest"},
		{"o4-mini-2025-04-16", "o4-mini"},
		{"glm-4.7", "glm-4.7"},
		// Newer or unknown models are not priced like their elders.
		{"gpt-5.7", ""},
		{"gpt-5.3-codex-spark", ""},
		{"claude-sonnet-4-7", ""},
		{"claude-sonnet-4-5-thinking", ""},
		{"longcat-flash-thinking-2601-platform", ""},
		{"<synthetic>", ""},
		{"", ""},
	} {
		got, ok := PriceOf(tc.model)
		if tc.want == "" {
			if ok {
				t.Errorf("PriceOf(%q) = %+v, want no price", tc.model, got)
			}
			continue
		}
		if !ok || got != Prices[tc.want] {
			t.Errorf("PriceOf(%q) = %+v %v, want %s's %+v", tc.model, got, ok, tc.want, Prices[tc.want])
		}
	}
}

// TestBuiltinPrices: every entry is a valid price under a key in normal
// form, so that Lookup can find it, and a dated key costs another price
// than its undated model (else it is redundant).
func TestBuiltinPrices(t *testing.T) {
	for k, p := range Prices {
		if err := p.Validate(); err != nil {
			t.Errorf("Prices[%q]: %v", k, err)
		}
		if n, _ := modelName(k); n != k {
			t.Errorf("Prices key %q is not in normal form (%q): no model name can reach it", k, n)
		}
		if d := undated(k); d != "" {
			if p2, ok := Prices[d]; ok && p2 == p {
				t.Errorf("Prices[%q] repeats Prices[%q]", k, d)
			}
		}
	}
	// A snapshot priced apart keeps its price; the others take the model's.
	if p, _ := PriceOf("gpt-4o-2024-05-13"); p.Input != 5 {
		t.Errorf("gpt-4o-2024-05-13 priced %+v, want its own $5 input", p)
	}
	if p, _ := PriceOf("openai/GPT-4o-2024-08-06"); p != Prices["gpt-4o"] {
		t.Errorf("gpt-4o-2024-08-06 priced %+v, want gpt-4o's", p)
	}
}

func TestPriceEstimate(t *testing.T) {
	// Sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write.
	u := sessiondb.Usage{InputTokens: 12, OutputTokens: 40, CacheReadTokens: 1000, CacheWriteTokens: 200}
	if got, want := Prices["claude-sonnet-4-5"].Estimate(u), (12*3+40*15+1000*0.30+200*3.75)/1e6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("estimate %g, want %g", got, want)
	}
	// Above 200k prompt tokens, the whole call at the long-context rates.
	long := sessiondb.Usage{InputTokens: 10, OutputTokens: 1000, CacheReadTokens: 150000, CacheWriteTokens: 50000}
	if got, want := Prices["claude-sonnet-4-5"].Estimate(long), (10*6+1000*22.5+150000*0.6+50000*7.5)/1e6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("long-context estimate %g, want %g", got, want)
	}
	// A model without a tier prices a long prompt at its base rates.
	if got, want := Prices["claude-opus-5"].Estimate(long), (10*5+1000*25+150000*0.5+50000*6.25)/1e6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("long prompt without a tier: %g, want %g", got, want)
	}
	// 1-hour cache writes at 2x input, the others at 1.25x; above 200k,
	// the tier's 1-hour rate (2x its input rate).
	u.CacheWrite1hTokens = 150
	if got, want := Prices["claude-sonnet-4-5"].Estimate(u), (12*3+40*15+1000*0.30+50*3.75+150*6)/1e6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("estimate with 1-hour writes %g, want %g", got, want)
	}
	long.CacheWrite1hTokens = 50000
	if got, want := Prices["claude-sonnet-4-5"].Estimate(long), (10*6+1000*22.5+150000*0.6+50000*12)/1e6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("long-context estimate with 1-hour writes %g, want %g", got, want)
	}
	// A model without a 1-hour rate prices them at its cache write rate.
	if got, want := Prices["deepseek-v4-pro"].Estimate(u), (12*0.435+40*0.87+1000*0.003625+200*0.435)/1e6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("estimate without a 1-hour rate %g, want %g", got, want)
	}
}

// writeClaudeProject writes Claude Code session files into a projects
// tree under dir.
func writeClaudeProject(t *testing.T, dir string, files map[string][]string) {
	t.Helper()
	proj := filepath.Join(dir, "projects", "-home-dev-p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, lines := range files {
		if err := os.WriteFile(filepath.Join(proj, name+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func assistantLine(session, uuid, parent, msgID, model, usage string, extra string) string {
	return `{"type":"assistant","sessionId":"` + session + `","uuid":"` + uuid + `","parentUuid":"` + parent + `","requestId":"r-` + msgID + `"` + extra +
		`,"timestamp":"2026-02-01T10:00:01.000Z","message":{"id":"` + msgID + `","role":"assistant","model":"` + model +
		`","content":[{"type":"text","text":"a"}],"usage":` + usage + `}}`
}

func userLine(session string) string {
	return `{"type":"user","sessionId":"` + session + `","uuid":"u1","parentUuid":null,"timestamp":"2026-02-01T10:00:00.000Z","message":{"role":"user","content":"hi"}}`
}

// TestClaudeCodeCost: rows are priced from the table and marked
// estimated, a costUSD written on the line wins and is not estimated, and
// a model without a price costs 0, is marked estimated and is noted once
// per import however many files use it.
func TestClaudeCodeCost(t *testing.T) {
	const s1, s2 = "c0570000-0000-4000-8000-000000000001", "c0570000-0000-4000-8000-000000000002"
	dir := t.TempDir()
	writeClaudeProject(t, dir, map[string][]string{
		s1: {
			userLine(s1),
			assistantLine(s1, "a1", "u1", "m1", "claude-sonnet-4-5-20250929", `{"input_tokens":1000,"output_tokens":100,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}`, ""),
			assistantLine(s1, "a2", "a1", "m2", "claude-sonnet-4-5", `{"input_tokens":1,"output_tokens":1}`, `,"costUSD":0.5`),
			assistantLine(s1, "a3", "a2", "m3", "claude-future-9", `{"input_tokens":10,"output_tokens":10}`, ""),
			// Cache writes split by lifetime (Claude Code 2.x); a 1-hour
			// figure above the cache writes counts as all of them.
			assistantLine(s1, "a4", "a3", "m4", "claude-opus-4-6", `{"input_tokens":3,"output_tokens":4,"cache_creation_input_tokens":1000,`+
				`"cache_creation":{"ephemeral_5m_input_tokens":400,"ephemeral_1h_input_tokens":600}}`, ""),
			assistantLine(s1, "a5", "a4", "m5", "claude-haiku-4-5", `{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":10,`+
				`"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":50}}`, ""),
		},
		s2: {
			userLine(s2),
			assistantLine(s2, "b1", "u1", "n1", "claude-future-9", `{"input_tokens":3,"output_tokens":4}`, ""),
		},
	})
	s := openStore(t)
	rep, err := Import(context.Background(), s, []string{dir}, Options{})
	if err != nil || rep.Sessions != 2 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	var noted []string
	for _, n := range rep.Notes {
		if strings.Contains(n.Reason, `"claude-future-9" has no price`) {
			noted = append(noted, n.Reason)
		}
	}
	if len(noted) != 1 || !strings.Contains(noted[0], "2 call(s) in 2 files") || !strings.Contains(noted[0], PricesAsOf) {
		t.Fatalf("unpriced model noted %d times: %q; want once, with its calls and files", len(noted), noted)
	}
	d, err := s.DumpSession(context.Background(), s1)
	if err != nil {
		t.Fatal(err)
	}
	byModel := map[string]sessiondb.Usage{}
	for _, u := range d.Usage {
		byModel[u.Model] = u
	}
	want := map[string]struct {
		cost      float64
		estimated bool
		write1h   int64
	}{
		"claude-sonnet-4-5-20250929": {(1000*3 + 100*15) / 1e6, true, 0},
		"claude-sonnet-4-5":          {0.5, false, 0},
		"claude-future-9":            {0, true, 0},
		"claude-opus-4-6":            {(3*5 + 4*25 + 400*6.25 + 600*10) / 1e6, true, 600},
		"claude-haiku-4-5":           {(1*1 + 1*5 + 10*2) / 1e6, true, 10},
	}
	for m, w := range want {
		u, ok := byModel[m]
		if !ok || math.Abs(u.Cost-w.cost) > 1e-12 || u.CostEstimated != w.estimated || u.CacheWrite1hTokens != w.write1h {
			t.Errorf("row of %s = %+v; want cost %g, estimated %v, %d 1-hour cache writes", m, u, w.cost, w.estimated, w.write1h)
		}
	}
}

// TestImportWithPriceFile: Options.Prices overrides a built-in price and
// prices a model the built-in table does not know, and nothing is noted.
func TestImportWithPriceFile(t *testing.T) {
	const s1 = "c0570000-0000-4000-8000-000000000003"
	dir := t.TempDir()
	writeClaudeProject(t, dir, map[string][]string{s1: {
		userLine(s1),
		assistantLine(s1, "a1", "u1", "m1", "claude-opus-5", `{"input_tokens":1000,"output_tokens":100}`, ""),
		assistantLine(s1, "a2", "a1", "m2", "claude-future-9-20270101", `{"input_tokens":10,"output_tokens":10,"cache_read_input_tokens":100}`, ""),
	}})
	file := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(file, []byte(`{
		"claude-opus-5": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06},
		"anthropic/claude-future-9": {"input_cost_per_token": 3e-06, "output_cost_per_token": 4e-06, "cache_read_input_token_cost": 5e-07}
	}`), 0o644); err != nil {
		t.Fatal(err)
	}
	table, err := LoadPrices(file)
	if err != nil {
		t.Fatal(err)
	}
	if table.Added() != 1 || !strings.Contains(table.Source(), file) {
		t.Errorf("table adds %d models, source %q; want 1 and the file named", table.Added(), table.Source())
	}
	s := openStore(t)
	rep, err := Import(context.Background(), s, []string{dir}, Options{Prices: table})
	if err != nil || rep.Sessions != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	for _, n := range rep.Notes {
		if strings.Contains(n.Reason, "has no price") {
			t.Errorf("note %q; the file prices every model", n.Reason)
		}
	}
	tot, err := s.UsageTotals(context.Background(), s1)
	if err != nil {
		t.Fatal(err)
	}
	// Opus 5 at the file's price (cache writes default to 1.25x input),
	// the new model at its own.
	if want := (1000*1+100*2)/1e6 + (10*3+10*4+100*0.5)/1e6; math.Abs(tot.Cost-want) > 1e-12 {
		t.Errorf("cost %g, want %g", tot.Cost, want)
	}
	if p, ok := table.Lookup("claude-sonnet-4-5"); !ok || p != Prices["claude-sonnet-4-5"] {
		t.Errorf("a model the file does not name lost its built-in price: %+v %v", p, ok)
	}
}

func TestParsePrices(t *testing.T) {
	got, err := ParsePrices([]byte(`{
		"sample_spec": {"input_cost_per_token": "not read", "max_tokens": "LEGACY"},
		"gpt-x": {"input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 1.25e-07, "mode": "chat"},
		"azure/eu/gpt-x": {"input_cost_per_token": 1.375e-06, "output_cost_per_token": 1.1e-05},
		"openrouter/vendor/model-y": {"input_cost_per_token": 9e-06, "output_cost_per_token": 9e-06},
		"vendor/model-y": {"input_cost_per_token": 2e-06, "output_cost_per_token": 8e-06, "cache_creation_input_token_cost": null},
		"Model-Z-20250101": {"input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
			"input_cost_per_token_above_200k_tokens": 6e-06, "output_cost_per_token_above_200k_tokens": 2.25e-05,
			"cache_read_input_token_cost_above_200k_tokens": 6e-07, "cache_creation_input_token_cost_above_200k_tokens": 7.5e-06,
			"cache_creation_input_token_cost_above_1hr": 6.5e-06, "input_cost_per_token_batches": 1e-6,
			"cache_creation_input_token_cost_above_1hr_above_200k_tokens": 1.3e-05},
		"model-z@20250202": {"input_cost_per_token": 7e-06, "output_cost_per_token": 7e-06},
		"dall-e-9": {"output_cost_per_image": 0.04, "mode": "image_generation"},
		"tts-9": {"input_cost_per_character": 1.5e-05}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Price{
		// Exact figures: 1.25e-06 per token is 1.25 per million. Cache
		// rates left out: 0.1x, 1.25x and (1 hour) 2x input.
		"gpt-x": {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25 * 1.25, CacheWrite1h: 2.5},
		// The shortest prefixed key wins over the reseller's.
		"model-y": {Input: 2, Output: 8, CacheRead: 2 * 0.1, CacheWrite: 2 * 1.25, CacheWrite1h: 4},
		// Of two dated keys, the later snapshot names the model; each is
		// kept under its own name too. The tier and the 1-hour rates are
		// read, the batch rates are not.
		"model-z": {Input: 7, Output: 7, CacheRead: 0.7, CacheWrite: 7 * 1.25, CacheWrite1h: 14},
		"model-z-20250101": {Input: 3, Output: 15, CacheRead: 3 * 0.1, CacheWrite: 3 * 1.25, CacheWrite1h: 6.5,
			InputAbove200k: 6, OutputAbove200k: 22.5, CacheReadAbove200k: 0.6, CacheWriteAbove200k: 7.5, CacheWrite1hAbove200k: 13},
		"model-z@20250202": {Input: 7, Output: 7, CacheRead: 0.7, CacheWrite: 7 * 1.25, CacheWrite1h: 14},
	}
	if len(got) != len(want) {
		t.Errorf("parsed %d models: %+v; want %d", len(got), got, len(want))
	}
	// $1,000 per token is the limit, and allowed (the 1-hour cache
	// write rate left out is 2x input: at most $500 per token of input).
	if at, err := ParsePrices([]byte(`{"m": {"input_cost_per_token": 500, "output_cost_per_token": 1000}}`)); err != nil || at["m"].Output != sessiondb.MaxPrice || at["m"].CacheWrite1h != sessiondb.MaxPrice {
		t.Errorf("a price at the limit: %+v, %v", at["m"], err)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %+v, want %+v", k, got[k], w)
		}
	}

	for _, tc := range []struct {
		name, file, want string
	}{
		{"not an object", `[1, 2]`, "not a JSON object"},
		{"empty", ``, "not a JSON object"},
		{"no prices", `{}`, "no token prices"},
		{"only other entries", `{"dall-e": {"output_cost_per_image": 1}}`, "no token prices"},
		{"entry not an object", `{"m": 3}`, `entry "m": not a JSON object`},
		{"string price", `{"m": {"input_cost_per_token": "3e-06"}}`, `entry "m": input_cost_per_token: "3e-06" is not a number`},
		{"negative", `{"m": {"input_cost_per_token": 1e-6, "output_cost_per_token": -1e-6}}`, `entry "m": output_cost_per_token: -1e-6 is negative`},
		{"huge", `{"m": {"input_cost_per_token": 1e999}}`, `entry "m": input_cost_per_token: 1e999 is out of range`},
		{"bool", `{"m": {"cache_read_input_token_cost": true, "input_cost_per_token": 1}}`, `entry "m": cache_read_input_token_cost: true is not a number`},
		{"duplicate", `{"m": {"input_cost_per_token": 1e-6}, "m": {"input_cost_per_token": 2e-6}}`, `entry "m" appears twice`},
		{"trailing data", `{"m": {"input_cost_per_token": 1e-6}} {}`, "data after the JSON object"},
		{"truncated", `{"m": {"input_cost_per_token": 1e-6}`, "invalid JSON"},
		{"bad entry JSON", `{"m": {"input_cost_per_token": 1e-6,}}`, `entry "m": invalid JSON`},
		{"control bytes in a key", "{\"m\\u0007\": 5}", `entry "m\a": not a JSON object`},
		// Issue 36: a key given twice in an entry, and absurd prices
		// (above sessiondb.MaxPrice, $1,000 per token), whose costs
		// used to become +Inf.
		{"key twice in an entry", `{"m": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "input_cost_per_token": 3e-6}}`, `entry "m": key "input_cost_per_token" appears twice`},
		{"null key twice", `{"m": {"input_cost_per_token": 1e-6, "cache_read_input_token_cost": null, "cache_read_input_token_cost": 1e-7}}`, `key "cache_read_input_token_cost" appears twice`},
		{"absurd price", `{"m": {"input_cost_per_token": 1e300}}`, `entry "m": input price $1e+306 per million tokens ($1e+300 per token) is above the limit of $1000 per token`},
		{"absurd tier price", `{"m": {"input_cost_per_token": 1e-6, "output_cost_per_token_above_200k_tokens": 1000.5}}`, `output above 200k price`},
	} {
		_, err := ParsePrices([]byte(tc.file))
		if !errors.Is(err, sessiondb.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParsePrices = %v; want ErrInvalid saying %q", tc.name, err, tc.want)
		}
	}
}

// TestLoadPricesErrors: errors name the file, and the entry when one is
// bad.
func TestLoadPricesErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"ok": {"input_cost_per_token": 1e-6}, "broken": {"output_cost_per_token": "x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPrices(bad); !errors.Is(err, sessiondb.ErrInvalid) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), `entry "broken"`) {
		t.Errorf("LoadPrices(bad) = %v; want ErrInvalid naming the file and the entry", err)
	}
	if _, err := LoadPrices(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("LoadPrices(missing) = %v; want ErrNotExist naming the file", err)
	}
	if _, err := LoadPrices(dir); !errors.Is(err, sessiondb.ErrInvalid) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("LoadPrices(directory) = %v; want ErrInvalid: not a regular file", err)
	}
}

// FuzzParsePrices: any input either fails with ErrInvalid or gives valid
// prices under keys in normal form; a valid file parses the same again.
func FuzzParsePrices(f *testing.F) {
	f.Add([]byte(`{"claude-opus-5": {"input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05, "cache_read_input_token_cost": 5e-07, "cache_creation_input_token_cost": 6.25e-06}}`))
	f.Add([]byte(`{"sample_spec": {"max_tokens": "x"}, "azure/gpt-5": {"input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05, "input_cost_per_token_above_200k_tokens": 2.5e-06}}`))
	f.Add([]byte(`{"m": {"input_cost_per_token": null, "output_cost_per_token": 0}, "M@20250101": {"input_cost_per_token": 1E-6}}`))
	f.Add([]byte(`{"m": 1}`))
	f.Add([]byte(`{"m": {"input_cost_per_token": -0.0}, "m": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParsePrices(data)
		if err != nil {
			if !errors.Is(err, sessiondb.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		for k, p := range got {
			if err := p.Validate(); err != nil {
				t.Fatalf("%q: %v", k, err)
			}
			if n, _ := modelName(k); n != k || k == "" {
				t.Fatalf("key %q not in normal form", k)
			}
		}
		again, err := ParsePrices(data)
		if err != nil || len(again) != len(got) {
			t.Fatalf("second parse differs: %v", err)
		}
		for k, p := range got {
			if again[k] != p {
				t.Fatalf("second parse of %q differs", k)
			}
		}
	})
}

// TestPricesMatchLiteLLM checks the built-in table against LiteLLM's
// entries as ccusage 20.0.24 embeds them (testdata/prices, written by
// testdata/gen/prices/extract.py), which is also a real LiteLLM-shaped
// file for LoadPrices:
//
//   - every key of the file without a provider prefix that names a model
//     we price gets exactly its figures from PriceOf (a field the entry
//     leaves out is 0), dated snapshots included;
//   - a model that no such key names is priced from a provider-prefixed
//     entry (the one ParsePrices picks) or is listed with its source;
//   - that list holds nothing the file names.
func TestPricesMatchLiteLLM(t *testing.T) {
	path := filepath.Join("..", "testdata", "prices", "litellm-ccusage.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPrices(path); err != nil {
		t.Fatalf("LoadPrices(%s): %v", path, err)
	}
	parsed, err := ParsePrices(data)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	sourcedElsewhere := map[string]string{
		"claude-3-5-sonnet": "retired: the 2025-11 table's figure",
		"claude-3-5-haiku":  "only its Bedrock entry anthropic.claude-3-5-haiku-20241022-v1:0",
		"codex-mini-latest": "LiteLLM's azure/codex-mini",
		"deepseek-v4-pro":   "ccusage's DeepSeek schedule",
		"deepseek-v4-flash": "ccusage's DeepSeek schedule",
	}
	for model := range geminiPrices(t) {
		sourcedElsewhere[model] = "LiteLLM's gemini/" + model + " (TestGeminiPricesMatchLiteLLM)"
	}
	fields := []struct {
		name string
		get  func(Price) float64
	}{
		{"input_cost_per_token", func(p Price) float64 { return p.Input }},
		{"output_cost_per_token", func(p Price) float64 { return p.Output }},
		{"cache_read_input_token_cost", func(p Price) float64 { return p.CacheRead }},
		{"cache_creation_input_token_cost", func(p Price) float64 { return p.CacheWrite }},
		{"input_cost_per_token_above_200k_tokens", func(p Price) float64 { return p.InputAbove200k }},
		{"output_cost_per_token_above_200k_tokens", func(p Price) float64 { return p.OutputAbove200k }},
		{"cache_read_input_token_cost_above_200k_tokens", func(p Price) float64 { return p.CacheReadAbove200k }},
		{"cache_creation_input_token_cost_above_200k_tokens", func(p Price) float64 { return p.CacheWriteAbove200k }},
	}
	// matches checks p against the figures of the file's entry key; with
	// present, only the fields the entry has.
	matches := func(model, key string, p Price, present bool) {
		t.Helper()
		for _, f := range fields {
			v, ok := raw[key][f.name]
			if !ok && present {
				continue
			}
			want := 0.0
			if ok {
				if want, err = perMillion(v); err != nil {
					t.Fatal(err)
				}
			}
			if got := f.get(p); got != want {
				t.Errorf("%s: %s is %v, LiteLLM's %q says %v", model, f.name, got, key, want)
			}
		}
	}
	named := map[string]bool{}
	checked := 0
	for key := range raw {
		name, prefixed := modelName(key)
		if prefixed {
			continue
		}
		p, ok := builtinOf(name) // the built-in table's own entries
		if !ok {
			continue
		}
		checked++
		matches(name, key, p, false)
		named[name] = true
		if d := undated(name); d != "" {
			named[d] = true
		}
	}
	for model, p := range Prices {
		why, elsewhere := sourcedElsewhere[model]
		switch {
		case named[model] && elsewhere:
			t.Errorf("%s is listed as sourced elsewhere (%s), but the file names it", model, why)
		case named[model] || elsewhere:
		default:
			pp, ok := parsed[model]
			if !ok {
				t.Errorf("%s: no entry of %s names it, and it is not listed with its source", model, path)
				continue
			}
			// The prefixed key ParsePrices chose: the one with pp's figures.
			var chosen string
			for key := range raw {
				if n, pre := modelName(key); pre && (n == model || undated(n) == model) {
					if q, _, _ := parsePriceEntry(jsonl.MustJSON(raw[key])); q == pp && (chosen == "" || closer(0, key, 0, chosen)) {
						chosen = key
					}
				}
			}
			matches(model, chosen, p, true)
			checked++
		}
	}
	if checked < 60 {
		t.Errorf("checked %d entries; the file or the matching is broken", checked)
	}
	// The 1-hour cache-write rates, which ccusage's subset of the file
	// leaves out: 2x input for Anthropic's models (LiteLLM's
	// cache_creation_input_token_cost_above_1hr and its _above_200k_tokens
	// variant), none for the others.
	for model, p := range Prices {
		w1h, w1hLong := 0.0, 0.0
		if strings.HasPrefix(model, "claude-") {
			w1h, w1hLong = 2*p.Input, 2*p.InputAbove200k
		}
		if p.CacheWrite1h != w1h || p.CacheWrite1hAbove200k != w1hLong {
			t.Errorf("%s: 1-hour cache writes at %v (%v above 200k), want %v (%v)", model, p.CacheWrite1h, p.CacheWrite1hAbove200k, w1h, w1hLong)
		}
	}
}

// TestCostEstimatedByFormat: the rows of tools that record no cost
// (Claude Code, Codex) are marked estimated and priced; the costs pi, zot
// and swink recorded are not marked, whatever their value.
func TestCostEstimatedByFormat(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	paths := []string{
		filepath.Join("..", "testdata", "zot", "zot_home"),
		filepath.Join("..", "testdata", "swink", "sessions"),
		filepath.Join(ccTestdata, "projects"),
		filepath.Join(codexTestdata, "codex-home"),
		filepath.Join(piTestdata, "sessions"),
	}
	if _, err := Import(ctx, s, paths, Options{}); err != nil {
		t.Fatal(err)
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][2]int{} // format -> estimated, recorded
	for _, info := range list {
		d, err := s.DumpSession(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range d.Usage {
			n := rows[info.SourceFormat]
			if u.CostEstimated {
				n[0]++
				if p, ok := PriceOf(u.Model); ok && math.Abs(u.Cost-p.Estimate(u)) > 1e-15 {
					t.Errorf("%s %s: estimated cost %v, the table says %v", info.SourceFormat, info.ID, u.Cost, p.Estimate(u))
				}
			} else {
				n[1]++
			}
			rows[info.SourceFormat] = n
		}
	}
	for _, f := range []string{FormatClaudeCode, FormatCodex} {
		if rows[f][0] == 0 || rows[f][1] != 0 {
			t.Errorf("%s: %d estimated and %d recorded rows; want every row estimated", f, rows[f][0], rows[f][1])
		}
	}
	for _, f := range []string{FormatPi, FormatZot, FormatSwink} {
		if rows[f][1] == 0 || rows[f][0] != 0 {
			t.Errorf("%s: %d estimated and %d recorded rows; want every row as recorded", f, rows[f][0], rows[f][1])
		}
	}
}

// builtinOf is the built-in table's entry for name: exactly, or without
// its snapshot date (no name variants, no LiteLLM snapshot).
func builtinOf(name string) (Price, bool) {
	name, _ = modelName(name)
	if p, ok := Prices[name]; ok {
		return p, true
	}
	p, ok := Prices[undated(name)]
	return p, ok
}

// TestPriceNames: model names are priced as people write them (issue 38):
// dots for dashes in a version, provider prefixes, Bedrock vendors and
// versions, variant tags; a newer model is still not priced like its
// elder; of a price file's keys the maker's wins over a reseller's, and
// the embedded LiteLLM snapshot prices the third-party models met in
// real archives.
func TestPriceNames(t *testing.T) {
	opus := Prices["claude-opus-4-8"]
	for _, name := range []string{"claude-opus-4.8", "Claude-Opus-4.8", "anthropic/claude-opus-4.8", "openrouter/anthropic/claude-opus-4.8",
		"us.anthropic.claude-opus-4-8-v1:0", "claude-opus-4-8[1m]", "claude-opus-4-8-20261001"} {
		if p, ok := PriceOf(name); !ok || p != opus {
			t.Errorf("%s: %+v %v, want claude-opus-4-8's price", name, p, ok)
		}
	}
	if p, ok := PriceOf("gpt-5-4"); !ok || p != Prices["gpt-5.4"] {
		t.Errorf("gpt-5-4: %+v %v, want gpt-5.4's price", p, ok)
	}
	for _, name := range []string{"gpt-5.7", "claude-sonnet-4-7", "claude-opus-4.9"} {
		if p, ok := PriceOf(name); ok {
			t.Errorf("%s priced %+v: a newer model is not its elder", name, p)
		}
	}
	got, err := ParsePrices([]byte(`{
		"ai21/MiniMax-M9": {"input_cost_per_token": 6e-07, "output_cost_per_token": 2.4e-06},
		"minimax/global/MiniMax-M9": {"input_cost_per_token": 3e-07, "output_cost_per_token": 1.2e-06}}`))
	if err != nil || got["minimax-m9"].Input != 0.3 {
		t.Errorf("maker's key: %+v %v, want minimax/'s price", got["minimax-m9"], err)
	}
	info, n := LiteLLMSnapshot()
	if info.AsOf == "" || info.Source == "" || n < 1000 {
		t.Errorf("snapshot %+v with %d models", info, n)
	}
	for name, want := range map[string]Price{
		// minimax/MiniMax-M3, the maker's key (no cache-write price: 1.25x input).
		"MiniMax-M3": {Input: 0.3, Output: 1.2, CacheRead: 0.06, CacheWrite: 0.375, CacheWrite1h: 0.6},
		// only OpenRouter lists it
		"mimo-v2.5-pro": {Input: 1, Output: 3, CacheRead: 0.2, CacheWrite: 0, CacheWrite1h: 2},
	} {
		if p, ok := PriceOf(name); !ok || p != want {
			t.Errorf("%s: %+v %v, want %+v", name, p, ok, want)
		}
	}
	if _, ok := PriceOf("MiniMax-M2.7"); !ok {
		t.Errorf("MiniMax-M2.7 has no price; LiteLLM prices it (through resellers)")
	}
}

// geminiPrices reads testdata/prices/litellm-gemini.json, the price fields
// of LiteLLM's gemini/ entries (BerriAI/litellm@00035b69), which ccusage's
// subset leaves out, by model name.
func geminiPrices(t *testing.T) map[string]Price {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "prices", "litellm-gemini.json"))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ParsePrices(data)
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}

// TestGeminiPricesMatchLiteLLM: every Gemini model of the built-in table
// has exactly the figures of LiteLLM's gemini/<model> entry (input,
// output and cache reads, and their rates above 200k tokens; the entries
// give no cache-write price, which ParsePrices would default, and Gemini
// CLI's rows have no cache writes), and every such entry is in the table.
func TestGeminiPricesMatchLiteLLM(t *testing.T) {
	want := geminiPrices(t)
	if len(want) < 9 {
		t.Fatalf("read %d entries from litellm-gemini.json", len(want))
	}
	for model, p := range want {
		got, ok := Prices[model]
		if !ok {
			t.Errorf("%s: not in Prices", model)
			continue
		}
		p.CacheWrite, p.CacheWrite1h, p.CacheWriteAbove200k, p.CacheWrite1hAbove200k = 0, 0, 0, 0
		if got != p {
			t.Errorf("%s: %+v, LiteLLM says %+v", model, got, p)
		}
	}
	for model := range Prices {
		if strings.HasPrefix(model, "gemini-") {
			if _, ok := want[model]; !ok {
				t.Errorf("%s is priced but not in litellm-gemini.json", model)
			}
		}
	}
}
