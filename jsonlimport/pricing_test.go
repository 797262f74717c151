package jsonlimport

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
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
		{"gpt-5-codex", "gpt-5-codex"},
		{"gpt-5-2025-08-07", "gpt-5"},
		{"openai/gpt-5-mini", "gpt-5-mini"},
		{"codex-mini-latest", "codex-mini-latest"},
		// Newer or unknown models are not priced like their elders.
		{"gpt-5.2", ""},
		{"claude-sonnet-4-6", ""},
		{"claude-sonnet-4-5-thinking", ""},
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

func TestPriceEstimate(t *testing.T) {
	// Sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write.
	u := sessiondb.Usage{InputTokens: 12, OutputTokens: 40, CacheReadTokens: 1000, CacheWriteTokens: 200}
	if got, want := Prices["claude-sonnet-4-5"].Estimate(u), (12*3+40*15+1000*0.30+200*3.75)/1e6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("estimate %g, want %g", got, want)
	}
}

// TestClaudeCodeCost: rows are priced from the table, a costUSD written on
// the line wins, and a model without a price is noted and costs 0.
func TestClaudeCodeCost(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-dev-p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"user","sessionId":"c0570000-0000-4000-8000-000000000001","uuid":"u1","parentUuid":null,"timestamp":"2026-02-01T10:00:00.000Z","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","sessionId":"c0570000-0000-4000-8000-000000000001","uuid":"a1","parentUuid":"u1","requestId":"r1","timestamp":"2026-02-01T10:00:01.000Z","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":1000,"output_tokens":100,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}`,
		`{"type":"assistant","sessionId":"c0570000-0000-4000-8000-000000000001","uuid":"a2","parentUuid":"a1","requestId":"r2","costUSD":0.5,"timestamp":"2026-02-01T10:00:02.000Z","message":{"id":"m2","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":1,"output_tokens":1}}}`,
		`{"type":"assistant","sessionId":"c0570000-0000-4000-8000-000000000001","uuid":"a3","parentUuid":"a2","requestId":"r3","timestamp":"2026-02-01T10:00:03.000Z","message":{"id":"m3","role":"assistant","model":"claude-future-9","content":[{"type":"text","text":"c"}],"usage":{"input_tokens":10,"output_tokens":10}}}`,
	}
	if err := os.WriteFile(filepath.Join(proj, "c0570000-0000-4000-8000-000000000001.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	rep, err := Import(context.Background(), s, []string{dir}, Options{})
	if err != nil || rep.Sessions != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	noted := false
	for _, n := range rep.Notes {
		noted = noted || strings.Contains(n.Reason, `"claude-future-9" has no price`)
	}
	if !noted {
		t.Fatalf("unpriced model not noted: %+v", rep.Notes)
	}
	tot, err := s.UsageTotals(context.Background(), "c0570000-0000-4000-8000-000000000001")
	if err != nil {
		t.Fatal(err)
	}
	want := (1000*3+100*15)/1e6 + 0.5
	if tot.Calls != 3 || math.Abs(tot.Cost-want) > 1e-9 {
		t.Fatalf("totals %+v, want 3 calls costing %g", tot, want)
	}
}
