package sessiondb

import (
	"encoding/json"
	"time"
)

// Entry kinds. Any other non-empty kind names an application rich entry
// (for example "model_change" or "label").
const (
	// KindMessage is an LLM message ({"role":…,"content":…}).
	KindMessage = "message"
	// KindCustom is an application-defined message.
	KindCustom = "custom"
	// KindMessagePart is a further content block of the message before
	// it in the log: importers give this kind to the later lines of one
	// streamed API response (Claude Code writes each content block of a
	// response as its own line), and readers merge it into that message.
	// It is not a message of its own: Session.MessageCount does not count
	// it.
	KindMessagePart = "message-part"
)

// MaxBodySize is the largest entry, state or interrupt document a store
// accepts, in bytes.
const MaxBodySize = 64 << 20

// MaxKindLen bounds the length of an entry kind.
const MaxKindLen = 128

// Entry is one row of a session's log, or one summary message of a
// compaction (then Seq is 0 and Summary is true).
type Entry struct {
	// Seq is assigned by the store; it is ignored on append.
	Seq int64
	// Kind defaults to KindMessage when empty on append.
	Kind string
	// Role is extracted from the body on append when empty.
	Role string
	// CreatedAt defaults to now on append when zero.
	CreatedAt time.Time
	// Body is the JSON document, stored and returned byte for byte.
	Body json.RawMessage
	// Summary is true for the synthetic summary messages a compaction puts
	// in front of the transcript.
	Summary bool
}

// LoadOptions filters the effective transcript. Filters apply in this
// order: Kinds, After, LastN. The zero value loads the whole transcript.
type LoadOptions struct {
	// Kinds keeps entries whose kind is listed (all when empty).
	Kinds []string
	// After keeps entries created strictly after it (all when zero).
	After time.Time
	// LastN keeps the last N entries (all when 0).
	LastN int
}

// Message returns an Entry of KindMessage with the given body.
func Message(body string) Entry {
	return Entry{Kind: KindMessage, Body: json.RawMessage(body)}
}
