package jsonlimport

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// The snapshot of LiteLLM's model_prices_and_context_window.json that the
// binary carries (litellm_prices.json, written by
// testdata/gen/prices/litellm.py): the prices of every model the field
// prices, for the models the built-in table (Prices) does not list. The
// built-in table stays where it is more exact: newer figures (ccusage
// 20.0.24's bundle of September 2026 for Anthropic and OpenAI, against a
// snapshot of July), the 1-hour cache-write rates LiteLLM's subset leaves
// out, DeepSeek's own rates, retired models LiteLLM dropped.
//
// A model is looked up in the price file and the built-in table first,
// then in the snapshot, each under the names people write it by
// (nameVariants): as written, then without a snapshot date, then with
// the dots of a version written as dashes or the other way round
// ("claude-opus-4.8" is "claude-opus-4-8", "gpt-5-4" is "gpt-5.4"),
// after stripping a provider prefix ("anthropic/", "openrouter/…/"), a
// Bedrock region and vendor ("us.anthropic.", "-v1:0"), an OpenRouter
// variant tag (":free", ":thinking") and a context tag ("[1m]").
//
// Of the snapshot's keys that name one model (LiteLLM lists a model under
// its maker and under every reseller), the closest wins as in
// ParsePrices: the bare name, then the maker's key ("minimax/MiniMax-M3"
// for MiniMax-M3, "zai/" for GLM, "xiaomi_mimo/" for MiMo, …: see
// makers), then the others (resellers, OpenRouter, cloud regions),
// shortest key first. A model only resellers list is priced at the
// chosen reseller's rate, which may differ from the maker's
// (MiniMax-M2.7 in the July 2026 snapshot: SambaNova's).

//go:embed litellm_prices.json
var litellmJSON []byte

// LiteLLMSnapshotInfo says where the embedded LiteLLM snapshot came from.
type LiteLLMSnapshotInfo struct {
	// Source is where the copy of LiteLLM's file came from; AsOf the day
	// of its figures (YYYY-MM-DD).
	Source string `json:"source"`
	AsOf   string `json:"as_of"`
	// Entries counts the entries kept (token prices), of Of in the file.
	Entries int `json:"entries"`
	Of      int `json:"of"`
}

var litellmSnapshot struct {
	once   sync.Once
	info   LiteLLMSnapshotInfo
	prices map[string]Price
	err    error
}

func loadLiteLLM() {
	s := &litellmSnapshot
	var head struct {
		Snapshot LiteLLMSnapshotInfo `json:"_snapshot"`
	}
	if err := json.Unmarshal(litellmJSON, &head); err != nil {
		s.err = err
		return
	}
	s.info = head.Snapshot
	s.prices, s.err = ParsePrices(litellmJSON)
}

// LiteLLMSnapshot returns what the embedded snapshot of LiteLLM's price
// file is, and how many models it prices.
func LiteLLMSnapshot() (LiteLLMSnapshotInfo, int) {
	litellmSnapshot.once.Do(loadLiteLLM)
	if litellmSnapshot.err != nil {
		panic(fmt.Sprintf("embedded litellm_prices.json: %v", litellmSnapshot.err)) // a build that ships a bad snapshot fails its tests
	}
	return litellmSnapshot.info, len(litellmSnapshot.prices)
}

func litellmPrices() map[string]Price {
	LiteLLMSnapshot()
	return litellmSnapshot.prices
}

var (
	bedrockVendorRE = regexp.MustCompile(`^(?:[a-z]{2,6}\.)?anthropic\.`)
	bedrockVerRE    = regexp.MustCompile(`-v\d+(?::\d+)?$`)
	variantTagRE    = regexp.MustCompile(`(?::[a-z][a-z0-9-]*|\[[^\]]*\])$`)
	dotVersionRE    = regexp.MustCompile(`(\d)\.(\d)`)
	dashVersionRE   = regexp.MustCompile(`(\d)-(\d)`)
)

// nameVariants lists the names model may be priced under, in order: its
// name (modelName) without decorations, that name without its snapshot
// date, and each with version dots and dashes swapped.
func nameVariants(model string) []string {
	name, _ := modelName(model)
	for {
		n := variantTagRE.ReplaceAllString(name, "")
		n = bedrockVerRE.ReplaceAllString(bedrockVendorRE.ReplaceAllString(n, ""), "")
		if n == name || n == "" {
			break
		}
		name = n
	}
	out := []string{name}
	if d := undated(name); d != "" {
		out = append(out, d)
	}
	for _, n := range out[:len(out):len(out)] {
		for _, v := range []string{dotVersionRE.ReplaceAllString(n, "$1-$2"), dashVersionRE.ReplaceAllString(n, "$1.$2")} {
			if v != n && !containsString(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// makers names, by the start of a model's name, the LiteLLM providers
// that are its maker: their keys price the model at the maker's rate.
var makers = []struct {
	family    string
	providers []string
}{
	{"claude", []string{"anthropic"}},
	{"gpt", []string{"openai"}}, {"o1", []string{"openai"}}, {"o3", []string{"openai"}}, {"o4", []string{"openai"}}, {"codex", []string{"openai"}},
	{"gemini", []string{"gemini"}}, {"gemma", []string{"gemini"}},
	{"grok", []string{"xai"}},
	{"deepseek", []string{"deepseek"}},
	{"glm", []string{"zai"}},
	{"kimi", []string{"moonshot"}},
	{"minimax", []string{"minimax"}},
	{"mimo", []string{"xiaomi_mimo", "xiaomi"}},
	{"qwen", []string{"dashscope"}}, {"qwq", []string{"dashscope"}},
	{"mistral", []string{"mistral"}}, {"codestral", []string{"mistral"}}, {"devstral", []string{"mistral"}},
	{"magistral", []string{"mistral"}}, {"ministral", []string{"mistral"}},
}

// keyTier ranks a provider-prefixed key of a price file for model name:
// 1 for its maker's key, 2 for any other (a reseller, a cloud region,
// OpenRouter).
func keyTier(key, name string) int {
	provider := strings.ToLower(key[:strings.IndexByte(key, '/')])
	for _, m := range makers {
		if strings.HasPrefix(name, m.family) {
			for _, p := range m.providers {
				if provider == p {
					return 1
				}
			}
		}
	}
	return 2
}
