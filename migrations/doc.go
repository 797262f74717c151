// Package migrations holds the sessiondb schema as goose SQL migrations,
// embedded in the binary, and runs them through goose's Provider API (never
// goose's package-level globals, which are not safe for concurrent use).
//
// # Rules
//
//   - A migration that has been released is never edited; changes are new
//     files numbered after the last one.
//   - Every migration runs in its own transaction (goose's default for SQL
//     files); triggers are wrapped in StatementBegin/StatementEnd.
//   - Every migration has a Down section, tested by migrating up and down on
//     a temporary file.
//   - sqlstore compares the schema text of a database with what these files
//     produce (a damaged byte there is refused as corrupt), so the text of
//     each object is what its migration wrote, byte for byte.
//   - Versions 4 to 10 hold the FTS5 tables in the database (contentless,
//     detail=none, automerge off, set by migration 4). From version 11 they
//     are not in the database at all: sqlstore creates them in the search
//     index file beside it (indexfile.go), which is derived data with a
//     format number of its own, rebuilt rather than migrated.
//   - Version 4 takes full-text indexing off the write path: see its file
//     and "Search" in package sqlstore.
//   - Version 8 keeps each session's message and entry counts in its row
//     (sessions.message_count, sessions.entry_count), maintained by the
//     stores' writes, not by triggers: a write made with sqlite3 straight
//     to entries, compactions or summary_messages leaves them stale. The
//     numbers need not be consecutive (7 is another change's); goose
//     applies them in order.
//   - Version 11 moves the full-text index to its own file: search_index
//     becomes the reservation of ids that may be in it, with a random token
//     (index_file) that the index file records; see its file and "Search"
//     in package sqlstore.
//   - Version 13 adds sessions.project, each session's project (the working
//     directory its agent recorded), set by the stores' writes
//     (sessiondb.Session.Project) and filled for the sessions imported
//     before from attrs.cwd. Its Down drops the column, which leaves the
//     table's text as version 12 wrote it (TestProjectMigration).
//   - Version 14 (issue 44) adds sessions.preview (the first user
//     message's text, cut to 200 characters, kept by the stores' writes
//     as the counts are and backfilled here from the entries' text by the
//     same rule), usage_cumulative (the last running total a session
//     reported through Commit.CumulativeUsage) and sessions_by_created
//     (List by creation time).
//   - Version 15 adds sessions.machine (the importer's machine identity),
//     sessions.source_seen_at and sessions.source_gone_at (when an importer
//     last found the session's source, and when it found it gone: the
//     session then exists only in sessiondb). The marks are written by
//     sessiondb.SourceTracker without bumping the session's sequence.
//   - Version 16 keys source_files by (machine, path): each importing
//     machine keeps its own record of a path (two machines with one home
//     layout, or one home synced, into one database). SQLite cannot
//     change a primary key in place, so the table is copied to a
//     temporary table, dropped and created again (a temporary table, not
//     a rename, so that the new table's text is the CREATE TABLE as
//     written). Each record takes its session's machine, the empty string when it has
//     none; a lookup under a machine finds its own record, else the one
//     of the empty machine (internal/engine/source.go). Its Down keeps the latest
//     import's record of each path.
//   - Version 17 (issue 42) adds usage_quarters, the usage ledger rolled
//     up by UTC quarter hour, provider and model, filled from the ledger
//     and kept by triggers on usage (insert, delete, update of the summed
//     columns), which sessionctl usage daily and monthly read instead of
//     the ledger. Its cost is a compensated pair (cost + cost_err is the
//     group's cost); see its file and "Usage rollup" in package sqlstore.
//     Its Down drops the triggers and the table.
//   - Version 18 writes version 17's three triggers again without the
//     table alias ("INSERT INTO usage_quarters AS q") their statements
//     had: the SQLite of many systems (3.40.1, Debian 12's sqlite3 and
//     Python's module there) cannot parse an alias there and then refuses
//     every query on the file as "malformed database schema". The
//     statements are the same with the table's name for the alias; no
//     row changes. The oldest SQLite that reads the schema is 3.37.0 (STRICT
//     tables); sqlstore's TestSchemaReadableByOlderSQLite runs the
//     system's sqlite3 on the latest schema, reading every table and
//     writing through every trigger. Its Down writes version 17's
//     triggers back.
//
// The schema is a public interface: see the comments in 00001_initial.sql
// for what each table and view holds.
package migrations
