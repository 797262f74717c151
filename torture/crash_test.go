package torture

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// proc is one running worker incarnation.
type proc struct {
	inc  string
	cmd  *exec.Cmd
	done chan error
}

type driver struct {
	t       *testing.T
	dir     string
	db      string
	sample  string
	seed    uint64
	gor     int
	next    map[int]int // next incarnation number per worker
	procs   map[int]*proc
	deaths  map[string]int64
	started int
}

func (d *driver) start(w int) {
	d.t.Helper()
	d.next[w]++
	inc := fmt.Sprintf("w%d.%d", w, d.next[w])
	logf, err := os.Create(filepath.Join(d.dir, "worker-"+inc+".log"))
	if err != nil {
		d.t.Fatal(err)
	}
	cmd := exec.Command(childExe(d.t), "-test.run=^$")
	cmd.Env = append(os.Environ(),
		EnvRole+"=worker",
		envDB+"="+d.db,
		envOracle+"="+filepath.Join(d.dir, "oracle-"+inc+".jsonl"),
		envInc+"="+inc,
		fmt.Sprintf("%s=%d", envSeed, d.seed^uint64(w)<<32^uint64(d.next[w])),
		fmt.Sprintf("%s=%d", envGoroutines, d.gor),
		envSample+"="+d.sample,
		envImportDir+"="+filepath.Join(d.dir, "imports"),
		envDurability+"="+[]string{"full", "normal"}[(w+d.next[w])%2],
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	p := &proc{inc: inc, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); logf.Close() }()
	d.procs[w] = p
	d.started++
}

// kill SIGKILLs worker w and waits for it; a worker that died on its own
// is a failure.
func (d *driver) kill(w int) {
	d.t.Helper()
	p := d.procs[w]
	select {
	case err := <-p.done:
		delete(d.procs, w)
		d.deaths[p.inc] = time.Now().UnixNano()
		log, _ := os.ReadFile(filepath.Join(d.dir, "worker-"+p.inc+".log"))
		d.fail("worker %s exited by itself (%v):\n%s", p.inc, err, log)
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	d.deaths[p.inc] = time.Now().UnixNano()
	delete(d.procs, w)
}

func (d *driver) signalAll(sig syscall.Signal) {
	for _, p := range d.procs {
		_ = p.cmd.Process.Signal(sig)
	}
}

// stopAll stops every worker and waits until all their threads are
// stopped: kill(2) only queues SIGSTOP, and a worker still running while
// the checker reads would show writes its oracle log does not have yet.
func (d *driver) stopAll() {
	d.t.Helper()
	d.signalAll(syscall.SIGSTOP)
	for _, p := range d.procs {
		for i := 0; !stopped(p.cmd.Process.Pid); i++ {
			if i > 10000 {
				d.fail("worker %s does not stop", p.inc)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// stopped reports whether every thread of process pid is stopped (or the
// process is gone).
func stopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return true
	}
	for _, task := range tasks {
		data, err := os.ReadFile(task)
		if err != nil {
			continue // the thread exited
		}
		// The state follows the parenthesised command name.
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 || i+2 >= len(data) {
			return false
		}
		switch data[i+2] {
		case 'T', 't', 'Z', 'X':
		default:
			return false
		}
	}
	return true
}

func (d *driver) fail(format string, args ...any) {
	d.t.Helper()
	// Stopped workers die at SIGKILL without running: the database stays
	// as the checker saw it. Their deaths are recorded after the check, so
	// a recheck treats their in-flight ops as still running.
	alive := map[string]bool{}
	for w := range d.procs {
		p := d.procs[w]
		alive[p.inc] = true
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
	}
	d.procs = map[int]*proc{}
	deaths := map[string]int64{}
	for inc, t := range d.deaths {
		if !alive[inc] {
			deaths[inc] = t
		}
	}
	if data, err := json.Marshal(deaths); err == nil {
		_ = os.WriteFile(filepath.Join(d.dir, "deaths.json"), data, 0o644)
	}
	saved := saveEvidence(d.dir)
	d.t.Fatalf("%s\nseed %d — replay with: go test ./torture -run TestCrashWorkload -torture.seed=%d -torture.duration=%s -torture.workers=%d -v\nevidence (database, oracle logs, worker logs) saved in %s; check it again with: go test ./torture -run TestCrashWorkload -v -torture.recheck=%s",
		fmt.Sprintf(format, args...), d.seed, d.seed, duration(), workers(), saved, saved)
}

// referenceImport imports the sample into a private database and returns
// the transcript the importer produces, which every imported copy in the
// workload's database must equal.
func referenceImport(t *testing.T, sample string) [][]byte {
	t.Helper()
	dir := t.TempDir()
	for _, suffix := range []string{".jsonl", ".meta.json"} {
		data, err := os.ReadFile(filepath.Join(sample, sampleBase+suffix))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sampleBase+suffix), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store, err := sqlstore.Open(filepath.Join(t.TempDir(), "ref.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	rep, err := jsonlimport.Import(ctx, store, []string{dir}, jsonlimport.Options{Jobs: 1})
	if err != nil || rep.Sessions != 1 {
		t.Fatalf("reference import: %+v, %v", rep, err)
	}
	infos, _, err := store.List(ctx, sessiondb.ListOptions{})
	if err != nil || len(infos) != 1 {
		t.Fatalf("reference import: %d sessions, %v", len(infos), err)
	}
	es, err := store.Load(ctx, infos[0].ID, sessiondb.LoadOptions{})
	if err != nil || len(es) == 0 {
		t.Fatalf("reference import: %d entries, %v", len(es), err)
	}
	return entryBodies(es)
}

// workload is the outcome of runWorkload.
type workload struct {
	dir, db string
	deaths  map[string]int64
	ref     [][]byte
	stats   checkStats
	kills   int
	checks  int
	// busyChecks counts checks repeated because a stopped worker's WAL
	// locks kept a read from starting (ErrBusy).
	busyChecks int
	started    int
}

// maxBusyChecks bounds how often one check is repeated for ErrBusy before
// the errors count.
const maxBusyChecks = 5

// runWorkload runs nw worker processes for dur, SIGKILLing one at random
// moments and checking the database after every kill (the others stopped)
// and at the end (all dead). check=false skips the intermediate checks.
func runWorkload(t *testing.T, sd uint64, dur time.Duration, nw, gor int, check bool) *workload {
	t.Helper()
	sample, err := filepath.Abs(filepath.Join("..", "testdata", "picoclaw"))
	if err != nil {
		t.Fatal(err)
	}
	ref := referenceImport(t, sample)
	dir := t.TempDir()
	d := &driver{t: t, dir: dir, db: filepath.Join(dir, "sessions.db"), sample: sample, seed: sd, gor: gor,
		next: map[int]int{}, procs: map[int]*proc{}, deaths: map[string]int64{}}
	if err := os.MkdirAll(filepath.Join(dir, "imports"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, p := range d.procs {
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.done
		}
	})
	// Workers start together: the first Opens race to create and migrate.
	for w := 1; w <= nw; w++ {
		d.start(w)
	}
	rng := rand.New(rand.NewPCG(sd, 0xd1))
	deadline := time.Now().Add(dur)
	kills, checks, busyChecks := 0, 0, 0
	for time.Now().Before(deadline) {
		time.Sleep(time.Duration(150+rng.IntN(1200)) * time.Millisecond)
		w := 1 + rng.IntN(nw)
		d.kill(w)
		kills++
		if check {
			// The others are stopped (SIGSTOP) while the checker looks, so
			// that it sees one state of the database and of the logs.
			d.stopAll()
			st, errs := checkDatabase(d.db, dir, d.deaths, ref)
			for try := 1; len(errs) > 0 && st.Busy && try <= maxBusyChecks; try++ {
				// A stopped worker holds WAL locks the checker's read
				// needs (SQLITE_BUSY or SQLITE_PROTOCOL, as ErrBusy): let
				// the workers run on for a moment, then look again.
				busyChecks++
				d.signalAll(syscall.SIGCONT)
				time.Sleep(time.Duration(20*try) * time.Millisecond)
				d.stopAll()
				st, errs = checkDatabase(d.db, dir, d.deaths, ref)
			}
			checks++
			if len(errs) > 0 {
				// Fail before resuming: the evidence is what was checked.
				d.fail("check after kill %d (worker %d) found %d problems:\n  %s", kills, w, len(errs), strings.Join(errs, "\n  "))
			}
			d.signalAll(syscall.SIGCONT)
		}
		d.start(w)
	}
	for w := range d.procs {
		d.kill(w)
	}
	st, errs := checkDatabase(d.db, dir, d.deaths, ref)
	checks++
	if len(errs) > 0 {
		d.fail("final check found %d problems:\n  %s", len(errs), strings.Join(errs, "\n  "))
	}
	// The database is still writable after all this.
	store, err := sqlstore.Open(d.db, nil)
	if err != nil {
		d.fail("reopen for writing: %v", err)
	}
	if _, err := store.SaveFull(context.Background(), sessiondb.Session{ID: "after"}, []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"after"}`)}, nil); err != nil {
		d.fail("write after the workload: %v", err)
	}
	if err := store.Delete(context.Background(), "after"); err != nil {
		d.fail("delete after the workload: %v", err)
	}
	if err := store.Close(); err != nil {
		d.fail("close: %v", err)
	}
	if st.Acked == 0 || kills == 0 {
		d.fail("the workload did nothing (acked %d, kills %d)", st.Acked, kills)
	}
	return &workload{dir: dir, db: d.db, deaths: d.deaths, ref: ref, stats: st, kills: kills, checks: checks, busyChecks: busyChecks, started: d.started}
}

// TestCrashWorkload runs worker processes doing random operations on
// shared sessions of one database, SIGKILLs them at random moments and
// checks the database against their oracle logs after every kill and at
// the end. See the package documentation for the invariants.
func TestCrashWorkload(t *testing.T) {
	if *flagDuration == 0 && *flagSeed == 0 && *flagRecheck == "" {
		// Asked for by a flag (torture/ci.sh, a replay) it always runs.
		longtest.Skip(t, "kills worker processes for 20 s and checks the database after each kill")
	}
	t.Parallel()
	if *flagRecheck != "" {
		recheck(t, *flagRecheck)
		return
	}
	sd, dur, nw := seed(), duration(), workers()
	t.Logf("seed %d, duration %s, %d worker processes × %d goroutines", sd, dur, nw, goroutines())
	start := time.Now()
	w := runWorkload(t, sd, dur, nw, goroutines(), true)
	st := w.stats
	t.Logf("seed %d: %s, %d worker processes started, %d kills, %d checks; %d ops (%d acknowledged, %d failed as expected, %d in flight at a kill); %d sessions, %d log entries, %d imported sessions",
		sd, time.Since(start).Round(time.Second), w.started, w.kills, w.checks, st.Ops, st.Acked, st.Failed, st.Unknown, st.Sessions, st.Entries, st.Imported)
	if st.ImportRaces > 0 {
		t.Logf("%d imports lost the known create race (TestConcurrentImportsOfOneSession)", st.ImportRaces)
	}
	if st.OpenBusy > 0 {
		t.Logf("%d Opens failed with the known SQLITE_BUSY of concurrent first opens and were retried (TestConcurrentFirstOpen)", st.OpenBusy)
	}
	if w.busyChecks > 0 {
		t.Logf("%d checks met ErrBusy from the WAL locks of a stopped worker and were repeated after letting the workers run on", w.busyChecks)
	}
}

// recheck runs the checker again on the evidence a failed run saved (its
// database as checked, oracle logs and deaths.json), to debug a failure.
func recheck(t *testing.T, dir string) {
	sample, err := filepath.Abs(filepath.Join("..", "testdata", "picoclaw"))
	if err != nil {
		t.Fatal(err)
	}
	ref := referenceImport(t, sample)
	deaths := map[string]int64{}
	data, err := os.ReadFile(filepath.Join(dir, "deaths.json"))
	if err != nil {
		t.Fatalf("recheck: %v", err)
	}
	if err := json.Unmarshal(data, &deaths); err != nil {
		t.Fatalf("recheck: %v", err)
	}
	// Work on a copy: opening the database recovers its WAL.
	tmp := t.TempDir()
	for _, f := range []string{"sessions.db", "sessions.db-wal"} {
		if data, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			if err := os.WriteFile(filepath.Join(tmp, f), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	st, errs := checkDatabase(filepath.Join(tmp, "sessions.db"), dir, deaths, ref)
	t.Logf("recheck of %s: %+v", dir, st)
	if len(errs) > 0 {
		t.Fatalf("%d problems:\n  %s", len(errs), strings.Join(errs, "\n  "))
	}
}
