package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStatsSaysUnpriced: a call whose model has no price is counted as
// unpriced by stats (text and JSON), never shown as a cost of 0, and a mix
// of priced and unpriced calls says both.
func TestStatsSaysUnpriced(t *testing.T) {
	dir := t.TempDir()
	line := func(uuid, parent, model string, in int) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z","requestId":"r` + uuid + `","message":{"id":"m` + uuid + `","role":"assistant","model":"` + model + `","content":[{"type":"text","text":"yo"}],"usage":{"input_tokens":` + strings.Repeat("1", in) + `,"output_tokens":5}}}` + "\n"
	}
	user := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p","message":{"role":"user","content":"hi"}}` + "\n"
	writeFile(t, dir, "-home-dev-proj/s1.jsonl", user+line("a1", "u1", "zz-unpriced-model-9", 2))
	db := tempDB(t)
	sessionctl(t, db, "import", dir).mustSucceed(t)
	r := sessionctl(t, db, "stats").mustSucceed(t)
	if !strings.Contains(r.stdout, "cost unpriced") {
		t.Errorf("stats with only an unpriced call:\n%s", r.stdout)
	}
	var rep statsReport
	if err := json.Unmarshal([]byte(sessionctl(t, db, "stats", "--json").mustSucceed(t).stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Usage.UnpricedCalls != 1 || rep.Usage.Calls != 1 {
		t.Errorf("stats --json usage = %+v, want 1 call, 1 unpriced", rep.Usage)
	}

	writeFile(t, dir, "-home-dev-proj/s1.jsonl", user+line("a1", "u1", "zz-unpriced-model-9", 2)+line("a2", "a1", "claude-sonnet-4-5-20250929", 4))
	sessionctl(t, db, "import", dir).mustSucceed(t)
	r = sessionctl(t, db, "stats").mustSucceed(t)
	if !strings.Contains(r.stdout, " + unpriced (1 call has no price)") || strings.Contains(r.stdout, "cost 0.0000") {
		t.Errorf("stats with a priced and an unpriced call:\n%s", r.stdout)
	}
}
