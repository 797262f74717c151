package storetest

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// Usage reports by time and at other prices, and repricing in place.

func usageReportTests() []testCase {
	return []testCase{
		{name: "ReportSinceUntil", fn: testUsageReportSinceUntil},
		{name: "ReportQuarterHours", fn: testUsageReportQuarterHours},
		{name: "ReportPrices", fn: testUsageReportPrices},
		{name: "Reprice", fn: testReprice},
		{name: "RepriceDryRun", fn: testRepriceDryRun},
		{name: "RepriceInvalidPrice", fn: testRepriceInvalidPrice},
		{name: "Unpriced", fn: testUsageUnpriced},
		{name: "Rollup", fn: testUsageRollup},
	}
}

// testUsageUnpriced: a call whose cost is an estimate of 0 while it
// counted tokens is unpriced (UsageTotals.Unpriced), in the session's
// totals, the list's and the report's; a recorded zero, an estimate with
// no token and a priced estimate are not; a report priced with a price
// for the model counts none (issue 38).
func testUsageUnpriced(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustCreate(t, s, "u")
	rows := []sessiondb.Usage{
		{Model: "nobody-prices-me", InputTokens: 10, CostEstimated: true, CreatedAt: at(9, 0, 0, 0)},
		{Model: "nobody-prices-me", OutputTokens: 5, CostEstimated: true, CreatedAt: at(9, 1, 0, 0)},
		{Model: "priced", InputTokens: 10, Cost: 0.5, CostEstimated: true, CreatedAt: at(9, 2, 0, 0)},
		{Model: "recorded", InputTokens: 10, CreatedAt: at(9, 3, 0, 0)},
		{Model: "synthetic", CostEstimated: true, CreatedAt: at(9, 4, 0, 0)},
	}
	if _, err := s.Commit(ctx, "u", sessiondb.Commit{Usage: rows}); err != nil {
		t.Fatal(err)
	}
	tot, err := s.UsageTotals(ctx, "u")
	if err != nil || tot.Calls != 5 || tot.Unpriced != 2 || tot.Cost != 0.5 {
		t.Errorf("totals %+v %v, want 5 calls, 2 unpriced, cost 0.5", tot, err)
	}
	var want sessiondb.UsageTotals
	for _, r := range rows {
		want.Add(r)
	}
	if want.Unpriced != 2 {
		t.Errorf("UsageTotals.Add counts %d unpriced, want 2", want.Unpriced)
	}
	infos, _, err := s.List(ctx, sessiondb.ListOptions{Usage: true})
	if err != nil || len(infos) != 1 || infos[0].Usage == nil || infos[0].Usage.Unpriced != 2 {
		t.Errorf("list with usage: %+v %v", infos, err)
	}
	rep, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByModel: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep {
		if w := map[string]int64{"nobody-prices-me": 2}[r.Model]; r.Unpriced != w {
			t.Errorf("report row %s: %d unpriced, want %d", r.Model, r.Unpriced, w)
		}
	}
	priced := func(model string) (sessiondb.Price, bool) {
		return sessiondb.Price{Input: 1, Output: 1}, model == "nobody-prices-me" || model == "priced"
	}
	rep, err = s.UsageReport(ctx, sessiondb.UsageQuery{Prices: priced})
	if err != nil || len(rep) != 1 || rep[0].Unpriced != 0 || rep[0].Calls != 5 {
		t.Errorf("report priced for the model: %+v %v, want none unpriced", rep, err)
	}
}

// at is base's day at hh:mm:ss.nanos UTC.
func at(hh, mm, ss, ns int) time.Time {
	return time.Date(base.Year(), base.Month(), base.Day(), hh, mm, ss, ns, time.UTC)
}

// testUsageReportSinceUntil: Since is inclusive and Until exclusive, to the
// nanosecond; FirstAt and LastAt are the group's first and last calls.
func testUsageReportSinceUntil(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	times := []time.Time{at(9, 59, 59, 999999999), at(10, 0, 0, 0), at(10, 30, 0, 0), at(11, 0, 0, 0), at(11, 0, 0, 1)}
	var rows []sessiondb.Usage
	for i, tm := range times {
		rows = append(rows, sessiondb.Usage{Model: "m", InputTokens: int64(1) << i, CreatedAt: tm})
	}
	mustCreate(t, s, "u")
	mustCommit(t, s, "u", sessiondb.Commit{Usage: rows})
	for _, tc := range []struct {
		since, until time.Time
		want         int64 // sum of the selected rows' input tokens
		first, last  time.Time
	}{
		{at(10, 0, 0, 0), at(11, 0, 0, 0), 2 | 4, at(10, 0, 0, 0), at(10, 30, 0, 0)},
		{at(9, 59, 59, 999999999), at(11, 0, 0, 1), 1 | 2 | 4 | 8, at(9, 59, 59, 999999999), at(11, 0, 0, 0)},
		{time.Time{}, at(10, 0, 0, 0), 1, at(9, 59, 59, 999999999), at(9, 59, 59, 999999999)},
		{at(11, 0, 0, 0), time.Time{}, 8 | 16, at(11, 0, 0, 0), at(11, 0, 0, 1)},
		// A time in another zone is the same instant.
		{at(10, 0, 0, 0).In(time.FixedZone("x", 5*3600+45*60)), time.Time{}, 2 | 4 | 8 | 16, at(10, 0, 0, 0), at(11, 0, 0, 1)},
	} {
		got, err := s.UsageReport(ctx, sessiondb.UsageQuery{Since: tc.since, Until: tc.until})
		if err != nil || len(got) != 1 {
			t.Fatalf("report [%v, %v) = %+v, %v; want one row", tc.since, tc.until, got, err)
		}
		if got[0].InputTokens != tc.want || !got[0].FirstAt.Equal(tc.first) || !got[0].LastAt.Equal(tc.last) {
			t.Errorf("report [%v, %v) = input %d first %v last %v; want %d, %v, %v", tc.since, tc.until,
				got[0].InputTokens, got[0].FirstAt, got[0].LastAt, tc.want, tc.first, tc.last)
		}
	}
	if got, err := s.UsageReport(ctx, sessiondb.UsageQuery{Since: at(12, 0, 0, 0)}); err != nil || len(got) != 0 {
		t.Errorf("report of an empty range = %+v, %v; want no row", got, err)
	}
	if got, err := s.UsageReport(ctx, sessiondb.UsageQuery{Since: at(12, 0, 0, 0), ByModel: true}); err != nil || len(got) != 0 {
		t.Errorf("grouped report of an empty range = %+v, %v; want no row", got, err)
	}
}

// testUsageReportQuarterHours: calls group by the UTC quarter hour they
// fall in, boundaries included in the later quarter, per model too.
func testUsageReportQuarterHours(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustCreate(t, s, "q")
	mustCommit(t, s, "q", sessiondb.Commit{Usage: []sessiondb.Usage{
		{Model: "a", InputTokens: 1, CreatedAt: at(18, 14, 59, 999999999)},
		{Model: "a", InputTokens: 2, CreatedAt: at(18, 15, 0, 0)},
		{Model: "b", InputTokens: 4, CreatedAt: at(18, 29, 0, 0)},
		{Model: "a", InputTokens: 8, CreatedAt: at(18, 45, 0, 0)},
		{Model: "a", InputTokens: 16, CreatedAt: at(23, 59, 59, 0)},
		{Model: "a", InputTokens: 32, CreatedAt: at(23, 59, 59, 0).Add(time.Second)},
	}})
	got, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByQuarterHour: true})
	if err != nil {
		t.Fatal(err)
	}
	type q struct {
		start time.Time
		input int64
	}
	want := []q{{at(18, 0, 0, 0), 1}, {at(18, 15, 0, 0), 2 | 4}, {at(18, 45, 0, 0), 8}, {at(23, 45, 0, 0), 16}, {at(0, 0, 0, 0).AddDate(0, 0, 1), 32}}
	if len(got) != len(want) {
		t.Fatalf("quarter hours = %+v; want %d groups", got, len(want))
	}
	for i, w := range want {
		if !got[i].Start.Equal(w.start) || got[i].InputTokens != w.input || got[i].Start.Location() != time.UTC {
			t.Errorf("group %d = start %v input %d; want %v, %d", i, got[i].Start, got[i].InputTokens, w.start, w.input)
		}
	}
	byModel, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByQuarterHour: true, ByModel: true, Since: at(18, 15, 0, 0), Until: at(18, 30, 0, 0)})
	if err != nil || len(byModel) != 2 || byModel[0].Model != "a" || byModel[0].InputTokens != 2 || byModel[1].Model != "b" ||
		byModel[1].InputTokens != 4 || !byModel[1].Start.Equal(at(18, 15, 0, 0)) {
		t.Errorf("quarter 18:15 by model = %+v, %v", byModel, err)
	}
}

// pricedLedger writes a ledger of estimated and recorded costs, and
// returns the price list it is repriced with: model "a" priced, with a
// 1-hour cache-write rate, "b" priced with a long-context tier (and a
// 1-hour rate only there), "c" unpriced.
func pricedLedger(t *testing.T, s sessiondb.Store) sessiondb.PriceFunc {
	mustCreate(t, s, "r1")
	mustCreate(t, s, "r2")
	mustCommit(t, s, "r1", sessiondb.Commit{Usage: []sessiondb.Usage{
		{CallID: "1", Model: "a", InputTokens: 1000, OutputTokens: 200, CacheReadTokens: 3000, CacheWriteTokens: 400, Cost: 0.001, CostEstimated: true, CreatedAt: at(10, 0, 0, 0)},
		{CallID: "2", Model: "a", InputTokens: 7, OutputTokens: 11, Cost: 9, CostEstimated: false, CreatedAt: at(10, 1, 0, 0)},
		{CallID: "3", Model: "b", InputTokens: 150000, OutputTokens: 3, CacheReadTokens: 50000, CacheWriteTokens: 3, CacheWrite1hTokens: 2, CostEstimated: true, CreatedAt: at(10, 2, 0, 0)},
		{CallID: "4", Model: "b", InputTokens: 150000, OutputTokens: 3, CacheReadTokens: 50000, CostEstimated: true, CreatedAt: at(10, 3, 0, 0)},
		{CallID: "5", Model: "c", InputTokens: 5, CostEstimated: true, CreatedAt: at(10, 4, 0, 0)},
		{CallID: "6", Model: "a", InputTokens: 10, CacheWriteTokens: 1000, CacheWrite1hTokens: 600, CostEstimated: true, CreatedAt: at(10, 5, 0, 0)},
		{CallID: "7", Model: "b", InputTokens: 10, CacheWriteTokens: 1000, CacheWrite1hTokens: 1000, CostEstimated: true, CreatedAt: at(10, 6, 0, 0)},
	}})
	mustCommit(t, s, "r2", sessiondb.Commit{Usage: []sessiondb.Usage{
		{Model: "a", OutputTokens: 123457, Cost: 0.5, CostEstimated: true, CreatedAt: at(11, 0, 0, 0)},
		{Model: "b", OutputTokens: 5, Cost: 0.25, CostEstimated: false, CreatedAt: at(11, 1, 0, 0)},
	}})
	prices := map[string]sessiondb.Price{
		"a": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6.1},
		"b": {Input: 3.3, Output: 15.7, CacheRead: 0.31, CacheWrite: 3.9, InputAbove200k: 6.1, OutputAbove200k: 22.5, CacheReadAbove200k: 0.6,
			CacheWrite1hAbove200k: 12.3},
	}
	return func(model string) (sessiondb.Price, bool) {
		p, ok := prices[model]
		return p, ok
	}
}

// ledgerOf returns every usage row of the given sessions, in order.
func ledgerOf(t *testing.T, s sessiondb.Store, ids ...string) []sessiondb.Usage {
	c, ok := s.(sessiondb.Copier)
	if !ok {
		t.Skip("store does not implement sessiondb.Copier: cannot read usage rows back")
	}
	var out []sessiondb.Usage
	for _, id := range ids {
		out = append(out, mustDump(t, c, id).Usage...)
	}
	return out
}

// testUsageReportPrices: a report with Prices counts estimated rows of
// priced models at the new price, everything else as stored, and changes
// nothing.
func testUsageReportPrices(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	prices := pricedLedger(t, s)
	before := ledgerOf(t, s, "r1", "r2")
	want := map[string]float64{}
	for _, u := range before {
		c := u.Cost
		if p, ok := prices(u.Model); ok && u.CostEstimated {
			c = p.Estimate(u)
		}
		want[u.Model] += c
	}
	got, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByModel: true, Prices: prices})
	if err != nil || len(got) != 3 {
		t.Fatalf("report with prices = %+v, %v", got, err)
	}
	for _, r := range got {
		if math.Abs(r.Cost-want[r.Model]) > 1e-12*math.Max(1, want[r.Model]) {
			t.Errorf("model %s costs %v with prices, want %v", r.Model, r.Cost, want[r.Model])
		}
	}
	// Grouped by session and time too, and restricted: the same rule.
	one, err := s.UsageReport(ctx, sessiondb.UsageQuery{SessionID: "r2", ByQuarterHour: true, Prices: prices})
	a, _ := prices("a")
	wantR2 := a.Estimate(sessiondb.Usage{OutputTokens: 123457}) + 0.25
	if err != nil || len(one) != 1 || math.Abs(one[0].Cost-wantR2) > 1e-12 {
		t.Errorf("report of r2 with prices = %+v, %v; want cost %v", one, err, wantR2)
	}
	if after := ledgerOf(t, s, "r1", "r2"); !sameUsage(before, after) {
		t.Errorf("a report changed the ledger:\n%+v\n%+v", before, after)
	}
	none, err := s.UsageReport(ctx, sessiondb.UsageQuery{Prices: func(string) (sessiondb.Price, bool) { return sessiondb.Price{}, false }})
	if err != nil || len(none) != 1 || math.Abs(none[0].Cost-(0.001+9+0.5+0.25)) > 1e-12 {
		t.Errorf("report with an empty price list = %+v, %v; want the stored costs", none, err)
	}
}

func sameUsage(a, b []sessiondb.Usage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// testReprice: estimated costs of priced models become exactly
// Price.Estimate of the row (long-context tier included), recorded costs
// and unpriced models stay, the report says what changed, sessions keep
// their Sequence, and repricing again changes nothing.
func testReprice(t *testing.T, s sessiondb.Store) {
	rp, ok := s.(sessiondb.Repricer)
	if !ok {
		t.Skip("store does not implement sessiondb.Repricer")
	}
	ctx := bg(t)
	prices := pricedLedger(t, s)
	before := ledgerOf(t, s, "r1", "r2")
	seq1, _ := s.Get(ctx, "r1")
	rep, err := rp.Reprice(ctx, prices, false)
	if err != nil {
		t.Fatal(err)
	}
	after := ledgerOf(t, s, "r1", "r2")
	if len(after) != len(before) {
		t.Fatalf("%d rows after reprice, %d before", len(after), len(before))
	}
	type sums struct {
		rows, changed int64
		before, after float64
	}
	want := map[string]*sums{}
	for i, u := range after {
		b := before[i]
		w := b
		if p, ok := prices(b.Model); ok && b.CostEstimated {
			w.Cost = p.Estimate(b)
		}
		if u != w {
			t.Errorf("row %d after reprice = %+v\nwant %+v", i, u, w)
		}
		// Bit for bit: the store's SQL and Price.Estimate agree.
		if math.Float64bits(u.Cost) != math.Float64bits(w.Cost) {
			t.Errorf("row %d cost %b, Estimate %b", i, math.Float64bits(u.Cost), math.Float64bits(w.Cost))
		}
		if b.CostEstimated {
			m := want[b.Model]
			if m == nil {
				m = &sums{}
				want[b.Model] = m
			}
			m.rows++
			m.before += b.Cost
			m.after += u.Cost
			if u.Cost != b.Cost {
				m.changed++
			}
		}
	}
	// Row 3 is long-context (150000 + 50000 + 3 > 200000): the tier's
	// rates, the base cache write rate (no tier for it) and the tier's
	// 1-hour rate; row 4 is exactly 200000 and is not.
	b, _ := prices("b")
	long := (150000*6.1 + 3*22.5 + 50000*0.6 + 1*3.9 + 2*12.3) / 1e6
	if math.Abs(after[2].Cost-long) > 1e-12 || math.Abs(after[3].Cost-(150000*3.3+3*15.7+50000*0.31)/1e6) > 1e-12 || !sessiondb.IsLongContext(after[2]) || sessiondb.IsLongContext(after[3]) {
		t.Errorf("long-context costs %v, %v; want %v and the base rates (%+v)", after[2].Cost, after[3].Cost, long, b)
	}
	// Row 6: 400 cache writes at the 5-minute rate, 600 at the 1-hour
	// rate; row 7: b has no 1-hour rate below the tier, so its 1-hour
	// writes cost the cache write rate.
	if w6, w7 := (10*3+400*3.75+600*6.1)/1e6, (10*3.3+1000*3.9)/1e6; math.Abs(after[5].Cost-w6) > 1e-12 || math.Abs(after[6].Cost-w7) > 1e-12 {
		t.Errorf("costs with 1-hour cache writes %v, %v; want %v, %v", after[5].Cost, after[6].Cost, w6, w7)
	}
	if len(rep.Models) != 3 {
		t.Fatalf("report = %+v; want models a, b, c", rep)
	}
	for _, m := range rep.Models {
		w := want[m.Model]
		if m.Priced != (m.Model != "c") || m.Rows != w.rows || m.Changed != w.changed ||
			math.Abs(m.CostBefore-w.before) > 1e-9 || math.Abs(m.CostAfter-w.after) > 1e-9 {
			t.Errorf("report of %s = %+v; want %+v", m.Model, m, *w)
		}
	}
	if rep.Models[2].Tokens != 5 {
		t.Errorf("unpriced model c: %d tokens, want 5", rep.Models[2].Tokens)
	}
	if got, _ := s.Get(ctx, "r1"); got.Sequence != seq1.Sequence || !got.UpdatedAt.Equal(seq1.UpdatedAt) {
		t.Errorf("reprice moved r1 from sequence %d (%v) to %d (%v)", seq1.Sequence, seq1.UpdatedAt, got.Sequence, got.UpdatedAt)
	}
	again, err := rp.Reprice(ctx, prices, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range again.Models {
		if m.Changed != 0 || m.CostBefore != m.CostAfter {
			t.Errorf("second reprice changed %s: %+v", m.Model, m)
		}
	}
	if final := ledgerOf(t, s, "r1", "r2"); !sameUsage(final, after) {
		t.Errorf("second reprice changed rows")
	}
}

// testRepriceDryRun: a dry run reports what a reprice changes and writes
// nothing.
func testRepriceDryRun(t *testing.T, s sessiondb.Store) {
	rp, ok := s.(sessiondb.Repricer)
	if !ok {
		t.Skip("store does not implement sessiondb.Repricer")
	}
	ctx := bg(t)
	prices := pricedLedger(t, s)
	before := ledgerOf(t, s, "r1", "r2")
	dry, err := rp.Reprice(ctx, prices, true)
	if err != nil {
		t.Fatal(err)
	}
	if after := ledgerOf(t, s, "r1", "r2"); !sameUsage(before, after) {
		t.Fatalf("dry run changed the ledger")
	}
	real, err := rp.Reprice(ctx, prices, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Models) != len(real.Models) {
		t.Fatalf("dry run %+v, reprice %+v", dry, real)
	}
	for i := range dry.Models {
		if dry.Models[i] != real.Models[i] {
			t.Errorf("dry run says %+v, reprice did %+v", dry.Models[i], real.Models[i])
		}
	}
	if empty, err := rp.Reprice(ctx, func(string) (sessiondb.Price, bool) { return sessiondb.Price{}, false }, false); err != nil || len(empty.Models) != 3 || empty.Models[0].Priced {
		t.Errorf("reprice with no prices = %+v, %v", empty, err)
	}
}

// testRepriceInvalidPrice: a price that is not a finite number >= 0 fails
// the whole reprice with ErrInvalid, naming the model, and changes
// nothing; a report with it fails the same way.
func testRepriceInvalidPrice(t *testing.T, s sessiondb.Store) {
	rp, ok := s.(sessiondb.Repricer)
	if !ok {
		t.Skip("store does not implement sessiondb.Repricer")
	}
	ctx := bg(t)
	good := pricedLedger(t, s)
	before := ledgerOf(t, s, "r1", "r2")
	for _, bad := range []float64{math.NaN(), math.Inf(1), -1} {
		prices := func(model string) (sessiondb.Price, bool) {
			if model == "b" {
				return sessiondb.Price{Input: 1, OutputAbove200k: bad}, true
			}
			return good(model)
		}
		if _, err := rp.Reprice(ctx, prices, false); !errors.Is(err, sessiondb.ErrInvalid) || !strings.Contains(err.Error(), `"b"`) {
			t.Errorf("reprice with price %v = %v; want ErrInvalid naming model b", bad, err)
		}
		if _, err := s.UsageReport(ctx, sessiondb.UsageQuery{Prices: prices}); !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("report with price %v = %v; want ErrInvalid", bad, err)
		}
	}
	if after := ledgerOf(t, s, "r1", "r2"); !sameUsage(before, after) {
		t.Errorf("a failed reprice changed the ledger")
	}
}
