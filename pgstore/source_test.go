package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestRacingSourceExpectations: importers racing to import one source file
// for the first time (ExpectSource Absent), each creating its own session,
// through their own connections: exactly one wins; the others get
// ErrConflict and leave nothing behind. Without the advisory lock, READ
// COMMITTED lets several see no record and all write.
func TestRacingSourceExpectations(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t, nil)
	const racers = 8
	for round := range 5 {
		path := fmt.Sprintf("/archive/round-%d.jsonl", round)
		var wg sync.WaitGroup
		errs := make([]error, racers)
		start := make(chan struct{})
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = s.Commit(ctx, fmt.Sprintf("r%d-%d", round, i), sessiondb.Commit{
					Create:       &sessiondb.Session{},
					Append:       []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"hi"}`)},
					Source:       &sessiondb.SourceFile{Path: path, Format: "picoclaw", Size: 1, SHA256: "x", Offset: 1},
					ExpectSource: &sessiondb.SourceExpectation{Absent: true},
				})
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case errors.Is(err, sessiondb.ErrConflict):
				if _, gerr := s.Get(ctx, fmt.Sprintf("r%d-%d", round, i)); !errors.Is(gerr, sessiondb.ErrNotFound) {
					t.Errorf("round %d: loser %d left its session behind: %v", round, i, gerr)
				}
			default:
				t.Fatalf("round %d racer %d: %v", round, i, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d importers won, want exactly 1", round, won)
		}
	}
}
