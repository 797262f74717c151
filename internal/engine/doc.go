// Package engine holds the behaviour of a sessiondb store once, for every
// backend: what a store does, in which transaction and in which order.
// A backend (sqlstore for SQLite, pgstore for PostgreSQL) supplies a
// Driver: how it takes a transaction and its locks, and the few steps
// whose SQL or control flow differ between the databases.
//
// # Layout
//
// Before (issue 27): sqlstore and pgstore each held the whole engine, 20
// file pairs that differed mostly in the transaction type; the shared part
// was internal/backend (counts, usage SQL, search window, text encoding)
// and internal/sessioncopy. After, who imports whom (an arrow points at
// what is imported):
//
//	sessiondb                 public API, types, validation (ValidateID, ValidateCommit, …)
//	    ↑
//	internal/backend          leaf helpers with no transaction of their own: merge-patched
//	    ↑                     metadata, alias normal form, cursors, kept counts, usage SQL,
//	    │                     search window, text encoding
//	internal/engine           the behaviour, over a Driver: the commit algorithm (Commit,
//	    ↑                     CommitMany, SaveFull and the writes built on a Commit:
//	    │                     create-on-write, ExpectSequence, ExpectSource, metadata
//	    │                     patches, history replacement, compaction and keep-last cut
//	    │                     points, kept counts, documents, usage, source records, no-op
//	    │                     detection, the kept preview and cumulative usage of issue 44:
//	    │                     preview.go, cumulative.go); sessions (Get, Resolve and alias resolution,
//	    │                     Lookup, List, Delete); transcript assembly (Load, Entries,
//	    │                     LoadFull); compactions and Prune; checkpoints and Restore;
//	    │                     forks; usage totals and report, Reprice; SourceFile; the
//	    │                     front of Search (terms, page, session filter); re-extraction;
//	    │                     secrets (secrets.go: the scan, the redacting view and its
//	    │                     reads, the listing, the scrub)
//	sqlstore    pgstore       each a Driver and a Dialect, plus what differs on purpose:
//	                          opening, migrations and schema checks, transactions (SQLite:
//	                          one writer, group commit, savepoints; PostgreSQL: row and
//	                          advisory locks, retries, txid_status), creating a session
//	                          (PostgreSQL's race handling), writing entries and ending a
//	                          commit (each tuned to its database), error mapping, the
//	                          search index with its SQL, ranking and snippets, Query,
//	                          Reindex/Vacuum/backups and the other maintenance commands,
//	                          copy (sessioncopy with each database's lock and sequence SQL)
//
// # The interface between engine and backend
//
// The engine writes its SQL once, with ? placeholders and the subset both
// databases accept (ON CONFLICT … DO UPDATE, RETURNING, which SQLite has
// since 3.35): pgstore's transaction rebinds ? to $n once per distinct
// text. It runs that SQL on a Tx, the methods *sqlx.Tx already has, so a
// backend passes its own transaction through unchanged. Three pieces
// carry what differs:
//
//   - Dialect: the few strings that differ inside otherwise equal
//     statements (the session select list, whose alias aggregation is
//     json_group_array against json_agg; the alias holder order, which
//     PostgreSQL compares under COLLATE "C"; instr against strpos).
//   - Driver, one method per step whose control flow differs:
//     Read and Write (a read snapshot; one write transaction, which
//     PostgreSQL may run more than once, so fn keeps no state between
//     runs); LockSession (SQLite's write transaction already excludes
//     every other writer; PostgreSQL takes SELECT … FOR UPDATE and notes
//     the transaction ID for its lost-COMMIT check); GetSession;
//     InsertSession and InsertSessionIfMissing (PostgreSQL turns a
//     concurrent creator's unique violation into a retry, and creates
//     with ON CONFLICT DO NOTHING); SetAliases (one INSERT … unnest
//     against a statement per alias); LockSource and LockCommits
//     (PostgreSQL's advisory and ordered row locks; nothing on SQLite);
//     InsertEntries and FinishCommit (PostgreSQL holds the last INSERT
//     back to run it in a WITH of the final UPDATE … RETURNING; SQLite
//     updates the row and skips reading it back); Describe (PostgreSQL
//     also cleans the searched text of what its text columns cannot
//     hold); UsageTotalsOf (json_each against ANY(text[])); PrepareSearch
//     and SearchHits (each database's index, ranking and snippets).
//   - Appender, optional: SQLite's own write of a commit that only
//     appends (AppendOnly), which its group committer merges with the
//     other appends of a batch; PostgreSQL does not need it.
//
// Rules a backend's own code needs inside its steps are functions of
// this package (ApplyCommit, GetSession, ResolveKey, InsertCompaction,
// Reextract, …), not methods: a backend embeds *Engine, so an exported
// method of Engine is a method of sqlstore.Store and pgstore.Store, and
// TestMethodsAreStoreMethods keeps those to the public interfaces.
//
// # Work before the write transaction (issue 26)
//
// On SQLite every write of a process runs on one goroutine (the group
// committer), so what a write computes inside its transaction is CPU the
// other writers wait for. Commit and CommitMany therefore describe their
// entries before Driver.Write, in the caller's goroutine (DescribeAll):
// the extractor's JSON decode, and the Dialect.EntryText decision of what
// the text column holds (on SQLite a scan of the body for its content
// string), whose result travels in Row.Text. CommitMany spreads a large
// batch (DescribeParallelMin entries and more: an import's batch of
// sessions) over GOMAXPROCS goroutines, since its caller waits for the
// write anyway. Session rows are scanned by position (SessionRow.Fields,
// held to Dialect.SessionColumns by CheckSessionColumns in each backend's
// tests), not through sqlx's reflection. Measured in the commits that made
// these changes and in BENCHMARKS.md.
//
// Rejected: describing in the importer's parse goroutines and handing
// rows to the store (the Store interface carries entries, and a row whose
// text was derived by another extractor than the store's would disagree
// with its body); describing each commit of a CommitMany inside the
// transaction to hold less memory (on SQLite a described row keeps no
// text where the body's content gives it, so a batch holds little more
// than its bodies, which the caller holds anyway).
//
// # Rejected
//
//   - An executor with one method per database operation and typed
//     params (River's riverdriver): the cleanest line, but most statements
//     here are the same text on both databases, so ~60 methods each
//     written twice would move the copies into the drivers instead of
//     removing them. Adopted only where a step really differs (the
//     Driver's methods above, about twenty).
//   - A querier of SQL strings per dialect (goose): enough where the
//     statements differ in text only, but the differences here are of
//     control flow (a row lock and its transaction ID, create-if-missing
//     by ON CONFLICT DO NOTHING, a pending INSERT run with the last
//     UPDATE, an append fast path), which strings cannot carry. Adopted
//     for the text-only differences (Dialect).
//   - One engine over database/sql with a dialect flag: the transaction
//     regimes (group commit with savepoints against retries with a
//     txid_status check) are not the same code with a flag, and a flag
//     would spread "if PostgreSQL" through every rule.
//   - Growing internal/backend: it is a leaf of pure helpers that
//     sessioncopy imports too; the engine, which takes transactions
//     through a Driver, sits above it so that a helper never depends on
//     the engine.
package engine
