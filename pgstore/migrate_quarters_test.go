package pgstore

import (
	"slices"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// quartersVersion is the migration that added usage_quarters (issue 42).
const quartersVersion = 14

// TestMigrationUsageQuarters: the rollup the trigger kept through the
// store's writes is what the migration's backfill gives a schema taken
// back to version 13 and up again; its Down drops the table, the trigger
// function and the triggers.
func TestMigrationUsageQuarters(t *testing.T) {
	u := newSchema(t)
	ctx := t.Context()
	s := mustOpenURL(t, u, nil)
	day := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for i, id := range []string{"a", "b", "c"} {
		if _, err := s.Create(ctx, sessiondb.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
		var c sessiondb.Commit
		for j := range 20 {
			c.Usage = append(c.Usage, sessiondb.Usage{Provider: "p", Model: []string{"m", "n"}[j%2], InputTokens: int64(i*100 + j),
				Cost: float64(j) / 8, CostEstimated: j%3 == 0, CreatedAt: day.Add(time.Duration(i*7+j*4) * time.Minute)})
		}
		if _, err := s.Commit(ctx, id, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	db := s.DB()
	rollup := func() []string {
		t.Helper()
		rows, err := db.QueryContext(ctx, `SELECT concat_ws(' ', hour, quarter, provider, model, calls, input_tokens, cost + cost_err, unpriced, first_at, last_at)
			FROM usage_quarters ORDER BY hour, quarter, provider, model`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var r string
			if err := rows.Scan(&r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	kept := rollup()
	if len(kept) == 0 {
		t.Fatal("empty rollup")
	}
	p, err := s.Provider(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, quartersVersion-1); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'usage_quarters')
		+ (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'usage'::regclass AND tgname LIKE 'usage_quarters%') + (SELECT count(*) FROM pg_proc WHERE proname = 'usage_quarters_apply'
		AND pronamespace = current_schema()::regnamespace)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after down: %d objects of usage_quarters left, %v", n, err)
	}
	if _, err := p.UpTo(ctx, quartersVersion); err != nil {
		t.Fatal(err)
	}
	if got := rollup(); !slices.Equal(got, kept) {
		t.Errorf("backfilled rollup differs from the one the trigger kept:\n got %q\nwant %q", got, kept)
	}
}
