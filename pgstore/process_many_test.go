package pgstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// Create-on-write across processes and CommitMany under SIGKILL (issue
// 14), as sqlstore's process_cow_test.go and process_many_test.go, against
// one schema of the PostgreSQL server.

const (
	cowChildren  = 4
	cowSessions  = 40
	manySessions = 4
	manyKills    = 8
)

func init() {
	childRoles["cow"] = childCreateOnWrite
	childRoles["many"] = childCommitMany
}

// procChild returns a child process of role on the schema of u.
func procChild(u, role string, index int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), procRoleEnv+"="+role, procURLEnv+"="+u, testDBEnv+"="+testDB,
		procIndexEnv+"="+strconv.Itoa(index), procCommitsEnv+"=0")
	return cmd
}

// childCreateOnWrite writes one entry to each of cowSessions sessions, in
// its own random order, creating each on first write.
func childCreateOnWrite() error {
	child, err := strconv.Atoi(os.Getenv(procIndexEnv))
	if err != nil {
		return err
	}
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv(procURLEnv), &Options{RetryTimeout: procRetryBudget, MaxConns: 2})
	if err != nil {
		return err
	}
	defer s.Close()
	for _, k := range rand.Perm(cowSessions) {
		body := fmt.Sprintf(`{"role":"user","content":"child %d","child":%d}`, child, child)
		_, err := s.Commit(ctx, fmt.Sprintf("cow-%02d", k), sessiondb.Commit{
			CreateIfMissing: &sessiondb.Session{Title: fmt.Sprintf("created by child %d", child)},
			Append:          []sessiondb.Entry{sessiondb.Message(body)},
		})
		if err != nil {
			return fmt.Errorf("write to cow-%02d: %w", k, err)
		}
	}
	return nil
}

// TestMultiProcessCreateOnWrite: several processes write to sessions that
// do not exist yet, each with Commit.CreateIfMissing; every write must
// succeed and every session be created exactly once.
func TestMultiProcessCreateOnWrite(t *testing.T) {
	u := newSchema(t)
	s := mustOpenURL(t, u, nil) // migrates the schema before the children start
	var cmds []*exec.Cmd
	var stderrs []*strings.Builder
	for c := range cowChildren {
		cmd := procChild(u, "cow", c)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, stderrs = append(cmds, cmd), append(stderrs, &stderr)
	}
	for c, cmd := range cmds {
		if err := cmd.Wait(); err != nil || stderrs[c].Len() > 0 {
			t.Errorf("child %d: %v\nstderr:\n%s", c, err, stderrs[c].String())
		}
	}
	ctx := t.Context()
	infos, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != cowSessions {
		t.Fatalf("%d sessions, want %d", len(infos), cowSessions)
	}
	for _, in := range infos {
		if in.Sequence != cowChildren || in.LastSeq != cowChildren || in.EntryCount != cowChildren {
			t.Errorf("%s: sequence %d, last seq %d, entries %d; want %d each (one create, one write per child)",
				in.ID, in.Sequence, in.LastSeq, in.EntryCount, cowChildren)
		}
		log, err := s.Entries(ctx, in.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, e := range log {
			var v struct{ Child int }
			if err := json.Unmarshal(e.Body, &v); err != nil {
				t.Fatal(err)
			}
			seen[v.Child] = true
		}
		if len(seen) != cowChildren {
			t.Errorf("%s holds writes of %d children, want %d", in.ID, len(seen), cowChildren)
		}
	}
}

type manyRound struct{ Round int }

// childCommitMany applies rounds of CommitMany over manySessions sessions
// (one entry and a state per session per round, plus a session created in
// the round) until it is killed, printing "ok N" after each round.
func childCommitMany() error {
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv(procURLEnv), &Options{RetryTimeout: procRetryBudget, MaxConns: 2})
	if err != nil {
		return err
	}
	defer s.Close()
	round := 0
	if g, err := s.Get(ctx, "many-0"); err == nil {
		round = int(g.LastSeq)
	} else if !errors.Is(err, sessiondb.ErrNotFound) {
		return err
	}
	fmt.Println("ready")
	for {
		round++
		commits := make([]sessiondb.SessionCommit, manySessions)
		for k := range manySessions {
			commits[k] = sessiondb.SessionCommit{ID: fmt.Sprintf("many-%d", k), Commit: sessiondb.Commit{
				CreateIfMissing: &sessiondb.Session{},
				Append:          []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"r","round":` + strconv.Itoa(round) + `}`)},
				State:           json.RawMessage(fmt.Sprintf(`{"round":%d}`, round)),
			}}
		}
		// A new session joins in every round, created inside the call.
		commits = append(commits, sessiondb.SessionCommit{ID: fmt.Sprintf("joined-%d", round),
			Commit: sessiondb.Commit{CreateIfMissing: &sessiondb.Session{}, Append: []sessiondb.Entry{sessiondb.Message(`{"round":` + strconv.Itoa(round) + `}`)}}})
		if _, err := s.CommitMany(ctx, commits); err != nil {
			return err
		}
		fmt.Printf("ok %d\n", round)
	}
}

// TestCommitManyCrash: a child applying CommitMany rounds is SIGKILLed at
// a random moment, manyKills times. Every session must then be at the same
// round, at least the last round the child acknowledged: all of a
// CommitMany or nothing.
func TestCommitManyCrash(t *testing.T) {
	u := newSchema(t)
	s := mustOpenURL(t, u, nil)
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	acked := 0
	for kill := range manyKills {
		cmd := procChild(u, "many", kill)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(stdout)
		if line, err := br.ReadString('\n'); err != nil || line != "ready\n" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("kill %d: child said %q, %v\n%s", kill, line, err, stderr.String())
		}
		lines := make(chan int, 1<<16)
		go func() {
			defer close(lines)
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return // a line cut by the kill is dropped
				}
				if n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "ok "))); err == nil {
					lines <- n
				}
			}
		}()
		time.Sleep(time.Duration(5+rng.IntN(100)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatal(err)
		}
		for n := range lines {
			acked = max(acked, n)
		}
		werr := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("kill %d: the child ended by itself (%v):\n%s", kill, werr, stderr.String())
		}
		// The killed client's last COMMIT may still be in the server's
		// hands: let it finish before the census.
		waitBackendsIdle(t, s)

		round := int64(-1)
		for k := range manySessions {
			id := fmt.Sprintf("many-%d", k)
			g, err := s.Get(ctx, id)
			if errors.Is(err, sessiondb.ErrNotFound) {
				g = sessiondb.Session{}
			} else if err != nil {
				t.Fatal(err)
			}
			if round >= 0 && g.LastSeq != round {
				t.Fatalf("kill %d: %s is at round %d, many-0 at %d: a CommitMany was applied in part", kill, id, g.LastSeq, round)
			}
			round = g.LastSeq
			if g.LastSeq > 0 {
				st, err := s.LoadState(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				var r manyRound
				if err := json.Unmarshal(st, &r); err != nil || int64(r.Round) != g.LastSeq {
					t.Fatalf("kill %d: %s state %s (%v) at round %d", kill, id, st, err, g.LastSeq)
				}
			}
		}
		if round < int64(acked) {
			t.Fatalf("kill %d: sessions at round %d, but the child acknowledged round %d", kill, round, acked)
		}
		// The session that joined in each committed round exists; the
		// next round's does not.
		for r := int64(1); r <= round+1; r++ {
			_, err := s.Get(ctx, fmt.Sprintf("joined-%d", r))
			if (err == nil) != (r <= round) {
				t.Fatalf("kill %d: joined-%d: %v with sessions at round %d", kill, r, err, round)
			}
		}
		acked = int(round)
	}
	t.Logf("%d kills, %d rounds committed", manyKills, acked)
}
