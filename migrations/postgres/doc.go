// Package postgres holds the PostgreSQL schema of sessiondb as goose SQL
// migrations (postgres dialect), embedded in the binary and run by
// package pgstore through goose's Provider (never goose's globals).
//
// # Decisions
//
//   - The schema mirrors the SQLite one in package migrations table for
//     table and column for column (same names, same meaning), so ad-hoc
//     SQL and the documented views carry over, and a copy between the two
//     backends is lossless. Versions are numbered independently of the
//     SQLite migrations: each backend has its own goose_db_version.
//   - Times are fixed-width UTC text with nanoseconds, not timestamptz
//     (which keeps microseconds only): a store returns the times it was
//     given.
//   - Bodies and other JSON documents are text, never jsonb, which would
//     re-encode them.
//   - Search uses the pg_trgm extension (GIN indexes, gin_trgm_ops). The
//     migration runs CREATE EXTENSION IF NOT EXISTS pg_trgm: the migrating
//     role must be allowed to create it (pg_trgm is a trusted extension, so
//     a database owner may) or it must already be installed in a schema on
//     the search_path. An extension exists once per database: when several
//     sessiondb schemas share a database, install it once (in public) and
//     keep that schema on each store's search_path.
//   - 00002 (shared aliases, the equivalent of SQLite's 00005) parses
//     attrs with a pg_temp function that turns text PostgreSQL's jsonb
//     refuses (not JSON, or holding \u0000) into NULL, so such attrs are
//     left as they are instead of failing the migration. Folded attrs are
//     rewritten through jsonb (key order and spacing normalised), as
//     SQLite's json_remove re-encodes them. Order-sensitive comparisons
//     of IDs use COLLATE "C" (byte order, Go's), never the database's
//     collation.
//   - 00005 creates the schema's read-only role for ad-hoc SQL
//     (sessiondb_reader_<first 16 hex of sha256("<database>.<schema>")>,
//     NOLOGIN, USAGE on the schema, SELECT on its tables and views, also
//     those later migrations create) and makes the migrating user a member;
//     pgstore's QueryUntrusted (sessionctl sql) logs in as it, on a
//     connection of its own, after giving it LOGIN the first time (issue
//     36: SET ROLE left a way back to the migrating user). Roles are
//     cluster-wide, so the name is per database and schema: two schemas
//     never share one, and concurrent migrations of different schemas never
//     create the same role. A migrating user that may not create roles
//     skips it (a NOTICE); the migration still succeeds. Its Down revokes
//     the grants and drops the role.
//   - 00010 adds sessions.project (SQLite's 00013): each session's
//     project, the working directory its agent recorded. The sessions
//     imported before get it from attrs.cwd, read one row at a time in a
//     DO block whose exception handler leaves a row whose attrs
//     PostgreSQL cannot read as JSON (a \u0000 escape, text the store
//     kept escaped) without a project rather than failing the migration.
//   - 00011 (SQLite's 00014, issue 44) adds sessions.preview, backfilled
//     from the entries' text (clean text on this backend, never escaped,
//     so one UPDATE does it), usage_cumulative and sessions_by_created.
//   - 00012 adds sessions.machine, source_seen_at and source_gone_at
//     (SQLite's 00015): the importer's machine and the marks of a source
//     that vanished.
//   - 00013 (SQLite's 00016) keys source_files by (machine, path): each
//     importing machine keeps its own record of a path. Each record takes
//     its session's machine (empty without one); its Down keeps the latest
//     import's record of each path.
//   - 00014 (SQLite's 00017, issue 42) adds usage_quarters, the usage
//     ledger rolled up by UTC quarter hour, provider and model, kept by
//     one PL/pgSQL trigger function (usage_quarters_apply) that AFTER
//     INSERT, DELETE and UPDATE triggers on usage run for each row; see
//     "Usage rollup" in package sqlstore. An AFTER row trigger runs once
//     its statement is done, so a group's first or last call read from the
//     ledger is the statement's result, and a group all of whose calls one
//     statement deletes keeps its times until its last call takes the row.
//     A removal locks its group's row before it reads the ledger, so that
//     a concurrent writer that added to the group has committed and its
//     call is seen (READ COMMITTED: each statement of the function takes
//     a new snapshot).
package postgres
