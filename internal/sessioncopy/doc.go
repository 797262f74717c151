// Package sessioncopy reads and writes a whole session (sessiondb.SessionDump)
// with plain SQL against the schema that sqlstore and pgstore share: the
// same tables, columns and time format (fixed-width UTC text) on SQLite
// and PostgreSQL. Each backend calls it inside its own read or write
// transaction and translates the errors.
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
