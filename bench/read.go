package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// readJSONL is the JSONL store's physical limit for loading a session:
// read the whole file, split it into lines, check each with json.Valid,
// and keep the lines (sub-slices of the file buffer: no copy, no decode).
// It returns the number of valid lines.
func readJSONL(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, bytes.Count(b, []byte{'\n'})+1)
	err = eachLine(b, func(line []byte) error {
		if !json.Valid(line) {
			return fmt.Errorf("%s: invalid line", path)
		}
		out = append(out, line)
		return nil
	})
	return out, err
}

// eachLine calls fn with every non-empty line of b (without its "\n"), as
// sub-slices of b, stopping at the first error.
func eachLine(b []byte, fn func(line []byte) error) error {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		var line []byte
		if i < 0 {
			line, b = b, nil
		} else {
			line, b = b[:i], b[i+1:]
		}
		if len(line) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	return nil
}

// buildSession creates session id holding lines, committing chunk entries
// per transaction (setup only).
func buildSession(ctx context.Context, st sessiondb.Store, id string, lines [][]byte, chunk int) error {
	if _, err := st.Create(ctx, sessiondb.Session{ID: id, Title: "benchmark " + id}); err != nil {
		return err
	}
	for i := 0; i < len(lines); i += chunk {
		if _, err := st.Append(ctx, id, entries(lines[i:min(i+chunk, len(lines))])...); err != nil {
			return err
		}
	}
	return nil
}

// loadVsJSONL measures Store.Load with opts against readJSONL of the same
// messages, sdbIters and baseIters times per run (medians per run).
func loadVsJSONL(ctx context.Context, e *env, r *Result, n int, opts sessiondb.LoadOptions, want, sdbIters, baseIters int) error {
	g := newGen(3)
	t := time.Now()
	lines := g.lines(n, 1000)
	st, err := openStore(e.path("load.db"), sqlstore.DurabilityNormal)
	if err != nil {
		return err
	}
	if err := buildSession(ctx, st, "big", lines, 2000); err != nil {
		st.Close()
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	jsonl := e.path("big.jsonl")
	size, err := writeJSONL(jsonl, lines)
	if err != nil {
		return err
	}
	lines = nil
	r.Setup = time.Since(t).Seconds()
	startMeasure()
	e.logf("setup: %d messages, %s of JSONL, in %s", n, fmtBytes(size), fmtDur(r.Setup))

	// Reads run on a store opened with the default options.
	st, err = sqlstore.Open(e.path("load.db"), nil)
	if err != nil {
		return err
	}
	defer st.Close()
	// Warm the page cache and both code paths once.
	if _, err := readJSONL(jsonl); err != nil {
		return err
	}
	if _, err := st.Load(ctx, "big", opts); err != nil {
		return err
	}
	baseCall := func() error {
		ls, err := readJSONL(jsonl)
		if err == nil && len(ls) != n {
			err = fmt.Errorf("JSONL read %d lines, want %d", len(ls), n)
		}
		return err
	}
	sdbCall := func() error {
		es, err := st.Load(ctx, "big", opts)
		if err == nil && len(es) != want {
			err = fmt.Errorf("Load returned %d entries, want %d", len(es), want)
		}
		return err
	}
	for run := 0; run < e.runs; run++ {
		var sdb, base []float64
		for i := 0; i < max(sdbIters, baseIters); i++ {
			if i < baseIters {
				d, err := timeIt(baseCall)
				if err != nil {
					return err
				}
				base = append(base, d)
			}
			if i < sdbIters {
				d, err := timeIt(sdbCall)
				if err != nil {
					return err
				}
				sdb = append(sdb, d)
			}
		}
		r.SDBRuns, r.BaseRuns = append(r.SDBRuns, median(sdb)), append(r.BaseRuns, median(base))
		e.logf("run %d: sessiondb %s, JSONL %s", run+1, fmtDur(median(sdb)), fmtDur(median(base)))
	}
	r.note("%d messages of ~1 KB (mean), JSONL file %s; page cache warm for both", n, fmtBytes(size))
	// Peak memory of one call of each, apart from the timed runs (VmHWM
	// reset before each, after returning freed memory to the OS).
	sdbPeak, err := phasePeak(sdbCall)
	if err != nil {
		return err
	}
	basePeak, err := phasePeak(baseCall)
	if err != nil {
		return err
	}
	r.note("peak RSS during one call (VmHWM reset before each): sessiondb %s, JSONL read %s", fmtBytes(sdbPeak), fmtBytes(basePeak))
	r.extra("sessiondb_call_peak_rss_bytes", float64(sdbPeak))
	r.extra("baseline_call_peak_rss_bytes", float64(basePeak))
	// Side figure: List on this database, whose one session is long. The
	// counts are kept in the session row, so List reads them (until schema
	// version 8 it counted each listed session's log rows).
	var ls []float64
	for i := 0; i < 5; i++ {
		d, err := timeIt(func() error {
			_, _, err := st.List(ctx, sessiondb.ListOptions{Limit: 100})
			return err
		})
		if err != nil {
			return err
		}
		ls = append(ls, d)
	}
	r.note("side figure: Store.List{Limit: 100} on this database (1 session of %d entries) takes %s (median of 5): the counts are kept, not counted", n, fmtDur(median(ls)))
	r.extra("list_one_long_session_s", median(ls))
	return nil
}

// runLoad: workload 3.
func runLoad(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Unit: "s",
		SDBDesc:  "Store.Load of the whole transcript ([]Entry with bodies and times)",
		BaseDesc: "os.ReadFile of the JSONL + split lines + json.Valid each (lines kept as slices)",
		TargetOp: "<=", Target: 1.5}
	n := e.size(10000, 2000)
	err := loadVsJSONL(ctx, e, r, n, sessiondb.LoadOptions{}, n, 7, 7)
	return r, err
}

// runTail: workload 4.
func runTail(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Unit: "s", Speedup: true,
		SDBDesc:  "Store.Load with LastN: 50",
		BaseDesc: "the JSONL store's only way: read + split + json.Valid the whole file",
		TargetOp: ">=", Target: 100}
	n := e.size(100000, 20000)
	err := loadVsJSONL(ctx, e, r, n, sessiondb.LoadOptions{LastN: 50}, 50, 200, 3)
	return r, err
}

// runList: workload 5.
func runList(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Unit: "s", Speedup: true,
		SDBDesc:  "Store.List{Limit: 100} (newest UpdatedAt first, with message counts)",
		BaseDesc: "ReadDir + read and json.Unmarshal every .meta.json + sort by updated_at, keep 100",
		TargetOp: ">=", Target: 50}
	n := e.size(10000, 2000)
	t := time.Now()
	if err := buildSessions(ctx, e.path("list.db"), n, 4); err != nil {
		return r, err
	}
	metaDir := e.path("meta")
	if err := writeMetas(metaDir, n); err != nil {
		return r, err
	}
	r.Setup = time.Since(t).Seconds()
	startMeasure()
	e.logf("setup: %d sessions and %d meta files in %s", n, n, fmtDur(r.Setup))
	st, err := sqlstore.Open(e.path("list.db"), nil)
	if err != nil {
		return r, err
	}
	defer st.Close()
	list := func() error {
		got, _, err := st.List(ctx, sessiondb.ListOptions{Limit: 100})
		if err == nil && len(got) != 100 {
			err = fmt.Errorf("List returned %d sessions", len(got))
		}
		return err
	}
	scan := func() error {
		got, err := scanMetas(metaDir, 100)
		if err == nil && len(got) != 100 {
			err = fmt.Errorf("meta scan returned %d sessions", len(got))
		}
		return err
	}
	if err := firstErr(list(), scan()); err != nil { // warm up
		return r, err
	}
	for run := 0; run < e.runs; run++ {
		var sdb, base []float64
		for i := 0; i < 100; i++ {
			if i < 3 {
				d, err := timeIt(scan)
				if err != nil {
					return r, err
				}
				base = append(base, d)
			}
			d, err := timeIt(list)
			if err != nil {
				return r, err
			}
			sdb = append(sdb, d)
		}
		r.SDBRuns, r.BaseRuns = append(r.SDBRuns, median(sdb)), append(r.BaseRuns, median(base))
		e.logf("run %d: sessiondb %s, meta files %s", run+1, fmtDur(median(sdb)), fmtDur(median(base)))
	}
	r.note("%d sessions of 4 messages; picoclaw-format meta files; page cache warm for both", n)
	return r, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// buildSessions creates n sessions of msgs messages each, with distinct
// UpdatedAt times, in one store (setup only; DurabilityNormal). Sixteen
// goroutines create them, so that the store's group commit batches them.
func buildSessions(ctx context.Context, path string, n, msgs int) error {
	st, err := openStore(path, sqlstore.DurabilityNormal)
	if err != nil {
		return err
	}
	defer st.Close()
	g := newGen(5)
	times := rand.New(rand.NewPCG(5, 5))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type job struct {
		id    string
		at    time.Time
		lines [][]byte
	}
	jobs := make(chan job, 64)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				_, err := st.Commit(ctx, j.id, sessiondb.Commit{
					Create: &sessiondb.Session{ID: j.id, Title: "chat " + j.id, CreatedAt: j.at, UpdatedAt: j.at},
					Append: entries(j.lines),
					Now:    j.at,
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var ferr error
	for i := 0; i < n && ferr == nil; i++ {
		at := base.Add(time.Duration(times.IntN(1e6)) * time.Second)
		select {
		case jobs <- job{fmt.Sprintf("session-%06d", i), at, g.lines(msgs, 400)}:
		case ferr = <-errs:
		}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if ferr != nil {
		return ferr
	}
	return <-errs
}

// writeMetas writes n picoclaw .meta.json files (the same sessions).
func writeMetas(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	times := rand.New(rand.NewPCG(5, 5)) // the same times as buildSessions
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		at := base.Add(time.Duration(times.IntN(1e6)) * time.Second)
		key := fmt.Sprintf("agent:main:telegram:direct:user%06d", i)
		m := picoMeta{Key: key, Count: 4, CreatedAt: at, UpdatedAt: at,
			Scope:   json.RawMessage(`{"version":1,"agent_id":"main","channel":"telegram","account":"default"}`),
			Aliases: []string{fmt.Sprintf("telegram:user%06d", i)}}
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		name := strings.ReplaceAll(key, ":", "_") + ".meta.json"
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// scanMetas is how a JSONL store lists sessions (picoclaw's ListSessions
// and its web backend): read every meta file, decode it, sort.
func scanMetas(dir string, limit int) ([]picoMeta, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]picoMeta, 0, len(des))
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".meta.json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			return nil, err
		}
		var m picoMeta
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b picoMeta) int { return b.UpdatedAt.Compare(a.UpdatedAt) })
	return out[:min(limit, len(out))], nil
}

// runOpen: workload 8.
func runOpen(ctx context.Context, e *env) (*Result, error) {
	r := &Result{Unit: "s",
		SDBDesc:  "sqlstore.Open (default options: pragmas, WAL check, schema version and schema check) + Get + Load of one 8-message session",
		BaseDesc: "sql.Open of the same file (modernc.org/sqlite) + one SELECT of that session's bodies",
		TargetOp: "", Target: 0}
	n := e.size(10000, 2000)
	t := time.Now()
	path := e.path("open.db")
	if err := buildSessions(ctx, path, n, 8); err != nil {
		return r, err
	}
	r.Setup = time.Since(t).Seconds()
	startMeasure()
	e.logf("setup: %d sessions in %s", n, fmtDur(r.Setup))
	rng := rand.New(rand.NewPCG(8, 8))
	sdbOnce := func(id string) (float64, error) {
		t := time.Now()
		st, err := sqlstore.Open(path, nil)
		if err != nil {
			return 0, err
		}
		defer st.Close()
		if _, err := st.Get(ctx, id); err != nil {
			return 0, err
		}
		es, err := st.Load(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			return 0, err
		}
		d := time.Since(t).Seconds()
		if len(es) != 8 {
			return 0, fmt.Errorf("Load returned %d entries", len(es))
		}
		return d, nil
	}
	baseOnce := func(id string) (float64, error) {
		t := time.Now()
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			return 0, err
		}
		defer db.Close()
		rows, err := db.QueryContext(ctx, `SELECT body FROM entries WHERE session_id = ? ORDER BY seq`, id)
		if err != nil {
			return 0, err
		}
		k := 0
		for rows.Next() {
			var b []byte
			if err := rows.Scan(&b); err != nil {
				rows.Close()
				return 0, err
			}
			k++
		}
		rows.Close()
		d := time.Since(t).Seconds()
		if k != 8 {
			return 0, fmt.Errorf("query returned %d rows", k)
		}
		return d, rows.Err()
	}
	if _, err := sdbOnce("session-000000"); err != nil {
		return r, err
	}
	for run := 0; run < e.runs; run++ {
		var sdb, base []float64
		for i := 0; i < 20; i++ {
			id := fmt.Sprintf("session-%06d", rng.IntN(n))
			b, err := baseOnce(id)
			if err != nil {
				return r, err
			}
			s, err := sdbOnce(id)
			if err != nil {
				return r, err
			}
			sdb, base = append(sdb, s), append(base, b)
		}
		r.SDBRuns, r.BaseRuns = append(r.SDBRuns, median(sdb)), append(r.BaseRuns, median(base))
		e.logf("run %d: sessiondb %s, raw %s", run+1, fmtDur(median(sdb)), fmtDur(median(base)))
	}
	r.note("%d sessions of 8 messages; 20 open+read cycles per run, a random session each; page cache warm (process-level cold start, not a cold disk)", n)
	return r, nil
}
