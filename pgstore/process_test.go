package pgstore

// Multi-process fault tests. The test binary re-executes itself
// (os.Args[0] -test.run=^TestHelperProcess$) with procRoleEnv set; the
// child writes through its own store (its own pool and connections) to
// the parent's test schema and reports every acknowledged commit on
// stdout as "ack <child> <i> <session> <lastSeq>".
//
// Each commit appends two entries {"c":child,"i":i,"p":1|2}; children with
// an odd number also replace the state with {"c":child,"i":i} in the same
// commit, those with an even number only append. A partial commit (one
// entry without the other, entries without their state) is visible.
//
//   - TestMultiProcessAppend: 4 processes x 150 commits over 3 sessions
//     (60 each in the quick run).
//   - TestKillMidCommit: rounds of 3 writers SIGKILLed mid-workload (8
//     rounds, 3 in the quick run).
//   - TestServerRestart: the PostgreSQL server restarted (pg_ctlcluster)
//     while 3 writers commit; they go on without reopening their stores.
//     Only with SESSIONDB_TEST_PG_RESTART=1 (it restarts the shared server).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
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

const (
	procRoleEnv     = "SESSIONDB_PGSTORE_ROLE"
	procURLEnv      = "SESSIONDB_PGSTORE_URL"
	procIndexEnv    = "SESSIONDB_PGSTORE_INDEX"
	procCommitsEnv  = "SESSIONDB_PGSTORE_COMMITS" // 0: until killed
	procSessions    = 3
	procRetryBudget = 60 * time.Second
)

func procSession(i int) string { return fmt.Sprintf("shared-%d", i%procSessions) }

// TestHelperProcess is the body of the child processes. Without
// procRoleEnv it returns at once. A child exits with status 0 on success
// and 1 after printing the error on stderr.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(procRoleEnv) == "" {
		return
	}
	run := childWriter
	if r, ok := childRoles[os.Getenv(procRoleEnv)]; ok {
		run = r
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "child %s: %v\n", os.Getenv(procIndexEnv), err)
		os.Exit(1)
	}
	os.Exit(0)
}

// childRoles are the bodies of children other than the writer, by
// procRoleEnv (registered by the tests that start them).
var childRoles = map[string]func() error{}

func childWriter() error {
	c, err := strconv.Atoi(os.Getenv(procIndexEnv))
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(os.Getenv(procCommitsEnv))
	if err != nil {
		return err
	}
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv(procURLEnv), &Options{RetryTimeout: procRetryBudget, MaxConns: 2})
	if err != nil {
		return err
	}
	defer s.Close()
	for i := 0; n == 0 || i < n; i++ {
		id := procSession(i)
		commit := sessiondb.Commit{
			Append: []sessiondb.Entry{
				sessiondb.Message(fmt.Sprintf(`{"c":%d,"i":%d,"p":1}`, c, i)),
				sessiondb.Message(fmt.Sprintf(`{"c":%d,"i":%d,"p":2}`, c, i)),
			},
		}
		if c%2 == 1 {
			commit.State = json.RawMessage(fmt.Sprintf(`{"c":%d,"i":%d}`, c, i))
		}
		sess, err := s.Commit(ctx, id, commit)
		if errors.Is(err, sessiondb.ErrBusy) {
			// A clear, retryable error: not acknowledged, reported.
			fmt.Printf("busy %d %d %v\n", c, i, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("commit %d: %w", i, err)
		}
		// One write(2) per line: a SIGKILL never leaves half a line.
		fmt.Printf("ack %d %d %s %d\n", c, i, id, sess.LastSeq)
	}
	fmt.Printf("stats %d %d\n", s.retries.Load(), s.unknownCommits.Load())
	return nil
}

// child is a running writer process whose acknowledgements are collected.
type child struct {
	cmd    *exec.Cmd
	stderr strings.Builder
	mu     sync.Mutex
	acks   []ack
	busy   int
	// retries and unknown are the child's counters (see Store).
	retries, unknown int
	done             chan struct{}
}

type ack struct {
	c, i    int
	session string
	lastSeq int64
}

func startChild(t *testing.T, u string, c, commits int) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), procRoleEnv+"=writer", procURLEnv+"="+u, testDBEnv+"="+testDB,
		procIndexEnv+"="+strconv.Itoa(c), procCommitsEnv+"="+strconv.Itoa(commits))
	ch := &child{cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &ch.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child %d: %v", c, err)
	}
	go func() {
		defer close(ch.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 5 && f[0] == "ack":
				a := ack{session: f[3]}
				a.c, _ = strconv.Atoi(f[1])
				a.i, _ = strconv.Atoi(f[2])
				a.lastSeq, _ = strconv.ParseInt(f[4], 10, 64)
				ch.mu.Lock()
				ch.acks = append(ch.acks, a)
				ch.mu.Unlock()
			case len(f) == 3 && f[0] == "stats":
				ch.mu.Lock()
				ch.retries, _ = strconv.Atoi(f[1])
				ch.unknown, _ = strconv.Atoi(f[2])
				ch.mu.Unlock()
			case len(f) > 0 && f[0] == "busy":
				ch.mu.Lock()
				ch.busy++
				ch.mu.Unlock()
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	return ch
}

func (ch *child) ackCount() int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return len(ch.acks)
}

// wait waits for the child to exit and its output to be read.
func (ch *child) wait() error {
	<-ch.done
	return ch.cmd.Wait()
}

// waitAcks waits until every child has acknowledged at least n commits.
func waitAcks(t *testing.T, children []*child, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for _, ch := range children {
		for ch.ackCount() < n {
			if time.Now().After(deadline) {
				t.Fatalf("children did not acknowledge %d commits in time; stderr: %s", n, ch.stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// procSetup creates the shared sessions in a fresh schema.
func procSetup(t *testing.T) (string, *Store) {
	t.Helper()
	u := newSchema(t)
	s := mustOpenURL(t, u, nil)
	for i := range procSessions {
		if _, err := s.Create(t.Context(), sessiondb.Session{ID: procSession(i)}); err != nil {
			t.Fatal(err)
		}
	}
	return u, s
}

// verify checks every session: seqs contiguous from 1, each commit's two
// entries adjacent and present together with no duplicate, every
// acknowledged commit present at the acknowledged position. It returns
// the number of commits found.
func verify(t *testing.T, s *Store, acks []ack) int {
	t.Helper()
	ctx := t.Context()
	type key struct{ c, i int }
	found := map[key]int64{} // -> seq of part 2
	for k := range procSessions {
		id := procSession(k)
		sess, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		es, err := s.Entries(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(es)) != sess.LastSeq {
			t.Errorf("%s: %d entries, LastSeq %d", id, len(es), sess.LastSeq)
		}
		for j := 0; j < len(es); j++ {
			if es[j].Seq != int64(j+1) {
				t.Fatalf("%s: entry %d has seq %d: not contiguous", id, j, es[j].Seq)
			}
			var b struct{ C, I, P int }
			if err := json.Unmarshal(es[j].Body, &b); err != nil {
				t.Fatalf("%s seq %d: %v", id, es[j].Seq, err)
			}
			if b.P != 1 {
				t.Fatalf("%s seq %d: part %d without its part 1 (partial or interleaved commit)", id, es[j].Seq, b.P)
			}
			if j+1 >= len(es) {
				t.Fatalf("%s: last entry is part 1 of a commit without part 2", id)
			}
			var b2 struct{ C, I, P int }
			if err := json.Unmarshal(es[j+1].Body, &b2); err != nil || b2.C != b.C || b2.I != b.I || b2.P != 2 {
				t.Fatalf("%s seq %d: part 1 of %d/%d followed by %s", id, es[j].Seq, b.C, b.I, es[j+1].Body)
			}
			k := key{b.C, b.I}
			if _, dup := found[k]; dup {
				t.Fatalf("commit %d/%d stored twice", b.C, b.I)
			}
			found[k] = es[j+1].Seq
			j++
		}
		// The state is the one of the session's last commit that set one
		// (children with an odd number set it).
		var last *struct{ C, I int }
		for j := len(es) - 1; j >= 0 && last == nil; j-- {
			var b struct{ C, I int }
			_ = json.Unmarshal(es[j].Body, &b)
			if b.C%2 == 1 {
				last = &b
			}
		}
		st, err := s.LoadState(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var b struct{ C, I int }
		switch {
		case last == nil && st != nil:
			t.Errorf("%s: state %s but no commit that set one", id, st)
		case last != nil && (json.Unmarshal(st, &b) != nil || b != *last):
			t.Errorf("%s: state %s is not that of the last commit that set one (%d/%d)", id, st, last.C, last.I)
		}
	}
	for _, a := range acks {
		seq, ok := found[key{a.c, a.i}]
		if !ok {
			t.Fatalf("acknowledged commit %d/%d (%s, seq %d) is missing", a.c, a.i, a.session, a.lastSeq)
		}
		if seq != a.lastSeq {
			t.Fatalf("acknowledged commit %d/%d at seq %d, stored at %d", a.c, a.i, a.lastSeq, seq)
		}
	}
	return len(found)
}

func allAcks(children []*child) (acks []ack, busy int) {
	for _, ch := range children {
		ch.mu.Lock()
		acks = append(acks, ch.acks...)
		busy += ch.busy
		ch.mu.Unlock()
	}
	return acks, busy
}

func TestMultiProcessAppend(t *testing.T) {
	u, s := procSetup(t)
	// 4 writers contend for 3 sessions from their first commit on: 60
	// commits each (240 in all) in the quick run.
	n, commits := 4, longtest.Size(60, 150)
	var children []*child
	for c := range n {
		children = append(children, startChild(t, u, c, commits))
	}
	for c, ch := range children {
		if err := ch.wait(); err != nil {
			t.Fatalf("child %d: %v: %s", c, err, ch.stderr.String())
		}
	}
	acks, busy := allAcks(children)
	if len(acks) != n*commits || busy != 0 {
		t.Fatalf("%d acknowledged, %d busy; want %d and 0", len(acks), busy, n*commits)
	}
	if got := verify(t, s, acks); got != n*commits {
		t.Fatalf("%d commits stored, want %d", got, n*commits)
	}
	t.Logf("%d processes, %d commits acknowledged and found, seqs contiguous", n, len(acks))
}

func TestKillMidCommit(t *testing.T) {
	u, s := procSetup(t)
	// Each round starts its writers afresh (a process and its
	// connections, ~0.5 s on two shared cores): 3 rounds, 9 kills, in the
	// quick run.
	rounds, n := longtest.Size(3, 8), 3
	var children []*child
	for r := range rounds {
		var round []*child
		for k := range n {
			round = append(round, startChild(t, u, r*n+k, 0))
		}
		waitAcks(t, round, 5+rand.IntN(20))
		time.Sleep(time.Duration(rand.IntN(15)) * time.Millisecond)
		for _, ch := range round {
			_ = ch.cmd.Process.Signal(syscall.SIGKILL)
		}
		for _, ch := range round {
			err := ch.wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child ended with %v, not by SIGKILL: %s", err, ch.stderr.String())
			}
		}
		children = append(children, round...)
	}
	acks, _ := allAcks(children)
	// A killed client's last COMMIT may still be in the server's hands:
	// the server commits it after the client is gone. Wait until the
	// killed clients' backends are done before taking the census, or a
	// late commit lands between the reads of verify.
	waitBackendsIdle(t, s)
	stored := verify(t, s, acks)
	t.Logf("%d processes SIGKILLed in %d rounds; %d commits acknowledged, %d stored (the rest were in flight), none partial",
		rounds*n, rounds, len(acks), stored)
	// The store works on after the kills (their connections are gone).
	if _, err := s.Append(t.Context(), procSession(0), sessiondb.Message(`{"c":-1,"i":0,"p":1}`), sessiondb.Message(`{"c":-1,"i":0,"p":2}`)); err != nil {
		t.Fatal(err)
	}
}

// restartCommand returns the command that restarts the local cluster, or
// "" when this machine has none (a remote server cannot be restarted).
func restartCommand() []string {
	if _, err := exec.LookPath("pg_ctlcluster"); err != nil {
		return nil
	}
	versions, _ := filepath.Glob("/etc/postgresql/*/main")
	if len(versions) != 1 {
		return nil
	}
	v := filepath.Base(filepath.Dir(versions[0]))
	return []string{"pg_ctlcluster", "--skip-systemctl-redirect", v, "main", "restart"}
}

// restartEnv enables TestServerRestart. It restarts the server that every
// test of every package on this machine shares, so it runs only when asked
// for, alone: .ci/run runs it in a step of its own after the README's test
// command.
const restartEnv = "SESSIONDB_TEST_PG_RESTART"

// TestServerRestart restarts the PostgreSQL server while writer processes
// commit. It must not run in parallel with other tests of the server (it
// does not call t.Parallel; go test runs top-level tests one at a time;
// restartEnv keeps it out of runs of the whole module).
func TestServerRestart(t *testing.T) {
	if os.Getenv(restartEnv) != "1" {
		t.Skipf("restarts the shared PostgreSQL server: run alone with %s=1 (as .ci/run does)", restartEnv)
	}
	requireServer(t)
	cmd := restartCommand()
	if cmd == nil {
		if os.Getenv(requireEnv) == "1" {
			t.Fatal("no local cluster to restart (pg_ctlcluster and /etc/postgresql/*/main)")
		}
		t.Skip("no local cluster to restart (pg_ctlcluster and /etc/postgresql/*/main)")
	}
	u, s := procSetup(t)
	const n, commits, restarts = 3, 400, 2
	var children []*child
	for c := range n {
		children = append(children, startChild(t, u, c, commits))
	}
	for r := range restarts {
		waitAcks(t, children, 20+100*r)
		out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("restart %v: %v: %s", cmd, err, out)
		}
	}
	for c, ch := range children {
		if err := ch.wait(); err != nil {
			t.Fatalf("child %d: %v: %s", c, err, ch.stderr.String())
		}
	}
	acks, busy := allAcks(children)
	var retries, unknown int
	for _, ch := range children {
		retries, unknown = retries+ch.retries, unknown+ch.unknown
	}
	stored := verify(t, s, acks)
	if len(acks)+busy != n*commits {
		t.Fatalf("%d acknowledged + %d busy, want %d commits answered", len(acks), busy, n*commits)
	}
	if stored < len(acks) {
		t.Fatalf("%d stored < %d acknowledged", stored, len(acks))
	}
	// The parent's store, opened before the restarts, works without reopening.
	if _, err := s.Append(t.Context(), procSession(0), sessiondb.Message(`{"c":-1,"i":0,"p":1}`), sessiondb.Message(`{"c":-1,"i":0,"p":2}`)); err != nil {
		t.Fatalf("append after restart: %v", err)
	}
	t.Logf("server restarted %d times under %d writer processes: %d commits acknowledged, %d answered busy, %d stored, none lost or doubled; %d attempts retried, %d commits with a lost answer settled by txid_status",
		restarts, n, len(acks), busy, stored, retries, unknown)
}

// waitBackendsIdle waits (up to 30s) until no other backend of this
// database is inside a statement or a transaction.
func waitBackendsIdle(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var busy int
		err := s.DB().QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
			AND state IS DISTINCT FROM 'idle'`).Scan(&busy)
		if err != nil {
			t.Fatal(err)
		}
		if busy == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d backends still busy 30s after their clients were killed", busy)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
