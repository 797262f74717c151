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

// TestUsageQuartersConcurrentEdge: a transaction that deletes a group's
// first call while another adds a later one that becomes the group's
// first commits after it: the first call read from the ledger counts the
// other's call (the trigger locks the group before it reads).
func TestUsageQuartersConcurrentEdge(t *testing.T) {
	s := MustOpenStore(t, nil)
	ctx := t.Context()
	day := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for _, id := range []string{"a", "b"} {
		if _, err := s.Create(ctx, sessiondb.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Commit(ctx, "a", sessiondb.Commit{Usage: []sessiondb.Usage{
		{Provider: "p", Model: "m", InputTokens: 1, CreatedAt: day.Add(1 * time.Minute)},
		{Provider: "p", Model: "m", InputTokens: 2, CreatedAt: day.Add(10 * time.Minute)},
	}}); err != nil {
		t.Fatal(err)
	}
	db := s.DB()
	adder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer adder.Rollback()
	if _, err := adder.ExecContext(ctx, `INSERT INTO usage (session_id, provider, model, input_tokens, created_at)
		VALUES ('b', 'p', 'm', 4, '2026-01-01T10:05:00.000000000Z')`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, `DELETE FROM usage WHERE session_id = 'a' AND input_tokens = 1`)
		done <- err
	}()
	// Wait until the delete waits for the adder's lock on the group.
	for waiting := 0; waiting == 0; {
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM usage WHERE session_id = ''a''%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := adder.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var first, last string
	var calls int64
	if err := db.QueryRowContext(ctx, `SELECT calls, first_at, last_at FROM usage_quarters WHERE provider = 'p' AND model = 'm'`).Scan(&calls, &first, &last); err != nil {
		t.Fatal(err)
	}
	if calls != 2 || first != "2026-01-01T10:05:00.000000000Z" || last != "2026-01-01T10:10:00.000000000Z" {
		t.Errorf("group after a concurrent add and delete: %d calls, %s to %s; want 2, 10:05 to 10:10", calls, first, last)
	}
}
