package sqlstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// CommitMany under SIGKILL (issue 14): a child applies rounds of
// CommitMany over manySessions sessions (one entry and a state per session
// per round, the last session created in the round) and is killed at a
// random moment. Every session must then be at the same round, at least
// the last round the child acknowledged: all of a CommitMany or nothing.

const (
	manySessions = 4
	manyKills    = 8
)

func init() { childRoles["many"] = childCommitMany }

type manyRound struct{ Round int }

func childCommitMany() error {
	s, err := Open(os.Getenv(procDBEnv), nil)
	if err != nil {
		return err
	}
	ctx := context.Background()
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
			doc := fmt.Sprintf(`{"round":%d}`, round)
			commits[k] = sessiondb.SessionCommit{ID: fmt.Sprintf("many-%d", k), Commit: sessiondb.Commit{
				CreateIfMissing: &sessiondb.Session{},
				Append:          []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"r","round":` + strconv.Itoa(round) + `}`)},
				State:           json.RawMessage(doc),
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

func TestCommitManyCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "many.db")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	acked := 0
	for kill := range manyKills {
		cmd := procChild(t, "many", path, kill)
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
			cmd.Process.Kill()
			cmd.Wait()
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

		s := MustOpenStoreAt(t, path, nil)
		ctx := context.Background()
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
				var st manyRound
				if err := json.Unmarshal(mustStateOf(t, s, id), &st); err != nil || int64(st.Round) != g.LastSeq {
					t.Fatalf("kill %d: %s state %+v (%v) at round %d", kill, id, st, err, g.LastSeq)
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
		s.Close()
	}
	t.Logf("%d kills, %d rounds committed", manyKills, acked)
}

func mustStateOf(t *testing.T, s *Store, id string) json.RawMessage {
	t.Helper()
	st, err := s.LoadState(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
