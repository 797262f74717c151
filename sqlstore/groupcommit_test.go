package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// TestGroupCommitIsolatesFailures runs good writes, conflicting writes,
// invalid writes and panicking writes concurrently, so that they share
// batches: every good write must land, every bad one must leave no trace.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "g.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Create(ctx, sessiondb.Session{ID: "g"}); err != nil {
		t.Fatal(err)
	}
	const n = 40
	var wg sync.WaitGroup
	errs := make([]error, 4*n)
	for i := range n {
		wg.Add(4)
		go func() {
			defer wg.Done()
			_, errs[4*i] = s.Append(ctx, "g", sessiondb.Message(fmt.Sprintf(`{"good":%d}`, i)))
		}()
		go func() {
			defer wg.Done()
			_, errs[4*i+1] = s.Commit(ctx, "g", sessiondb.Commit{ExpectSequence: sessiondb.Expect(-1),
				Append: []sessiondb.Entry{sessiondb.Message(`{"conflict":true}`)}})
		}()
		go func() {
			defer wg.Done()
			// Valid JSON but the compaction is impossible: fails inside the
			// transaction after the append was executed.
			_, errs[4*i+2] = s.Commit(ctx, "g", sessiondb.Commit{
				Append:      []sessiondb.Entry{sessiondb.Message(`{"half":true}`)},
				Compactions: []sessiondb.Compaction{{KeepFromSeq: 1 << 40}}})
		}()
		go func() {
			defer wg.Done()
			errs[4*i+3] = s.write(ctx, func(tx *sqlx.Tx) error {
				if _, err := tx.Exec(`UPDATE sessions SET title = 'panicked' WHERE id = 'g'`); err != nil {
					return err
				}
				panic("boom")
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		switch i % 4 {
		case 0:
			if err != nil {
				t.Fatalf("good write %d failed: %v", i/4, err)
			}
		case 1:
			if !errors.Is(err, sessiondb.ErrConflict) {
				t.Fatalf("conflicting write: %v", err)
			}
		case 2:
			if !errors.Is(err, sessiondb.ErrInvalid) {
				t.Fatalf("invalid write: %v", err)
			}
		case 3:
			if err == nil {
				t.Fatal("panicking write reported success")
			}
		}
	}
	sess, _ := s.Get(ctx, "g")
	if sess.LastSeq != n || sess.Sequence != n+1 || sess.Title == "panicked" {
		t.Fatalf("after the storm: LastSeq %d (want %d), Sequence %d (want %d), title %q",
			sess.LastSeq, n, sess.Sequence, n+1, sess.Title)
	}
	entries, _ := s.Entries(ctx, "g", 0, 0)
	seen := map[string]bool{}
	for i, e := range entries {
		if e.Seq != int64(i+1) {
			t.Fatalf("seq hole: entry %d has seq %d", i, e.Seq)
		}
		seen[string(e.Body)] = true
	}
	for i := range n {
		if !seen[fmt.Sprintf(`{"good":%d}`, i)] {
			t.Fatalf("good write %d missing", i)
		}
	}
}

func TestWriteAfterCloseAndCancelled(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Create(ctx, sessiondb.Session{ID: "x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled write = %v", err)
	}
	if _, err := s.Get(context.Background(), "x"); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Fatalf("cancelled write left a session: %v", err)
	}
	s.Close()
	if _, err := s.Create(context.Background(), sessiondb.Session{}); !errors.Is(err, sessiondb.ErrClosed) {
		t.Fatalf("write after close = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// TestIndexBatchesSkipTheFsync checks the synchronous level each kind of
// batch commits with: an index-only batch relaxes DurabilityFull to NORMAL
// (its work can be rebuilt from the log), every other batch runs at the
// store's level, and the connection is back at FULL as soon as the index
// batch is done, so a write after it is fsynced again.
func TestIndexBatchesSkipTheFsync(t *testing.T) {
	ctx := context.Background()
	const normal, full = 1, 2
	for _, tc := range []struct {
		name              string
		dur               Durability
		indexing, writing int
	}{
		{"Full", DurabilityFull, normal, full},
		{"Normal", DurabilityNormal, normal, normal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(filepath.Join(t.TempDir(), "s.db"), &Options{Durability: tc.dur, IndexDelay: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			level := func(indexing bool) int {
				t.Helper()
				var got int
				err := s.submit(writeReq{ctx: ctx, indexing: indexing, fn: func(tx *sqlx.Tx) error {
					return tx.Get(&got, `PRAGMA synchronous`)
				}})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			for range 2 {
				if got := level(true); got != tc.indexing {
					t.Errorf("index batch: synchronous = %d, want %d", got, tc.indexing)
				}
				var after int
				if err := s.writer.Get(&after, `PRAGMA synchronous`); err != nil {
					t.Fatal(err)
				}
				if after != tc.writing {
					t.Errorf("writer connection after an index batch: synchronous = %d, want %d", after, tc.writing)
				}
				if got := level(false); got != tc.writing {
					t.Errorf("write after an index batch: synchronous = %d, want %d", got, tc.writing)
				}
			}
			// The real indexer path ends relaxed-free too.
			if _, err := s.Create(ctx, sessiondb.Session{ID: "a"}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Append(ctx, "a", sessiondb.Message(`{"role":"user","content":"hello"}`)); err != nil {
				t.Fatal(err)
			}
			if err := s.CatchUpIndex(ctx); err != nil {
				t.Fatal(err)
			}
			if got := level(false); got != tc.writing {
				t.Errorf("write after CatchUpIndex: synchronous = %d, want %d", got, tc.writing)
			}
		})
	}
}
