package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// Create-on-write across processes (issue 14): several processes write to
// sessions that do not exist yet, each with Commit.CreateIfMissing; every
// write must succeed and every session be created exactly once.

const (
	cowChildren = 4
	cowSessions = 40
)

func init() { childRoles["cow"] = childCreateOnWrite }

// childCreateOnWrite writes one entry to each of cowSessions sessions, in
// its own random order, creating each on first write.
func childCreateOnWrite() error {
	child, err := strconv.Atoi(os.Getenv(procIndexEnv))
	if err != nil {
		return err
	}
	s, err := Open(os.Getenv(procDBEnv), nil)
	if err != nil {
		return err
	}
	ctx := context.Background()
	for _, k := range rand.Perm(cowSessions) {
		body := fmt.Sprintf(`{"role":"user","content":"child %d","child":%d}`, child, child)
		_, err := s.Commit(ctx, fmt.Sprintf("cow-%02d", k), sessiondb.Commit{
			CreateIfMissing: &sessiondb.Session{Title: fmt.Sprintf("created by child %d", child)},
			Append:          []sessiondb.Entry{sessiondb.Message(body)},
		})
		if err != nil {
			s.Close()
			return fmt.Errorf("write to cow-%02d: %w", k, err)
		}
	}
	return s.Close()
}

func TestMultiProcessCreateOnWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cow.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, stderrs, errs := runChildren(t, "cow", path, cowChildren)
	for c := range cowChildren {
		if errs[c] != nil || stderrs[c].Len() > 0 {
			t.Errorf("child %d: %v\nstderr:\n%s", c, errs[c], stderrs[c].String())
		}
	}
	s = MustOpenStoreAt(t, path, nil)
	ctx := context.Background()
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
