// Package sessiondb defines the domain of sessiondb, a storage engine for
// AI-agent sessions: the types (Session, Entry, Compaction, Commit, …), the
// Store interface every backend implements, the sentinel errors and ID
// generation. It holds no SQL; the SQLite backend lives in package sqlstore.
//
// # Data model
//
// A session owns an append-only log of entries. Each entry has a Seq (1-based,
// assigned by the store inside the write transaction, never reused), a Kind
// (KindMessage, KindCustom or a rich-entry type such as "model_change"), an
// extracted Role and the Body: the JSON exactly as the caller gave it. Bodies
// are stored and returned byte for byte.
//
// A compaction records AtSeq (the log length when it was made), KeepFromSeq
// and zero or more synthetic summary messages. The effective transcript — what
// Load returns — is the summary messages of the latest compaction followed by
// every entry with Seq >= KeepFromSeq (the whole log when there is no
// compaction). Replacing the transcript (SetHistory, SaveFull), truncating and
// compacting therefore never delete rows: older entries stay in the log for
// audit until Prune removes what no compaction can reach.
//
// # Counts
//
// Session.MessageCount counts the messages of the effective transcript
// (kinds KindMessage and KindCustom, the two kinds that are messages: an
// LLM message and an application-defined one), not its entries. Imported
// Claude Code, pi and Codex sessions keep bookkeeping lines in the
// transcript's range of the log (file-history-snapshot, progress,
// model_change, label, turn_context, …), and a streamed response that
// Claude Code writes as one line per content block is one message whose
// further lines are KindMessagePart entries: counting entries would count
// each of those as a message, and a session list would say a
// conversation of ten turns holds sixty messages. Truncate and
// Commit.KeepLast still count entries: they cut the log, whatever its
// entries are.
//
// Stores keep MessageCount and EntryCount in the session's row and update
// them in the transaction of every write that changes them (commits of
// every kind, Prune, Fork, Restore, PutSession), so reading a session
// never counts its log: Get, List and LoadFull cost the same on a session
// of ten entries and of a million, and the Session a write returns
// carries both counts.
//
// # Revisions and optimistic concurrency
//
// Every committed change bumps Session.Sequence by exactly one. A write may
// carry the sequence its caller last saw (Commit.ExpectSequence); when the
// stored sequence differs the write changes nothing and returns a
// *ConflictError, which matches ErrConflict under errors.Is and carries the
// current sequence. Writes without an expected sequence always succeed,
// serialised by the store.
//
// A commit that changes nothing (an equal patch, state or history; a
// KeepLast already met) is not a change: it writes nothing and keeps the
// Sequence, so an agent may repeat its "ensure metadata" call every turn
// for free. CreateIfMissing makes a commit create its session when missing
// (create-on-write, race-free; AppendOrCreate and its siblings), and
// Store.CommitMany applies commits to several sessions in one transaction,
// each with its own expected sequence: how a conversation moves from one
// session to another without losing a message (PromoteHistory).
//
// # One call per method of the stores it replaces
//
// The stores of picoclaw, zot and swink-agent-memory, run on their own
// test suites over an adapter (issue 44), each map a method to one call:
//
//   - Running totals (zot's AppendUsage(cum, cum)): Commit.CumulativeUsage
//     records the delta against the session's previous total inside the
//     commit. The previous total is the last one the session reported,
//     or its ledger's sum before the first (so a total seeded from the
//     stored one continues it); an equal total adds nothing; a total
//     below the previous one in any count or the cost is a reset, taken
//     as the delta since it.
//   - A session list with what each session opened with:
//     SessionInfo.Preview (the first user message of the transcript, its
//     first PreviewRunes runes), kept in the session's row like the
//     counts and returned by List with the ledger totals (Usage), so a
//     list loads no transcript. Databases made before it are filled by
//     their migration, not lazily: a lazy fill would cost every List of
//     an old database a read of each listed session's log.
//   - A branch as an agent makes it: Store.ForkWith cuts after the k-th
//     message (ForkOptions.AtMessage) or at a log position, and gives the
//     child its own metadata and aliases (ForkOptions.Meta), in the
//     transaction that creates it.
//   - Create-on-write with metadata: OrCreate.Meta is applied by every
//     write through an OrCreate, and by PromoteHistory to the target in
//     the move's CommitMany, whether the target was created or not;
//     OrCreate.Commit is any Commit with create-on-write.
//   - A save that is always a revision: Commit.Revise (swink bumps its
//     sequence on every save; see Revise for why an option and not "a
//     new UpdatedAt is a change").
//   - A listing in the caller's order: ListOptions.Order (ByUpdated,
//     ByCreated, ByID) and Ascending, paged by keyset cursors that belong
//     to their order.
//
// # Aliases
//
// An alias is a note on a session, not a unique name: several sessions may
// list one (picoclaw lists "agent:main:main" on every routed session), in
// the order each gives. Store.Resolve picks one with picoclaw's
// ResolveSessionKey rules (IsPathKey, AliasOrderKey), so picoclaw data
// resolves as picoclaw resolves it; Create refuses only a plain ID another
// session lists, the one case where creating would move an alias.
//
// # Usage and cost
//
// Each model call may leave a Usage row in its session's ledger: tokens
// and cost, dated by the call. A cost is either the one the tool
// recorded, or one estimated from a price table (Usage.CostEstimated), as
// importers do for tools that record none. Price holds a model's rates
// and Price.Estimate the rule (with Anthropic's long-context tier above
// LongContextTokens); stores that implement Repricer recompute the
// estimated costs in place with a new price list, in one transaction,
// never touching a recorded cost, computing Price.Estimate's figure bit
// for bit. Store.UsageReport groups the ledger by session, model, UTC day
// or UTC quarter hour (the unit that folds into any time zone's days),
// within a time range, optionally at other prices without writing.
//
// # Secrets
//
// Transcripts hold secrets that tools brought in (a key in a tool's
// output, a database URL with its password). Stores that implement
// SecretKeeper find them once, in the background, and mask them on every
// read of their Redacted view; what is stored never changes, unless a
// person asks for it with Scrub.
//
//   - Finding (package internal/secrets: gitleaks' rule set as data, see
//     its doc for the choice) runs off the write path: in sqlstore's
//     background indexer after each indexing batch, in pgstore's
//     background scanner (PostgreSQL indexes inside the write; there is
//     no indexer to ride on). A step reads up to 4 MiB of bodies past
//     each session's scan cursor, scans them outside any transaction and
//     records, in one write, the spans found (table secret_spans: entry,
//     byte range, rule, fingerprint) and the new cursor (secret_scans:
//     seq and rule set; a newer rule set scans again).
//   - Spans are byte offsets into the stored body, not into the
//     extracted text: every reader derives what it shows from the body
//     (the understanding of formats behind show, the viewer and MCP reads
//     tool calls and results that the extracted text does not hold;
//     exports write bodies), so masking the body first covers them all
//     with one rule, and the extracted text of a hit is derived again
//     from the masked body. A span lies inside one JSON string and never
//     cuts an escape, so a masked body is still valid JSON.
//   - Reads only apply spans, in their own read transaction (the same
//     snapshot as the bodies). Entries past a session's cursor (written
//     since the last scan, or never scanned: a read-only store, a newer
//     rule set) are scanned as they are read, as search scans the
//     unindexed tail: no read leaks what the scan has not reached.
//     Summary messages, and documents and metadata read whole (titles,
//     summaries, state, interrupt, checkpoints, compaction details), are
//     few and small and are scanned as they are read.
//   - A search hit whose terms occur only inside a secret is dropped from
//     a redacted search: otherwise a query could probe a secret one
//     character at a time.
//   - Scrub rewrites a session's bodies with the secrets masked, for
//     good, in one transaction, and records it (scrubs); the rewritten
//     rows take new row ids so that the search index forgets the old text.
//
// # Errors
//
// Failures are reported with the sentinels below, wrapped with short context:
// test them with errors.Is. Invalid IDs, non-JSON bodies and oversized inputs
// return ErrInvalid and change nothing.
package sessiondb
