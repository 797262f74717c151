package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// Result is what one workload reports.
type Result struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Title string `json:"title"`
	Runs  int    `json:"runs"`
	// Unit of SDB and Base: "s" (a time, lower is better) or a rate such as
	// "appends/s" or "MB/s" (higher is better).
	Unit     string    `json:"unit"`
	SDB      float64   `json:"sessiondb"`
	Base     float64   `json:"baseline"`
	SDBRuns  []float64 `json:"sessiondb_runs"`
	BaseRuns []float64 `json:"baseline_runs"`
	SDBDesc  string    `json:"sessiondb_what"`
	BaseDesc string    `json:"baseline_what"`
	// Ratio is SDB/Base, or Base/SDB when Speedup (the "N× faster"
	// targets): the median of the per-run ratios, each run measuring both
	// sides back to back (a paired measurement, so that a disturbance that
	// slows one run slows both sides). RatioOfMedians is the ratio of the
	// two medians, for reference.
	Speedup        bool      `json:"speedup"`
	Ratio          float64   `json:"ratio"`
	RatioRuns      []float64 `json:"ratio_runs"`
	RatioOfMedians float64   `json:"ratio_of_medians"`
	TargetOp       string    `json:"target_op,omitempty"` // "<=", ">=" or "" (no target)
	Target         float64   `json:"target,omitempty"`
	Met            string    `json:"met"` // "yes", "NO", "-"
	// Notes are extra figures (percentiles, sizes, labelled variants).
	Notes   []string           `json:"notes,omitempty"`
	Extra   map[string]float64 `json:"extra,omitempty"`
	PeakRSS int64              `json:"peak_rss_bytes"` // VmHWM of the process that ran the workload, setup included
	// MeasurePeakRSS is the peak RSS during the measurement phase only
	// (VmHWM reset after the setup).
	MeasurePeakRSS int64   `json:"measure_peak_rss_bytes"`
	Setup          float64 `json:"setup_seconds"`
	Total          float64 `json:"total_seconds"`
	Err            string  `json:"error,omitempty"`
}

func (r *Result) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

func (r *Result) extra(k string, v float64) {
	if r.Extra == nil {
		r.Extra = map[string]float64{}
	}
	r.Extra[k] = v
}

// finish computes medians, the ratio and the verdict.
func (r *Result) finish() {
	r.SDB, r.Base = median(r.SDBRuns), median(r.BaseRuns)
	r.Runs = max(len(r.SDBRuns), len(r.BaseRuns))
	ratio := func(sdb, base float64) float64 {
		switch {
		case sdb == 0 || base == 0:
			return 0
		case r.Speedup:
			return base / sdb
		default:
			return sdb / base
		}
	}
	r.RatioRuns = nil
	if len(r.SDBRuns) == len(r.BaseRuns) {
		for i := range r.SDBRuns {
			r.RatioRuns = append(r.RatioRuns, ratio(r.SDBRuns[i], r.BaseRuns[i]))
		}
	}
	r.RatioOfMedians = ratio(r.SDB, r.Base)
	r.Ratio = r.RatioOfMedians
	if len(r.RatioRuns) > 0 {
		r.Ratio = median(r.RatioRuns)
	}
	r.Met = "-"
	switch r.TargetOp {
	case "<=":
		r.Met = verdict(r.Ratio <= r.Target)
	case ">=":
		r.Met = verdict(r.Ratio >= r.Target)
	}
}

func verdict(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

// env is what a workload gets: a private directory on the benchmark disk,
// the number of runs and the size mode.
type env struct {
	dir   string
	runs  int
	quick bool
	log   io.Writer
}

func (e *env) path(name string) string { return filepath.Join(e.dir, name) }

func (e *env) logf(format string, args ...any) {
	fmt.Fprintf(e.log, "  "+format+"\n", args...)
}

// size picks the full or the quick size.
func (e *env) size(full, quick int) int {
	if e.quick {
		return quick
	}
	return full
}

type workload struct {
	id    int
	name  string
	title string
	run   func(ctx context.Context, e *env) (*Result, error)
}

var workloads = []workload{
	{1, "append", "Durable append, 1 KB/txn, 1 writer (latency)", runAppend},
	{2, "concurrent", "Concurrent durable appends, 16 writers (throughput)", runConcurrent},
	{3, "load", "Load a whole 10,000-message session", runLoad},
	{4, "tail", "Load the last 50 of a 100,000-message session", runTail},
	{5, "list", "List the 100 newest of 10,000 sessions", runList},
	{6, "import", "Bulk import of a >= 50 MB picoclaw archive (throughput)", runImport},
	{7, "search", "Search over 1,000,000 entries", runSearch},
	{8, "open", "Open a 10,000-session database and read one session", runOpen},
	{9, "prune", "Truncate to 50 and prune a 10,000-message session", runPrune},
	// PostgreSQL (pg.go): pgstore against raw pgx, sqlstore beside them.
	{10, "pg-append", "PostgreSQL: append, 1 KB/txn, 1 writer (latency)", runPGAppend},
	{11, "pg-concurrent", "PostgreSQL: concurrent appends, 16 writers (throughput)", runPGConcurrent},
	{12, "pg-load", "PostgreSQL: load a whole 10,000-message session", runPGLoad},
	{13, "pg-tail", "PostgreSQL: load the last 50 of a 100,000-message session", runPGTail},
	{14, "pg-list", "PostgreSQL: list the 100 newest of 10,000 sessions", runPGList},
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run() error {
	quick := flag.Bool("quick", false, "smaller sizes and 3 runs (for CI)")
	runs := flag.Int("runs", 0, "runs per workload (default 5, 3 with -quick)")
	dir := flag.String("dir", os.TempDir(), "directory on the disk to benchmark (a temporary subdirectory is used and removed)")
	only := flag.String("only", "", "comma-separated workloads to run, by number or name (default all)")
	asJSON := flag.Bool("json", false, "print the results as JSON on stdout")
	inproc := flag.Bool("inproc", false, "run every workload in this process (peak RSS is then cumulative)")
	keep := flag.Bool("keep", false, "keep the benchmark directory")
	child := flag.String("child", "", "internal: run one workload and print its Result as JSON")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the workloads to this file (implies -inproc)")
	listQueries := flag.Bool("queries", false, "print the search workload's queries and exit")
	archive := flag.Int("archive", 0, "the archive workload (issue 42, archive.go) at about this many messages (4700000: cass's published size), instead of the workloads")
	searches := flag.Int("searches", 21, "with -archive: cold search processes per query")
	reimportOnly := flag.Bool("archive-reimport", false, "with -archive: stop after the import and the two re-imports (no-op, 1 % grown)")
	archiveProfile := flag.String("archive-profile", "", "with -archive: write CPU profiles of the import, the no-op and the grown re-import (sessionctl's SESSIONDB_CPUPROFILE) into this directory")
	archiveProjects := flag.Int("archive-projects", 200, "with -archive: the project folders the sessions are spread over (200 at full size, 125 Claude Code transcripts a folder; fewer keeps that at a smaller size)")
	archivePG := flag.Bool("archive-pg", false, "with -archive: also copy the archive into a new PostgreSQL database (SESSIONDB_BENCH_POSTGRES, or the local server) and search it there")
	flag.Parse()
	if *archive > 0 {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		base, err := os.MkdirTemp(*dir, "sessiondb-archive-")
		if err != nil {
			return err
		}
		if !*keep {
			defer os.RemoveAll(base)
		}
		pg := ""
		if *archivePG {
			pg = pgServerURL()
		}
		return runArchive(ctx, base, *archive, *searches, pg, archiveOpts{reimportOnly: *reimportOnly, profiles: *archiveProfile, projects: *archiveProjects})
	}
	if *listQueries {
		for _, q := range searchQueries() {
			fmt.Printf("%-28s %s\n", q.label, q.query)
		}
		return nil
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
		*inproc = true
	}
	if *runs <= 0 {
		*runs = 5
		if *quick {
			*runs = 3
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *child != "" {
		w, ok := lookup(*child)
		if !ok {
			return fmt.Errorf("unknown workload %q", *child)
		}
		r := runOne(ctx, w, &env{dir: *dir, runs: *runs, quick: *quick, log: os.Stderr})
		return json.NewEncoder(os.Stdout).Encode(r)
	}

	selected, err := selectWorkloads(*only)
	if err != nil {
		return err
	}
	base, err := os.MkdirTemp(*dir, "sessiondb-bench-")
	if err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(base)
	}
	m := machine(base)
	mode := "full"
	if *quick {
		mode = "quick"
	}
	fmt.Fprintf(os.Stderr, "sessiondb bench (%s mode, %d runs) in %s\nmachine: %s\n", mode, *runs, base, m)
	start := time.Now()
	var results []*Result
	for _, w := range selected {
		wdir := filepath.Join(base, fmt.Sprintf("%d-%s", w.id, w.name))
		if err := os.MkdirAll(wdir, 0o700); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "[%d] %s\n", w.id, w.title)
		var r *Result
		if *inproc {
			r = runOne(ctx, w, &env{dir: wdir, runs: *runs, quick: *quick, log: os.Stderr})
		} else {
			r = runChild(ctx, w, wdir, *runs, *quick)
		}
		results = append(results, r)
		if !*asJSON {
			printOne(os.Stderr, r)
		}
		if !*keep {
			os.RemoveAll(wdir)
		}
		if ctx.Err() != nil {
			break
		}
	}
	total := time.Since(start)
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		err := enc.Encode(struct {
			Machine  string    `json:"machine"`
			Mode     string    `json:"mode"`
			Runs     int       `json:"runs"`
			Seconds  float64   `json:"seconds"`
			PeakRSS  int64     `json:"parent_peak_rss_bytes"`
			InProc   bool      `json:"inproc"`
			Results  []*Result `json:"results"`
			Finished time.Time `json:"finished"`
		}{m, mode, *runs, total.Seconds(), peakRSS(), *inproc, results, time.Now().UTC()})
		if err != nil {
			return err
		}
		return failures(results)
	}
	fmt.Printf("\nsessiondb bench: %s mode, %d runs, %s\nmachine: %s\nvalues: medians of the runs; ratio: median of the per-run (paired) ratios\n\n", mode, *runs, total.Round(time.Second), m)
	if *quick {
		fmt.Println("quick mode: reduced sizes (2,000 and 20,000 messages, 2,000 sessions, a 10 MiB archive,")
		fmt.Println("50,000 search entries), a smoke test; the targets are for the full sizes.")
		fmt.Println()
	}
	printTable(os.Stdout, results, *inproc)
	return failures(results)
}

// failures is an error when a workload could not run (a figure that misses
// its target is not a failure).
func failures(results []*Result) error {
	var failed []string
	for _, r := range results {
		if r.Err != "" {
			failed = append(failed, r.Name)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("workloads failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

func lookup(name string) (workload, bool) {
	for _, w := range workloads {
		if w.name == name || strconv.Itoa(w.id) == name {
			return w, true
		}
	}
	return workload{}, false
}

func selectWorkloads(only string) ([]workload, error) {
	if only == "" {
		return workloads, nil
	}
	var out []workload
	for _, name := range strings.Split(only, ",") {
		w, ok := lookup(strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("unknown workload %q (want 1-13 or one of append, concurrent, load, tail, list, import, search, open, pg-append, pg-concurrent, pg-load, pg-tail, pg-list)", name)
		}
		out = append(out, w)
	}
	return out, nil
}

// runOne runs a workload in this process.
func runOne(ctx context.Context, w workload, e *env) *Result {
	start := time.Now()
	r, err := w.run(ctx, e)
	if r == nil {
		r = &Result{}
	}
	r.ID, r.Name, r.Title = w.id, w.name, w.title
	if err != nil {
		r.Err = err.Error()
	}
	r.finish()
	r.PeakRSS, r.MeasurePeakRSS = processPeak(), measurementPeak()
	r.Total = time.Since(start).Seconds()
	return r
}

// runChild runs a workload in a child process of this binary, so that its
// peak RSS (VmHWM) is its own and its heap starts empty.
func runChild(ctx context.Context, w workload, dir string, runs int, quick bool) *Result {
	exe, err := os.Executable()
	if err != nil {
		return &Result{ID: w.id, Name: w.name, Title: w.title, Err: err.Error(), Met: "-"}
	}
	args := []string{"-child", w.name, "-dir", dir, "-runs", strconv.Itoa(runs)}
	if quick {
		args = append(args, "-quick")
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	err = cmd.Run()
	var r Result
	if jerr := json.Unmarshal(out.Bytes(), &r); jerr != nil {
		msg := fmt.Sprintf("child failed: %v", errors.Join(err, jerr))
		return &Result{ID: w.id, Name: w.name, Title: w.title, Err: msg, Met: "-"}
	}
	return &r
}

// machine describes the host and the benchmark disk.
func machine(dir string) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := "unknown kernel"
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%d CPUs (%s), %s, %s, %s; disk: %s (%s)",
		runtime.NumCPU(), cpu, kernel, runtime.Version(), runtime.GOARCH, dir, fsType(dir))
}

func fsType(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "unknown fs"
	}
	switch uint64(st.Type) {
	case 0xEF53:
		return "ext4"
	case 0x58465342:
		return "xfs"
	case 0x9123683E:
		return "btrfs"
	case 0x01021994:
		return "tmpfs (RAM: fsync is free, figures are meaningless for durability)"
	case 0x794c7630:
		return "overlayfs"
	case 0x2FC12FC1:
		return "zfs"
	default:
		return fmt.Sprintf("fs magic %#x", uint64(st.Type))
	}
}

// value formats a median in the result's unit.
func value(r *Result, v float64) string {
	if r.Unit == "s" {
		return fmtDur(v)
	}
	return fmtRate(v, r.Unit)
}

func ratioDef(r *Result) string {
	if r.Speedup {
		return "baseline/sessiondb"
	}
	return "sessiondb/baseline"
}

func targetStr(r *Result) string {
	if r.TargetOp == "" {
		return "none set"
	}
	return fmt.Sprintf("%s %g×", strings.Replace(strings.Replace(r.TargetOp, "<=", "≤", 1), ">=", "≥", 1), r.Target)
}

func printOne(w io.Writer, r *Result) {
	if r.Err != "" {
		fmt.Fprintf(w, "  ERROR: %s\n", r.Err)
	}
	fmt.Fprintf(w, "  sessiondb %s (%s)\n  baseline  %s (%s)\n  ratio %s× (%s), target %s: %s; peak RSS %s measuring, %s with setup; %s total\n",
		value(r, r.SDB), r.SDBDesc, value(r, r.Base), r.BaseDesc, fmtRatio(r.Ratio), ratioDef(r), targetStr(r), r.Met,
		fmtBytes(r.MeasurePeakRSS), fmtBytes(r.PeakRSS), fmtDur(r.Total))
	fmt.Fprintf(w, "    per-run ratios %s; ratio of the medians %s×\n", fmtRatios(r.RatioRuns), fmtRatio(r.RatioOfMedians))
	for _, n := range r.Notes {
		fmt.Fprintf(w, "    %s\n", n)
	}
}

func fmtRatios(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmtRatio(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// fmtRatio prints a ratio with 3 significant digits (0.0123, 1.23, 123).
func fmtRatio(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	default:
		return fmt.Sprintf("%.3g", x)
	}
}

func printTable(w io.Writer, results []*Result, inproc bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tworkload\tsessiondb\tbaseline\tratio\tdefinition\ttarget\tmet\tpeak RSS (measuring / with setup)")
	for _, r := range results {
		if r.Err != "" {
			fmt.Fprintf(tw, "%d\t%s\tERROR: %s\t\t\t\t\t\t\n", r.ID, r.Name, r.Err)
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s×\t%s\t%s\t%s\t%s / %s\n", r.ID, r.Name, value(r, r.SDB), value(r, r.Base),
			fmtRatio(r.Ratio), ratioDef(r), targetStr(r), r.Met, fmtBytes(r.MeasurePeakRSS), fmtBytes(r.PeakRSS))
	}
	tw.Flush()
	if inproc {
		fmt.Fprintln(w, "\npeak RSS: VmHWM of this process (-inproc: the figure with setup is cumulative over the workloads before).")
	} else {
		fmt.Fprintln(w, "\npeak RSS: VmHWM of the child process that ran the workload; \"measuring\" is reset after the setup.")
	}
	fmt.Fprintln(w, "\nnotes:")
	for _, r := range results {
		if len(r.Notes) == 0 {
			continue
		}
		fmt.Fprintf(w, "[%d] %s\n", r.ID, r.Title)
		fmt.Fprintf(w, "    sessiondb: %s\n    baseline:  %s\n", r.SDBDesc, r.BaseDesc)
		fmt.Fprintf(w, "    per-run ratios %s; ratio of the medians %s×\n", fmtRatios(r.RatioRuns), fmtRatio(r.RatioOfMedians))
		for _, n := range r.Notes {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
}
