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
// (describe), as it is on append. Compaction IDs are the target's own,
// assigned in the dump's order (so the current compaction stays current),
// and checkpoints are linked to them through the dump's IDs.
package sessioncopy
