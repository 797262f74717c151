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
// # Errors
//
// Failures are reported with the sentinels below, wrapped with short context:
// test them with errors.Is. Invalid IDs, non-JSON bodies and oversized inputs
// return ErrInvalid and change nothing.
package sessiondb
