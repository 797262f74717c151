package sqlstore

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// TestUsageRollupExactCost: on SQLite, whose sum() is compensated
// (Kahan-Babuska-Neumaier), the cost of a report read from usage_quarters
// equals the scan's bit for bit, with costs of 53 random bits, through
// commits and deletes; and the report really is read from the rollup (a
// row changed there by hand shows in it, not in the scan).
func TestUsageRollupExactCost(t *testing.T) {
	s := MustOpenStore(t, nil)
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(1, 2))
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 30 {
		id := fmt.Sprintf("s%02d", i)
		if _, err := s.Create(ctx, sessiondb.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
		var c sessiondb.Commit
		for range 60 {
			c.Usage = append(c.Usage, sessiondb.Usage{Model: []string{"a", "b"}[rng.IntN(2)], InputTokens: 1,
				Cost: rng.Float64() * math.Pow(10, float64(rng.IntN(4))-2), CreatedAt: day.Add(time.Duration(rng.Int64N(int64(3 * time.Hour))))})
		}
		if _, err := s.Commit(ctx, id, c); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(when string) int {
		t.Helper()
		q := sessiondb.UsageQuery{ByQuarterHour: true, ByModel: true}
		got, err := s.UsageReport(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		q.Prices = func(string) (sessiondb.Price, bool) { return sessiondb.Price{}, false }
		scan, err := s.UsageReport(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(scan) {
			t.Fatalf("%s: %d rows, the scan %d", when, len(got), len(scan))
		}
		for i := range got {
			if math.Float64bits(got[i].Cost) != math.Float64bits(scan[i].Cost) {
				t.Errorf("%s: row %d costs %v, the scan's %v", when, i, got[i].Cost, scan[i].Cost)
			}
		}
		return len(got)
	}
	compare("after the commits")
	for i := 0; i < 30; i += 3 {
		if err := s.Delete(ctx, fmt.Sprintf("s%02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := compare("after deletes"); n != 24 {
		t.Errorf("%d groups, want 24 (12 quarter hours, 2 models)", n)
	}
	if _, err := s.writer.ExecContext(ctx, `UPDATE usage_quarters SET calls = calls + 1000 WHERE hour = '2026-03-01T00' AND quarter = 0 AND model = 'a'`); err != nil {
		t.Fatal(err)
	}
	got, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByQuarterHour: true, ByModel: true, Until: day.Add(15 * time.Minute)})
	if err != nil || len(got) != 2 || got[0].Model != "a" || got[0].Calls < 1000 {
		t.Errorf("report of a tampered rollup = %+v, %v; want it read from usage_quarters", got, err)
	}
}
