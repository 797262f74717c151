package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/longtest"
)

// watcherProc is one `sessionctl watch` child process.
type watcherProc struct {
	cmd   *exec.Cmd
	ready chan time.Duration // time from start to its catch-up event
}

func startWatcher(t *testing.T, bin, db, machine, dir string) *watcherProc {
	t.Helper()
	cmd := exec.Command(bin, "--db", db, "--machine", machine, "watch", "--json", dir)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &watcherProc{cmd: cmd, ready: make(chan time.Duration, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		sent := false
		for sc.Scan() {
			if !sent && strings.Contains(sc.Text(), `"event":"catch-up"`) {
				w.ready <- time.Since(start)
				sent = true
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return w
}

func (w *watcherProc) waitReady(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-w.ready:
		return d
	case <-time.After(time.Minute):
		t.Fatal("a watcher did not finish its catch-up in a minute")
		return 0
	}
}

// pgRestartEnv asks TestThreeWatchersOnePostgres to restart the
// PostgreSQL server mid-stream as well. The server is shared by every test
// of every package on the machine, so the test restarts it only when asked
// for, run alone (as pgstore's TestServerRestart, under the same
// variable): a CI step of its own.
const pgRestartEnv = "SESSIONDB_TEST_PG_RESTART"

// pgRestartCmdEnv, when set, is the command (split at spaces) that
// restarts the test's server in place of pg_ctlcluster's restart of the
// local cluster: a private server started with pg_ctl, say, which can be
// restarted without disturbing anyone's tests.
const pgRestartCmdEnv = "SESSIONDB_TEST_PG_RESTART_CMD"

// serverRestart returns the command that restarts the test's PostgreSQL
// server, or nil when pgRestartEnv does not ask for it.
func serverRestart(t *testing.T) []string {
	t.Helper()
	if os.Getenv(pgRestartEnv) != "1" {
		return nil
	}
	if c := strings.Fields(os.Getenv(pgRestartCmdEnv)); len(c) > 0 {
		return c
	}
	versions, _ := filepath.Glob("/etc/postgresql/*/main")
	if _, err := exec.LookPath("pg_ctlcluster"); err != nil || len(versions) != 1 {
		t.Fatalf("%s=1 but no local cluster to restart (pg_ctlcluster and one /etc/postgresql/*/main); set %s", pgRestartEnv, pgRestartCmdEnv)
	}
	return []string{"pg_ctlcluster", "--skip-systemctl-redirect", filepath.Base(filepath.Dir(versions[0])), "main", "restart"}
}

// TestThreeWatchersOnePostgres runs three `sessionctl watch` processes
// under three machine identities on three folders into one PostgreSQL
// database while an agent appends to a session in each folder; machine B's
// watcher is SIGKILLed mid-stream and started again, and with
// SESSIONDB_TEST_PG_RESTART=1 the server is restarted once before that,
// mid-stream too. At the end every session holds each line of its file
// once: nothing lost, nothing doubled. TestMachinesIntoOnePostgres is its
// fast sibling (the same rules, one import per machine).
func TestThreeWatchersOnePostgres(t *testing.T) {
	longtest.Skip(t, "three watcher processes into PostgreSQL, one killed and restarted")
	restartServer := serverRestart(t)
	bin := buildSessionctl(t)
	db := pgURL(t)
	root := t.TempDir()
	machines := []string{"m-a", "m-b", "m-c"}
	dirs := map[string]string{}
	for _, m := range machines {
		dirs[m] = filepath.Join(root, m)
		writeLines(t, filepath.Join(dirs[m], "agent_main_cli_direct_seed-"+m+".jsonl"), "seed "+m, 4)
	}
	watchers := map[string]*watcherProc{}
	for _, m := range machines {
		watchers[m] = startWatcher(t, bin, db, m, dirs[m])
	}
	for _, m := range machines {
		watchers[m].waitReady(t)
	}
	appends := 60
	if restartServer != nil {
		appends = 240 // still appending after the server is back
	}
	var wg sync.WaitGroup
	for _, m := range machines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := filepath.Join(dirs[m], "agent_main_cli_direct_live-"+m+".jsonl")
			for i := 0; i < appends; i++ {
				role := "user"
				if i%2 == 1 {
					role = "assistant"
				}
				appendTo(t, p, fmt.Sprintf(`{"role":"%s","content":"%s line %d"}`+"\n", role, m, i))
				time.Sleep(15 * time.Millisecond)
			}
		}()
	}
	streamStart := time.Now()
	var serverAt, serverTook time.Duration
	if restartServer != nil {
		time.Sleep(300 * time.Millisecond)
		serverAt = time.Since(streamStart)
		// Its output goes to the test's stderr, a file: a server started
		// by the command may keep a pipe open for as long as it runs.
		c := exec.Command(restartServer[0], restartServer[1:]...)
		c.Stdout, c.Stderr = os.Stderr, os.Stderr
		if err := c.Run(); err != nil {
			t.Fatalf("restart the server (%v): %v", restartServer, err)
		}
		serverTook = time.Since(streamStart) - serverAt
	}
	time.Sleep(300 * time.Millisecond)
	b := watchers["m-b"]
	if err := b.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = b.cmd.Wait()
	killedAt := time.Now()
	time.Sleep(200 * time.Millisecond)
	watchers["m-b"] = startWatcher(t, bin, db, "m-b", dirs["m-b"])
	restart := watchers["m-b"].waitReady(t)
	sinceKill := time.Since(killedAt)
	wg.Wait()

	appendsDone := time.Now()

	want := map[string]int64{}
	for _, m := range machines {
		want["agent_main_cli_direct_seed-"+m] = 4
		want["agent_main_cli_direct_live-"+m] = int64(appends)
	}
	deadline := time.Now().Add(time.Minute)
	var got map[string]listed
	for {
		got = listJSON(t, db)
		done := len(got) == len(want)
		for id, n := range want {
			done = done && got[id].MessageCount == n
		}
		if done || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	complete := time.Since(appendsDone)
	var entries, logged, lost, doubled int64
	for id, n := range want {
		s, ok := got[id]
		entries += s.MessageCount
		logged += s.LastSeq
		switch {
		case !ok:
			lost += n
		case s.MessageCount < n:
			lost += n - s.MessageCount
		case s.MessageCount > n:
			doubled += s.MessageCount - n
		}
		if ok && s.LastSeq != n {
			t.Errorf("%s: log of %d entries for %d lines", id, s.LastSeq, n)
		}
		if ok && (s.Machine == "" || !strings.HasSuffix(id, "-"+s.Machine)) {
			t.Errorf("%s recorded machine %q", id, s.Machine)
		}
	}
	extra := len(got) - len(want)
	for _, m := range machines {
		if err := watchers[m].cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := watchers[m].cmd.Wait(); err != nil {
			t.Errorf("watcher %s: %v", m, err)
		}
	}
	t.Logf("3 watchers, %d sessions, %d messages, %d log entries, lost %d, doubled %d, extra sessions %d; m-b killed, back and caught up %v after its restart (%v after the kill, 200 ms of it down); every session complete %v after the last append",
		len(got), entries, logged, lost, doubled, extra, restart.Round(time.Millisecond), sinceKill.Round(time.Millisecond), complete.Round(time.Millisecond))
	if restartServer != nil {
		t.Logf("server restarted %v into the stream (%v), the restart took %v", serverAt.Round(time.Millisecond), strings.Join(restartServer, " "), serverTook.Round(time.Millisecond))
	}
	if lost != 0 || doubled != 0 || extra != 0 {
		t.Errorf("lost %d, doubled %d, extra sessions %d: %v", lost, doubled, extra, got)
	}
}

// TestMCPMachineFilter: list_sessions and search keep one machine's
// sessions; a row gives its machine and when its source went.
func TestMCPMachineFilter(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	writeLines(t, filepath.Join(a, "agent_main_cli_direct_on-a.jsonl"), "deploy from a", 3)
	writeLines(t, filepath.Join(b, "agent_main_cli_direct_on-b.jsonl"), "deploy from b", 2)
	writeLines(t, filepath.Join(b, "agent_main_cli_direct_kept-b.jsonl"), "kept on b", 2)
	sessionctl(t, db, "--machine", "box-a", "import", a).mustSucceed(t)
	sessionctl(t, db, "--machine", "box-b", "import", b).mustSucceed(t)
	if err := os.Remove(filepath.Join(b, "agent_main_cli_direct_on-b.jsonl")); err != nil {
		t.Fatal(err)
	}
	sessionctl(t, db, "--machine", "box-b", "import", b).mustSucceed(t)
	cs := mcpClient(t, db)
	var out struct {
		Sessions []struct {
			ID           string
			Machine      string
			SourceGoneAt string `json:"source_gone_at"`
		}
	}
	call(t, cs, "list_sessions", map[string]any{"machine": "box-b"}, &out)
	if len(out.Sessions) != 2 {
		t.Errorf("list_sessions machine box-b: %+v", out.Sessions)
	}
	for _, s := range out.Sessions {
		if s.Machine != "box-b" || (s.SourceGoneAt != "") != (s.ID == "agent_main_cli_direct_on-b") {
			t.Errorf("list_sessions machine box-b: %+v", s)
		}
	}
	var hits struct {
		Hits []struct {
			Session string `json:"session_id"`
		}
	}
	call(t, cs, "search", map[string]any{"query": "deploy", "machine": "box-a"}, &hits)
	if len(hits.Hits) == 0 {
		t.Fatal("search machine box-a found nothing")
	}
	for _, h := range hits.Hits {
		if h.Session != "agent_main_cli_direct_on-a" {
			t.Errorf("search machine box-a found a hit of %q", h.Session)
		}
	}
}
