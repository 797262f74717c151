package sessiondb

import (
	"context"
	"encoding/json"
	"time"
)

// Store persists sessions. Every method is safe for concurrent use, every
// write is one transaction, and every error matches one of the package's
// sentinels where one applies. Package sqlstore is the SQLite implementation;
// package storetest is the conformance suite every implementation passes.
type Store interface {
	// Create creates a session. An empty ID gets NewID(); zero times get now.
	// It fails with ErrExists when the ID is taken, and when the ID is not a
	// path key (see IsPathKey) and another session lists it as an alias:
	// Resolve would then move that alias to the new session (a Commit with
	// ShadowAliases asks for exactly that). An ID that is
	// a path key may equal another session's alias; the alias keeps winning.
	// Aliases may be shared (see Resolve).
	Create(ctx context.Context, s Session) (Session, error)
	// Get returns a session's metadata.
	Get(ctx context.Context, id string) (Session, error)
	// List returns one page of sessions, newest UpdatedAt first unless
	// opts.Order says otherwise, and the cursor of the next page ("" after
	// the last).
	List(ctx context.Context, opts ListOptions) ([]SessionInfo, string, error)
	// UpdateMeta patches a session's metadata.
	UpdateMeta(ctx context.Context, id string, patch MetaPatch) (Session, error)
	// Resolve returns the ID of the session named by idOrAlias. Several
	// sessions may list the same alias; the rules are picoclaw's
	// (ResolveSessionKey), so that picoclaw data resolves as picoclaw does:
	//
	//  1. a key that is not a path key (no ':', '/' or '\', see IsPathKey)
	//     and is a session's ID names that session;
	//  2. otherwise the first session, in AliasOrderKey order, that lists
	//     the key as an alias wins, even over a session with that ID;
	//  3. otherwise the session with that ID;
	//  4. otherwise ErrNotFound.
	//
	// Matching is exact (case-sensitive, no trimming).
	Resolve(ctx context.Context, idOrAlias string) (string, error)
	// Delete removes a session and every trace of it: entries, state,
	// interrupt, compactions, checkpoints, usage and source records. Forks
	// of it keep working.
	Delete(ctx context.Context, id string) error

	// Append adds entries to the session's log and returns the session
	// after the commit; the new entries have Seq LastSeq-len+1 … LastSeq.
	Append(ctx context.Context, id string, entries ...Entry) (Session, error)
	// Load returns the effective transcript, filtered by opts.
	Load(ctx context.Context, id string, opts LoadOptions) ([]Entry, error)
	// Entries returns raw log rows with from <= Seq <= to, superseded ones
	// included (to == 0 means to the end). Pruned rows are gone.
	Entries(ctx context.Context, id string, from, to int64) ([]Entry, error)

	// SetHistory replaces the effective transcript with messages, keeping
	// the old rows for audit: the messages are appended and a compaction
	// makes the first of them the start of the transcript. When the current
	// transcript (without summary) is a byte-equal prefix of messages, only
	// the new tail is appended.
	SetHistory(ctx context.Context, id string, messages []Entry) (Session, error)
	// Truncate keeps the last keepLast entries of the effective transcript
	// (summary messages of the current compaction count as entries and are
	// dropped first). It records a compaction without summary.
	Truncate(ctx context.Context, id string, keepLast int) (Session, error)
	// Compact records a compaction checkpoint.
	Compact(ctx context.Context, id string, c Compaction) (Session, error)
	// Compactions lists a session's compactions, oldest first.
	Compactions(ctx context.Context, id string) ([]Compaction, error)
	// Prune physically deletes log entries that the current compaction no
	// longer reaches, and the superseded compactions, except what agent
	// checkpoints still need. It returns the number of entries deleted.
	Prune(ctx context.Context, id string) (int64, error)

	// SaveState replaces the session's state document.
	SaveState(ctx context.Context, id string, state json.RawMessage) (Session, error)
	// LoadState returns the state document, nil when none was saved.
	LoadState(ctx context.Context, id string) (json.RawMessage, error)
	// SaveInterrupt replaces the session's interrupt document.
	SaveInterrupt(ctx context.Context, id string, interrupt json.RawMessage) (Session, error)
	// LoadInterrupt returns the interrupt document, nil when none is pending.
	LoadInterrupt(ctx context.Context, id string) (json.RawMessage, error)
	// ClearInterrupt removes the interrupt document (idempotent).
	ClearInterrupt(ctx context.Context, id string) (Session, error)

	// Commit applies c to session id atomically with one Sequence bump.
	Commit(ctx context.Context, id string, c Commit) (Session, error)
	// CommitMany applies commits to several sessions in one transaction:
	// all of them or none. Each has its own optional ExpectSequence; any
	// conflict, or any other failure, fails the whole call (the error
	// names the session) and writes nothing. Commits apply in order, so one
	// ID may appear more than once (later ones see earlier ones). It
	// returns each session after its commit, in order. At most
	// MaxCommitMany commits per call.
	CommitMany(ctx context.Context, commits []SessionCommit) ([]Session, error)
	// SaveFull replaces transcript, state and metadata (title, summary,
	// scope, attrs, aliases, version) in one commit, creating the session
	// when it does not exist. When the session exists and s.Sequence is not
	// 0, it must equal the stored sequence (ErrConflict otherwise). It
	// returns the persisted session.
	SaveFull(ctx context.Context, s Session, messages []Entry, state json.RawMessage) (Session, error)
	// LoadFull reads metadata, effective transcript, state and interrupt
	// from one read transaction.
	LoadFull(ctx context.Context, id string, opts LoadOptions) (Full, error)

	// Fork creates session newID (NewID() when empty) whose effective
	// transcript equals src's as of log position atSeq (0: now), with src's
	// state copied and ParentID/ForkSeq recorded.
	Fork(ctx context.Context, src string, atSeq int64, newID string) (Session, error)
	// ForkWith is Fork with options (see ForkOptions): a cut after the
	// k-th message, and the child's own metadata and aliases, in the
	// transaction that creates it. Fork(ctx, src, atSeq, id) is
	// ForkWith(ctx, src, ForkOptions{ID: id, AtSeq: atSeq}).
	ForkWith(ctx context.Context, src string, opts ForkOptions) (Session, error)
	// SaveCheckpoint records an agent checkpoint and applies the store's
	// retention (the newest N per session are kept).
	SaveCheckpoint(ctx context.Context, cp Checkpoint) (Checkpoint, error)
	// LoadCheckpoint returns one checkpoint.
	LoadCheckpoint(ctx context.Context, id string) (Checkpoint, error)
	// ListCheckpoints lists a session's checkpoints, newest first.
	ListCheckpoints(ctx context.Context, sessionID string) ([]Checkpoint, error)
	// DeleteCheckpoint removes a checkpoint (ErrNotFound if absent).
	DeleteCheckpoint(ctx context.Context, id string) error
	// Restore brings back the transcript and state captured by a
	// checkpoint. With opts.AsFork it creates a new session (a fork at the
	// checkpoint, with the checkpoint's state); otherwise it rewinds the
	// checkpoint's session in place: the transcript at the checkpoint is
	// appended again and a compaction starts the transcript there, so the
	// turns after the checkpoint stay in the log until pruned.
	Restore(ctx context.Context, checkpointID string, opts RestoreOptions) (Session, error)

	// Search finds entries and summary messages whose extracted text
	// matches query: whitespace-separated terms that must all occur, or a
	// "quoted phrase". Any user input is safe: it is never interpreted as
	// query syntax. An empty or oversized query is ErrInvalid. A write
	// acknowledged before Search starts is found by it, whichever process
	// made it, however the backend maintains its index (read-your-writes).
	Search(ctx context.Context, query string, opts SearchOptions) ([]Hit, error)

	// UsageTotals sums the session's usage ledger.
	UsageTotals(ctx context.Context, id string) (UsageTotals, error)
	// UsageReport groups the usage ledger by session, model and/or day.
	UsageReport(ctx context.Context, q UsageQuery) ([]UsageRow, error)
	// SourceFile returns the import record of a source file path made by
	// an importer that gave no machine (SourceFile.Machine ""); see
	// SourceTracker.SourceFileOn for a machine's.
	SourceFile(ctx context.Context, path string) (SourceFile, error)

	// Close releases the store. Calls after Close return ErrClosed.
	Close() error
}

// SessionLookup is implemented by stores that resolve a name and read the
// session it names in one call (one read transaction, not two). sqlstore
// and pgstore implement it; callers holding a plain Store fall back to
// Resolve and Get (the viewer does, for every transcript page).
type SessionLookup interface {
	// Lookup returns the session Resolve(idOrAlias) names, as Get returns
	// it, read in the same read transaction as the resolution.
	Lookup(ctx context.Context, idOrAlias string) (Session, error)
}

// SourceMarks is what an importer found of the sources it follows (see
// SourceTracker.MarkSources).
type SourceMarks struct {
	// Seen are source paths (Session.SourcePath) found present.
	Seen []string
	// Gone are source paths found missing: the file was deleted or moved
	// away, or the row left the agent's database.
	Gone []string
	// At is when (zero: now).
	At time.Time
	// Machine, when not "", limits the Gone marks to the sessions of
	// that machine (Session.Machine) and to those no machine recorded: a
	// path missing here says nothing of another machine's file at the
	// same path (two machines with one home layout, one database).
	Machine string
}

// SourceSeenResolution is how precise Session.SourceSeenAt is: a source
// seen again less than this after its mark was written keeps the mark
// (SourceTracker.MarkSources). Every import finds most sources present;
// rewriting each of their marks cost a no-op import of 45,000 files 1.9 s
// of UPDATEs (issue 42), for a time that only says when the source was
// last known to exist (before it went, for an archived session).
const SourceSeenResolution = time.Hour

// SourceTracker is implemented by stores that keep the marks of a source
// that vanished (sqlstore and pgstore do). Importers call it; readers see
// the marks in Session.SourceSeenAt and Session.SourceGoneAt.
type SourceTracker interface {
	// MarkSources records, in one transaction, that the sources of
	// m.Seen were present at m.At (their sessions' SourceSeenAt becomes
	// m.At and SourceGoneAt is cleared: a file that came back; a
	// SourceSeenAt less than SourceSeenResolution before m.At, or after
	// it, is kept as it is, so a re-import of an unchanged archive
	// writes no row) and that
	// those of m.Gone were missing (SourceGoneAt is set, and kept if it
	// was already: it says since when). Every session whose SourcePath is
	// one of the paths is marked (a file's session and its branch forks).
	// Nothing else changes: no Sequence bump, no UpdatedAt. It returns
	// how many sessions it marked gone that were not before.
	MarkSources(ctx context.Context, m SourceMarks) (int64, error)
	// SourcesWithPrefix lists machine's source-file records whose path
	// starts with prefix (byte for byte), ordered by path: "/home/me/.claude/"
	// for the files under a directory, "/…/opencode.db#" for the sessions
	// of an agent's database. The records of "" are listed too, for the
	// paths machine has no record of (as SourceFileOn finds them). An
	// empty prefix is ErrInvalid.
	SourcesWithPrefix(ctx context.Context, machine, prefix string) ([]SourceFile, error)
	// SourceFileOn returns machine's import record of a path: the one
	// recorded by an import with that SourceFile.Machine, else the one
	// of "" (an import that gave no machine, or made before records had
	// machines), else ErrNotFound. Another machine's record of the same
	// path is never returned: its file is not this machine's.
	SourceFileOn(ctx context.Context, machine, path string) (SourceFile, error)
}

// SourceFileOn returns machine's import record of path in store: through
// SourceTracker.SourceFileOn when the store implements it, else (a store
// without machines) Store.SourceFile.
func SourceFileOn(ctx context.Context, store Store, machine, path string) (SourceFile, error) {
	if tr, ok := store.(SourceTracker); ok && machine != "" {
		return tr.SourceFileOn(ctx, machine, path)
	}
	return store.SourceFile(ctx, path)
}
