package sessiondb

import (
	"context"
	"encoding/json"
)

// Create-on-write versions of Store.Append, Store.SetHistory and
// Store.SaveState: each is one Commit with CreateIfMissing, so the first
// write to a new session creates it (with default metadata) in the same
// transaction, race-free, as picoclaw's store does on its first write.

// AppendOrCreate appends entries to session id, creating it when missing.
func AppendOrCreate(ctx context.Context, store Store, id string, entries ...Entry) (Session, error) {
	return store.Commit(ctx, id, Commit{CreateIfMissing: &Session{}, Append: entries})
}

// SetHistoryOrCreate replaces the transcript of session id (see
// Store.SetHistory), creating the session when missing.
func SetHistoryOrCreate(ctx context.Context, store Store, id string, messages []Entry) (Session, error) {
	if messages == nil {
		messages = []Entry{}
	}
	return store.Commit(ctx, id, Commit{CreateIfMissing: &Session{}, History: messages})
}

// SaveStateOrCreate replaces the state document of session id, creating
// the session when missing.
func SaveStateOrCreate(ctx context.Context, store Store, id string, state json.RawMessage) (Session, error) {
	if state == nil {
		return Session{}, invalidf("save state of %s: nil state", id)
	}
	return store.Commit(ctx, id, Commit{CreateIfMissing: &Session{}, State: state})
}
