package torture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/internal/pgtest"
	"github.com/sessiondb/sessiondb/internal/sessionview"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/pgstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestWatchFaults is the fault case of issue 24: while the test grows the
// session files of all six formats (chunk by chunk at random cut points,
// half lines included; side files written whole by rename at random
// times), on one database
//
//   - two `sessionctl watch` processes follow the tree,
//   - a manual `sessionctl import` of the tree runs again and again (for
//     the first two thirds of the run: the watchers alone must finish),
//   - a third watcher is SIGKILLed at random points and restarted,
//
// and at the end, once they have caught up and been stopped with SIGTERM
// (each must exit 0 after an EventStopped), the database must hold exactly
// what one import of the final files gives: logs byte for byte, usage
// totals, effective transcripts, state, interrupt, titles and forks. It
// runs on SQLite and, when a server is reachable, on PostgreSQL.
func TestWatchFaults(t *testing.T) {
	longtest.Skip(t, "builds sessionctl and runs watcher processes for a while")
	bin := buildSessionctlBinary(t)
	t.Run("sqlite", func(t *testing.T) {
		runWatchFaults(t, bin, filepath.Join(t.TempDir(), "sessions.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		runWatchFaults(t, bin, pgtest.URL(t, "torture_watch_"))
	})
}

// watchDuration is how long the files grow (TORTURE_WATCH_DURATION,
// default 6 s per backend; a soak: TORTURE_WATCH_DURATION=5m).
func watchDuration() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("TORTURE_WATCH_DURATION")); err == nil && d > 0 {
		return d
	}
	return 6 * time.Second
}

// growth is one file of the final tree and how it is written.
type growth struct {
	rel    string // path below the tree
	format string
	data   []byte
	side   bool    // a side file: written whole, by rename
	cuts   []int   // growing files: the byte offsets written up to, in order
	at     []int64 // when each cut (or the side file) is written, ns after the start
	torn   int     // cuts that end inside a line
}

// watchTree copies the samples of the six formats into dir in their
// agents' layouts and returns them as files to grow.
func watchTree(t *testing.T) []*growth {
	t.Helper()
	td := filepath.Join("..", "testdata")
	var out []*growth
	add := func(src, rel, format string, side bool) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &growth{rel: rel, format: format, data: data, side: side})
	}
	walk := func(srcRoot, dstRoot, format string, side func(rel string) bool) {
		err := filepath.WalkDir(srcRoot, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(srcRoot, p)
			add(p, filepath.Join(dstRoot, rel), format, side(rel))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	walk(filepath.Join(td, "claudecode", "projects"), "claude/projects", jsonlimport.FormatClaudeCode, func(rel string) bool {
		return strings.Contains(rel, "tool-results")
	})
	walk(filepath.Join(td, "codex", "codex-home"), "codex", jsonlimport.FormatCodex, func(rel string) bool {
		return rel == "session_index.jsonl"
	})
	// (Not damaged.jsonl: a copy of linear.jsonl with the same session
	// ID. Two files of one ID get it in the order they are first imported,
	// which a watcher cannot make the one of a single import.)
	for _, name := range []string{"linear", "branched", "compaction", "compaction-branch"} {
		add(filepath.Join(td, "pi", "sessions", name+".jsonl"), filepath.Join("pi", "sessions", "--home-dev-proj--", name+".jsonl"), jsonlimport.FormatPi, false)
	}
	walk(filepath.Join(td, "zot", "zot_home", "sessions"), "zot/sessions", jsonlimport.FormatZot, func(string) bool { return false })
	pico, err := filepath.Glob(filepath.Join(td, "samples", "picoclaw", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pico)
	for _, p := range pico[:6] {
		base := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		add(p, filepath.Join("picoclaw", base+".jsonl"), jsonlimport.FormatPicoclaw, false)
		if _, err := os.Stat(strings.TrimSuffix(p, ".jsonl") + ".meta.json"); err == nil {
			add(strings.TrimSuffix(p, ".jsonl")+".meta.json", filepath.Join("picoclaw", base+".meta.json"), jsonlimport.FormatPicoclaw, true)
		}
	}
	walk(filepath.Join(td, "samples", "swink"), "swink", jsonlimport.FormatSwink, func(rel string) bool {
		return !strings.HasSuffix(rel, ".jsonl")
	})
	return out
}

// plan chooses the cut points and times of every file. A growing file is
// cut at 2–8 random points, a third of them inside a line; its side files
// come after its first chunk (picoclaw writes the .meta.json right after
// the line it fsynced), except Claude Code's tool-results files, which
// come just before the chunk holding the line that names them: Claude Code
// writes an oversized tool output to tool-results/<tool_use id>.txt, then
// the tool_result line pointing at it. (A tool-results file written after
// its line was imported would land after the lines imported by then: a
// side file has no place in a log that grows without it.)
func plan(files []*growth, rng *mrand.Rand, d time.Duration) {
	first := map[string]int64{}
	byRel := map[string]*growth{}
	for _, g := range files {
		if g.side {
			continue
		}
		n := 2 + rng.IntN(7)
		ls := bytes.SplitAfter(g.data, []byte("\n"))
		set := map[int]bool{len(g.data): true}
		for range n {
			i := rng.IntN(len(ls))
			off := 0
			for _, l := range ls[:i] {
				off += len(l)
			}
			if rng.IntN(3) == 0 && len(ls[i]) > 4 {
				off += 1 + rng.IntN(len(ls[i])-2)
			}
			if off > 0 {
				set[off] = true
			}
		}
		for c := range set {
			g.cuts = append(g.cuts, c)
		}
		sort.Ints(g.cuts)
		for _, c := range g.cuts {
			if c > 0 && g.data[c-1] != '\n' && c != len(g.data) {
				g.torn++
			}
			g.at = append(g.at, rng.Int64N(int64(d)))
		}
		sort.Slice(g.at, func(i, j int) bool { return g.at[i] < g.at[j] })
		first[strings.TrimSuffix(g.rel, ".jsonl")] = g.at[0]
		byRel[g.rel] = g
	}
	for _, g := range files {
		if !g.side {
			continue
		}
		at := rng.Int64N(int64(d))
		if strings.HasSuffix(g.rel, ".meta.json") {
			at = first[strings.TrimSuffix(g.rel, ".meta.json")] + int64(time.Millisecond)
		}
		if dir, name, ok := strings.Cut(g.rel, string(filepath.Separator)+"tool-results"+string(filepath.Separator)); ok {
			if owner := byRel[dir+".jsonl"]; owner != nil {
				stem := strings.TrimSuffix(name, filepath.Ext(name))
				if off := bytes.Index(owner.data, []byte(`"`+stem+`"`)); off >= 0 {
					i := sort.SearchInts(owner.cuts, off+1)
					at = max(owner.at[min(i, len(owner.at)-1)]-int64(time.Millisecond), 0)
				}
			}
		}
		g.at = []int64{at}
	}
}

// writeAll performs the plan under dir: every file's chunks in time order.
func writeAll(t *testing.T, dir string, files []*growth) {
	type action struct {
		at int64
		g  *growth
		i  int
	}
	var acts []action
	for _, g := range files {
		for i, at := range g.at {
			acts = append(acts, action{at, g, i})
		}
	}
	sort.SliceStable(acts, func(i, j int) bool { return acts[i].at < acts[j].at })
	start := time.Now()
	for _, a := range acts {
		if d := time.Duration(a.at) - time.Since(start); d > 0 {
			time.Sleep(d)
		}
		p := filepath.Join(dir, a.g.rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Error(err)
			return
		}
		if a.g.side {
			tmp := filepath.Join(filepath.Dir(p), ".tmp-"+filepath.Base(p))
			if err := os.WriteFile(tmp, a.g.data, 0o644); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmp, p); err != nil {
				t.Error(err)
				return
			}
			continue
		}
		from := 0
		if a.i > 0 {
			from = a.g.cuts[a.i-1]
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Error(err)
			return
		}
		_, err = f.Write(a.g.data[from:a.g.cuts[a.i]])
		f.Close()
		if err != nil {
			t.Error(err)
			return
		}
	}
}

// watcherProc is one `sessionctl watch` child.
type watcherProc struct {
	cmd *exec.Cmd
	out *bytes.Buffer
	mu  *sync.Mutex
}

func startWatcher(t *testing.T, bin, db, dir string) *watcherProc {
	t.Helper()
	w := &watcherProc{out: &bytes.Buffer{}, mu: &sync.Mutex{}}
	w.cmd = exec.Command(bin, "--db", db, "watch", "--json", dir)
	w.cmd.Stdout = lockedWriter{w.mu, w.out}
	w.cmd.Stderr = lockedWriter{w.mu, w.out}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (w *watcherProc) output() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

// stop sends SIGTERM, checks that the watcher stopped cleanly and returns
// the number of files it imported (import events).
func (w *watcherProc) stop(t *testing.T, name string) (imports int) {
	t.Helper()
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	err := w.cmd.Wait()
	out := w.output()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if err != nil || !strings.Contains(last, `"event":"stopped"`) {
		t.Errorf("%s: SIGTERM: exit %v, last line %q", name, err, last)
	}
	for _, l := range lines {
		var e struct {
			Event   string `json:"event"`
			Message string `json:"message"`
		}
		if json.Unmarshal([]byte(l), &e) != nil {
			t.Errorf("%s: not a JSON line: %q", name, l)
			continue
		}
		switch e.Event {
		case "error":
			t.Errorf("%s: %s", name, l)
		case "import":
			imports++
		}
	}
	return imports
}

// watchMachine is the machine identity every sessionctl process of
// TestWatchFaults runs under (SESSIONDB_MACHINE): import records are kept
// per machine and path, so waitCaughtUp looks them up under it.
const watchMachine = "torture-watch"

func runWatchFaults(t *testing.T, bin, db string) {
	t.Setenv("SESSIONDB_MACHINE", watchMachine)
	seed := seed()
	rng := mrand.New(mrand.NewPCG(seed, 24))
	t.Logf("seed %d (replay: go test ./torture -run 'TestWatchFaults' -v -torture.seed=%d)", seed, seed)
	dur := watchDuration()
	dir := filepath.Join(t.TempDir(), "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(t.TempDir(), "final")
	files := watchTree(t)
	plan(files, rng, dur)
	for _, g := range files {
		p := filepath.Join(final, g.rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, g.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The database exists (and is migrated) before the processes race.
	// (Importing an empty directory is a problem, exit 3, and creates it.)
	if out, err := exec.Command(bin, "--db", db, "import", t.TempDir()).CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Fatalf("create the database: %v\n%s", err, out)
		}
	}
	w1 := startWatcher(t, bin, db, dir)
	w2 := startWatcher(t, bin, db, dir)
	var killed atomic.Int64
	k := startWatcher(t, bin, db, dir)
	stopKiller := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		krng := mrand.New(mrand.NewPCG(seed, 2))
		for {
			select {
			case <-stopKiller:
				return
			case <-time.After(time.Duration(100+krng.IntN(600)) * time.Millisecond):
			}
			_ = k.cmd.Process.Signal(syscall.SIGKILL)
			_ = k.cmd.Wait()
			killed.Add(1)
			k = startWatcher(t, bin, db, dir)
		}
	}()
	var imports atomic.Int64
	var importFailures []string
	// The manual imports stop after two thirds of the run, so that the
	// watchers alone bring the database to the final files: a change the
	// watchers missed would not be made up for by an import.
	importsUntil := time.Now().Add(dur * 2 / 3)
	go func() {
		defer wg.Done()
		irng := mrand.New(mrand.NewPCG(seed, 3))
		for time.Now().Before(importsUntil) {
			select {
			case <-stopKiller:
				return
			case <-time.After(time.Duration(100+irng.IntN(400)) * time.Millisecond):
			}
			out, err := exec.Command(bin, "--db", db, "import", "--json", dir).CombinedOutput()
			imports.Add(1)
			// Exit 3 is "imported, with problems": the samples have damaged
			// lines, and half-written ones are problems for `import`.
			if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
				importFailures = append(importFailures, fmt.Sprintf("%v: %s", err, out))
			}
		}
	}()

	writeAll(t, dir, files)
	close(stopKiller)
	wg.Wait()
	for _, f := range importFailures {
		t.Errorf("manual import failed: %s", f)
	}

	// Wait until the watchers have caught up with the final files and gone
	// quiet, then stop them.
	st := openWatchStore(t, db)
	ctx := context.Background()
	waitCaughtUp(t, st, dir, files, []*watcherProc{w1, w2, k})
	n1 := w1.stop(t, "watcher 1")
	n2 := w2.stop(t, "watcher 2")
	k.stop(t, "killed-and-restarted watcher")

	got, err := sessionview.Read(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	want := oneImport(t, final)
	perFormat := map[string]int{}
	torn := 0
	for _, g := range files {
		perFormat[g.format]++
		torn += g.torn
	}
	t.Logf("1 run of %s: %d files (%v), %d chunks written of which %d end inside a line; %d SIGKILLs of a watcher, %d manual imports; the two other watchers imported %d and %d times; %d sessions",
		dur, len(files), perFormat, chunks(files), torn, killed.Load(), imports.Load(), n1, n2, len(want))

	diffs := sessionview.Compare(got, want)
	for _, d := range diffs {
		// Say whose fault it is: a plain import of the same prefixes, then
		// of the whole file, with no watcher.
		if plain := plainGrowthDiffers(t, files, d); plain != "" {
			t.Errorf("%s\n    the importer's: a plain import of the same prefixes, then of the whole file, also differs: %.300s", d, plain)
		} else {
			t.Errorf("%s\n    the watcher's: a plain import of the same prefixes gives what one import gives", d)
		}
	}
	t.Logf("%d sessions equal to one import of the final files, %d differ", len(want)-len(diffs), len(diffs))
	if ss, ok := st.(*sqlstore.Store); ok {
		checkIntegrity(t, ss)
	}
}

func chunks(files []*growth) int {
	n := 0
	for _, g := range files {
		n += len(g.at)
	}
	return n
}

// waitCaughtUp waits until every growing file's recorded offset is at its
// last complete line and no watcher has printed anything for 2 s.
func waitCaughtUp(t *testing.T, st sessiondb.Store, dir string, files []*growth, ws []*watcherProc) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(3 * time.Minute)
	lastOut, quietSince := "", time.Now()
	for {
		if time.Now().After(deadline) {
			t.Fatalf("the watchers did not catch up within 3 minutes")
		}
		time.Sleep(200 * time.Millisecond)
		var sb strings.Builder
		for _, w := range ws {
			sb.WriteString(w.output())
		}
		if out := sb.String(); out != lastOut {
			lastOut, quietSince = out, time.Now()
			continue
		}
		if time.Since(quietSince) < 2*time.Second {
			continue
		}
		done := true
		for _, g := range files {
			if g.side {
				continue
			}
			sf, err := sessiondb.SourceFileOn(ctx, st, watchMachine, filepath.Join(dir, g.rel))
			if err != nil || sf.Offset != int64(bytes.LastIndexByte(g.data, '\n')+1) {
				done = false
				break
			}
		}
		if done {
			return
		}
	}
}

// oneImport imports dir once into a new SQLite store.
func oneImport(t *testing.T, dir string) map[string]sessionview.Session {
	t.Helper()
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "one.db"), &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := jsonlimport.Import(ctx, st, []string{dir}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	v, err := sessionview.Read(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// plainGrowthDiffers replays, with plain imports and no watcher, the
// growth of the files of d's format: a copy of their tree is imported at
// every cut point of the plan, then whole, into a new store. It returns
// how session d.ID then differs from one import of the final files ("" if
// it does not: the importer grows it right, so the watcher is at fault).
func plainGrowthDiffers(t *testing.T, files []*growth, d sessionview.Diff) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plain")
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "plain.db"), &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var mine []*growth
	for _, g := range files {
		if g.format == d.Format {
			mine = append(mine, g)
			p := filepath.Join(dir, g.rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if g.side {
				if err := os.WriteFile(p, g.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for step := 0; ; step++ {
		more := false
		for _, g := range mine {
			if g.side {
				continue
			}
			i := min(step, len(g.cuts)-1)
			more = more || step < len(g.cuts)-1
			if err := os.WriteFile(filepath.Join(dir, g.rel), g.data[:g.cuts[i]], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := jsonlimport.Import(ctx, st, []string{dir}, jsonlimport.Options{}); err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
	}
	got, err := sessionview.Read(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	want := oneImport(t, dir)
	for _, pd := range sessionview.Compare(got, want) {
		if pd.ID == d.ID {
			return pd.Reason
		}
	}
	return ""
}

func openWatchStore(t *testing.T, db string) sessiondb.Store {
	t.Helper()
	if pgstore.IsURL(db) {
		st, err := pgstore.Open(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	st, err := sqlstore.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func checkIntegrity(t *testing.T, st *sqlstore.Store) {
	t.Helper()
	rows, err := st.Query(context.Background(), "PRAGMA integrity_check")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if len(got) != 1 || got[0] != "ok" {
		t.Errorf("integrity_check: %v", got)
	}
}

// buildSessionctlBinary builds cmd/sessionctl (without the race detector:
// the children run at production speed).
func buildSessionctlBinary(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sessionctl")
	cmd := exec.Command("go", "build", "-o", out, "github.com/sessiondb/sessiondb/cmd/sessionctl")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build sessionctl: %v\n%s", err, b)
	}
	return out
}
