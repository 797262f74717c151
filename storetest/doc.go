// Package storetest is the conformance suite for sessiondb.Store. Every
// backend (sqlstore today, a PostgreSQL store tomorrow) passes it unchanged:
// the suite is the executable form of the contract documented on the Store
// interface and the types of package sessiondb.
//
// # Using it from a backend
//
// A backend's test calls Run with a constructor:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) sessiondb.Store {
//			return MustOpenStore(t, nil)
//		})
//	}
//
// newStore is called once per subtest and must return a fresh, empty store
// that a t.Cleanup it registers closes. One subtest closes its store itself
// (to check ErrClosed), so that cleanup must accept ErrClosed from the second
// Close. Groups and subtests are parallel tests (t.Parallel), each subtest on
// its own store, so the constructor must be safe to call concurrently, and
// Run returns before the subtests have run (they finish before the calling
// test does). A backend that wants its own invariants checked after every
// subtest (PRAGMA integrity_check for SQLite) does it in that cleanup. With
// -race the suite costs sqlstore about 45 CPU-seconds; its longest test, 32
// goroutines x 200 appends (about half of that, on one core: writes are
// serialised), starts first and overlaps all the others.
//
// # What it covers
//
// Subtests are grouped by area and named "Area/Case", so one area can be
// run with -run 'TestConformance/Fork/':
//
//   - Sessions, List, Meta, Delete: Create with caller and generated IDs,
//     ErrExists on taken IDs and on a plain ID another session lists as an
//     alias, shared aliases in the order given, Get, Resolve's four rules
//     (picoclaw's, including its meta-file-name order among the sessions
//     listing one alias: a backend must compare AliasOrderKey byte for
//     byte, e.g. COLLATE "C" in PostgreSQL), List ordering (newest
//     UpdatedAt first, ties by ID descending), cursor pagination walked to the
//     end with no duplicates or misses, Query on title and alias (literal, so
//     % and _ are not wildcards), MessageCount and EntryCount, UpdateMeta field
//     by field with byte-exact JSON, Delete removing every trace (checked by
//     re-creating the ID) while forks of the deleted session keep working.
//   - ListMore: ListOptions.ParentID (direct forks only, newest first, with
//     Query, paged, still found after the parent is deleted, an invalid ID
//     refused), ListOptions.Usage (each row's totals equal UsageTotals on
//     every page, zero for a session without usage, nil when not asked) and,
//     for a store that implements sessiondb.SessionLookup, Lookup by ID and
//     by alias equal to Get, counts included.
//   - Log: seqs contiguous from 1, Append's returned LastSeq, defaults for
//     kind, role and time, bodies byte for byte (unicode, emoji, \u2028,
//     \u0000 escapes, whitespace and key order, a 10 MB body; bytes that are
//     not UTF-8 inside a string are kept, never repaired nor refused),
//     AnyBytesInText (U+0000, bytes that are not UTF-8 and escape-like
//     texts in every text a caller gives, read back byte for byte by every
//     read and carried by a whole-session copy),
//     LoadOptions in the documented order Kinds, After (strict), LastN,
//     Entries ranges with superseded rows.
//   - History, Compaction, Prune: SetHistory (rows kept for audit, only the
//     new tail appended when the transcript is a byte-equal prefix), Truncate,
//     Compact and its KeepFromSeq bounds, Compactions oldest first, Prune
//     counts and what it keeps for agent checkpoints.
//   - State, Commit, SaveFull: state and interrupt documents, Commit applying
//     every part with one Sequence bump, optimistic concurrency with
//     *ConflictError carrying the current sequence and nothing written, Create
//     inside a commit, SaveFull creating and replacing, LoadFull.
//   - CommitGains: CreateIfMissing (created once, ignored when present,
//     ExpectSequence 0 for a missing session, undone by a failing part, 8
//     goroutines racing to create one session all succeed), KeepLast in a
//     commit ("set the summary and keep the last N" as one bump), History
//     with create-on-write, JSON merge patches on attrs and scope (null
//     deletes a key, nested objects merge, a non-object patch replaces, a
//     null patch clears; untouched members keep their bytes), MessageCount
//     and EntryCount from Get, LoadFull and writes, and no-op commits (an
//     equal meta patch, state, history, KeepLast: no Sequence bump, no
//     UpdatedAt change, ExpectSequence still checked).
//   - CommitMany: commits to several sessions applied together (one
//     created in the call), a stale sequence on one session or an unknown
//     session or an invalid body writing nothing anywhere, one session
//     twice in one call, and sessiondb.PromoteHistory (picoclaw's alias
//     promotion) retrying when the source changes between its read and its
//     write, through a Store wrapper that appends at that moment.
//   - Fork, Checkpoints, Usage: forks at the start, middle and end of the log
//     and across a compaction, fork of fork, independence of both sides;
//     checkpoint defaults, listing newest first, deletion, CompactionID; usage
//     totals and source-file records.
//   - Search: CJK words inside unsegmented text, accents and case, emoji,
//     short terms, pagination, hostile query syntax, exact phrase first,
//     deleted and pruned rows gone, search while writing, and
//     read-your-writes: 4 writers each search for the word of every append
//     right after it returns (the backend may index later; the search must
//     still find it). Across processes, read-your-writes is tested by the
//     backend (sqlstore's TestSearchSeesOtherProcessWrites).
//   - BadInput: invalid IDs and aliases (ErrInvalid), non-JSON and oversized
//     bodies (ErrInvalid, nothing written), unknown sessions (ErrNotFound on
//     every method that takes an ID), every method after Close (ErrClosed).
//   - Counts: MessageCount counts messages (kinds message and custom, an
//     empty kind being message; summary messages by the same rule), not
//     bookkeeping entries; and RandomOps: seeded random sequences of
//     writes (appends of mixed kinds, KeepLast, compactions with and
//     without summaries, several in one commit, SetHistory as a new
//     history and as an extension, Truncate, Prune, Fork, checkpoint
//     Restore in place and as a fork, CommitMany, some refused whole,
//     PutSession of a dump as a copy and in place, Delete, invalid writes),
//     each followed by a recount of every session from Load, Entries and
//     Compactions that must equal the counts Get, LoadFull, Lookup, List
//     and the write itself return. Three fixed seeds and one from the
//     clock, 300 operations each, each on its own store; a failure names
//     its seed, and $SESSIONDB_COUNTS_SEED replays it.
//   - Concurrency: 32 goroutines x 200 appends over 4 sessions (every entry
//     present once, seqs contiguous, per-goroutine order kept), two writers
//     with the same expected sequence (exactly one wins), LoadFull snapshots
//     during SaveFulls, concurrent Create of one ID.
//
// # Benchmarks
//
// BenchReadCost (readcost.go) is a benchmark body every backend runs with
// its own constructor: Get, LoadFull{LastN: 50} and List against
// Load{LastN: 50} on sessions of 10 to 1,000,000 entries, as medians and
// ratios from one run. It reports numbers and asserts none.
//
// # What it does not cover
//
// Backend-specific behaviour is tested by the backend: durability settings,
// multi-process access, crash safety, migrations, checkpoint retention
// counts and performance (see sqlstore's tests and benchmarks). The suite
// asserts no timings.
//
// # Decisions the contract leaves open
//
// Where the Store documentation admits more than one reading the suite picks
// the one a careful caller would expect, and says so in the test:
//
//   - Entries(from, to) with to < from (to != 0) is ErrInvalid; Truncate with
//     a negative count is ErrInvalid.
//   - Truncate(n) keeps exactly the last n entries of the transcript, summary
//     messages included: with n at least the transcript length it keeps the
//     whole transcript, and with n between the number of log entries and the
//     transcript length it keeps the last summary messages (the primary
//     statement "keeps the last keepLast entries" wins over "records a
//     compaction without summary").
//   - Fork at a log position before a compaction was made ignores that
//     compaction; a checkpoint at such a position has CompactionID 0.
//   - Methods given a malformed ID return ErrInvalid before looking anything
//     up; an empty ID is malformed except where it asks for a generated one
//     (Create, SaveFull, Fork's newID, a checkpoint's ID).
//   - SetHistory after a compaction with summary: the suite checks that the
//     transcript becomes exactly the messages, but not whether only the tail
//     was appended ("(without summary)" reads both ways).
//   - Prune deletes every entry that neither the current compaction nor an
//     agent checkpoint's transcript (its compaction's kept entries up to its
//     AtSeq) reaches, including entries between a checkpoint and the current
//     compaction.
package storetest
