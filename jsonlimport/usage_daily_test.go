package jsonlimport

import (
	"context"
	"math"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// TestUsageDailyAllFormats imports archives of all six formats into one
// store and checks that usage_daily answers "what did I spend per day" for
// each: its rows, per format, add up to the sessions' usage totals, and
// every row is dated by the model call (a day of the source), never by the
// import. picoclaw archives record no usage at all (formats/picoclaw.md:
// providers.Message has no usage fields), so they contribute no rows.
func TestUsageDailyAllFormats(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	paths := []string{
		filepath.Join("..", "testdata", "picoclaw"),
		filepath.Join("..", "testdata", "zot", "zot_home"),
		filepath.Join("..", "testdata", "swink", "sessions"),
		filepath.Join(ccTestdata, "projects"),
		filepath.Join(codexTestdata, "codex-home"),
		filepath.Join(piTestdata, "sessions"),
	}
	if _, err := Import(ctx, s, paths, Options{}); err != nil {
		t.Fatal(err)
	}
	// The ledger, per format.
	want := map[string]sessiondb.UsageTotals{}
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range list {
		tot, err := s.UsageTotals(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		w := want[info.SourceFormat]
		w.Calls += tot.Calls
		w.InputTokens += tot.InputTokens
		w.OutputTokens += tot.OutputTokens
		w.CacheReadTokens += tot.CacheReadTokens
		w.CacheWriteTokens += tot.CacheWriteTokens
		w.Cost += tot.Cost
		want[info.SourceFormat] = w
	}
	rows, err := s.Query(ctx, `SELECT s.source_format, d.day, sum(d.calls), sum(d.input_tokens), sum(d.output_tokens),
		sum(d.cache_read_tokens), sum(d.cache_write_tokens), sum(d.cost)
		FROM usage_daily d JOIN sessions s ON s.id = d.session_id GROUP BY s.source_format, d.day`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]sessiondb.UsageTotals{}
	days := map[string]int{}
	today := time.Now().UTC().Format("2006-01-02")
	dayRE := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	for rows.Next() {
		var format, day string
		var v sessiondb.UsageTotals
		if err := rows.Scan(&format, &day, &v.Calls, &v.InputTokens, &v.OutputTokens, &v.CacheReadTokens, &v.CacheWriteTokens, &v.Cost); err != nil {
			t.Fatal(err)
		}
		if !dayRE.MatchString(day) || day == today {
			t.Errorf("%s: usage dated %q: not the day of the source's model call", format, day)
		}
		g := got[format]
		g.Calls += v.Calls
		g.InputTokens += v.InputTokens
		g.OutputTokens += v.OutputTokens
		g.CacheReadTokens += v.CacheReadTokens
		g.CacheWriteTokens += v.CacheWriteTokens
		g.Cost += v.Cost
		got[format] = g
		days[format]++
	}
	for _, f := range []string{FormatZot, FormatSwink, FormatClaudeCode, FormatCodex, FormatPi} {
		if days[f] == 0 || got[f].Calls == 0 {
			t.Errorf("%s: no usage_daily rows", f)
		}
		// Every format that records usage answers "what did I spend":
		// zot, swink and pi write costs, Claude Code and Codex are priced.
		if got[f].Cost <= 0 {
			t.Errorf("%s: usage_daily has no cost", f)
		}
		g, w := got[f], want[f]
		if math.Abs(g.Cost-w.Cost) > 1e-9*max(1, w.Cost) {
			t.Errorf("%s: usage_daily costs %g, the sessions' totals %g", f, g.Cost, w.Cost)
		}
		g.Cost, w.Cost = 0, 0
		if g != w {
			t.Errorf("%s: usage_daily sums to %+v, the sessions' totals are %+v", f, g, w)
		}
	}
	if days[FormatPicoclaw] != 0 || want[FormatPicoclaw].Calls != 0 {
		t.Errorf("picoclaw: %d usage days, %d calls; its archives carry no usage", days[FormatPicoclaw], want[FormatPicoclaw].Calls)
	}
	t.Logf("usage_daily days per format: %v", days)
}
