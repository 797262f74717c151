package pgstore

import (
	"fmt"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestRefreshStatistics: after a bulk write the store's tables are
// analyzed (entries' row count as the planner sees it is the real one),
// and a later small write does not analyze again until it reaches a tenth
// of the rows counted.
func TestRefreshStatistics(t *testing.T) {
	s := mustOpenURL(t, newSchema(t), nil)
	ctx := t.Context()
	counted := func() float64 {
		t.Helper()
		var n float64
		if err := s.db.QueryRowContext(ctx, `SELECT reltuples FROM pg_catalog.pg_class
			WHERE oid = to_regclass(quote_ident(current_schema()) || '.entries')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var c sessiondb.Commit
	c.Create = &sessiondb.Session{}
	for i := range 200 {
		c.Append = append(c.Append, sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"message %d"}`, i)))
	}
	if _, err := s.Commit(ctx, "bulk", c); err != nil {
		t.Fatal(err)
	}
	if n := counted(); n == 200 {
		t.Fatalf("entries counted %v rows before any analyze: the test cannot tell", n)
	}
	if ran, err := s.RefreshStatistics(ctx, 200); err != nil || !ran {
		t.Fatalf("RefreshStatistics after 200 new rows = %v, %v; want it run", ran, err)
	}
	if n := counted(); n != 200 {
		t.Errorf("entries counted %v rows after RefreshStatistics, want 200", n)
	}
	var analyzed int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.reltuples >= 0`).Scan(&analyzed); err != nil || analyzed < 10 {
		t.Errorf("%d tables of the schema have statistics, %v; want every table analyzed", analyzed, err)
	}
	if ran, err := s.RefreshStatistics(ctx, 19); err != nil || ran {
		t.Errorf("RefreshStatistics after 19 rows of 200 = %v, %v; want nothing done", ran, err)
	}
	if ran, err := s.RefreshStatistics(ctx, 20); err != nil || !ran {
		t.Errorf("RefreshStatistics after 20 rows of 200 = %v, %v; want it run", ran, err)
	}
}
