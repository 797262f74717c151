package main

// PostgreSQL workloads (10-14): pgstore against a raw pgx baseline that
// runs the same statements (same SQL text, same transactions) through a
// pgxpool, in the same run, op by op; sqlstore's figure for the same
// operation on the same data is measured in the same run and noted beside
// them. Each workload uses a database it creates on the server named by
// $SESSIONDB_BENCH_POSTGRES (else $SESSIONDB_TEST_POSTGRES, else
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) and drops
// at the end. Without a reachable server the workloads report that and
// measure nothing.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/pgstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

func pgServerURL() string {
	for _, k := range []string{"SESSIONDB_BENCH_POSTGRES", "SESSIONDB_TEST_POSTGRES"} {
		if u := os.Getenv(k); u != "" {
			return u
		}
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// pgBench is one workload's database: the pgstore, the raw pool on the
// same database, and sqlstore on a file for the side-by-side figure.
type pgBench struct {
	st   *pgstore.Store
	pool *pgxpool.Pool
	sql  *sqlstore.Store
	drop func()
}

// errNoServer marks a run without a PostgreSQL server: reported, not failed.
var errNoServer = fmt.Errorf("no PostgreSQL server")

func newPGBench(ctx context.Context, e *env, name string) (*pgBench, error) {
	admin, err := pgx.Connect(ctx, pgServerURL())
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", errNoServer, pgServerURL(), err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	db := "sessiondb_bench_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+db); err != nil {
		admin.Close(ctx)
		return nil, err
	}
	pb := &pgBench{}
	pb.drop = func() {
		if pb.st != nil {
			pb.st.Close()
		}
		if pb.pool != nil {
			pb.pool.Close()
		}
		if pb.sql != nil {
			pb.sql.Close()
		}
		_, _ = admin.Exec(context.Background(), `DROP DATABASE IF EXISTS `+db+` WITH (FORCE)`)
		admin.Close(context.Background())
		// The schema's read-only role outlives the database.
		if sdb, err := sql.Open("pgx", pgServerURL()); err == nil {
			_ = pgstore.DropReaderRoles(context.Background(), sdb, db)
			sdb.Close()
		}
	}
	u, err := url.Parse(pgServerURL())
	if err != nil {
		pb.drop()
		return nil, err
	}
	u.Path = "/" + db
	if pb.st, err = pgstore.Open(ctx, u.String(), nil); err != nil {
		pb.drop()
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(u.String())
	if err != nil {
		pb.drop()
		return nil, err
	}
	cfg.MaxConns = 16
	if pb.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		pb.drop()
		return nil, err
	}
	if pb.sql, err = openStore(e.path(name+".db"), sqlstore.DurabilityFull); err != nil {
		pb.drop()
		return nil, err
	}
	return pb, nil
}

// noServer turns a missing server into a note instead of a failure.
func noServer(r *Result, err error) (*Result, error) {
	if err != nil && isNoServer(err) {
		r.note("not measured: %v", err)
		return r, nil
	}
	return r, err
}

func isNoServer(err error) bool { return errors.Is(err, errNoServer) }

// The statements pgstore runs, as the raw baseline runs them.
const (
	pgLock = `SELECT s.id, s.title, s.summary, s.scope, s.attrs, s.version, s.sequence,
		s.last_seq, s.parent_id, s.fork_seq, s.source_format, s.source_path, s.created_at, s.updated_at,
		txid_current() FROM sessions s WHERE s.id = $1 FOR UPDATE`
	pgInsert = `INSERT INTO entries (session_id, seq, kind, role, text, body, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`
	pgBump   = `UPDATE sessions AS s SET sequence = s.sequence + 1, last_seq = $8, updated_at = $9
		WHERE s.id = $10 RETURNING s.id, s.title, s.summary, s.scope, s.attrs, s.version, s.sequence,
	s.last_seq, s.parent_id, s.fork_seq, s.source_format, s.source_path, s.created_at, s.updated_at,
	(SELECT coalesce(json_agg(alias ORDER BY id), '[]')::text FROM session_aliases
		WHERE session_id = s.id) AS aliases`
	pgExists     = `SELECT 1 FROM sessions WHERE id = $1`
	pgCompaction = `SELECT id, keep_from_seq FROM compactions WHERE session_id = $1 ORDER BY id DESC LIMIT 1`
	pgAll        = `SELECT seq, kind, role, body, created_at FROM entries WHERE session_id = $1 AND seq >= $2 ORDER BY seq`
	pgTail       = `SELECT seq, kind, role, body, created_at FROM entries WHERE session_id = $1 AND seq >= $2 ORDER BY seq DESC LIMIT $3`
	pgList       = `SELECT s.id, s.title, s.summary, s.scope, s.attrs, s.version, s.sequence,
	s.last_seq, s.parent_id, s.fork_seq, s.source_format, s.source_path, s.created_at, s.updated_at,
	(SELECT coalesce(json_agg(alias ORDER BY id), '[]')::text FROM session_aliases
		WHERE session_id = s.id) AS aliases,
		(SELECT count(*) FROM summary_messages m WHERE m.compaction_id =
			(SELECT max(id) FROM compactions c WHERE c.session_id = s.id))
		+ s.last_seq + 1 - coalesce((SELECT keep_from_seq FROM compactions c
			WHERE c.session_id = s.id ORDER BY c.id DESC LIMIT 1), 1) AS message_count,
		(SELECT count(*) FROM entries e WHERE e.session_id = s.id) AS entry_count
		FROM sessions s ORDER BY s.updated_at DESC, s.id DESC LIMIT $1`
)

type rawSession struct {
	id, title, summary                       string
	scope, attrs, parent, srcFormat, srcPath *string
	version                                  int
	sequence, lastSeq                        int64
	forkSeq                                  *int64
	created, updated, aliases                string
}

func (s *rawSession) dest() []any {
	return []any{&s.id, &s.title, &s.summary, &s.scope, &s.attrs, &s.version, &s.sequence, &s.lastSeq,
		&s.parent, &s.forkSeq, &s.srcFormat, &s.srcPath, &s.created, &s.updated}
}

const pgTimeLayout = "2006-01-02T15:04:05.000000000Z"

// rawAppendPG is pgstore's Append, statement for statement, on pgx.
func rawAppendPG(ctx context.Context, pool *pgxpool.Pool, id string, body []byte) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var s rawSession
	var xid int64
	if err := tx.QueryRow(ctx, pgLock, id).Scan(append(s.dest(), &xid)...); err != nil {
		return err
	}
	role, text := sessiondb.DefaultExtractor(sessiondb.KindMessage, body)
	now := time.Now().UTC().Format(pgTimeLayout)
	err = tx.QueryRow(ctx, `WITH appended AS (`+pgInsert+`) `+pgBump,
		id, s.lastSeq+1, sessiondb.KindMessage, role, text, string(body), now, s.lastSeq+1, now, id).Scan(append(s.dest(), &s.aliases)...)
	if err != nil {
		return err
	}
	return tx.Commit(ctx)
}

type rawEntry struct {
	seq        int64
	kind, role string
	body       []byte
	created    time.Time
}

// rawLoadPG is pgstore's Load (lastN 0: all), statement for statement.
func rawLoadPG(ctx context.Context, pool *pgxpool.Pool, id string, lastN int) ([]rawEntry, error) {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	var one int
	if err := tx.QueryRow(ctx, pgExists, id).Scan(&one); err != nil {
		return nil, err
	}
	var cid, keep int64 = 0, 1
	if err := tx.QueryRow(ctx, pgCompaction, id).Scan(&cid, &keep); err != nil && err != pgx.ErrNoRows {
		return nil, err
	}
	var rows pgx.Rows
	if lastN > 0 {
		rows, err = tx.Query(ctx, pgTail, id, keep, lastN)
	} else {
		rows, err = tx.Query(ctx, pgAll, id, keep)
	}
	if err != nil {
		return nil, err
	}
	var out []rawEntry
	for rows.Next() {
		var e rawEntry
		var created string
		if err := rows.Scan(&e.seq, &e.kind, &e.role, &e.body, &created); err != nil {
			rows.Close()
			return nil, err
		}
		e.created, _ = time.Parse(pgTimeLayout, created)
		out = append(out, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, tx.Commit(ctx)
}

// rawListPG is pgstore's List{Limit: n}, statement for statement.
func rawListPG(ctx context.Context, pool *pgxpool.Pool, n int) (int, error) {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, pgList, n+1)
	if err != nil {
		return 0, err
	}
	count := 0
	for rows.Next() {
		var s rawSession
		var msgs, ents int64
		if err := rows.Scan(append(s.dest(), &s.aliases, &msgs, &ents)...); err != nil {
			rows.Close()
			return 0, err
		}
		count++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return min(count, n), tx.Commit(ctx)
}

// paired measures sdb and base alternately, iters times per run, and
// records the per-run medians; other (sqlstore) is timed in the same
// loop and its median over all runs is returned.
func paired(e *env, r *Result, iters int, sdb, base, other func() error) (float64, error) {
	var all []float64
	for run := 0; run < e.runs; run++ {
		var s, b []float64
		for i := 0; i < iters; i++ {
			tb, err := timeIt(base)
			if err != nil {
				return 0, fmt.Errorf("baseline: %w", err)
			}
			ts, err := timeIt(sdb)
			if err != nil {
				return 0, fmt.Errorf("pgstore: %w", err)
			}
			to, err := timeIt(other)
			if err != nil {
				return 0, fmt.Errorf("sqlstore: %w", err)
			}
			s, b, all = append(s, ts), append(b, tb), append(all, to)
		}
		r.SDBRuns, r.BaseRuns = append(r.SDBRuns, median(s)), append(r.BaseRuns, median(b))
		e.logf("run %d: pgstore %s, raw pgx %s", run+1, fmtDur(median(s)), fmtDur(median(b)))
	}
	return median(all), nil
}

// runPGAppend: workload 10.
func runPGAppend(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Unit: "s",
		SDBDesc:  "pgstore Store.Append of one ~1 KB message (one transaction, synchronous_commit on), median latency",
		BaseDesc: "raw pgx: the same statements (BEGIN, SELECT … FOR UPDATE, WITH (INSERT) UPDATE … RETURNING, COMMIT), median latency",
		TargetOp: "<=", Target: 1.5}
	pb, err := newPGBench(ctx, e, "pg-append")
	if err != nil {
		return noServer(r, err)
	}
	defer pb.drop()
	k := e.size(300, 60)
	g := newGen(9)
	lines := make([][]byte, k)
	for i := range lines {
		lines[i] = g.line(i+1, 1024)
	}
	for _, id := range []string{"sdb", "raw"} {
		if _, err := pb.st.Create(ctx, sessiondb.Session{ID: id}); err != nil {
			return r, err
		}
	}
	if _, err := pb.sql.Create(ctx, sessiondb.Session{ID: "sql"}); err != nil {
		return r, err
	}
	startMeasure()
	i := 0
	sq, err := paired(e, r, k,
		func() error { _, err := pb.st.Append(ctx, "sdb", sessiondb.Entry{Body: lines[i%k]}); return err },
		func() error { return rawAppendPG(ctx, pb.pool, "raw", lines[i%k]) },
		func() error {
			_, err := pb.sql.Append(ctx, "sql", sessiondb.Entry{Body: lines[i%k]})
			i++
			return err
		})
	if err != nil {
		return r, err
	}
	r.note("side by side: sqlstore (DurabilityFull, fsync per commit) median %s on the same data in the same run", fmtDur(sq))
	r.extra("sqlstore_median_s", sq)
	return r, nil
}

// runPGConcurrent: workload 11.
func runPGConcurrent(ctx context.Context, e *env) (*Result, error) {
	const writers = 16
	r := &Result{Unit: "appends/s", Speedup: true,
		SDBDesc:  fmt.Sprintf("pgstore, %d goroutines, one session each, Append of ~1 KB, one Store (pool of 16): appends/s", writers),
		BaseDesc: fmt.Sprintf("raw pgx, the same statements from %d goroutines on a pgxpool of 16: appends/s", writers),
		TargetOp: "<=", Target: 1.5}
	pb, err := newPGBench(ctx, e, "pg-concurrent")
	if err != nil {
		return noServer(r, err)
	}
	defer pb.drop()
	per := e.size(50, 15)
	g := newGen(10)
	lines := make([][]byte, per*writers)
	for i := range lines {
		lines[i] = g.line(i+1, 1024)
	}
	for w := 0; w < writers; w++ {
		for _, p := range []string{"sdb", "raw"} {
			if _, err := pb.st.Create(ctx, sessiondb.Session{ID: fmt.Sprintf("%s-%02d", p, w)}); err != nil {
				return r, err
			}
		}
		if _, err := pb.sql.Create(ctx, sessiondb.Session{ID: fmt.Sprintf("sql-%02d", w)}); err != nil {
			return r, err
		}
	}
	throughput := func(n int, fn func(w, i int) error) (float64, error) {
		var wg sync.WaitGroup
		errs := make(chan error, n)
		t := time.Now()
		for w := 0; w < n; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < per; i++ {
					if err := fn(w, i); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		el := time.Since(t).Seconds()
		close(errs)
		if err := <-errs; err != nil {
			return 0, err
		}
		return float64(n*per) / el, nil
	}
	sdbFn := func(w, i int) error {
		_, err := pb.st.Append(ctx, fmt.Sprintf("sdb-%02d", w), sessiondb.Entry{Body: lines[w*per+i]})
		return err
	}
	rawFn := func(w, i int) error { return rawAppendPG(ctx, pb.pool, fmt.Sprintf("raw-%02d", w), lines[w*per+i]) }
	sqlFn := func(w, i int) error {
		_, err := pb.sql.Append(ctx, fmt.Sprintf("sql-%02d", w), sessiondb.Entry{Body: lines[w*per+i]})
		return err
	}
	startMeasure()
	var one, rawOne, sq []float64
	for run := 0; run < e.runs; run++ {
		b, err := throughput(writers, rawFn)
		if err != nil {
			return r, fmt.Errorf("baseline: %w", err)
		}
		s, err := throughput(writers, sdbFn)
		if err != nil {
			return r, fmt.Errorf("pgstore: %w", err)
		}
		o, err := throughput(1, sdbFn)
		if err != nil {
			return r, fmt.Errorf("pgstore, one writer: %w", err)
		}
		ro, err := throughput(1, rawFn)
		if err != nil {
			return r, fmt.Errorf("baseline, one writer: %w", err)
		}
		q, err := throughput(writers, sqlFn)
		if err != nil {
			return r, fmt.Errorf("sqlstore: %w", err)
		}
		r.SDBRuns, r.BaseRuns = append(r.SDBRuns, s), append(r.BaseRuns, b)
		one, rawOne, sq = append(one, o), append(rawOne, ro), append(sq, q)
		e.logf("run %d: pgstore %.0f/s (1 writer %.0f/s), raw pgx %.0f/s, sqlstore %.0f/s", run+1, s, o, b, q)
	}
	scale := median(r.SDBRuns) / median(one)
	r.note("pgstore with 1 writer: %.0f appends/s; %d writers / 1 writer = %.2f× (target ≥ 4×: %s)",
		median(one), writers, scale, verdict(scale >= 4))
	r.note("raw pgx with 1 writer: %.0f appends/s; %d writers / 1 writer = %.2f× (the same statements: what this machine and server allow)",
		median(rawOne), writers, median(r.BaseRuns)/median(rawOne))
	r.note("side by side: sqlstore (DurabilityFull, group commit), %d writers: %.0f appends/s", writers, median(sq))
	r.extra("pgstore_one_writer_appends_per_s", median(one))
	r.extra("scaling_16_over_1", scale)
	r.extra("raw_one_writer_appends_per_s", median(rawOne))
	r.extra("sqlstore_appends_per_s", median(sq))
	return r, nil
}

// pgReadSetup fills one session of n messages in pgstore and sqlstore.
func pgReadSetup(ctx context.Context, pb *pgBench, n int) error {
	g := newGen(11)
	lines := g.lines(n, 400)
	for _, st := range []sessiondb.Store{pb.st, pb.sql} {
		if err := buildSession(ctx, st, "big", lines, 1000); err != nil {
			return err
		}
	}
	_, err := pb.pool.Exec(ctx, `ANALYZE`)
	return err
}

func runPGRead(ctx context.Context, e *env, name string, n, lastN, iters int, r *Result) (*Result, error) {
	pb, err := newPGBench(ctx, e, name)
	if err != nil {
		return noServer(r, err)
	}
	defer pb.drop()
	t := time.Now()
	if err := pgReadSetup(ctx, pb, n); err != nil {
		return r, err
	}
	r.Setup = time.Since(t).Seconds()
	e.logf("setup: %d messages in both stores in %s", n, fmtDur(r.Setup))
	want := n
	if lastN > 0 {
		want = lastN
	}
	check := func(got int, err error) error {
		if err == nil && got != want {
			err = fmt.Errorf("loaded %d entries, want %d", got, want)
		}
		return err
	}
	opts := sessiondb.LoadOptions{LastN: lastN}
	startMeasure()
	sq, err := paired(e, r, iters,
		func() error { es, err := pb.st.Load(ctx, "big", opts); return check(len(es), err) },
		func() error { es, err := rawLoadPG(ctx, pb.pool, "big", lastN); return check(len(es), err) },
		func() error { es, err := pb.sql.Load(ctx, "big", opts); return check(len(es), err) })
	if err != nil {
		return r, err
	}
	r.note("side by side: sqlstore median %s on the same data in the same run", fmtDur(sq))
	r.extra("sqlstore_median_s", sq)
	return r, nil
}

// runPGLoad: workload 12.
func runPGLoad(ctx context.Context, e *env) (*Result, error) {
	n := e.size(10000, 2000)
	r := &Result{Unit: "s",
		SDBDesc:  fmt.Sprintf("pgstore Store.Load of a %d-message session (~400 B each)", n),
		BaseDesc: "raw pgx: the same read transaction and statements, rows scanned into structs",
		TargetOp: "<=", Target: 1.5}
	return runPGRead(ctx, e, "pg-load", n, 0, e.size(20, 10), r)
}

// runPGTail: workload 13.
func runPGTail(ctx context.Context, e *env) (*Result, error) {
	n := e.size(100000, 20000)
	r := &Result{Unit: "s",
		SDBDesc:  fmt.Sprintf("pgstore Store.Load{LastN: 50} of a %d-message session", n),
		BaseDesc: "raw pgx: the same read transaction and statements",
		TargetOp: "<=", Target: 1.5}
	return runPGRead(ctx, e, "pg-tail", n, 50, e.size(200, 50), r)
}

// runPGList: workload 14.
func runPGList(ctx context.Context, e *env) (*Result, error) {
	n := e.size(10000, 2000)
	r := &Result{Unit: "s",
		SDBDesc:  fmt.Sprintf("pgstore Store.List{Limit: 100} of %d sessions (4 messages each)", n),
		BaseDesc: "raw pgx: the same read transaction and SELECT",
		TargetOp: "<=", Target: 1.5}
	pb, err := newPGBench(ctx, e, "pg-list")
	if err != nil {
		return noServer(r, err)
	}
	defer pb.drop()
	t := time.Now()
	g := newGen(13)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		at := base.Add(time.Duration(i*7919%n) * time.Second)
		sess := sessiondb.Session{Title: fmt.Sprintf("session %d", i), CreatedAt: at, UpdatedAt: at}
		c := sessiondb.Commit{Create: &sess, Append: entries(g.lines(4, 300)), Now: at}
		id := fmt.Sprintf("s%06d", i)
		for _, st := range []sessiondb.Store{pb.st, pb.sql} {
			if _, err := st.Commit(ctx, id, c); err != nil {
				return r, err
			}
		}
	}
	if _, err := pb.pool.Exec(ctx, `ANALYZE`); err != nil {
		return r, err
	}
	r.Setup = time.Since(t).Seconds()
	e.logf("setup: %d sessions in both stores in %s", n, fmtDur(r.Setup))
	check := func(got int, err error) error {
		if err == nil && got != 100 {
			err = fmt.Errorf("listed %d sessions, want 100", got)
		}
		return err
	}
	startMeasure()
	sq, err := paired(e, r, e.size(100, 30),
		func() error {
			l, _, err := pb.st.List(ctx, sessiondb.ListOptions{Limit: 100})
			return check(len(l), err)
		},
		func() error { return check(rawListPG(ctx, pb.pool, 100)) },
		func() error {
			l, _, err := pb.sql.List(ctx, sessiondb.ListOptions{Limit: 100})
			return check(len(l), err)
		})
	if err != nil {
		return r, err
	}
	r.note("side by side: sqlstore median %s on the same data in the same run", fmtDur(sq))
	r.extra("sqlstore_median_s", sq)
	return r, nil
}
