package storetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
)

// testUsageRollup (issue 42): a report by quarter hour and model with
// bounds on quarter hours, which the stores answer from a rollup kept by
// triggers, equals row for row (to the nanosecond of the first and last
// calls; the cost to 1e-13, see compareRollup) the same report made by a scan
// of the ledger (forced by a price list that prices no model, which
// counts every cost as stored), and the sums of the rows read back,
// through random commits across quarter-hour and day boundaries, calls
// reported again under their call IDs, deleted sessions, rewritten
// ledgers (ReplaceUsage), copied sessions and a reprice of estimated
// costs.
func testUsageRollup(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	rng := rand.New(rand.NewPCG(42, 7))
	models := []struct{ provider, model string }{{"anthropic", "opus"}, {"anthropic", "sonnet"}, {"openai", "gpt"}, {"", "local"}, {"openai", "o3"}}
	// Times cluster around quarter-hour and day boundaries: exactly on
	// one, a nanosecond before, or anywhere in the quarter.
	day0 := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	when := func() time.Time {
		q := day0.Add(time.Duration(rng.IntN(2*96)) * 15 * time.Minute)
		switch rng.IntN(4) {
		case 0:
			return q
		case 1:
			return q.Add(-time.Nanosecond)
		default:
			return q.Add(time.Duration(rng.Int64N(int64(15 * time.Minute))))
		}
	}
	call := func() sessiondb.Usage {
		m := models[rng.IntN(len(models))]
		u := sessiondb.Usage{Provider: m.provider, Model: m.model, InputTokens: rng.Int64N(200000), OutputTokens: rng.Int64N(8000),
			CacheReadTokens: rng.Int64N(100000), ReasoningTokens: rng.Int64N(500), CreatedAt: when()}
		u.CacheWriteTokens = rng.Int64N(5000)
		switch rng.IntN(5) {
		case 0: // estimated at 0: unpriced, unless it has no token
			u.CostEstimated = true
		case 1:
			u.CostEstimated, u.Cost = true, float64(u.InputTokens)*3e-6+float64(u.OutputTokens)*15e-6
		default: // a cost the tool recorded, every bit of it random
			u.Cost = rng.Float64() * 0.7
		}
		if rng.IntN(3) == 0 {
			u.CallID = fmt.Sprintf("c%d", rng.IntN(20))
		}
		return u
	}
	var ids []string
	for i := range 24 {
		id := fmt.Sprintf("roll%02d", i)
		mustCreate(t, s, id)
		ids = append(ids, id)
		for range 1 + rng.IntN(4) {
			c := sessiondb.Commit{}
			for range rng.IntN(30) {
				c.Usage = append(c.Usage, call())
			}
			mustCommit(t, s, id, c)
		}
	}
	check := func(when string) {
		t.Helper()
		compareRollup(t, s, when, ids, time.Time{}, time.Time{})
		compareRollup(t, s, when+", bounded", ids, day0.Add(23*time.Hour+45*time.Minute), day0.Add(26*time.Hour+30*time.Minute))
		compareRollup(t, s, when+", since", ids, day0.Add(24*time.Hour), time.Time{})
	}
	check("after the commits")

	// Deleted sessions take their calls out, first and last ones too.
	for _, id := range []string{"roll03", "roll07", "roll11", "roll19"} {
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	live := ids[:0:0]
	for _, id := range ids {
		if id != "roll03" && id != "roll07" && id != "roll11" && id != "roll19" {
			live = append(live, id)
		}
	}
	ids = live
	check("after deletes")

	// A rewritten ledger (what a re-import does), an emptied one, and
	// calls reported again under their IDs.
	for i, id := range ids[:6] {
		c := sessiondb.Commit{ReplaceUsage: true}
		if i != 0 {
			for range rng.IntN(25) {
				c.Usage = append(c.Usage, call())
			}
		}
		mustCommit(t, s, id, c)
	}
	for _, id := range ids[6:10] {
		c := sessiondb.Commit{}
		for j := range 10 {
			u := call()
			u.CallID = fmt.Sprintf("c%d", j)
			c.Usage = append(c.Usage, u)
		}
		mustCommit(t, s, id, c)
	}
	check("after rewrites")

	// A copied session, under another ID, and over an existing one.
	if c, ok := s.(sessiondb.Copier); ok {
		if _, err := c.PutSession(ctx, renamed(mustDump(t, c, ids[12]), "rollcopy"), nil); err != nil {
			t.Fatalf("copy: %v", err)
		}
		ids = append(ids, "rollcopy")
		if _, err := c.PutSession(ctx, renamed(mustDump(t, c, ids[13]), ids[14]), nil); err != nil {
			t.Fatalf("copy over %s: %v", ids[14], err)
		}
		check("after copies")
	}

	// Repricing changes estimated costs in place.
	if rp, ok := s.(sessiondb.Repricer); ok {
		prices := func(model string) (sessiondb.Price, bool) {
			switch model {
			case "opus":
				return sessiondb.Price{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75, InputAbove200k: 30, OutputAbove200k: 110}, true
			case "gpt":
				return sessiondb.Price{Input: 1.25, Output: 10, CacheRead: 0.125}, true
			}
			return sessiondb.Price{}, false
		}
		if _, err := rp.Reprice(ctx, prices, false); err != nil {
			t.Fatal(err)
		}
		check("after a reprice")
	}
}

// compareRollup compares the quarter-hour report by model within [since,
// until) with the scan's, and with the sums of the ledger rows of ids.
func compareRollup(t *testing.T, s sessiondb.Store, when string, ids []string, since, until time.Time) {
	t.Helper()
	ctx := bg(t)
	for _, byDay := range []bool{false, true} {
		q := sessiondb.UsageQuery{ByQuarterHour: true, ByModel: true, ByDay: byDay, Since: since, Until: until}
		got, err := s.UsageReport(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		q.Prices = func(string) (sessiondb.Price, bool) { return sessiondb.Price{}, false }
		scan, err := s.UsageReport(ctx, q)
		if err != nil {
			t.Fatalf("%s: scan: %v", when, err)
		}
		// PostgreSQL's sum() of doubles adds in the plan's order without
		// compensation, so its scan's last digits are the plan's; the
		// rollup keeps a compensated sum. SQLite's sum() is compensated
		// too, and there they agree bit for bit (sqlstore's
		// TestUsageRollupExactCost).
		if diff := cmp.Diff(scan, got, cmpopts.EquateApprox(1e-13, 0)); diff != "" {
			t.Errorf("%s (by day %v): report differs from the scan's (-scan +report):\n%s", when, byDay, diff)
		}
	}
	c, ok := s.(sessiondb.Copier)
	if !ok {
		return
	}
	type key struct {
		start           int64 // UnixNano
		provider, model string
	}
	want := map[key]*sessiondb.UsageRow{}
	for _, id := range ids {
		for _, u := range mustDump(t, c, id).Usage {
			if !since.IsZero() && u.CreatedAt.Before(since) || !until.IsZero() && !u.CreatedAt.Before(until) {
				continue
			}
			k := key{u.CreatedAt.Truncate(15 * time.Minute).UnixNano(), u.Provider, u.Model}
			r := want[k]
			if r == nil {
				r = &sessiondb.UsageRow{Provider: u.Provider, Model: u.Model, Start: u.CreatedAt.UTC().Truncate(15 * time.Minute), FirstAt: u.CreatedAt, LastAt: u.CreatedAt}
				want[k] = r
			}
			r.UsageTotals.Add(u)
			if u.CreatedAt.Before(r.FirstAt) {
				r.FirstAt = u.CreatedAt
			}
			if u.CreatedAt.After(r.LastAt) {
				r.LastAt = u.CreatedAt
			}
		}
	}
	got, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByQuarterHour: true, ByModel: true, Since: since, Until: until})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d report rows, %d groups in the ledger", when, len(got), len(want))
	}
	for _, r := range got {
		w := want[key{r.Start.UnixNano(), r.Provider, r.Model}]
		if w == nil {
			t.Errorf("%s: report row %+v is no group of the ledger", when, r)
			continue
		}
		wc, rc := w.Cost, r.Cost
		w.Cost, r.Cost = 0, 0
		if !r.FirstAt.Equal(w.FirstAt) || !r.LastAt.Equal(w.LastAt) || r.UsageTotals != w.UsageTotals || math.Abs(rc-wc) > 1e-9*math.Max(1, math.Abs(wc)) {
			t.Errorf("%s: report row %+v (cost %v)\nwant %+v (cost %v)", when, r, rc, *w, wc)
		}
	}
}
