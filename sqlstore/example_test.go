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
