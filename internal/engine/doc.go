// Package engine holds the behaviour of a sessiondb store once, for every
// backend: what a store does, in which transaction and in which order.
// A backend (sqlstore for SQLite, pgstore for PostgreSQL) supplies a
// Driver: how it takes a transaction and its locks, and the few steps
// whose SQL or control flow differ between the databases.
//
// # Layout
//
// Who imports whom (an arrow points at what is imported):
//
//	sessiondb                 public API, types, validation (ValidateID, ValidateCommit, …)
//	    ↑
//	internal/backend          leaf helpers with no transaction of their own: merge-patched
//	    ↑                     metadata, alias normal form, cursors, kept counts, usage SQL,
//	    │                     search window, text encoding, time format
//	internal/engine           the behaviour: Driver and Tx; transcript assembly (Load,
//	    ↑                     Entries, LoadFull's transcript), state and interrupt
//	    │                     documents, compactions (record, list, keep-last, Prune),
//	    │                     history replacement (SetHistory's prefix rule), checkpoints
//	    │                     (save, list, delete, Restore), forks
//	sqlstore    pgstore       each a Driver plus what differs on purpose: opening and
//	                          migrations, transactions (SQLite: one writer, group commit,
//	                          savepoints; PostgreSQL: row locks, retries, txid_status),
//	                          error mapping, the search index and its SQL, maintenance
//	                          commands, and, until they move here, the commit step,
//	                          sessions (create, list, resolve), search, source and usage
//
// internal/sessioncopy (copy between stores) uses only the public API and
// internal/backend. The engine never imports a backend; a backend imports
// the engine and embeds *Engine in its Store, so the engine's exported
// methods (Load, Entries, Fork, SaveCheckpoint, …) are the Store's.
//
// # The interface between engine and backend
//
// The engine writes its SQL once, with ? placeholders and the subset both
// databases accept (ON CONFLICT … DO UPDATE, RETURNING, which SQLite has
// since 3.35): pgstore's transaction rebinds ? to $n once per distinct
// text. It runs that SQL on a Tx, the methods *sqlx.Tx already has, so a
// backend passes its own transaction through unchanged. What the engine
// cannot write once it asks the Driver for:
//
//   - Read and Write: one read snapshot, one write transaction (fn may
//     run more than once on PostgreSQL, so it keeps no state between runs);
//   - LockSession: the session row, with whatever keeps other writers of
//     the session off it until the transaction ends (SQLite's write
//     transaction already excludes every other writer; PostgreSQL takes
//     SELECT … FOR UPDATE and notes the transaction ID for its lost-COMMIT
//     check);
//   - GetSession: the row and its aliases (json_group_array against
//     json_agg);
//   - InsertSession: create a session (PostgreSQL turns a concurrent
//     creator's unique violation into a retry);
//   - ApplyCommit: the commit step, still written per backend (SQLite's
//     append fast path and PostgreSQL's INSERT riding in the final
//     UPDATE are tuned per database);
//   - Describe: the derived columns of an entry (PostgreSQL also cleans
//     the searched text of what text columns cannot hold).
//
// # Rejected
//
//   - An executor with one method per database operation and typed
//     params (River's riverdriver): the cleanest line, but most statements
//     here are the same text on both databases, so ~60 methods each
//     written twice would move the copies into the drivers instead of
//     removing them. Adopted only where a step really differs (the
//     Driver's methods above).
//   - A querier of SQL strings per dialect (goose): enough where the
//     statements differ in text only, but the differences here are of
//     control flow (a row lock and its transaction ID, create-if-missing
//     by ON CONFLICT DO NOTHING, a pending INSERT run with the last
//     UPDATE, an append fast path), which strings cannot carry.
//   - One engine over database/sql with a dialect flag: the transaction
//     regimes (group commit with savepoints against retries with a
//     txid_status check) are not the same code with a flag, and a flag
//     would spread "if PostgreSQL" through every rule.
//   - Growing internal/backend: it is a leaf of pure helpers that
//     sessioncopy imports too; the engine, which takes transactions
//     through a Driver, sits above it so that a helper never depends on
//     the engine.
package engine
