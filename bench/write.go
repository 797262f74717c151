package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// rawAppender is the physical limit of a durable append: one write(2) of
// the line to a file opened O_APPEND, then fsync(2) — what picoclaw's
// addMsg does, minus the meta rewrite.
type rawAppender struct{ f *os.File }

func newRawAppender(path string) (*rawAppender, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &rawAppender{f}, nil
}

// openAppend is what a JSONL store does per message: open the file
// O_APPEND, write the line, fsync, close. It returns the latency in
// seconds.
func openAppend(path string, line []byte) (float64, error) {
	t := time.Now()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	return time.Since(t).Seconds(), nil
}

// append writes line+"\n" and fsyncs; it returns the latency in seconds.
func (a *rawAppender) append(line []byte) (float64, error) {
	t := time.Now()
	if _, err := a.f.Write(line); err != nil {
		return 0, err
	}
	if err := a.f.Sync(); err != nil {
		return 0, err
	}
	return time.Since(t).Seconds(), nil
}

func (a *rawAppender) Close() error { return a.f.Close() }

// withNL returns line followed by a newline (a copy).
func withNL(line []byte) []byte {
	return append(append(make([]byte, 0, len(line)+1), line...), '\n')
}

// openStore opens a store at path with the given durability.
func openStore(path string, d sqlstore.Durability) (*sqlstore.Store, error) {
	return sqlstore.Open(path, &sqlstore.Options{Durability: d, NoBackup: true})
}

// runAppend: workload 1.
func runAppend(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Unit: "s",
		SDBDesc:  "Store.Append of one ~1 KB message, one transaction, DurabilityFull (default), median latency",
		BaseDesc: "open(2) O_APPEND + write(2) of the same line + fsync(2) + close(2), median latency",
		TargetOp: "<=", Target: 1.5}
	k := e.size(300, 60)
	g := newGen(1)
	const size = 1024
	lines := make([][]byte, k)
	var total int
	for i := range lines {
		lines[i] = g.line(i+1, size)
		total += len(lines[i])
	}
	startMeasure()
	st, err := openStore(e.path("append.db"), sqlstore.DurabilityFull)
	if err != nil {
		return r, err
	}
	defer st.Close()
	if _, err := st.Create(ctx, sessiondb.Session{ID: "append"}); err != nil {
		return r, err
	}
	raw, err := newRawAppender(e.path("append.jsonl"))
	if err != nil {
		return r, err
	}
	defer raw.Close()
	nl := make([][]byte, k)
	for i, l := range lines {
		nl[i] = withNL(l)
	}
	// Warm up both paths (WAL creation, file allocation).
	for i := 0; i < 20; i++ {
		if _, err := raw.append(nl[i]); err != nil {
			return r, err
		}
		if _, err := st.Append(ctx, "append", sessiondb.Entry{Body: lines[i]}); err != nil {
			return r, err
		}
	}
	// SQLite's own floor at the same durability: the row alone in its own
	// transaction in a plain table (synchronous=FULL), for information.
	fullIns, err := newRawSQLiteInserter(ctx, e.path("append-raw.db"), "FULL", lines[:20])
	if err != nil {
		return r, err
	}
	defer fullIns.Close()
	var allS, allB, allW, allQ []float64
	for run := 0; run < e.runs; run++ {
		var sdb, base []float64
		// Alternate the four, op by op, so that all see the same disk
		// and the same neighbours.
		for i := 0; i < k; i++ {
			b, err := openAppend(e.path("open-append.jsonl"), nl[i])
			if err != nil {
				return r, err
			}
			w, err := raw.append(nl[i])
			if err != nil {
				return r, err
			}
			q, err := fullIns.insert(ctx, run*k+i+20, lines[i])
			if err != nil {
				return r, err
			}
			allQ = append(allQ, q)
			t := time.Now()
			if _, err := st.Append(ctx, "append", sessiondb.Entry{Body: lines[i]}); err != nil {
				return r, err
			}
			sdb, base = append(sdb, time.Since(t).Seconds()), append(base, b)
			allW = append(allW, w)
		}
		r.SDBRuns, r.BaseRuns = append(r.SDBRuns, median(sdb)), append(r.BaseRuns, median(base))
		allS, allB = append(allS, sdb...), append(allB, base...)
		e.logf("run %d: sessiondb %s, raw %s", run+1, fmtDur(median(sdb)), fmtDur(median(base)))
	}
	// CPU time per append, measured apart from the raw writes: the share
	// of the latency that is computation, not waiting for the disk.
	c0, t0 := cpuTime(), time.Now()
	for i := 0; i < k; i++ {
		if _, err := st.Append(ctx, "append", sessiondb.Entry{Body: lines[i]}); err != nil {
			return r, err
		}
	}
	cpu, wall := (cpuTime()-c0)/float64(k), time.Since(t0).Seconds()/float64(k)
	r.note("CPU time per sessiondb append (user+sys, all threads): %s of %s wall", fmtDur(cpu), fmtDur(wall))
	r.extra("sessiondb_cpu_per_append_s", cpu)
	r.note("%d appends per run, mean line %d bytes", k, total/k)
	r.note("sessiondb p50 %s p99 %s; raw open+write+fsync+close p50 %s p99 %s (all runs pooled)",
		fmtDur(percentile(allS, 50)), fmtDur(percentile(allS, 99)), fmtDur(percentile(allB, 50)), fmtDur(percentile(allB, 99)))
	r.note("stricter, for information: write+fsync on a file kept open, p50 %s: sessiondb is %.2f× that",
		fmtDur(percentile(allW, 50)), percentile(allS, 50)/percentile(allW, 50))
	r.note("SQLite's floor, for information: the same row inserted alone into a plain table (own transaction, WAL, synchronous=FULL, same driver), p50 %s = %.2f× the baseline; sessiondb is %.2f× that",
		fmtDur(percentile(allQ, 50)), percentile(allQ, 50)/percentile(allB, 50), percentile(allS, 50)/percentile(allQ, 50))
	r.extra("write_fsync_p50_s", percentile(allW, 50))
	r.extra("raw_sqlite_full_p50_s", percentile(allQ, 50))
	r.extra("sessiondb_p99_s", percentile(allS, 99))
	r.extra("baseline_p99_s", percentile(allB, 99))

	// Labelled variant: DurabilityNormal (survives a process crash, not a
	// power loss). Shown for information only; the target is on Full.
	nst, err := openStore(e.path("append-normal.db"), sqlstore.DurabilityNormal)
	if err != nil {
		return r, err
	}
	defer nst.Close()
	if _, err := nst.Create(ctx, sessiondb.Session{ID: "append"}); err != nil {
		return r, err
	}
	// Its own physical limit: the same row inserted alone, in its own
	// transaction, into a plain table of an SQLite file at the same
	// synchronous level, through the same driver. Interleaved op by op.
	ins, err := newRawSQLiteInserter(ctx, e.path("append-normal-raw.db"), "NORMAL", lines[:20])
	if err != nil {
		return r, err
	}
	defer ins.Close()
	// And the model's floor at the same level: see modelFloor.
	model, err := newModelFloor(ctx, e.path("append-normal-model.db"), "NORMAL")
	if err != nil {
		return r, err
	}
	defer model.Close()
	for i := 0; i < 20; i++ {
		if _, err := model.append(ctx, lines[i]); err != nil {
			return r, err
		}
	}
	var normal, rawNormal, pairs, models, modelPairs []float64
	for run := 0; run < e.runs; run++ {
		var sdb, base, mod []float64
		for i := 0; i < k; i++ {
			b, err := ins.insert(ctx, run*k+i+20, lines[i])
			if err != nil {
				return r, err
			}
			m, err := model.append(ctx, lines[i])
			if err != nil {
				return r, err
			}
			mod = append(mod, m)
			t := time.Now()
			if _, err := nst.Append(ctx, "append", sessiondb.Entry{Body: lines[i]}); err != nil {
				return r, err
			}
			sdb, base = append(sdb, time.Since(t).Seconds()), append(base, b)
		}
		normal, rawNormal = append(normal, sdb...), append(rawNormal, base...)
		pairs = append(pairs, median(sdb)/median(base))
		models, modelPairs = append(models, mod...), append(modelPairs, median(sdb)/median(mod))
	}
	r.note("for information, DurabilityNormal (NOT power-loss durable): median %s, %.2f× the baseline",
		fmtDur(median(normal)), median(normal)/median(r.BaseRuns))
	r.note("DurabilityNormal against a raw SQLite insert of the same row (plain table, own transaction, WAL, synchronous=NORMAL, same driver), median %s: %.2f× (per-run ratios %s)",
		fmtDur(median(rawNormal)), median(pairs), fmtRatios(pairs))
	r.note("the same against the data model's floor at NORMAL (UPDATE … RETURNING of the session row and INSERT of the entry, one transaction, sessiondb's tables and indexes, by hand), median %s = %.2f× the raw insert: sessiondb is %.2f× that (per-run %s)",
		fmtDur(median(models)), median(models)/median(rawNormal), median(modelPairs), fmtRatios(modelPairs))
	r.extra("model_floor_normal_median_s", median(models))
	r.extra("normal_median_s", median(normal))
	r.extra("raw_sqlite_normal_median_s", median(rawNormal))
	r.extra("normal_over_raw_sqlite", median(pairs))
	return r, nil
}

// rawSQLiteInserter inserts rows one transaction each into a plain table:
// what SQLite itself costs per small commit, the limit of an append.
type rawSQLiteInserter struct {
	db   *sql.DB
	stmt *sql.Stmt
}

// newRawSQLiteInserter creates the file and its table, then inserts warm
// (rows numbered from 0) to warm it up as the store is.
func newRawSQLiteInserter(ctx context.Context, path, sync string, warm [][]byte) (*rawSQLiteInserter, error) {
	db, err := openRawSQLite(ctx, path, sync)
	if err != nil {
		return nil, err
	}
	stmt, err := db.PrepareContext(ctx, `INSERT INTO rows (session_id, seq, body) VALUES ('append', ?, ?)`)
	if err != nil {
		db.Close()
		return nil, err
	}
	ins := &rawSQLiteInserter{db: db, stmt: stmt}
	for i, line := range warm {
		if _, err := ins.insert(ctx, i, line); err != nil {
			ins.Close()
			return nil, err
		}
	}
	return ins, nil
}

// insert commits one row and returns its latency in seconds.
func (r *rawSQLiteInserter) insert(ctx context.Context, seq int, body []byte) (float64, error) {
	t := time.Now()
	_, err := r.stmt.ExecContext(ctx, seq, string(body))
	return time.Since(t).Seconds(), err
}

func (r *rawSQLiteInserter) Close() error {
	r.stmt.Close()
	return r.db.Close()
}

// runConcurrent: workload 2.
func runConcurrent(ctx context.Context, e *env) (*Result, error) {
	const writers = 16
	r := &Result{Unit: "appends/s",
		SDBDesc:  fmt.Sprintf("%d goroutines, one session each, Store.Append of ~1 KB, one Store, DurabilityFull: appends/s", writers),
		BaseDesc: fmt.Sprintf("%d goroutines, each write+fsync of the same lines to its own O_APPEND file: appends/s", writers),
		TargetOp: ">=", Target: 1}
	per := e.size(50, 15)
	g := newGen(2)
	lines := make([][]byte, per*writers)
	for i := range lines {
		lines[i] = g.line(i+1, 1024)
	}
	measure := func(st sessiondb.Store) (float64, []float64, error) {
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		lat := make([][]float64, writers)
		startGun := make(chan struct{})
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				<-startGun
				id := fmt.Sprintf("writer-%02d", w)
				for i := 0; i < per; i++ {
					t := time.Now()
					if _, err := st.Append(ctx, id, sessiondb.Entry{Body: lines[w*per+i]}); err != nil {
						errs <- err
						return
					}
					lat[w] = append(lat[w], time.Since(t).Seconds())
				}
			}(w)
		}
		t := time.Now()
		close(startGun)
		wg.Wait()
		el := time.Since(t).Seconds()
		close(errs)
		if err := <-errs; err != nil {
			return 0, nil, err
		}
		var all []float64
		for _, l := range lat {
			all = append(all, l...)
		}
		return float64(writers*per) / el, all, nil
	}
	open := func(name string, d sqlstore.Durability) (*sqlstore.Store, error) {
		st, err := openStore(e.path(name), d)
		if err != nil {
			return nil, err
		}
		for w := 0; w < writers; w++ {
			if _, err := st.Create(ctx, sessiondb.Session{ID: fmt.Sprintf("writer-%02d", w)}); err != nil {
				st.Close()
				return nil, err
			}
		}
		return st, nil
	}
	startMeasure()
	st, err := open("concurrent.db", sqlstore.DurabilityFull)
	if err != nil {
		return r, err
	}
	defer st.Close()
	raws := make([]*rawAppender, writers)
	for w := range raws {
		if raws[w], err = newRawAppender(e.path(fmt.Sprintf("fsync-%02d.jsonl", w))); err != nil {
			return r, err
		}
		defer raws[w].Close()
	}
	// files is the baseline: the same lines, each writer appending and
	// fsyncing its own file, all at once.
	files := func() (float64, error) {
		return concurrently(writers, per, func(w, i int) error {
			_, err := raws[w].append(withNL(lines[w*per+i]))
			return err
		})
	}
	// SQLite's floor: the same rows through an ideal group commit into a
	// plain table, interleaved run by run.
	floor, err := newGroupCommitFloor(ctx, e.path("concurrent-raw.db"))
	if err != nil {
		return r, err
	}
	defer floor.Close()
	// And in the data model: the same group commit, each row an UPDATE …
	// RETURNING of its session and an INSERT under its (session_id, seq)
	// key (modelFloor's append).
	model, err := newModelGroupCommitFloor(ctx, e.path("concurrent-model.db"), writers)
	if err != nil {
		return r, err
	}
	defer model.Close()
	var allLat, cpus, floors, floorRatios, models, modelRatios []float64
	for run := 0; run < e.runs; run++ {
		base, err := files()
		if err != nil {
			return r, err
		}
		fl, err := floor.run(writers, per, lines, run*per)
		if err != nil {
			return r, fmt.Errorf("group commit floor: %w", err)
		}
		floors, floorRatios = append(floors, fl), append(floorRatios, fl/base)
		ml, err := model.run(writers, per, lines, run*per)
		if err != nil {
			return r, fmt.Errorf("data model's group commit floor: %w", err)
		}
		models = append(models, ml)
		c0 := cpuTime()
		thr, lat, err := measure(st)
		cpus = append(cpus, (cpuTime()-c0)/float64(writers*per))
		if err != nil {
			return r, err
		}
		allLat = append(allLat, lat...)
		r.SDBRuns, r.BaseRuns = append(r.SDBRuns, thr), append(r.BaseRuns, base)
		modelRatios = append(modelRatios, thr/ml)
		e.logf("run %d: sessiondb %.0f appends/s, 16 fsync'd files %.0f/s", run+1, thr, base)
	}
	r.note("%d writers × %d appends per run; per-append latency under contention p50 %s p99 %s",
		writers, per, fmtDur(percentile(allLat, 50)), fmtDur(percentile(allLat, 99)))
	r.note("CPU time per append under contention (user+sys, all threads): median %s; at that cost %d CPUs cannot exceed %.0f appends/s whatever the disk (less: the SQLite work is serial on one committer)",
		fmtDur(median(cpus)), runtime.NumCPU(), float64(runtime.NumCPU())/median(cpus))
	r.note("SQLite's floor: the same rows handed to one committer that inserts all queued rows into a plain table in one transaction (WAL, synchronous=FULL, same driver): %.0f rows/s = %.2f× the baseline (per-run %s); sessiondb is %.2f× that",
		median(floors), median(floorRatios), fmtRatios(floorRatios), median(r.SDBRuns)/median(floors))
	r.extra("group_commit_floor_per_s", median(floors))
	r.note("the data model's floor: the same group commit, each row an UPDATE … RETURNING of its session row and an INSERT of the entry (sessiondb's tables and indexes, by hand): %.0f appends/s; sessiondb is %.2f× that (per-run %s)",
		median(models), median(modelRatios), fmtRatios(modelRatios))
	r.extra("model_group_commit_floor_per_s", median(models))
	r.extra("cpu_per_append_s", median(cpus))
	r.extra("latency_p50_s", percentile(allLat, 50))
	r.extra("latency_p99_s", percentile(allLat, 99))

	// Labelled variant: DurabilityNormal.
	nst, err := open("concurrent-normal.db", sqlstore.DurabilityNormal)
	if err != nil {
		return r, err
	}
	defer nst.Close()
	thr, _, err := measure(nst)
	if err != nil {
		return r, err
	}
	r.note("for information, DurabilityNormal (NOT power-loss durable): %.0f appends/s = %.2f× the baseline",
		thr, thr/median(r.BaseRuns))
	r.extra("normal_appends_per_s", thr)

	return r, nil
}

// concurrently runs op(w, i) for i < per on writers goroutines w, all at
// once, and returns the ops per second; the first error stops its writer
// and is returned.
func concurrently(writers, per int, op func(w, i int) error) (float64, error) {
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	t := time.Now()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if err := op(w, i); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	el := time.Since(t).Seconds()
	close(errs)
	return float64(writers*per) / el, <-errs
}
