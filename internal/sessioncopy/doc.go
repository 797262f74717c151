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
package sessioncopy
