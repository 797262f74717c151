package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb/sqlstore"
)

// runPrune: workload 9. A session of n ~1 KB messages, fully indexed, is
// truncated to its last 50 and pruned (the rows leave the log); the
// baseline deletes the same number of rows of the same size from a plain
// SQLite table by primary key range, in one transaction, with the same
// durability (synchronous=FULL, WAL).
func runPrune(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Unit: "s",
		SDBDesc:  "Store.Truncate(50) + Store.Prune on an indexed session, DurabilityFull",
		BaseDesc: "DELETE of the same rows from a plain table (id range), one transaction, WAL + synchronous=FULL",
		TargetOp: "<=", Target: 3}
	n := e.size(10000, 2000)
	g := newGen(9)
	lines := g.lines(n, 1000)
	startMeasure()
	for run := 0; run < e.runs; run++ {
		// sessiondb
		path := e.path(fmt.Sprintf("prune-%d.db", run))
		st, err := openStore(path, sqlstore.DurabilityFull)
		if err != nil {
			return r, err
		}
		if err := buildSession(ctx, st, "long", lines, 1000); err != nil {
			st.Close()
			return r, err
		}
		if err := st.CatchUpIndex(ctx); err != nil {
			st.Close()
			return r, err
		}
		t := time.Now()
		if _, err := st.Truncate(ctx, "long", 50); err != nil {
			st.Close()
			return r, err
		}
		removed, err := st.Prune(ctx, "long")
		sdb := time.Since(t).Seconds()
		if err == nil && removed != int64(n-50) {
			err = fmt.Errorf("prune removed %d entries, want %d", removed, n-50)
		}
		if err != nil {
			st.Close()
			return r, err
		}
		t = time.Now()
		if err := st.CatchUpIndex(ctx); err != nil {
			st.Close()
			return r, err
		}
		purge := time.Since(t).Seconds()
		if err := st.Close(); err != nil {
			return r, err
		}

		// baseline
		base, err := rawDelete(ctx, e.path(fmt.Sprintf("prune-raw-%d.db", run)), lines, n-50)
		if err != nil {
			return r, err
		}
		r.SDBRuns, r.BaseRuns = append(r.SDBRuns, sdb), append(r.BaseRuns, base)
		r.extra(fmt.Sprintf("index_purge_s_run%d", run+1), purge)
		e.logf("run %d: truncate+prune %s (then the background index purge %s), raw DELETE %s", run+1, fmtDur(sdb), fmtDur(purge), fmtDur(base))
	}
	r.note("%d messages of ~1 KB; %d removed per run; the index purge of the removed rows runs later in the background (timed apart, not counted)", n, n-50)
	return r, nil
}

// rawDelete fills a plain table with lines and times one DELETE of the
// first k rows.
func rawDelete(ctx context.Context, path string, lines [][]byte, k int) (float64, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, session_id TEXT, body TEXT)`); err != nil {
		return 0, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	for i, l := range lines {
		if _, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (?, 'long', ?)`, i+1, string(l)); err != nil {
			tx.Rollback()
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	t := time.Now()
	if _, err := db.ExecContext(ctx, `DELETE FROM t WHERE id <= ?`, k); err != nil {
		return 0, err
	}
	return time.Since(t).Seconds(), nil
}
