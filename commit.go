package sessiondb

import (
	"encoding/json"
	"fmt"
	"time"
)

// Commit is the atomic write primitive: every part of it is applied in one
// transaction with one Sequence bump, or nothing is. Parts apply in this
// order: Create (or CreateIfMissing), Meta, History, Append, Compactions,
// KeepLast, State, Interrupt, ReplaceUsage, Usage, CumulativeUsage, Source.
//
// A commit that changes nothing — no entries, compactions, usage or source
// record, and meta, state and interrupt equal to what is stored (an
// UpdateMeta with an equal patch, a KeepLast the transcript already meets,
// a History equal to the transcript) — is a no-op: nothing is written, the
// Sequence stays, and the current session is returned. ExpectSequence is
// still checked. Revise makes such a commit a revision all the same.
type Commit struct {
	// ExpectSequence, when non-nil, makes the commit fail with a
	// *ConflictError (errors.Is ErrConflict) unless the stored Sequence
	// equals it. Use Expect(n) to set it.
	ExpectSequence *int64
	// Create, when non-nil, creates the session (with the commit's ID) in the
	// same transaction; the commit fails with ErrExists if it exists.
	// Without Create the session must exist (ErrNotFound otherwise).
	Create *Session
	// CreateIfMissing, when non-nil, creates the session with these fields
	// (and the commit's ID) in the same transaction when it does not exist,
	// and is ignored when it does: create-on-write, race-free across
	// goroutines and processes (exactly one of several racing commits
	// creates it; the others apply to the session it created). With
	// ExpectSequence, a missing session's sequence is 0 (or, for a deleted
	// ID, the deleted session's last Sequence). Not with Create.
	CreateIfMissing *Session
	// ShadowAliases lets Create or CreateIfMissing create a session whose
	// ID is not a path key (see IsPathKey) although other sessions list
	// that ID as an alias; Resolve then names the new session by it
	// (picoclaw's rule: a session file with a plain key beats an alias).
	// Without it such a Create fails with ErrExists, so that no alias ever
	// moves silently. Importers of picoclaw archives set it.
	ShadowAliases bool
	// Meta patches the session's metadata.
	Meta *MetaPatch
	// Append adds entries to the log; they get Seq LastSeq+1, LastSeq+2, …
	Append []Entry
	// History, when non-nil, replaces the effective transcript as SetHistory
	// does (an empty, non-nil slice empties it); Append then adds after it.
	History []Entry
	// Compactions are recorded after the appends, in order; the last becomes
	// current. KeepFromSeq and AtSeq are absolute log positions.
	Compactions []Compaction
	// KeepLast, when non-nil, then keeps the last *KeepLast entries of the
	// effective transcript, as Truncate does ("set the summary and keep
	// the last N" is one commit: Meta.Summary plus KeepLast).
	KeepLast *int
	// State replaces the state document (nil: unchanged). ClearState
	// removes it.
	State      json.RawMessage
	ClearState bool
	// Interrupt replaces the interrupt document (nil: unchanged).
	// ClearInterrupt removes it.
	Interrupt      json.RawMessage
	ClearInterrupt bool
	// Usage rows are added to the usage ledger.
	Usage []Usage
	// CumulativeUsage rows are running totals, not calls: each says what
	// the session has spent so far (zot's AppendUsage(cum, cum)). The
	// store turns each into the delta against the session's previous
	// total, inside the commit, and adds that delta to the ledger as one
	// call (so UsageTotals, UsageReport and List with Usage see it). The
	// previous total is the last cumulative row the session recorded, or,
	// before its first one, the sum of its ledger (an agent that seeds its
	// counter from the stored total, as zot does on resume, continues it).
	// A row equal to the previous total adds nothing (zot writes the same
	// total at every flush). A row in which any token count or the cost
	// is below the previous total is a reset (the agent's counter started
	// again from zero): the row is taken as the delta as it stands, and
	// becomes the previous total. Rows apply in order, after Usage; their
	// CallID must be empty (ErrInvalid): a delta is not a call the agent
	// can name. ReplaceUsage forgets the previous total too, and so does
	// a copy to another database (Copier carries the ledger, not the
	// previous total: there the next total is diffed against the ledger's
	// sum, which equals the previous total unless the agent had reset).
	CumulativeUsage []Usage
	// ReplaceUsage makes Usage the session's whole ledger: its stored rows
	// are deleted first, in the same transaction (an importer re-reading
	// a file rewritten in place, whose calls are now the file's). Without
	// Usage it empties the ledger. It changes nothing, and so is a no-op,
	// when the ledger is empty and Usage is too.
	ReplaceUsage bool
	// Source records import provenance for a source file in the same
	// transaction, so that an import and its bookkeeping land together.
	Source *SourceFile
	// ExpectSource, when non-nil, is a precondition on the record stored
	// for Source.Path (Source must be set): the commit fails with an error
	// matching ErrConflict, and changes nothing, unless the record is the
	// one the caller based the commit on. It lets an importer's "already
	// imported?" check and its write be one transaction: two processes
	// importing one file cannot both import it.
	ExpectSource *SourceExpectation
	// Now overrides the time the store records as UpdatedAt (zero: now).
	Now time.Time
	// Revise makes the commit record a revision even when it changes
	// nothing else: one Sequence bump and UpdatedAt set (to Meta.UpdatedAt,
	// Now or now), where an unchanged commit would be a no-op. A store
	// whose callers count saves (swink bumps its sequence on every save
	// and keeps the caller's updated_at) sets it on every save, so that
	// the sequence it expects next is always the stored one plus one.
	// This is an option rather than "a changed UpdatedAt counts as a
	// change" because a save is a revision whatever its time: two saves
	// within one timestamp's resolution, or an importer that keeps the
	// source's time, would otherwise still be no-ops for the one caller
	// that counts them, and the callers that repeat an "ensure" commit
	// every turn keep their free no-op.
	Revise bool
	// Delete removes the session and everything stored with it, as
	// Store.Delete does (its last Sequence is remembered, so a session
	// made again under its ID continues from it; its forks stay), in the
	// commit's transaction: in a CommitMany, the other sessions' writes
	// and this deletion land together or not at all (an importer drops a
	// branch fork the file no longer has in the commit that imports the
	// file). Only ExpectSequence may go with it (ErrInvalid otherwise);
	// the session must exist (ErrNotFound). The Session returned is the
	// deleted one, as it was.
	Delete bool
}

// SourceExpectation is Commit.ExpectSource: the source-file record a
// commit expects to find for Source.Path.
type SourceExpectation struct {
	// Absent requires that no record exists for the path (a first import).
	Absent bool
	// SHA256 and Offset, when Absent is false, must equal the stored
	// record's: the bytes the caller saw consumed by the previous import.
	SHA256 string
	Offset int64
}

// SessionCommit is one session's part of a Store.CommitMany.
type SessionCommit struct {
	ID     string
	Commit Commit
}

// MaxCommitMany is the largest number of commits one CommitMany takes.
const MaxCommitMany = 10000

// ValidateCommitMany checks every commit of a CommitMany (see
// ValidateCommit) and the count.
func ValidateCommitMany(commits []SessionCommit) error {
	if len(commits) > MaxCommitMany {
		return invalidf("%d commits in one call, the limit is %d", len(commits), MaxCommitMany)
	}
	for i, sc := range commits {
		if err := ValidateCommit(sc.ID, sc.Commit); err != nil {
			return fmt.Errorf("commit %d (%s): %w", i, sc.ID, err)
		}
	}
	return nil
}

// Expect returns a pointer to seq, for Commit.ExpectSequence.
func Expect(seq int64) *int64 { return &seq }

// Keep returns a pointer to n, for Commit.KeepLast.
func Keep(n int) *int { return &n }

// SourceFile records what an importer consumed of one source file, so that
// re-importing an unchanged file is a no-op and a grown file imports only
// its new lines. A record is keyed by (Machine, Path): two machines
// importing one path into one store each keep their own.
type SourceFile struct {
	// Machine is the machine identity of the importer that consumed the
	// file ("" when it gave none). Commit.Source records it; a record of
	// "" (one written before records had machines, or by an importer that
	// gave none) is found by every machine's lookup until that machine
	// records the path itself, which replaces it (see SourceTracker).
	Machine   string
	Path      string
	Format    string
	SessionID string
	Size      int64
	ModTime   time.Time
	// SHA256 is the hex digest of the first Offset bytes of the file.
	SHA256 string
	// Offset is the number of bytes consumed (up to the last complete line).
	Offset int64
	// State is free importer state (JSON) needed to continue incrementally.
	State      json.RawMessage
	ImportedAt time.Time
}

// Full is a consistent snapshot of a session: metadata, effective
// transcript, state and interrupt, all read from one transaction.
type Full struct {
	Session    Session
	Transcript []Entry
	State      json.RawMessage // nil when the session has no state
	Interrupt  json.RawMessage // nil when no interrupt is pending
}
