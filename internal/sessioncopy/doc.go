// Package sessioncopy reads and writes a whole session (sessiondb.SessionDump)
// with plain SQL against the schema that sqlstore and pgstore share: the
// same tables, columns and time format (fixed-width UTC text) on SQLite
// and PostgreSQL. Each backend calls it inside its own read or write
// transaction and translates the errors. It also holds the rule by which
// a copy tells an earlier copy of a session from another session that
// happens to have the same ID (Compare, Renamed).
//
// # Earlier copy or another session
//
// IDs are not unique across machines: every picoclaw host names its CLI
// chat "agent:main:cli:direct:alice". So a session in the target counts as
// an earlier copy of the source's only if it was created at the same
// instant from the same source (format and path) and its log agrees with
// the source's entry for entry (kind, body bytes and time at every seq
// both hold; an entry only one side holds must lie beyond the other's last
// entry or below its first, where it was appended since or pruned). The
// counters (Sequence, LastSeq) then say whether the copy is current, behind
// or written to since; they never decide identity (before issue 23 they
// did, and a copy replaced or skipped another host's conversation).
// A conflicting session can be copied beside the target's under
// RenamedID, a hash of what identifies it, so that every later run finds
// the same renamed copy. The renamed copy leaves out the names that are
// global in a store and belong to the target's session: aliases and import
// records.
//
// # Decisions
//
// Times are copied through time.Time, formatted with the layout both
// backends use, so a copy keeps them to the nanosecond. Role is kept as
// stored; the extracted text is derived again by the target's extractor
// (describe), as it is on append.
//
// A compaction keeps its source ID when the target has no compaction with
// that ID and the ID is above the one given to the session's previous
// compaction (so a copy into an empty store lists the same IDs);
// otherwise it gets a new one from the table's own counter, which is
// above every existing ID. So a session's compactions keep their order,
// the highest ID stays the current one, and checkpoints are linked to
// them through the dump's IDs. On PostgreSQL the identity sequence is
// first moved past a kept ID (never backwards), so later inserts do not
// collide with it.
//
// # Writing in bulk
//
// Write is one transaction of the caller's (PutSession's), so a session
// is copied whole or not at all. Inside it the rows that a session has
// many of (entries, summary messages, usage rows) go in multi-row INSERTs
// (insertRows): at most 512 rows a statement, and a new statement once
// the strings bound to one pass 8 MiB, so a session of large bodies is
// not sent as one message of hundreds of MiB. The statements are plain
// SQL with ? placeholders, the same on both backends; on PostgreSQL each
// is one round trip instead of one per row (the copy of issue 42's
// archive ran at ~1,000 entries/s with a round trip per entry). Entries
// keep their seqs (a pruned log has gaps), so this is not
// engine.EntryInserts, which numbers appended entries. Usage rows are
// checked by backend.UsageRows, the check InsertUsage makes of one row;
// they need no DELETE of an earlier row of their call ID, since the
// session was just created (its old row removed with everything stored
// with it) and ValidateDump refuses a dump that names a call ID twice.
// Aliases, compactions, checkpoints and import records stay one
// statement each: a session has few, and each has a rule of its own
// (a kept or new compaction ID, a checkpoint or record of another
// session replaced).
//
// What is left of a copy into PostgreSQL is mostly the server's work to
// keep the pg_trgm GIN index of the entries' text (BENCHMARKS.md, issue
// 42 item 5): per session, the transaction's commit (fsync) is not what
// bounds it (synchronous_commit off changed nothing measurable), so the
// copy still writes one session per transaction.
package sessioncopy
