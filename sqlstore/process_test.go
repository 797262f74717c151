package sqlstore

// Multi-process and crash tests. The test binary re-executes itself
// (os.Args[0] -test.run=^TestHelperProcess$) with procRoleEnv naming what the
// child does; TestHelperProcess is only an entry point for those children
// and does nothing in a normal run.
//
//   - TestMultiProcessAppend: 4 processes x 500 appends to one session.
//   - TestMultiProcessCounter: 3 processes doing read-modify-write with
//     optimistic concurrency; no update may be lost.
//   - TestMultiProcessCreateOnWrite (process_cow_test.go): 4 processes
//     creating 40 sessions on first write, racing.
//   - TestCommitManyCrash (process_many_test.go): a CommitMany writer
//     SIGKILLed 8 times; every CommitMany is all or nothing.
//   - TestCrashSafety: a writer SIGKILLed -crash.kills times (default 50);
//     after each kill the database must be sound and hold every
//     acknowledged commit, with transcript and state of one revision.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
)

var crashKills = flag.Int("crash.kills", longtest.Size(12, 50), "number of times TestCrashSafety SIGKILLs its writer child (12, and 50 in the long run)")

const (
	procRoleEnv  = "SESSIONDB_TEST_ROLE"  // "append" or "crash"
	procDBEnv    = "SESSIONDB_TEST_DB"    // database path
	procIndexEnv = "SESSIONDB_TEST_INDEX" // child number (append) or seed (crash)
	procDurEnv   = "SESSIONDB_TEST_DURABILITY"

	multiSession     = "shared"
	multiChildren    = 4
	multiAppends     = 500
	crashSessions    = 3
	crashReadyPrefix = "ready"
)

// TestHelperProcess is the body of the child processes started by
// TestMultiProcessAppend and TestCrashSafety. Without procRoleEnv it returns
// at once. A child never returns into the testing framework (which would
// print to stdout, the crash child's report pipe): it exits with status 0
// on success and 1 after printing the error on stderr.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(procRoleEnv)
	if role == "" {
		return
	}
	var err error
	switch role {
	case "append":
		err = childAppend()
	case "crash":
		err = childCrash()
	case "counter":
		err = childCounter()
	case "searchwriter":
		err = childSearchWriter()
	default:
		if fn, ok := childRoles[role]; ok {
			err = fn()
		} else {
			err = fmt.Errorf("unknown role %q", role)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "child %s %s: %v\n", role, os.Getenv(procIndexEnv), err)
		os.Exit(1)
	}
	os.Exit(0)
}

// childRoles holds the child bodies of process tests in other files.
var childRoles = map[string]func() error{}

func procChild(t *testing.T, role, db string, index int, extraEnv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		procRoleEnv+"="+role,
		procDBEnv+"="+db,
		procIndexEnv+"="+strconv.Itoa(index),
	)
	cmd.Env = append(cmd.Env, extraEnv...)
	return cmd
}

// ---- several processes appending to one session -----------------------------

func childAppend() error {
	child, err := strconv.Atoi(os.Getenv(procIndexEnv))
	if err != nil {
		return err
	}
	s, err := Open(os.Getenv(procDBEnv), nil)
	if err != nil {
		return err
	}
	ctx := context.Background()
	var slowest time.Duration
	for i := range multiAppends {
		body := fmt.Sprintf(`{"role":"user","content":"child %d append %d","child":%d,"i":%d}`, child, i, child, i)
		t0 := time.Now()
		if _, err := s.Append(ctx, multiSession, sessiondb.Message(body)); err != nil {
			s.Close()
			return fmt.Errorf("append %d after %v: %w", i, time.Since(t0), err)
		}
		slowest = max(slowest, time.Since(t0))
	}
	fmt.Printf("slowest %d\n", slowest.Milliseconds())
	return s.Close()
}

// TestMultiProcessAppend has 4 processes append 500 entries each to one
// session of one database file, concurrently. Every append must succeed (no
// "database is locked" / ErrBusy), and the log must hold exactly the 2000
// entries with seqs 1..2000, each child's entries in its own order.
func TestMultiProcessAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "multi.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	created, err := s.Create(context.Background(), sessiondb.Session{ID: multiSession})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	stdouts, stderrs, errs := runChildren(t, "append", path, multiChildren)
	elapsed := time.Since(start)
	failed := false
	for c := range multiChildren {
		if errs[c] != nil || stderrs[c].Len() > 0 {
			failed = true
			t.Errorf("child %d: %v\nstderr:\n%s", c, errs[c], stderrs[c].String())
		}
		if strings.Contains(stderrs[c].String(), "locked") || strings.Contains(stderrs[c].String(), "busy") {
			t.Errorf("child %d saw a lock error: the busy timeout or BEGIN IMMEDIATE is not in effect", c)
		}
	}
	if failed {
		t.FailNow()
	}
	var slowest []string
	for c := range multiChildren {
		var ms int
		if _, err := fmt.Sscanf(stdouts[c].String(), "slowest %d", &ms); err != nil {
			t.Errorf("child %d output %q: %v", c, stdouts[c].String(), err)
		}
		slowest = append(slowest, fmt.Sprintf("%dms", ms))
	}

	s = MustOpenStoreAt(t, path, nil)
	ctx := context.Background()
	g, err := s.Get(ctx, multiSession)
	if err != nil {
		t.Fatal(err)
	}
	const total = multiChildren * multiAppends
	if g.LastSeq != total || g.Sequence != created.Sequence+total {
		t.Errorf("session after %d appends: LastSeq %d Sequence %d, want %d and %d", total, g.LastSeq, g.Sequence, total, created.Sequence+total)
	}
	log, err := s.Entries(ctx, multiSession, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != total {
		t.Errorf("%d entries, want %d", len(log), total)
	}
	seen := map[[2]int]bool{}
	last := map[int]int{}
	switches := 0 // how often consecutive entries come from different children
	prevChild := -1
	for k, e := range log {
		if e.Seq != int64(k+1) {
			t.Fatalf("entry %d has seq %d: seqs are not 1..%d", k, e.Seq, total)
		}
		var v struct{ Child, I int }
		if err := json.Unmarshal(e.Body, &v); err != nil {
			t.Fatalf("seq %d: %v", e.Seq, err)
		}
		key := [2]int{v.Child, v.I}
		if seen[key] {
			t.Errorf("child %d append %d stored twice", v.Child, v.I)
		}
		seen[key] = true
		if prev, ok := last[v.Child]; ok && v.I <= prev {
			t.Errorf("child %d: append %d stored after append %d", v.Child, v.I, prev)
		}
		last[v.Child] = v.I
		if prevChild >= 0 && v.Child != prevChild {
			switches++
		}
		prevChild = v.Child
	}
	for c := range multiChildren {
		for i := range multiAppends {
			if !seen[[2]int{c, i}] {
				t.Errorf("child %d append %d is missing", c, i)
			}
		}
	}
	t.Logf("%d processes x %d appends to one session: %d entries, seqs 1..%d, no errors, writers interleaved %d times, slowest append per child %s, %v (%.0f appends/s)",
		multiChildren, multiAppends, len(log), len(log), switches, strings.Join(slowest, " "), elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())
}

// ---- read-modify-write across processes --------------------------------------

const (
	counterSession    = "counter"
	counterChildren   = 3
	counterIncrements = 60
)

// counterState is the state document of TestMultiProcessCounter.
type counterState struct {
	Count int `json:"count"`
}

// childCounter increments the counter in the state of counterSession
// counterIncrements times, each a read (LoadFull) then a write conditional on
// the sequence read, retried on conflict. It reports its conflicts on stdout.
func childCounter() error {
	child, err := strconv.Atoi(os.Getenv(procIndexEnv))
	if err != nil {
		return err
	}
	s, err := Open(os.Getenv(procDBEnv), nil)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := context.Background()
	conflicts := 0
	for i := 0; i < counterIncrements; {
		full, err := s.LoadFull(ctx, counterSession, sessiondb.LoadOptions{LastN: 1})
		if err != nil {
			return err
		}
		var st counterState
		if err := json.Unmarshal(full.State, &st); err != nil {
			return fmt.Errorf("state %q: %w", full.State, err)
		}
		next, _ := json.Marshal(counterState{Count: st.Count + 1})
		_, err = s.Commit(ctx, counterSession, sessiondb.Commit{
			ExpectSequence: sessiondb.Expect(full.Session.Sequence),
			Append:         []sessiondb.Entry{sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"child %d count %d"}`, child, st.Count+1))},
			State:          next,
		})
		var ce *sessiondb.ConflictError
		switch {
		case errors.As(err, &ce):
			if ce.Current <= full.Session.Sequence {
				return fmt.Errorf("conflict reports current %d, not after the %d read", ce.Current, full.Session.Sequence)
			}
			conflicts++
		case err != nil:
			return err
		default:
			i++
		}
	}
	fmt.Printf("conflicts %d\n", conflicts)
	return nil
}

// TestMultiProcessCounter has 3 processes increment a counter kept in one
// session's state, read-modify-write with optimistic concurrency, 60 times
// each. No update may be lost: the counter ends at exactly 180, with one
// log entry per increment, in order.
func TestMultiProcessCounter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	start, err := s.Commit(context.Background(), counterSession, sessiondb.Commit{
		Create: &sessiondb.Session{}, State: json.RawMessage(`{"count":0}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stdouts, stderrs, errs := runChildren(t, "counter", path, counterChildren)
	conflicts := 0
	for c := range counterChildren {
		if errs[c] != nil || stderrs[c].Len() > 0 {
			t.Errorf("child %d: %v\nstderr:\n%s", c, errs[c], stderrs[c].String())
			continue
		}
		var n int
		if _, err := fmt.Sscanf(stdouts[c].String(), "conflicts %d", &n); err != nil {
			t.Errorf("child %d output %q: %v", c, stdouts[c].String(), err)
		}
		conflicts += n
	}
	if t.Failed() {
		t.FailNow()
	}
	s = MustOpenStoreAt(t, path, nil)
	const total = counterChildren * counterIncrements
	full, err := s.LoadFull(context.Background(), counterSession, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var st counterState
	if err := json.Unmarshal(full.State, &st); err != nil {
		t.Fatal(err)
	}
	if st.Count != total || full.Session.LastSeq != total || full.Session.Sequence != start.Sequence+total {
		t.Errorf("after %d increments: count %d, LastSeq %d, Sequence %d (want %d, %d, %d): updates were lost",
			total, st.Count, full.Session.LastSeq, full.Session.Sequence, total, total, start.Sequence+total)
	}
	for i, e := range full.Transcript {
		if !strings.Contains(string(e.Body), fmt.Sprintf("count %d\"", i+1)) {
			t.Errorf("entry %d = %s, want the increment to %d", i+1, e.Body, i+1)
			break
		}
	}
	t.Logf("%d processes x %d conditional increments: counter %d, %d conflicts retried", counterChildren, counterIncrements, st.Count, conflicts)
}

// ---- crash safety ----------------------------------------------------------

// crashState is the state document the crash child saves with every commit.
// It names the revision it was saved in and the transcript saved with it, so
// that a reader can tell whether state and transcript come from one commit.
type crashState struct {
	Rev    int64  `json:"rev"`    // the session Sequence of the commit
	Len    int    `json:"len"`    // transcript length
	Digest string `json:"digest"` // transcriptDigest of the transcript
}

// transcriptDigest hashes a transcript's bodies and summary flags.
func transcriptDigest(bodies []string, summary []bool) string {
	h := sha256.New()
	for i, b := range bodies {
		fmt.Fprintf(h, "%d:%v:%d:%s\n", i, summary[i], len(b), b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func entryDigest(es []sessiondb.Entry) string {
	bs := make([]string, len(es))
	sum := make([]bool, len(es))
	for i, e := range es {
		bs[i], sum[i] = string(e.Body), e.Summary
	}
	return transcriptDigest(bs, sum)
}

type crashSession struct {
	id      string
	seq     int64
	lastSeq int64
	bodies  []string
	summary []bool
}

func crashSessionID(i int) string { return fmt.Sprintf("crash-%d", i) }

// childCrash writes forever (until killed): SaveFull, Append+state and
// Append+compaction+state commits on a few sessions, each conditional on
// the sequence it last saw, and reports every acknowledged commit on stdout
// as "<session> <sequence> <digest>".
func childCrash() error {
	seed, err := strconv.Atoi(os.Getenv(procIndexEnv))
	if err != nil {
		return err
	}
	opts := &Options{}
	if os.Getenv(procDurEnv) == "normal" {
		opts.Durability = DurabilityNormal
	}
	s, err := Open(os.Getenv(procDBEnv), opts)
	if err != nil {
		return err
	}
	ctx := context.Background()
	out := os.Stdout // unbuffered: one write per line, atomic on a pipe
	sessions := make([]*crashSession, crashSessions)
	for i := range sessions {
		cs := &crashSession{id: crashSessionID(i)}
		full, err := s.LoadFull(ctx, cs.id, sessiondb.LoadOptions{})
		switch {
		case errors.Is(err, sessiondb.ErrNotFound):
			r, err := s.Create(ctx, sessiondb.Session{ID: cs.id})
			if err != nil {
				return fmt.Errorf("create %s: %w", cs.id, err)
			}
			cs.seq, cs.lastSeq = r.Sequence, r.LastSeq
		case err != nil:
			return fmt.Errorf("load %s: %w", cs.id, err)
		default:
			cs.seq, cs.lastSeq = full.Session.Sequence, full.Session.LastSeq
			for _, e := range full.Transcript {
				cs.bodies = append(cs.bodies, string(e.Body))
				cs.summary = append(cs.summary, e.Summary)
			}
		}
		sessions[i] = cs
	}
	// Ready: the store is open and the sessions are loaded; writes start now.
	if _, err := fmt.Fprintln(out, crashReadyPrefix); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5e55))
	body := func(cs *crashSession, rev int64, j int) string {
		// Mostly small bodies (more commits per run), now and then one
		// that spans several pages.
		n := rng.IntN(100)
		if rng.IntN(8) == 0 {
			n = rng.IntN(2500)
		}
		pad := strings.Repeat("x✓", n)
		return fmt.Sprintf(`{"role":"user","content":"%s rev %d msg %d %s"}`, cs.id, rev, j, pad)
	}
	for n := 0; ; n++ {
		cs := sessions[rng.IntN(len(sessions))]
		rev := cs.seq + 1
		k := 1 + rng.IntN(6)
		fresh := make([]sessiondb.Entry, k)
		freshBodies := make([]string, k)
		for j := range fresh {
			freshBodies[j] = body(cs, rev, j)
			fresh[j] = sessiondb.Message(freshBodies[j])
		}
		var newBodies []string
		var newSummary []bool
		var r sessiondb.Session
		op := rng.IntN(3)
		switch op {
		case 0: // SaveFull: a brand-new transcript, or the current one extended
			var msgs []sessiondb.Entry
			if rng.IntN(2) == 0 {
				for _, b := range cs.bodies {
					msgs = append(msgs, sessiondb.Message(b))
				}
			}
			msgs = append(msgs, fresh...)
			for _, m := range msgs {
				newBodies = append(newBodies, string(m.Body))
				newSummary = append(newSummary, false)
			}
			st := crashStateJSON(rev, newBodies, newSummary)
			r, err = s.SaveFull(ctx, sessiondb.Session{ID: cs.id, Sequence: cs.seq, Title: fmt.Sprintf("rev %d", rev)}, msgs, st)
		case 1: // append with state
			newBodies = append(append([]string(nil), cs.bodies...), freshBodies...)
			newSummary = append(append([]bool(nil), cs.summary...), make([]bool, k)...)
			r, err = s.Commit(ctx, cs.id, sessiondb.Commit{
				ExpectSequence: sessiondb.Expect(cs.seq),
				Append:         fresh,
				State:          crashStateJSON(rev, newBodies, newSummary),
			})
		case 2: // append, compact to a summary plus the last few, with state
			keep := rng.IntN(k + 1)
			sum := fmt.Sprintf(`{"role":"system","content":"summary of %s at rev %d"}`, cs.id, rev)
			newBodies = append([]string{sum}, freshBodies[k-keep:]...)
			newSummary = append([]bool{true}, make([]bool, keep)...)
			r, err = s.Commit(ctx, cs.id, sessiondb.Commit{
				ExpectSequence: sessiondb.Expect(cs.seq),
				Append:         fresh,
				Compactions: []sessiondb.Compaction{{
					KeepFromSeq: cs.lastSeq + int64(k-keep) + 1,
					Summary:     []sessiondb.Entry{sessiondb.Message(sum)},
				}},
				State: crashStateJSON(rev, newBodies, newSummary),
			})
		}
		if err != nil {
			return fmt.Errorf("commit %d (op %d) on %s at sequence %d: %w", n, op, cs.id, cs.seq, err)
		}
		if r.Sequence != rev {
			return fmt.Errorf("commit %d (op %d) on %s: Sequence %d, want %d", n, op, cs.id, r.Sequence, rev)
		}
		cs.seq, cs.lastSeq, cs.bodies, cs.summary = r.Sequence, r.LastSeq, newBodies, newSummary
		if _, err := fmt.Fprintf(out, "%s %d %s\n", cs.id, cs.seq, transcriptDigest(cs.bodies, cs.summary)); err != nil {
			return err
		}
	}
}

func crashStateJSON(rev int64, bodies []string, summary []bool) json.RawMessage {
	b, _ := json.Marshal(crashState{Rev: rev, Len: len(bodies), Digest: transcriptDigest(bodies, summary)})
	return b
}

type crashReport struct {
	seq    int64
	digest string
}

// TestCrashSafety runs a writer child and SIGKILLs it at a random moment,
// -crash.kills times (default 50). After every kill it reopens the database
// and checks that it is sound (integrity_check, foreign_key_check), that
// every commit the child acknowledged is there, and that LoadFull returns
// metadata, transcript and state of one and the same revision.
//
// The kill comes 5-150 ms after the child reports that it opened the store
// and loaded its sessions, that is once it starts writing;
// every fourth kill is timed from process start instead, so that some land
// while the child is still opening (and recovering) the database. Children
// alternate between DurabilityFull and DurabilityNormal: both must survive a
// process crash.
func TestCrashSafety(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	reported := map[string]crashReport{} // newest acknowledged commit per session
	stored := map[string]int64{}         // sequence found at the previous check
	var commits, emptyRuns, earlyKills int
	start := time.Now()
	for kill := range *crashKills {
		dur := "full"
		if kill%2 == 1 {
			dur = "normal"
		}
		cmd := procChild(t, "crash", path, kill, procDurEnv+"="+dur)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		started := time.Now()
		ready := make(chan struct{})
		var lines []string
		readDone := make(chan error, 1)
		go func() {
			br := bufio.NewReader(stdout)
			signalled := false
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					// A line without its newline was cut by the kill; drop it.
					if !signalled {
						close(ready)
					}
					if errors.Is(err, io.EOF) {
						err = nil
					}
					readDone <- err
					return
				}
				line = strings.TrimSuffix(line, "\n")
				if line == crashReadyPrefix && !signalled {
					signalled = true
					close(ready)
					continue
				}
				lines = append(lines, line)
			}
		}()
		delay := 5*time.Millisecond + time.Duration(rng.Int64N(int64(145*time.Millisecond)))
		if kill%4 == 3 {
			earlyKills++
			time.Sleep(time.Until(started.Add(delay)))
		} else {
			select {
			case <-ready:
			case <-time.After(60 * time.Second):
				t.Fatalf("kill %d: the child did not open the store within 60s", kill)
			}
			time.Sleep(delay)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatalf("kill %d: %v", kill, err)
		}
		if err := <-readDone; err != nil {
			t.Fatalf("kill %d: reading the child's reports: %v", kill, err)
		}
		werr := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("kill %d: the child ended by itself (%v) before the kill:\n%s", kill, werr, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Fatalf("kill %d: the child reported an error:\n%s", kill, stderr.String())
		}
		// Record what the child acknowledged.
		if len(lines) == 0 {
			emptyRuns++
		}
		for _, line := range lines {
			f := strings.Fields(line)
			if len(f) != 3 {
				t.Fatalf("kill %d: malformed report %q", kill, line)
			}
			seq, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("kill %d: malformed report %q", kill, line)
			}
			if prev, ok := reported[f[0]]; ok && seq <= prev.seq {
				t.Errorf("kill %d: %s reported sequence %d after %d", kill, f[0], seq, prev.seq)
			}
			reported[f[0]] = crashReport{seq, f[2]}
			commits++
		}
		crashCheck(t, kill, path, reported, stored)
		if t.Failed() {
			t.Fatalf("stopping after kill %d; the database is at %s", kill, keepDatabaseFile(t, path))
		}
	}
	var seqs []string
	for i := range crashSessions {
		id := crashSessionID(i)
		seqs = append(seqs, fmt.Sprintf("%s=%d", id, stored[id]))
	}
	t.Logf("%d kills (%d timed from process start, %d before any commit), %d acknowledged commits, all present after recovery; final sequences %s; %v",
		*crashKills, earlyKills, emptyRuns, commits, strings.Join(seqs, " "), time.Since(start).Round(time.Millisecond))
	if *crashKills >= 10 && commits == 0 {
		t.Errorf("no commit was acknowledged in %d runs: the test exercised nothing", *crashKills)
	}
}

func seqTail(log []sessiondb.Entry) any {
	if len(log) == 0 {
		return "nothing"
	}
	return log[len(log)-1].Seq
}

// crashCheck verifies the database after a kill.
func crashCheck(t *testing.T, kill int, path string, reported map[string]crashReport, stored map[string]int64) {
	t.Helper()
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return // killed before the database was created
	}
	problems, err := checkDatabaseFile(path)
	if err != nil || len(problems) > 0 {
		t.Errorf("kill %d: database check failed (%v): %s", kill, err, strings.Join(problems, "; "))
		return
	}
	s, err := Open(path, nil)
	if err != nil {
		t.Errorf("kill %d: reopen: %v", kill, err)
		return
	}
	defer s.Close()
	ctx := context.Background()
	infos, _, err := s.List(ctx, sessiondb.ListOptions{})
	if err != nil {
		t.Errorf("kill %d: List: %v", kill, err)
		return
	}
	counts := map[string]int64{}
	for _, in := range infos {
		counts[in.ID] = in.MessageCount
	}
	for i := range crashSessions {
		id := crashSessionID(i)
		rep, wasReported := reported[id]
		full, err := s.LoadFull(ctx, id, sessiondb.LoadOptions{})
		if errors.Is(err, sessiondb.ErrNotFound) {
			if wasReported || stored[id] > 0 {
				t.Errorf("kill %d: session %s is gone (reported sequence %d)", kill, id, rep.seq)
			}
			continue
		}
		if err != nil {
			t.Errorf("kill %d: LoadFull(%s): %v", kill, id, err)
			continue
		}
		seq := full.Session.Sequence
		if counts[id] != int64(len(full.Transcript)) {
			t.Errorf("kill %d: %s List MessageCount %d, transcript %d", kill, id, counts[id], len(full.Transcript))
		}
		if seq < stored[id] {
			t.Errorf("kill %d: %s went back from sequence %d to %d", kill, id, stored[id], seq)
		}
		stored[id] = seq
		if wasReported && seq < rep.seq {
			t.Errorf("kill %d: %s is at sequence %d, but sequence %d was acknowledged: a committed write was lost", kill, id, seq, rep.seq)
		}
		// The log is contiguous and ends at LastSeq.
		log, err := s.Entries(ctx, id, 0, 0)
		if err != nil {
			t.Errorf("kill %d: Entries(%s): %v", kill, id, err)
			continue
		}
		for k := 1; k < len(log); k++ {
			if log[k].Seq != log[k-1].Seq+1 {
				t.Errorf("kill %d: %s log has a gap: seq %d after %d", kill, id, log[k].Seq, log[k-1].Seq)
				break
			}
		}
		if n := len(log); (n == 0 && full.Session.LastSeq != 0) || (n > 0 && log[n-1].Seq != full.Session.LastSeq) {
			t.Errorf("kill %d: %s LastSeq %d but the log has %d rows ending at %v", kill, id, full.Session.LastSeq, n, seqTail(log))
		}
		digest := entryDigest(full.Transcript)
		if full.State == nil {
			// Only a freshly created session has no state.
			if len(full.Transcript) != 0 || wasReported {
				t.Errorf("kill %d: %s has no state but a transcript of %d (reported %v)", kill, id, len(full.Transcript), wasReported)
			}
			continue
		}
		var st crashState
		if err := json.Unmarshal(full.State, &st); err != nil {
			t.Errorf("kill %d: %s state %q: %v", kill, id, full.State, err)
			continue
		}
		if st.Rev != seq || st.Len != len(full.Transcript) || st.Digest != digest {
			t.Errorf("kill %d: %s LoadFull mixes revisions: Sequence %d, transcript of %d (digest %s); state says rev %d, len %d, digest %s",
				kill, id, seq, len(full.Transcript), digest, st.Rev, st.Len, st.Digest)
		}
		if wasReported && seq == rep.seq && digest != rep.digest {
			t.Errorf("kill %d: %s at acknowledged sequence %d has transcript digest %s, the child reported %s", kill, id, seq, digest, rep.digest)
		}
	}
}

// runChildren starts n children in role on the database at path, all at
// once, and returns each one's stdout, stderr and exit error.
func runChildren(t *testing.T, role, path string, n int) (stdouts, stderrs []strings.Builder, errs []error) {
	t.Helper()
	stdouts, stderrs, errs = make([]strings.Builder, n), make([]strings.Builder, n), make([]error, n)
	var wg sync.WaitGroup
	for c := range n {
		cmd := procChild(t, role, path, c)
		cmd.Stdout, cmd.Stderr = &stdouts[c], &stderrs[c]
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s child %d: %v", role, c, err)
		}
		wg.Go(func() { errs[c] = cmd.Wait() })
	}
	wg.Wait()
	return stdouts, stderrs, errs
}
