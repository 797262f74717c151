package sessiondb

import (
	"encoding/json"
	"time"
)

// Checkpoint is a named snapshot of a session (an agent checkpoint, for
// time travel): a position in the log and the state at that point. It does
// not copy the transcript; the transcript at the checkpoint is rebuilt from
// the log, which Prune keeps for as long as the checkpoint exists.
type Checkpoint struct {
	// ID names the checkpoint; empty on save means NewID().
	ID        string
	SessionID string
	Label     string
	// AtSeq is the log position captured; 0 on save means the session's
	// LastSeq.
	AtSeq int64
	// CompactionID is the compaction that was current at AtSeq (0: none).
	// Set by the store.
	CompactionID int64
	// State is the state document captured; nil on save means the session's
	// current state.
	State json.RawMessage
	// Metadata is free JSON (nil when unset).
	Metadata  json.RawMessage
	CreatedAt time.Time
}

// RestoreOptions chooses how Store.Restore brings a checkpoint back.
type RestoreOptions struct {
	// AsFork restores into a new session instead of rewinding in place.
	AsFork bool
	// NewID names the fork (NewID() when empty). Only with AsFork.
	NewID string
	// ExpectSequence guards a rewind like Commit.ExpectSequence.
	ExpectSequence *int64
}
