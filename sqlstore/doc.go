// Package sqlstore is the SQLite implementation of sessiondb.Store, on the
// pure-Go driver modernc.org/sqlite (no cgo) and sqlx.
//
// # Opening
//
// Open owns every connection setting. It creates a missing database file
// with mode 0600 (its directory 0700), opens a writer pool of exactly one
// connection (BEGIN IMMEDIATE transactions) and a separate read-only pool
// (query_only), sets the pragmas busy_timeout, journal_mode=WAL,
// synchronous, foreign_keys and cell_size_check (a damaged b-tree page is
// ErrCorrupt when it is read, not garbage a write builds on), checks that
// SQLite really switched to WAL, and applies pending migrations. If any step fails, everything opened so
// far is closed. A database whose schema is newer than the binary, and an
// SQLite file holding someone else's tables (schema objects but no
// sessiondb version table), are refused before the writer connects, so
// their journal mode is not switched to WAL and no schema is installed
// (ErrSchemaTooNew, ErrCorrupt). An empty file, or an SQLite file without
// any schema object, holds nothing to lose and becomes a new database.
//
// Damage a write meets is ErrCorrupt too: a write that finds the entry id
// or the seq it chose (one above what it read, under the write lock)
// already taken has read a damaged page or record, since no other writer
// could have taken it (errors.go, storeChosenKey; issue 36).
//
// # Read-only opening
//
// Options.ReadOnly (readonly.go) is for tools that only look. Both pools
// open the file with mode=ro and query_only and no journal_mode pragma, so
// the file is never created, migrated or changed: a missing file is
// sessiondb.ErrNotFound, an empty file or an SQLite file without
// sessiondb's version table is sessiondb.ErrCorrupt (left untouched: no
// schema installed, no WAL switch), an older schema is
// sessiondb.ErrSchemaTooOld (unless NoMigrate), and every write fails with
// sessiondb.ErrReadOnly. On storage that cannot be written (a backup disk,
// a snapshot, a 0555 share, a read-only mount) SQLite cannot create the
// -shm file a WAL reader needs; the read-only open then reopens the file
// with immutable=1 when its -wal is absent or empty (Store.Immutable says
// so, and sessionctl prints one line about it), and refuses it with
// ErrReadOnly when the -wal holds commits, which an immutable open would
// silently miss.
//
// # Durability
//
// DurabilityFull (the default) uses synchronous=FULL: every commit is
// fsynced before it returns and survives power loss. DurabilityNormal uses
// synchronous=NORMAL: commits survive a crash of the process but the last
// ones may be lost if the machine loses power.
//
// The one exception is the background indexer's writes: the search index
// file (index segments, their cursor, idle merges) is always
// synchronous=NORMAL, and its writes to the database (the reservation, the
// purged ids) commit with synchronous=NORMAL under either level. What they
// write is derived from the log, and a power loss that takes some away
// leaves rows to be indexed again or an index to be rebuilt ("Search"
// below); the next FULL commit's fsync covers every WAL frame before it.
// Their fsyncs bought no guarantee and each held a write lock (see
// setRelaxed).
//
// # Concurrency
//
// All writes of one process go to one committer goroutine that owns the
// single writer connection. Writes that arrive while a commit is being
// fsynced are grouped into the next transaction, each in its own SAVEPOINT
// (group commit): one fsync acknowledges many writes, a failing write rolls
// back alone, and nobody is acknowledged before its batch has committed,
// so an acknowledged write is as durable as with a transaction per write.
// The append-only commits of a batch (an agent's turn with its state and
// usage, to different sessions) share one savepoint and their statements
// instead: one UPDATE … RETURNING of every session row, one multi-row
// INSERT of every entry (appendbatch.go). A session absent or not at its
// ExpectSequence is left out by the UPDATE, and its append alone fails;
// if a merged statement fails, the savepoint is rolled back and each
// append runs again in its own, so a bad write still fails alone. Two
// appends to one session in a batch do not merge (the second runs alone,
// after). Such a batch journals its savepoint in memory (temp_store =
// MEMORY while it runs): past 64 KiB SQLite would spill it to a temporary
// file per batch. Writes
// of several processes serialise on SQLite's write lock, waited for up to
// Options.BusyTimeout (then retried a few times before ErrBusy surfaces).
// The wait ends early when the write's context ends (for a write made with
// sessiondb.DetachWrites, the context it was detached from): a process
// told to stop while another holds the lock stops within
// lockWaitGrace (100 ms) instead of ~2 minutes, its write failing with
// ErrBusy and the context's error; nothing of it was written.
// Entry sequence numbers are assigned inside the write transaction, so any
// number of goroutines and processes may append to one session safely.
// Commit.ExpectSource is checked inside the same transaction as the write
// (internal/engine, with nothing to lock here), which is what makes an importer's "already
// imported?" check and its write atomic across processes.
// Reads run on the read-only pool in their own transaction and never block
// writers. LoadFull reads metadata, transcript, state and interrupt in one
// read transaction, so they always come from the same revision.
//
// # Migrations
//
// The schema lives in package migrations and is applied with goose's
// Provider at Open. A database whose schema is newer than the binary is
// refused with sessiondb.ErrSchemaTooNew and not modified. Before migrating
// a database that already holds a schema, Open copies it with VACUUM INTO to
// <path>.bak-v<version>-<time> (Options.NoBackup opts out), and after
// migrating it runs PRAGMA quick_check. Concurrent Opens of one new file by
// several processes are serialised by flock(2) on <path>.lock.
//
// SQLite checksums nothing, and it re-reads the schema text from the file:
// one damaged byte there can rename a column, and every query would then
// fail with "no such column". So Open compares each table, index, view and
// trigger the recorded migrations created with the text those migrations
// produce on an empty in-memory database (built once per process), and
// refuses a mismatch with sessiondb.ErrCorrupt naming the object, before
// migrating anything. Objects a user added with sqlite3 are allowed;
// goose's own version table is checked for well-formed rows only, and the
// tables FTS5 creates for its index by their column names only (the SQLite
// that created the file words their text).
// Options.NoSchemaCheck and Store.CheckSchema let sessionctl doctor report
// such damage instead of refusing the file. A trigger on one of
// sessiondb's tables or views that the migrations did not create is
// refused the same way: it would run inside every write and could rewrite
// bodies (breaking the byte-for-byte promise) unseen. What is "ours" comes
// from the reference schema, not from a list, so migrations that add or
// drop triggers need no change here. User tables may carry triggers.
//
// Backups are created empty with mode 0600 before VACUUM INTO fills them,
// so a copy is never readable by others. They keep deleted text:
// Options.KeepBackups and Store.RemoveBackups keep the newest N, and
// Options.SecureDelete (SQLite's secure_delete) zeroes deleted content in
// the database file itself.
//
// # Transcript semantics
//
// The effective transcript is the summary messages of the latest compaction
// followed by the log entries with seq >= its keep_from_seq. SetHistory and
// SaveFull append the new messages and record a compaction (old rows stay),
// except when the current transcript is a byte-equal prefix of the new
// one, where only the tail is appended. Truncate that would keep everything
// records nothing. Fork copies the transcript rows of the source at the
// fork point into the new session (renumbered from 1), so a fork never
// depends on its parent's rows; Prune keeps entries agent checkpoints need.
//
// # Search
//
// Full-text search is off the write path. Until schema version 3, triggers
// updated an FTS5 trigram index inside every write, and FTS5 wrote and
// merged an index segment at the end of each one: 50-69% of the CPU of an
// append (issue 12's profile), and the group committer shared the fsync
// between writers but not that work. Now:
//
//   - A write only inserts rows. The index lives in a file of its own,
//     <database>-search (IndexPath; schema version 11), attached to every
//     connection as the schema "search": search.entries_fts,
//     search.summary_fts, and search.indexed, which holds per source table
//     (entries, summary_messages) the highest row id in the index: the
//     cursor. Its own connection writes it (indexfile.go), opening the
//     database read-only: indexing takes the index file's write lock, not
//     the database's, so appends commit while a batch is tokenized. In the
//     database file it was half of the committer's work under 16 writers
//     (FTS5's trigram tokenizer, 46 of 128 µs per append), and a batch of
//     1,000 rows held every writer for up to 100 ms. Measured in the same
//     runs (bench -only 1,2,6, two pairs; BENCHMARKS.md): 16 writers
//     5,446-5,602 appends/s before, 7,464-7,511 after, their p99 latency
//     64-84 ms before, 6-10 ms after, one writer's p99 4.8-6.8 ms before,
//     0.8-1.0 ms after, and a bulk import's rows committed in half the
//     time (search ready as before: the index's own cost).
//   - search_index, in the database, is the reservation: row ids at or
//     below its indexed_through may be in the index. A new entry's id is
//     above every row and above it (explicit ids, see nextEntryID; a
//     trigger refuses any other writer's row at or below it), so an id the
//     index may hold is never given to another row, and every row after
//     the cursor is one the index has not seen. The indexer moves the
//     reservation (one small write through the group committer, to the
//     table's highest id) before it indexes past it. Until schema version
//     10 entries was AUTOINCREMENT, which wrote sqlite_sequence, one more
//     page, at every append.
//   - The index file is derived data, checked against the database before
//     every batch: search.indexed records the database's token
//     (search_index.index_file, random, and new in every Backup), and its
//     cursor may never pass the reservation. An index file built for
//     another database, or for this one before an older copy (a backup)
//     was put in its place, or one whose reservation a power loss took
//     back (the index file commits with synchronous=NORMAL; so do the
//     indexer's writes to the database), is emptied and built again;
//     until then search reads no index and scans every row. A file SQLite
//     cannot read is replaced when a writable Store opens, and a
//     read-only Store without a readable one scans. What this check cannot
//     see: a copy of the database made by hand (cp, not Backup) and put
//     back beside a newer index file still holds the token; rows the
//     newer database deleted are then missing from the index, and
//     sessionctl reindex rebuilds it.
//   - A background indexer on each writing Store adds the rows after the
//     cursor in batches of about 2 MiB of text (indexBatchBytes), each
//     one transaction of the index file (one index segment and one cursor
//     move), Options.IndexDelay (50ms) after the commits that woke it. Indexers of
//     several processes take turns on the index file's write lock, and
//     each reads the database only after taking it, so no two index from
//     different snapshots. The delay was chosen over an index batch right
//     after every group commit by measurement (BenchmarkAppendParallel, 16
//     writers, 1 KB appends, DurabilityFull, two runs each): 7,259 and
//     7,110 appends/s at 116 and 114 µs of CPU per append with the 50ms
//     delay, against 6,171 and 4,847 appends/s at 133 and 161 µs with a
//     batch after every group. Batched per group, the index still writes
//     a segment per few appends; delayed, it writes one per hundreds.
//   - Search reads the index up to the cursor and scans the rows after it
//     in the same read transaction, so a write acknowledged before Search
//     starts is found, whichever process wrote it and whether or not
//     anyone indexed it yet (a crashed writer's rows are indexed by the
//     next writer that opens the file). When the unindexed tail exceeds
//     20,000 rows, a writable Store catches up before searching.
//   - Deleting rows at or below the reservation (Prune, Delete, or sqlite3
//     by hand) queues their ids in search_deleted (a trigger); the indexer
//     removes them from the index file in batches of 500, then from
//     search_deleted (a crash in between removes them again, which does
//     nothing). Until then they simply no longer join a row, so results
//     never show them.
//   - The index is contentless with detail=none: it holds, per trigram,
//     the ids of the rows holding it, not the text nor the positions. That
//     is about 0.25x the size of the rows it indexes (the detail=full index
//     of version 3 was about 1.3x). A query term of three or more characters
//     becomes an AND of (up to 8 of) its trigrams; each candidate row is then
//     checked against the whole term and ranked by sessiondb_rank, a Go
//     function registered with the driver: exact phrase first, then BM25
//     term frequency over text length. So matches are still exact
//     case-insensitive substrings (identifiers, paths, error messages, CJK
//     words inside unsegmented text). Case-insensitive means each rune
//     lowered by itself (engine.Fold, PostgreSQL's lower too): "istanbul"
//     finds "İstanbul" and "kelvin" the Kelvin sign, but final ς is not σ
//     and "é" is not "e" plus a combining accent (no normalization). The
//     tokenizer folds with its own tables (it leaves İ alone), so each
//     trigram asks for every spelling of it that lowers alike. Every row a
//     search reads is checked by sessiondb_holds, the rank's own rule (each
//     term in the folded text) without its counting: the text lowered in its
//     ASCII letters eight bytes at a time and searched with strings.Index,
//     and folded whole only when it holds bytes outside ASCII and the fast
//     search did not find the term (İ and the Kelvin sign fold to ASCII
//     letters). It replaced a LIKE prefilter (with a GLOB for each such
//     spelling), which SQLite ran at about 150 MB/s: sessiondb_holds is about
//     5x faster on 4 KB texts and 2.5x on 200-byte ones
//     (BenchmarkCandidateCheck), and the worst case, a rare word of common
//     trigrams, reads tens of thousands of long candidates that lack it.
//     The extracted text holds no NUL (U+FFFD instead, backend.CleanText,
//     as on PostgreSQL); rows written before keep theirs until Reindex with
//     reextract. The candidates are read newest
//     first, each checked as it is read, until
//     1,000 verified hits per index are found (the blocks of 1,000 that
//     cover a deep page) or the candidates end: a word found in most
//     entries answers in milliseconds by ranking its newest 1,000 hits
//     instead of every match (hits are ranked within blocks of 1,000,
//     newest block first, so pages never repeat or skip one), and a rare
//     word made of common trigrams is still found, however many older
//     candidates lack it (before issue 23 the window counted candidates,
//     and such a word's only hit could fall outside it).
//   - Terms shorter than three characters cannot use a trigram index; they
//     are answered by a scan of the extracted text, each row checked by
//     sessiondb_holds.
//
// # Secrets
//
// The background indexer also runs the secret scan (sessiondb's doc,
// "Secrets"; engine.ScanSecrets): after the index has caught up, one
// batch of up to 4 MiB of bodies per wake-up, so that a long backlog (a
// large import, a newer rule set) never holds indexing back; the batch's
// spans and cursor are one write of the committer. A read-only Store has
// no indexer, and its redacted reads scan what they read. Scrub deletes
// each rewritten entry and inserts it again with the same seq and a new
// id above the reservation: the trigger queues the old id for removal
// from the index (search_deleted) and the indexer indexes the new row,
// so the index no longer holds the secret's trigrams. The old bytes may
// remain in free pages of the database and index files, in the WAL until
// a checkpoint and in backups: Options.SecureDelete (sessionctl scrub
// sets it) and sessionctl vacuum deal with the first.
//
// IndexStatus reports the lag (sessionctl stats, doctor, reindex);
// CatchUpIndex indexes everything pending (after a bulk import); Reindex
// rebuilds the index from the log. sqlite3 users attach the index file to
// query it: ATTACH '<database>-search' AS search.
//
// # Usage rollup
//
// usage_quarters (migration 17; PostgreSQL's 14, the same table and
// rules in pgstore) is the usage ledger grouped as UsageReport groups it
// with ByQuarterHour and ByModel: one row per UTC quarter hour (hour
// 'YYYY-MM-DDTHH' and quarter 0-3, the scan's own expressions over
// created_at), provider and model, holding the group's calls, token sums,
// cost, unpriced calls and first and last call. Triggers on usage keep it
// (AFTER INSERT, AFTER DELETE, AFTER UPDATE of the columns it sums), so
// every path that writes the ledger keeps it exact with no Go code of its
// own: a commit, a call reported again under its CallID, ReplaceUsage (a
// re-import's rewrite), a session's delete and its cascade, PutSession (a
// copy), Reprice's UPDATE of cost, and a write made with sqlite3.
// backend.UsageReport reads it for a report grouped by quarter hour and
// model (ByDay too) that needs neither a call's session (SessionID,
// BySession, project, machine) nor its single cost (Prices), with Since
// and Until zero or on UTC quarter hours: sessionctl usage daily and
// monthly, whose local days start on quarter hours. Any other report
// scans the ledger as before; a coarser one (ByModel alone, ByDay) would
// add the groups' sums in another order than the scan adds the calls.
//
// What is exact, and why:
//
//   - calls, the token sums and unpriced are integers, added on insert and
//     subtracted on delete; an update takes the old row out and puts the
//     new one in. A group's row goes with its last call, so the report has
//     no empty group, like the scan.
//   - first_at and last_at: an insert takes the min and max. A delete of a
//     call inside the group changes neither; a delete of the group's first
//     (last) call reads the new one from the ledger, the first (last)
//     entry of usage_by_model (provider, model, created_at) within the
//     hour, filtered to the quarter: one index probe over at most that
//     model's calls of the hour, never a scan of the group for a call that
//     is not at an edge. A remaining call at the same time is found again.
//   - cost: costs are doubles, and the same costs added in another order
//     differ in their last digits. The row keeps the group's sum as the
//     pair (cost, cost_err) of a Kahan-Babuska-Neumaier sum, the pair
//     SQLite's own sum() keeps (since 3.43): each inserted call's cost (as
//     backend.CostSQL counts it) is added, each deleted one's negation is
//     added, and the report reads cost + cost_err. A compensated sum is
//     the exact sum rounded once, whatever the order, but for ties so
//     rare they do not occur in practice, so the rollup's cost equals a
//     fresh SQLite scan's bit for bit (TestUsageRollupExactCost, with
//     costs of 53 random bits, inserts and deletes; storetest's
//     UsageReport/Rollup through rewrites, copies and a reprice).
//     PostgreSQL's sum(double precision) adds in the plan's order without
//     compensation, so there the scan's last digits are the plan's and
//     the rollup's cost (the more accurate) may differ from them by an
//     ulp or so: storetest compares costs to a relative 1e-13.
//     Rejected: costs in integer micro-units (they would no longer be the
//     scan's), and recomputing a group's cost from the ledger at each
//     delete (a read of the group per deleted call, and on PostgreSQL
//     still the plan's order).
//   - The migration's backfill stores the scan's sum (compensated on
//     SQLite) with cost_err 0.
//   - Bounds compare (hour, quarter) with the bound's, which is the scan's
//     created_at comparison for times in the stored layout (every time the
//     stores write); rows written by hand in another layout are grouped as
//     the scan groups them, by the same expressions.
//
// The price is on the write path: one upsert on usage_quarters's primary
// key per inserted call; per deleted call a delete and an update of its
// group, and an index probe when it was at an edge (BenchmarkCommitUsage;
// BENCHMARKS.md, issue 42). On PostgreSQL a group's row is locked until
// its writer commits, so writers of different sessions that add calls of
// one model in one quarter hour queue there. Two commits adding calls of
// two models in opposite orders would deadlock (retried by the store only
// after the server's deadlock_timeout), so the engine first locks every
// group a commit or a delete touches in one order (engine.UsageGroupLocker;
// pgstore's TestUsageGroupsInOppositeOrders).
//
// # Decisions
//
//   - Times are stored as fixed-width UTC text, so sqlite3 users can read
//     and compare them.
//   - Bodies are stored as TEXT holding the caller's exact bytes (never
//     re-encoded), so SQLite's JSON functions work on them.
//   - A checkpoint does not bump the session's Sequence: it describes the
//     session without changing it. Every other write does, once.
//   - Prune that finds nothing to remove records no revision, and neither
//     does any commit that changes nothing: engine.ApplyCommit compares each part
//     with what is stored (meta field by field, state and interrupt bytes,
//     History against the transcript, KeepLast against its length) and
//     then skips the Sequence update, so the transaction commits without a
//     WAL frame and without an fsync.
//   - CreateIfMissing checks for the session inside the write
//     transaction; BEGIN IMMEDIATE holds the write lock from the first
//     statement, so no process can create it in between.
//   - CommitMany is one write request, so group commit runs it inside one
//     savepoint and never splits it; it is all or nothing like one commit.
//   - session_aliases has no UNIQUE (alias) since migration 00005 (shared
//     aliases); Resolve orders a name's holders with picoclaw's meta-file
//     name (replace(':', '/', '\' by '_') || '.meta.json') in BINARY
//     collation, which is Go's byte order, as os.ReadDir sorts.
//   - MessageCount and EntryCount are kept in the sessions row
//     (message_count, entry_count; migration 00008), not counted on read:
//     until then Get, List and LoadFull counted the session's log rows,
//     4.7 ms on 100,000 entries and 0.2 s on 1,000,000. An append adds
//     its rows and messages to both in the UPDATE it runs anyway (the
//     counts are two more integers in a row the append rewrites, no
//     extra page). A commit that records a compaction counts the new
//     transcript's messages with backend.CutMessages: one count over the
//     shorter of two ranges of the log (from the new keep-from to the old
//     end, or between the old and the new keep-from), through the
//     (session_id, seq) index; none when the new transcript starts after
//     the old log (SetHistory, Restore in place). Prune subtracts the rows
//     it deletes; Fork inherits its parent's count (at the end of the
//     log) or counts the rows it copies; PutSession derives both from the
//     dump. A partial index on messages would make that count cheaper but
//     would cost every append of a message one more b-tree insert: the
//     compaction pays, not the append.
//   - List with ParentID walks the partial index sessions_by_parent and
//     sorts the parent's forks; with Usage it sums the page's usage rows
//     with one more query in the same read transaction (the page's IDs as
//     one JSON array, json_each, one probe of usage_by_session per ID).
//   - An append writes four b-tree pages (issue 26, counted from the WAL by
//     TestAppendPages): the entries leaf, the (session_id, seq) index leaf,
//     the sessions row and its sessions_by_updated leaf; now and then a new
//     leaf, its parent and page 1 when the file grows. Each stays for a
//     reader: Load walks (session_id, seq), Get reads the kept counts and
//     List walks sessions_by_updated. The fifth, sqlite_sequence of
//     AUTOINCREMENT, went in migration 10 (explicit ids, nextEntryID).
//   - An entry's extracted text is stored only where it is not its body's
//     content string (text_stored; text is a generated column, see
//     textonce.go): 37% less file for the same archive (bench workload 6).
//   - Pages stay 8 KB: 4 KB pages write 40-46% fewer WAL bytes per append
//     but made no measurable difference to the durable append or the 16
//     writers in the same run (fsync and CPU dominate) and left the
//     workload-6 file 6% larger.
package sqlstore
