package sqlstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// Example shows the life of one agent session: atomic transcript+state
// saves with optimistic concurrency, a snapshot load, and search.
func Example() {
	dir, _ := os.MkdirTemp("", "sessiondb-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	store, err := sqlstore.Open(filepath.Join(dir, "sessions.db"), nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()

	// Save transcript and state in one transaction; keep the returned
	// session: its Sequence guards the next save.
	sess, err := store.SaveFull(ctx, sessiondb.Session{ID: "demo", Title: "Lighthouse"},
		[]sessiondb.Entry{
			sessiondb.Message(`{"role":"user","content":"Where is the lighthouse?"}`),
			sessiondb.Message(`{"role":"assistant","content":"On the northern cape."}`),
		}, json.RawMessage(`{"turn":1}`))
	if err != nil {
		panic(err)
	}

	// A writer holding a stale sequence is refused, and nothing is written.
	_, err = store.Commit(ctx, "demo", sessiondb.Commit{
		ExpectSequence: sessiondb.Expect(sess.Sequence - 1),
		Append:         []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"lost?"}`)},
	})
	fmt.Println("stale write refused:", errors.Is(err, sessiondb.ErrConflict))

	full, _ := store.LoadFull(ctx, "demo", sessiondb.LoadOptions{})
	fmt.Println(len(full.Transcript), "messages, state", string(full.State))

	hits, _ := store.Search(ctx, "northern", sessiondb.SearchOptions{})
	fmt.Println(hits[0].SessionID, hits[0].Seq, hits[0].Snippet)
	// Output:
	// stale write refused: true
	// 2 messages, state {"turn":1}
	// demo 2 On the **northern** cape.
}

// Example_agentStores shows the calls that the stores sessiondb replaces
// map their methods to (issue 44): running totals, a list with previews
// and totals, a branch after the k-th message, create-on-write with
// metadata, a save that is always a revision, a list by key.
func Example_agentStores() {
	dir, _ := os.MkdirTemp("", "sessiondb-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	store, err := sqlstore.Open(filepath.Join(dir, "sessions.db"), nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()

	// zot: running totals; a repeated one (every flush) adds nothing.
	o := sessiondb.OrCreate{Meta: &sessiondb.MetaPatch{Aliases: &[]string{"zot:main"}}}
	for _, total := range []int64{120, 120, 300} {
		_, err = o.Commit(ctx, store, "z1", sessiondb.Commit{
			Append:          []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"Plan the trip"}`)},
			CumulativeUsage: []sessiondb.Usage{{Model: "m", InputTokens: total, Cost: float64(total) / 1000}},
		})
		if err != nil {
			panic(err)
		}
	}
	infos, _, _ := store.List(ctx, sessiondb.ListOptions{Usage: true})
	fmt.Printf("%s %q: %d calls, %d input tokens, $%.2f\n", infos[0].ID, infos[0].Preview,
		infos[0].Usage.Calls, infos[0].Usage.InputTokens, infos[0].Usage.Cost)

	// A branch after the 2nd message, with its own title.
	title := "by train"
	b, _ := store.ForkWith(ctx, "z1", sessiondb.ForkOptions{ID: "z1-b", AtMessage: 2, Meta: &sessiondb.MetaPatch{Title: &title}})
	fmt.Println(b.ID, b.Title, b.MessageCount, "messages, parent", b.ParentID)

	// swink: every save is a revision, at the caller's time.
	s, _ := store.Get(ctx, "z1-b")
	s, err = store.Commit(ctx, "z1-b", sessiondb.Commit{ExpectSequence: sessiondb.Expect(s.Sequence), Revise: true})
	fmt.Println("revision", s.Sequence, err)

	// picoclaw: sessions by key.
	page, _, _ := store.List(ctx, sessiondb.ListOptions{Order: sessiondb.ByID, Ascending: true})
	for _, in := range page {
		fmt.Print(in.ID, " ")
	}
	fmt.Println()
	// Output:
	// z1 "Plan the trip": 2 calls, 300 input tokens, $0.30
	// z1-b by train 2 messages, parent z1
	// revision 2 <nil>
	// z1 z1-b
}
