package pgstore

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestRacingCreates: many goroutines create one ID at once. Exactly one
// wins; the others get ErrExists (the unique violation of the losers is
// retried inside the store, which then sees the winner), never a raw
// driver error or ErrBusy.
func TestRacingCreates(t *testing.T) {
	s := MustOpenStore(t, nil)
	const n = 12
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = s.Create(t.Context(), sessiondb.Session{ID: "contested"})
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, sessiondb.ErrExists):
			t.Errorf("racing create: %v, want nil or ErrExists", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d creates won, want 1", won)
	}
}

// TestRacingSaveFull: many goroutines SaveFull one new session at once
// (no expected sequence), each with its own title. The first creates it,
// every other one replaces it: all succeed, and the session's Sequence
// counts every one. (Identical SaveFulls would be no-op commits after the
// first, which bump nothing.)
func TestRacingSaveFull(t *testing.T) {
	s := MustOpenStore(t, nil)
	const n = 12
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = s.SaveFull(t.Context(), sessiondb.Session{ID: "saved", Title: fmt.Sprint("writer ", i)},
				[]sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"hi"}`)}, nil)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("SaveFull %d: %v", i, err)
		}
	}
	sess, err := s.Get(t.Context(), "saved")
	if err != nil {
		t.Fatal(err)
	}
	if sess.Sequence != n {
		t.Fatalf("Sequence %d after %d SaveFulls, want %d", sess.Sequence, n, n)
	}
}
