package sessiondb

import (
	"encoding/json"
	"time"
)

// Session is a session's metadata. Stores fill every field on read; on
// create, zero fields get defaults (a generated ID, now for the times).
type Session struct {
	ID        string
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Version is the payload schema version of the session's message bodies
	// (see Migrator). It is the caller's: the store never interprets it.
	Version int
	// Sequence is the revision counter: +1 on every committed change. A
	// session that exists has Sequence >= 1. A session created under the ID
	// of a deleted one continues that session's count, so an expected
	// sequence read before the delete can never match the new session.
	Sequence int64
	// LastSeq is the highest entry Seq ever assigned in the session (0 for an
	// empty log). It never decreases, even when entries are pruned.
	LastSeq int64
	Summary string
	// Scope and Attrs are raw JSON documents (nil when unset). Attrs holds
	// things like model, provider and working directory.
	Scope   json.RawMessage
	Attrs   json.RawMessage
	Aliases []string
	// ParentID and ForkSeq link a fork to the session and log position it
	// was forked from. The parent may since have been deleted.
	ParentID string
	ForkSeq  int64
	// SourceFormat and SourcePath record where an imported session came from
	// ("picoclaw", "zot", "swink"; empty for sessions created natively).
	SourceFormat string
	SourcePath   string
	// Project is the session's project: the working directory its agent
	// ran in, as the agent records it (Claude Code's cwd, Codex's
	// session_meta cwd, pi's and zot's header cwd; importers set it), ""
	// when unknown. Sessions are listed, searched and their usage summed
	// by it (ListOptions.Project, SearchOptions.Project,
	// UsageQuery.ByProject). It is kept in a column of its own, set on
	// create and by MetaPatch.Project.
	Project string
	// Machine is the machine identity of the importer that created the
	// session (sessionctl's --machine, or the identity it keeps in the
	// user's config dir), "" for native sessions and those imported
	// before it was recorded. Set on create and by MetaPatch.Machine;
	// ListOptions.Machine, SearchOptions.Machine and UsageQuery.Machine
	// filter by it.
	Machine string
	// SourceSeenAt is when an importer last found the session's source
	// (SourcePath) present, to within SourceSeenResolution; zero when
	// never tracked. SourceGoneAt is when
	// an importer found that source gone (a file the agent deleted, a row
	// removed from its database): the session then exists only in
	// sessiondb, kept whole (Archived). Both are written by
	// SourceTracker.MarkSources, never by a commit, and do not change
	// Sequence.
	SourceSeenAt time.Time
	SourceGoneAt time.Time
	// MessageCount is the number of messages in the effective
	// transcript: its entries of kind KindMessage or KindCustom, summary
	// messages of the current compaction included (by the same rule).
	// Bookkeeping entries an importer keeps in the transcript (progress,
	// model_change, KindMessagePart, …) are in Load's result but are not
	// messages, so MessageCount can be less than the transcript's length.
	// EntryCount is the number of log rows stored, superseded ones
	// included, pruned ones not. The store keeps both in the session's
	// row, updated by every write that changes them: every read (Get,
	// List, LoadFull, Lookup) and the Session every write returns carry
	// them, at a cost that does not depend on the length of the log.
	MessageCount int64
	EntryCount   int64
}

// SessionInfo is a Session as listed by List (its counts are filled).
type SessionInfo struct {
	Session
	// Usage sums the session's usage ledger (what UsageTotals returns)
	// when ListOptions.Usage asked for it; nil otherwise.
	Usage *UsageTotals
	// Preview is the extracted text of the first user message of the
	// effective transcript (the first log entry of the transcript of kind
	// KindMessage or KindCustom whose role is "user"; summary messages
	// are not the user's and are skipped), cut to its first PreviewRunes
	// runes, as stored: a session list shows what each session was
	// started with without loading it. "" when the transcript has no
	// user message (or its text is empty). Like the counts, it is kept in
	// the session's row by every write that changes the transcript
	// (appends, history replacement, compaction, truncation, fork,
	// restore, copy), so List reads no entry for it. Databases made
	// before it existed are filled by the migration that adds it (SQLite
	// schema 14, PostgreSQL 11), by the same rule.
	Preview string
}

// PreviewRunes is the length, in runes, to which SessionInfo.Preview cuts
// the first user message's text.
const PreviewRunes = 200

// ListOrder is the order in which List returns sessions.
type ListOrder string

// The orders of ListOptions.Order. Ties are broken by ID, in the same
// direction, so that every order is total and a cursor resumes exactly
// where its page ended.
const (
	// ByUpdated orders by UpdatedAt (the default, also "").
	ByUpdated ListOrder = "updated"
	// ByCreated orders by CreatedAt.
	ByCreated ListOrder = "created"
	// ByID orders by ID (the session key), byte for byte on every backend
	// (PostgreSQL compares under COLLATE "C"), as picoclaw lists its keys.
	ByID ListOrder = "id"
)

// MetaPatch changes session metadata. Nil fields are left alone.
type MetaPatch struct {
	Title   *string
	Summary *string
	Scope   json.RawMessage // nil: unchanged; JSON null: cleared
	Attrs   json.RawMessage // nil: unchanged; JSON null: cleared
	// ScopeMerge and AttrsMerge are JSON merge patches (RFC 7386, see
	// MergePatch) applied to the stored document, after Scope and Attrs:
	// {"model":"x","old":null} sets model and removes old, leaving every
	// other member as it is; nested objects merge; a patch that is not an
	// object replaces the document; JSON null clears it. nil: unchanged.
	ScopeMerge json.RawMessage
	AttrsMerge json.RawMessage
	// Aliases replaces the whole alias list (kept in the order given,
	// duplicates and the session's own ID dropped). Aliases may be shared
	// with other sessions; see Store.Resolve.
	Aliases *[]string
	Version *int
	// Project replaces Session.Project ("" clears it).
	Project *string
	// Machine replaces Session.Machine ("" clears it).
	Machine *string
	// ForkSeq moves a fork's branch point (Session.ForkSeq): an importer
	// sets it when a file that grew shows the fork leaving its parent
	// elsewhere. Only a fork (ParentID set) has one; it is at least 0 and,
	// while the parent exists, at most the parent's LastSeq. A value that
	// breaks these rules fails the commit with ErrInvalid and changes
	// nothing. nil: unchanged.
	ForkSeq *int64
	// UpdatedAt overrides the update time the store would record (used by
	// importers to keep the source's timestamps). Zero means now.
	UpdatedAt time.Time
}

// ListOptions selects and pages sessions. Sessions are listed newest
// UpdatedAt first (ties broken by ID, descending) unless Order and
// Ascending say otherwise.
type ListOptions struct {
	// Order is the key sessions are listed by ("" is ByUpdated); an
	// unknown order is ErrInvalid.
	Order ListOrder
	// Ascending lists the smallest key first (oldest, or the first ID);
	// the default is the largest first. A cursor belongs to the order and
	// direction that made it: passed with another, it is ErrInvalid.
	// Pagination is keyset (the last row's key and ID), so a session
	// written between two pages is neither repeated nor skipped, unless
	// the write moved it across the cursor (its UpdatedAt, under
	// ByUpdated).
	Ascending bool
	// Limit caps the page size; 0 means DefaultListLimit.
	Limit int
	// Cursor continues a previous listing: pass the cursor it returned.
	Cursor string
	// Query keeps sessions whose title, one of whose aliases or whose
	// project contains it (case-insensitive for ASCII).
	Query string
	// Project keeps sessions whose Project contains it (case-insensitive
	// for ASCII): "OpenCore" keeps the sessions of /home/me/src/OpenCore.
	Project string
	// Machine keeps the sessions whose Machine equals it (exact match).
	Machine string
	// Archived keeps only the sessions whose source is gone
	// (Session.SourceGoneAt set): those that exist only in sessiondb.
	Archived bool
	// ParentID keeps the forks of that session: sessions whose ParentID
	// equals it (exact match), in the usual order. The parent itself need
	// not exist any more.
	ParentID string
	// Usage asks for each listed session's usage totals in
	// SessionInfo.Usage, read with the page (one query for the page, not
	// one UsageTotals call per row).
	Usage bool
}

// DefaultListLimit is the page size used when ListOptions.Limit is 0.
const DefaultListLimit = 100

// MaxListLimit is the largest page a List call returns.
const MaxListLimit = 10000

// Archived reports whether the session's source is gone: it exists only
// in sessiondb (see SourceGoneAt).
func (s Session) Archived() bool { return !s.SourceGoneAt.IsZero() }
