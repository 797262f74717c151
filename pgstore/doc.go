// Package pgstore is the PostgreSQL implementation of sessiondb.Store, on
// github.com/jackc/pgx/v5 through database/sql (pgx's stdlib driver) and
// sqlx, for deployments that outgrow one machine. Agent code does not
// change: the same Store, the same semantics (package storetest runs
// unchanged against both backends).
//
// # Opening
//
// Open(ctx, "postgres://user@host:5432/db?sslmode=disable", opts) connects
// with one bounded pool (Options.MaxConns, default 16), waits for the
// server (up to 10 s, for one that is starting), checks the schema version and
// applies pending migrations. The URL may carry any pgx setting, and
// runtime parameters such as search_path: the store lives in the first
// schema of the search_path (tests use one schema per store).
//
// # Migrations
//
// The schema is package migrations/postgres (goose, postgres dialect:
// 00001 the initial schema, 00002 shared aliases, 00004 view column
// types that the same SQL works on in both backends and sessiondb_bytes),
// applied with goose's Provider. A schema whose version is newer than the
// binary is refused with sessiondb.ErrSchemaTooNew and not modified.
// Migrating holds a session-level advisory lock (pg_advisory_lock, keyed
// by database and schema), so two processes never migrate one schema at
// once; the one that waited finds nothing pending. The migration creates
// the pg_trgm extension (CREATE EXTENSION IF NOT EXISTS): the role must be
// allowed to (pg_trgm is trusted, so a database owner may; the tests
// connect as the superuser postgres), or pg_trgm must already be installed
// in a schema on the search_path.
//
// # Writes and concurrency
//
// Every write is one READ COMMITTED transaction. Each write to a session
// first locks its row (SELECT … FOR UPDATE), so the writers of one session
// queue on that lock: they read the LastSeq and Sequence their predecessor
// committed, assign seqs without gaps or duplicates, and never fail with a
// serialization error. Writers of different sessions run in parallel. The
// last statement of a commit bumps the counters and returns the session
// (UPDATE … RETURNING), so an append costs one lock statement, one
// multi-row INSERT and one UPDATE.
//
// Retries happen inside the store and are never surfaced while they can
// succeed: a deadlock (40P01), a serialization failure (40001), a racing
// create of the same session (unique violation on the key), a dropped
// connection, or a server that is shutting down, restarting or starting
// (57P01, 57P03, connection refused) roll the transaction back and run it
// again, backing off from 2 ms to 500 ms, for up to Options.RetryTimeout
// (default 60 s); after that the error wraps sessiondb.ErrBusy and is safe
// to retry. A connection lost during COMMIT leaves the outcome unknown:
// the store then asks the server (txid_status of the transaction ID it
// read inside the transaction) once it is reachable again, and runs the
// write again only if it did not commit. So an acknowledged write is never
// lost (PostgreSQL's own durability: synchronous_commit) and a write is
// never applied twice.
//
// Reads run in REPEATABLE READ READ ONLY transactions: LoadFull's
// statements see one snapshot, and a read-only snapshot transaction never
// fails with a serialization error. Reads are retried like writes.
//
// # Search
//
// Search uses pg_trgm GIN indexes on the extracted text of entries and
// summary messages, which the INSERT that writes a row updates in its own
// transaction. Each term is an ILIKE '%term%' condition (wildcards
// escaped), which the trigram index answers for terms of three or more
// characters in any script, including CJK text without spaces; shorter
// terms make it a scan of the extracted text, as in sqlstore. Ranking is
// sqlstore's: hits containing the whole query as a phrase first (Score
// gets +1e6), then a BM25-style relevance (term frequency against the
// text's length), ties by session ID and seq; scan mode orders by time,
// newest first. As in sqlstore, a common word's hits are ranked in blocks
// of 1,000 verified hits per table (rows holding every term), newest block
// first (backend.SearchBlock, backend.SearchWindow): it ranks its newest
// hits instead of every one, no hit the page needs is ever left out, and
// pages never repeat or skip a hit. Case folding follows the database's collation (Unicode on
// a UTF-8 database: "MONTRÉAL" finds "Montréal").
//
// Measured before choosing (PostgreSQL 15, 2 shared cores, 200,000 rows
// of 40 English words, 1 in 100 also holding a Chinese sentence; GIN on
// the text with gin_trgm_ops against GIN on to_tsvector('simple', text)):
//
//	                                   pg_trgm      tsvector
//	insert 200k rows (one statement)   16.6 s       9.2 s
//	index size (table 63 MB)           67 MB        15 MB
//	CJK word inside a sentence         2000 hits,   0 hits (wrong):
//	  ("北京开会")                       9-13 ms      the parser keeps the
//	                                                 whole CJK run as one word
//	two English words, first 50        1.0 ms       1.8-5.4 ms
//	absent word                        1.0 ms       0.2 ms
//
// tsvector is cheaper to write and smaller, but cannot find a word inside
// unsegmented CJK text, and its word and stemming rules would make results
// differ from sqlstore's substring semantics; pg_trgm answers every case
// correctly at a cost the write path carries (the GIN pending list,
// fastupdate, keeps an insert cheap). The script is
// bench/pg_search_choice.sql.
//
// # Secrets
//
// PostgreSQL indexes text inside each write (GIN), so the secret scan
// (sessiondb's doc, "Secrets"; engine.ScanSecrets) has no background
// indexer to ride on: each Store that may write runs a scanner goroutine
// (scanner.go), woken after its commits and at Open, Options.ScanDelay
// (50ms) later, one batch of up to 4 MiB of bodies at a time until none
// is left. Scan cursors are per session (secret_scans.through_seq), not
// per row id as SQLite's index cursor is: identity ids are given out
// before commit, so a row with a lower id can commit after a higher one
// is seen, while a session's seqs are assigned under its row lock and
// commit in order. Options.NoSecretScan turns the scanner off (sessionctl's
// read-only commands, whose connections may not write); redacted reads
// then scan what they read. Scrub rewrites rows in one transaction; the
// trigram index follows the rows.
//
// # Ad-hoc SQL from someone who may only read
//
// QueryUntrusted (untrusted.go) runs a query typed by a person (sessionctl
// sql). A READ ONLY transaction stops table writes only; a superuser's
// query could still run COPY … TO PROGRAM, read server files, signal other
// backends, reload the configuration or hold advisory locks. So the query
// must be one reading statement (first keyword SELECT, WITH, VALUES, TABLE,
// SHOW, or EXPLAIN without ANALYZE), may not name an unsafe function
// (advisory locks, pg_notify, set_config — which could SET ROLE back —,
// functions that run SQL text such as query_to_xml, ts_stat and
// ts_rewrite, dblink, large objects, server files, signals, replication),
// is tokenized as PostgreSQL 15 does (a number glued to a name is refused,
// as the server does, since older servers split it into a number and a
// call), is sent with the extended protocol (one statement, whatever
// default_query_exec_mode the URL sets), and runs in a READ ONLY
// transaction that is rolled back with standard_conforming_strings on (so
// a backslash in a string is text, as the check reads it, whatever the
// server's default).
//
// A list of forbidden words is not a sandbox, though: the probe of issue
// 36 hid set_config('role', session_user, true) after a -- comment ended
// by \r (PostgreSQL ends a -- comment at \r as well as \n; the tokenizer
// now does too), which under the old SET LOCAL ROLE returned to the
// connecting superuser. So the query runs on a connection of its own that
// logged in as the schema's read-only role (migration 00005): its session
// user is that role, and SET ROLE, RESET ROLE, set_config('role', …) and
// SET SESSION AUTHORIZATION can reach nothing else, whatever the checks
// miss. The role is checked first on the store's pool: it must exist and
// hold no attribute and no membership, else ErrNoReaderRole; a NOLOGIN
// role (as 00005 creates it) is given LOGIN, and CONNECT on the database
// if it lacks it, when the store's user may (CREATEROLE); the connection
// then checks that the server took it as that powerless role. The login
// uses the store's URL with the role as user and without the URL's
// password: UntrustedQueryOptions.ReaderPassword, or the role's line in
// the password file (~/.pgpass, $PGPASSFILE), or none (pg_hba.conf trust,
// peer with a map, cert). A LOGIN role without a password cannot log in
// by password, so giving it LOGIN opens nothing a server's pg_hba.conf
// does not. A login the server refuses is ErrNoReaderRole with the ways
// to allow it: there is no fallback to the URL's user, unless the caller
// asks for UntrustedQueryOptions.AsSessionUser (sessionctl sql
// --unsafe-role), which keeps the checks but not the role. No SECURITY
// DEFINER function is involved. The function check reads the query's
// tokens (comments and string constants dropped, quoted identifiers
// unquoted, U& escapes refused), so a name hidden in a string is not a
// call and a call is seen however it is written; functions already
// defined in the database by others, which the role may execute, are
// the role's privileges' business.
//
// # Usage rollup
//
// usage_quarters (migration 00014) answers the usage reports by quarter
// hour and model (sessionctl usage daily and monthly) without reading the
// ledger, kept by a trigger on usage; the rules are sqlstore's ("Usage
// rollup" there) and the report's SQL is backend.UsageReport's. Two
// differences: the trigger runs after its statement, and a group's row is
// locked by the transaction that adds to it until it commits, so writers
// of different sessions adding calls of one model in one quarter hour
// queue on it (a deadlock of two opposite orders is retried like any).
// The cost of a group is the compensated sum, which may differ in its
// last digit from this backend's uncompensated scan.
//
// # Decisions
//
//   - The schema mirrors sqlstore's (same tables and columns; times as
//     fixed-width UTC text with nanoseconds, bodies as text holding the
//     caller's exact bytes, never jsonb), so ad-hoc SQL carries over and a
//     copy between backends is lossless.
//   - PostgreSQL text cannot hold U+0000 nor bytes that are not UTF-8,
//     which SQLite keeps and importers meet (a \u0000 in a picoclaw
//     summary, a line of Latin-1). Every connection of the pool is wrapped
//     (openTextDB) so that each string argument goes through
//     backend.EncodeText and each text value read through
//     backend.DecodeText: such a value is stored as U+FFFF followed by the
//     text in PostgreSQL's own "escape" format for bytes (backslash
//     doubled, each byte text cannot hold as \ooo), every other value as it
//     is. So every column a caller fills (titles, summaries, bodies, state,
//     attrs, labels, paths, …) keeps its exact bytes, every API returns
//     them, and the common case stays readable in SQL; in SQL,
//     sessiondb_bytes(column) (migration 00004) gives the exact bytes of
//     any stored text. JSON bodies need the escape only for bytes that are
//     not UTF-8 (a NUL in JSON is always written \u0000). Before issue 23
//     such text was refused (ErrInvalid), and an import or a copy lost the
//     whole session. The derived text column, which ILIKE searches, is
//     repaired instead (backend.CleanText: U+FFFD for U+0000, for bytes
//     that are not UTF-8 and for a leading U+FFFF), so it never holds an
//     escaped value.
//     Why a wrapped driver connection and not a pgx codec: pgx sends a Go
//     string as a text parameter, and scans text into a string, by fast
//     paths that never consult its type map.
//   - One pool serves reads and writes: PostgreSQL runs concurrent writers
//     itself, so sqlstore's single writer connection and group commit have
//     no purpose here.
//   - A checkpoint does not bump the session's Sequence; every other write
//     does, once (as in sqlstore).
//   - Deleting a session remembers its last Sequence (as a SHA-256 of the
//     ID) so that a session recreated under that ID continues it.
//   - A commit that changes nothing writes nothing (as in sqlstore):
//     engine.ApplyCommit compares each part with what is stored (meta field by
//     field, aliases after the row lock, state and interrupt bytes,
//     History against the transcript, KeepLast against its length) and
//     then skips the final UPDATE, so the Sequence is not bumped. The row
//     lock is still taken, so the no-op answer is the committed state.
//   - CreateIfMissing inserts with INSERT … ON CONFLICT (id) DO NOTHING
//     and then locks the row: a racing creator's insert makes this one
//     wait for it and then do nothing, so racing writers (threads or
//     processes) never fail and the session is created exactly once, with
//     no retry. Only the transaction whose insert took checks the alias
//     rule below and writes the aliases.
//   - CommitMany locks the rows of the sessions it names in ID order
//     before applying anything; a session it may create takes, at its
//     place in that order, a transaction advisory lock on (0x53444243,
//     hashtext(id)), since there is no row to lock yet. So calls over the
//     same sessions in any order queue instead of deadlocking, creates
//     included.
//   - session_aliases has no UNIQUE (alias) since migration 00002 (shared
//     aliases, the equivalent of SQLite's 00005, which also folds the old
//     importer's attrs.source_aliases back into aliases). Resolve orders a
//     name's holders by picoclaw's meta-file name (replace ':', '/', '\'
//     by '_', append ".meta.json"), then the ID, both COLLATE "C", which
//     is Go's byte order (sessiondb.AliasOrderKey). Create refuses an ID
//     that is not a path key and that another session lists as an alias
//     (Resolve would let the ID win), unless Commit.ShadowAliases.
//   - setAliases writes a session's aliases with one INSERT … SELECT FROM
//     unnest(list) WITH ORDINALITY, so the identity column keeps the order
//     given.
//   - MessageCount and EntryCount are kept in the sessions row
//     (message_count, entry_count; migration 00006): lockSession reads
//     them with the row it locks, so they are as the previous writer
//     committed them, and the final UPDATE … RETURNING of a commit sets
//     them with the other counters, so an append runs no extra statement.
//     A commit that records a compaction counts the new transcript's
//     messages with backend.CutMessages (one indexed count over the
//     shorter of two ranges of the log, none when the transcript starts
//     after the old log, as SetHistory's does); Prune subtracts the rows
//     it deletes; Fork inherits its parent's count or counts the rows it
//     copies; PutSession derives both from the dump. Get, List, LoadFull
//     and Lookup read the columns and never count the log.
//   - List with ParentID uses the partial index sessions_by_parent and
//     sorts the parent's forks; with Usage it sums the page's usage rows
//     with one more query in the same read transaction.
package pgstore
