package main

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestCopyJobsAgree: a copy that moves eight sessions at once writes what
// one at a time writes, and reports the same totals with the same lists
// in the same order (the source's listing), on SQLite and PostgreSQL
// targets: every sample session, two conflicts (another session under the
// source's ID) and, on a second run, every copied session unchanged.
func TestCopyJobsAgree(t *testing.T) {
	src := sourceWithSamples(t)
	want := dumps(t, src)
	if len(want) < 20 {
		t.Fatalf("the source holds %d sessions: too few to run eight copies at once", len(want))
	}
	conflicting := func(db string) {
		withStore(t, db, func(st *sqlstore.Store) {
			at := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			for _, id := range []string{"empty", "rich"} {
				if _, err := st.Commit(context.Background(), id, sessiondb.Commit{
					Create: &sessiondb.Session{Title: "another session", CreatedAt: at},
					Append: []sessiondb.Entry{{Body: []byte(`{"role":"user","content":"not the source's"}`), CreatedAt: at}},
					Now:    at,
				}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	run := func(to string, jobs string) (copyTotals, string) {
		t.Helper()
		r := sessionctl(t, "", "copy", "--from", src, "--to", to, "--json", "--jobs", jobs)
		var tot copyTotals
		r.decode(t, &tot)
		tot.To = ""
		return tot, r.stderr
	}

	one, eight := tempDB(t), tempDB(t)
	conflicting(one)
	conflicting(eight)
	totOne, _ := run(one, "1")
	totEight, _ := run(eight, "8")
	if totOne.Copied != int64(len(want))-2 || len(totOne.Conflicts) != 2 {
		t.Fatalf("--jobs 1: %+v; want %d copied and 2 conflicts", totOne, len(want)-2)
	}
	if diff := cmp.Diff(totOne, totEight); diff != "" {
		t.Errorf("totals differ (-jobs 1 +jobs 8):\n%s", diff)
	}
	sameDumps(t, dumps(t, one), dumps(t, eight))
	again, _ := run(eight, "8")
	if again.Copied != 0 || again.Unchanged != int64(len(want))-2 || !cmp.Equal(again.Conflicts, totOne.Conflicts) {
		t.Errorf("second run with --jobs 8: %+v; want every copied session unchanged, the same conflicts", again)
	}

	pg := pgURL(t)
	totPG, _ := run(pg, "8")
	if totPG.Copied != int64(len(want)) || totPG.Entries != totOne.Entries+int64(len(want["rich"].Entries)) {
		t.Errorf("--jobs 8 to PostgreSQL: %+v; want all %d sessions", totPG, len(want))
	}
	sameDumps(t, want, dumps(t, pg))
	// The copy analyzed what it filled: the planner counts the rows.
	db, err := sql.Open("pgx", pg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var counted float64
	if err := db.QueryRow(`SELECT reltuples FROM pg_class WHERE oid = 'entries'::regclass`).Scan(&counted); err != nil || int64(counted) != totPG.Entries {
		t.Errorf("PostgreSQL's planner counts %v entries after the copy, %v; want the %d copied (ANALYZE)", counted, err, totPG.Entries)
	}

	sessionctl(t, "", "copy", "--from", src, "--to", tempDB(t), "--jobs", "0").mustFail(t, exitUsage, "--jobs")
}

// TestRowBudget: take waits until enough rows are given back, and gives up
// when its context ends.
func TestRowBudget(t *testing.T) {
	b := newRowBudget(10)
	ctx := context.Background()
	if !b.take(ctx, 6) || !b.take(ctx, 4) {
		t.Fatal("could not take the budget's 10 rows")
	}
	got := make(chan bool)
	go func() { got <- b.take(ctx, 5) }()
	select {
	case <-got:
		t.Fatal("took 5 rows of none free")
	case <-time.After(50 * time.Millisecond):
	}
	b.give(4) // 4 free: still not 5
	select {
	case <-got:
		t.Fatal("took 5 rows of 4 free")
	case <-time.After(50 * time.Millisecond):
	}
	b.give(6)
	if !<-got {
		t.Fatal("take failed once 10 rows were free")
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { got <- b.take(cctx, 6) }() // 5 free
	cancel()
	if <-got {
		t.Error("take succeeded after its context ended")
	}
}
