// Package jsonlimport moves session archives written by other agents into a
// sessiondb.Store, losslessly, and writes sessions back out in those formats.
// It reads and writes picoclaw, zot, swink, Claude Code, Codex CLI, pi,
// Gemini CLI, Qwen Code, GitHub Copilot CLI (package copilot), opencode,
// Cline and Roo Code (package cline) and aider archives, and reads goose's
// sessions (package goose), crush's and the Go opencode's SQLite stores
// (package crush), the Cursor IDE's state.vscdb (package cursor), the
// Cursor agent's JSONL transcripts (package cursoragent, which also
// writes them back) and the
// sessions Entire commits to a git repository's entire/checkpoints/v1
// branch (package entire, which reads each through its agent's reader);
// each format is a Format (see Formats), and the importer works against the
// sessiondb.Store interface only, never against a particular backend.
//
// # Detection
//
// Import walks the files and directory trees it is given. The sorted files of
// each directory are offered to each format's Claim in turn (picoclaw, zot,
// swink, qwen-code, claude-code, codex, pi, gemini-cli, copilot-cli, goose,
// opencode-go, crush, opencode, cursor, cursor-agent, cline, aider, entire,
// or only the
// format named in Options.Format); a format claims files by name and by their first lines,
// and groups a primary file with its side files into a Unit. A format whose
// files are stores of many sessions (jsonl.StoreFormat: opencode's SQLite
// database, aider's chat history of many runs) claims the store as one
// unit, and the import lists its
// sessions (see "Stores" below). A walk skips the folders a format knows
// to hold no session (jsonl.DirSkipper: opencode's snapshots and logs
// beside its database), with one note each. Detect runs
// this discovery alone (what would be imported, per format), and
// WellKnownLocations lists the agents' default archive directories. Files nobody claims are reported as
// Problems ("unknown format, skipped") and the import goes on, so a mixed
// tree works.
//
// Symbolic links: a path the caller names is followed, a link to a
// directory included (its files keep the link's name in their paths).
// Inside a walked tree a link to a regular file is followed only when its
// target lies inside the tree; a link leading out of it (an archive's
// notes.jsonl -> ~/.claude/projects/…/private.jsonl) is skipped with a
// note, so an archive from someone else cannot import the user's own
// transcripts under its name. Links to directories are not followed inside
// a walk (no loops). A directory the caller names that holds no file is a
// Problem: a mistyped path must not look like an import of nothing.
//
// # Parsing and writing
//
// Units are parsed on Options.Jobs goroutines and written by one goroutine,
// in discovery order (so the same input always gives the same database, e.g.
// which session gets a contested alias). Parsers run at most 2×Jobs units
// ahead of the writer, which bounds memory; readers stream their files with a
// line reader that never holds more than one line (at most MaxLineSize bytes).
//
// Each session is written with ONE Store.Commit: create (or meta patch),
// the entries, the compactions (a reader's file entry numbers mapped to log
// positions), state, interrupt, usage rows, and the source-file record. A
// session therefore lands whole or not at all. Agent checkpoints are saved
// after the commit.
//
// Except one large file: a file of a format that can stop at a size and
// continue from its parse state (jsonl.Bounded: Claude Code) that is
// larger than a chunk (8 MiB) is imported a chunk at a time, each chunk
// ending at a line end and written with one commit as the file's growth to
// that size would be (chunk.go). Each commit records how far the file was
// imported, so an import stopped between two chunks leaves the session as
// a shorter file would, and the next import continues it; what the import
// holds is a chunk, not the file (issue 42: a 381 MB transcript peaked at
// 1.8 GB RSS in one piece, 0.68 GB in chunks).
//
// # Idempotence and incremental import
//
// The Source record of a unit's primary file holds its absolute path, size,
// modification time, the byte offset consumed (up to the last complete line)
// and the sha256 of those bytes, plus the importer's continuation state
// (entries imported, the entry→seq mapping, fingerprints of the side files,
// and the reader's own ResumeState). On the next import of the same path:
//
//   - same device, inode, size, mtime and side files: nothing is read or
//     written (Report.Unchanged; a no-op re-import is a stat per file,
//     prefix.go says what that trusts). The records under each directory
//     imported are read in one query before the walk, and such a file of a
//     format that can name its unit without reading it (jsonl.Reclaimer:
//     Claude Code, Codex, pi, Gemini CLI, Qwen Code, Copilot CLI and the Cursor agent's JSONL files) is not
//     offered to the formats' claims either (unchanged.go); same size and mtime and prefix hash
//     (a file copied to a new inode): nothing is written either;
//   - the consumed prefix still hashes the same (the file grew, or only a
//     side file changed): the lines already imported are never appended
//     again. The reader resumes at the offset and only the new entries are
//     appended, with the metadata refreshed, so the work is proportional
//     to the new bytes. Import hashes the whole consumed prefix to decide
//     this; an importer that runs on (sessionctl watch) passes a Follow,
//     under which a file verified once is then checked by inode, size and
//     the bytes just before the offset, and its hash continued from the
//     sha256 state recorded with it (prefix.go: what that check cannot see
//     and why it is acceptable). When the reader cannot continue from its
//     state (it returns ErrNotIncremental: Claude Code without a Follow or
//     in the cases claudecode/resume.go lists, pi when the new entries do not
//     simply continue the previous leaf, a new compaction, or a new title
//     or label while the file has branch forks, zot after or before a
//     tool call without result, swink always; swink also patches its
//     header in place, so a swink file whose consumed bytes changed is
//     treated so too, jsonl.HeaderRewriter), the file is read
//     whole again (Resume with Offset 0 and the reader's state) and only
//     the entries after those imported are appended: a reader numbers a
//     file's entries the same way whatever its length, which a digest of
//     the entries imported checks (Digest in the import state; a mismatch
//     falls back to the replacement below, with a problem). The usage rows
//     of the new entries are written (a row with a CallID replaces the
//     stored row of its call, so a response whose last line is new counts
//     with its final usage, once), and the compactions that reach into
//     the new entries, the last one always: the transcript, the forks and
//     the metadata are those of the whole file. The commit carries the
//     session's sequence (ExpectSequence) and is retried when another
//     writer got there first. The result equals one import of the final
//     file (TestGrowthFixtures, TestGrowthCorpus: every fixture grown line
//     by line, every real file at a third and two thirds), but for what
//     cannot be patched afterwards: a session's CreatedAt. A fork's
//     ForkSeq is patched (sessiondb.MetaPatch.ForkSeq) when the file moves
//     it: a pi branch fork made while its branch point was elsewhere, a pi
//     /fork file imported before its copied entries were all written; and
//     a pi branch fork whose tip the file now continues (pi went back to
//     it) is deleted in the same commit (sessiondb.Commit.Delete), as one
//     import of the file makes none;
//   - a last line without its newline (the writer is mid-append) is not
//     consumed: the offset stops before it, it is reported in the import's
//     problems (not stored), and read again once complete. Its problems are
//     kept with the import state (importState.Torn), so that an import that
//     finds the file unchanged reports them again: a problem is what was
//     not imported, every time it is still not imported. So is a store
//     session's unfinished last turn (UnfinishedMarker), whose session
//     an import finds unchanged by its stamp;
//   - otherwise (rewritten in place): the file is read whole and replaces
//     the session's transcript: its entries are appended and a compaction
//     whose KeepFromSeq is the first of them makes them the transcript.
//     Old rows stay in the log for audit, as DESIGN.md requires of
//     SetHistory. The branch forks (pi) whose tips the file still has get
//     their branch's path in the same way; a fork whose tip is gone is
//     kept as it was. The session's usage ledger is replaced too, in the
//     same commit (sessiondb.Commit.ReplaceUsage): its rows become the
//     new file's, so totals, calls, and rows per model and day are those
//     of one import of the file. The ledger keeps no audit copy of the
//     old rows: it answers "what did these calls cost", and the file no
//     longer holds them. But a file whose reader now names another
//     session than the one recorded for its path, one imported from
//     another file (a Codex rollout renamed over another), holds that
//     other session: it is imported as a new file would be (that
//     session's copy or continuation, or a session beside it), and the
//     path's old session stays as its file left it. A name no session
//     has yet (a picoclaw .jsonl imported before its meta named the key)
//     is the path's session renamed: a replacement, which keeps the
//     session's ID.
//
// # Sources that vanish
//
// Agents delete their own history; sessiondb keeps its copy. An import
// never empties, replaces or deletes a session because its source went
// away, and marks it (Session.SourceSeenAt, Session.SourceGoneAt through
// sessiondb.SourceTracker): the units an import reads are seen; a record
// under a directory Import was given whose file is gone, a session an
// agent's database listed whole no longer holds, and a unit a watcher saw
// deleted (MarkGone) are gone. Only the sessions of Options.Machine (and
// those no machine recorded) are marked gone. A file that would take over
// a session only because that session's own file is gone (picoclaw's
// .meta.json after its .jsonl was deleted, which picoclaw reads as an
// empty session) does so only when it holds at least the session's
// messages; otherwise it is skipped with a note. See vanished.go.
//
// # Machines
//
// Options.Machine is recorded as Session.Machine on the sessions an import
// creates; a session keeps the machine that created it. Import records
// are keyed by machine and path (sessiondb.SourceFile.Machine): each
// machine has its own record of a path, so that a second machine's file
// at the same path (one home layout, or one home synced) is never
// compared with the first machine's record as if it were the same file.
// A file of a machine that has no record of it, naming a session another
// machine created, is that session when its entries are those the
// session's log holds, or their start (the file synced here as far as it
// got: a copy, skipped with a note), or when its bytes start with those
// the other machine's record says were consumed and its first entries
// read as imported (its continuation: only the entries after them are
// appended, and entries another machine already appended are not
// appended again). It stays one session with one log. Anything else
// (other first lines under a taken ID) is another session: imported
// beside it under an ID derived from the ID, this machine and the path,
// and reported with the other session's machine, never merged into it
// nor written over it. A record made before records had machines (or by
// an import without Options.Machine) is found by every machine until one
// records the path, which makes it that machine's. See copies.go.
//
// # Projects across machines
//
// Options.Map (PathMap, sessionctl's --map FROM=TO) rewrites the project a
// session records (Session.Project, from the agent's cwd) by the longest
// FROM that is a prefix of it at a path boundary, on every session and
// branch fork an import creates or patches, so that /home/a/src/x and
// /Users/a/src/x are one project across machines. The decision: the
// project only, never the transcript, the attrs (the agent's own cwd
// stays as it wrote it) or the source path, so an export gives back what
// the agent wrote and a mapping can be changed later (the next import of
// a changed file records the project by the new map; unchanged files are
// not rewritten). `copy` does not map (it copies a database as it is).
//
// # Stores
//
// A store (an SQLite database of many sessions; opencode's storage/ tree,
// whose session is a file of its own read with message and part files
// elsewhere) is listed at each import by its format (StoreFormat.Sessions,
// stores.go), each session with a stamp; each session is then a unit of
// its own, whose source record is keyed by its session path
// (jsonl.SessionPath: "<database>#<session id>") and holds the stamp in
// place of a file's hash. A session whose stamp did not change is not
// read. A changed one is read from the cursor its reader recorded (the
// rows it consumed: Parsed.Offset and ResumeState); a reader that cannot
// continue from it (ErrNotIncremental: the rows before the cursor
// changed) reads the session whole, and the entries after those imported
// are appended when the first ones still read the same (the digest), else
// the transcript is replaced, as for a file rewritten in place. A database
// is read from a copy taken aside with its -wal (package foreigndb, whose
// doc says why and how, and how crush, goose and Cursor stores are to
// plug in), one copy per import, kept and refreshed by what the log
// gained when the import runs under a Follow (a watcher). The same
// session found in another place of its format (an opencode database and
// an `opencode export` of it) is a copy when its entries are those already
// imported, or their start.
//
// A file of a known format that holds nothing to import yet (an empty
// .jsonl, a Claude Code file with no user or assistant line or no time, a
// picoclaw file without meta or a complete line) is skipped with a note
// and looked at again on the next import.
//
// A source session whose ID is already used by a session imported from a
// different file (two machines' picoclaw "agent:main:cli:direct:alice") is
// imported under the ID plus "~" and 8 hex digits of its path's hash, with
// a Problem saying so. But a file whose bytes are those of that other file,
// or their start, with its side files likewise (the same archive copied to
// a second place, or a backup taken earlier), is a copy: it is skipped with
// a note and counted as unchanged, so that the session is not shown twice
// nor its usage counted twice. And a file that starts with the bytes the
// import of that other file consumed (the file moved, or its backup was
// imported before the live archive) continues the session as a file that
// grew in place does, when its first entries read as those imported: only
// the entries after them are appended (copies.go). Each path keeps its own
// record; when a file that grew finds after its last import entries the
// log already holds (the other copy continued the session meanwhile), they
// count as imported from it too and are not appended again.
// Aliases are registered as the source lists them, shared ones included
// (picoclaw puts "agent:main:main" on every routed session), so that the
// store's Resolve returns what picoclaw's ResolveSessionKey returns. Only an
// alias that is not a valid ID cannot be registered: it is a Problem, and
// the full source list is then kept in Attrs["source_aliases"], which
// exports write back.
//
// A session's Project (sessiondb.Session.Project, the working directory
// its agent ran in) is what its reader found (Claude Code: the cwd its
// lines record, else the project folder its file is in), else the cwd its
// attributes hold (Codex's session_meta, pi's header, zot's meta:
// projectOf); picoclaw and swink record none. Every import sets it, so a
// re-import refreshes it like the title.
//
// # picoclaw
//
// A picoclaw session is {key}.jsonl (one providers.Message per line) plus
// {key}.meta.json; the session ID is the meta key (the file base when there
// is no meta), Summary, Scope, Aliases and the timestamps come from the
// meta, and meta skip (lines hidden by TruncateHistory) becomes a truncation
// compaction, so the hidden lines stay in the log. Lines are read with
// picoclaw's own rules (empty lines ignored and not counted, a trailing '\r'
// dropped, lines that json.Unmarshal rejects skipped, reasoning-only
// assistant thoughts dropped), so the effective transcript equals picoclaw's
// GetHistory. Beyond picoclaw, and reported as Problems: a message glued
// onto a torn line or written behind NUL padding is recovered; a corrupt
// meta (picoclaw then refuses the session) yields the members before the
// damage; lines over picoclaw's 10 MiB scanner limit are imported (up to
// MaxLineSize). Meta-only sessions and legacy {key}.json session files are
// read too. Bodies are the lines' bytes, unchanged (legacy messages are
// compacted onto one line, exactly as picoclaw's migration writes them).
//
// # Claude Code, Codex CLI and pi
//
// The three "wild" formats (formats/wild.md) are read under one set of
// rules, detailed in the doc.go of packages claudecode, codex and pi:
//
//   - Every readable line is one log entry whose body is the line's exact
//     bytes (unknown line types included, Kind = the line's type); lines
//     that carry a model message are Kind "message". Filtered to Kind
//     "message", the effective transcript is what the tool resumes.
//   - Tree formats (Claude Code's parentUuid, pi's parentId): the resume
//     path is computed as the tool does (newest message / last entry back
//     to a root). When it is a suffix of the log it is expressed with a
//     compaction's KeepFromSeq; otherwise (an abandoned branch, side
//     chains) with a compaction whose summary holds copies of the path's
//     entries, keeping no log entry. Their own compactions
//     (compact_boundary, pi's compaction, Codex's compacted with its
//     replacement history) are sessiondb compactions.
//   - pi's other branch tips become fork sessions of the file's session
//     ("<session>@<tip>", Parsed.Branches), written in the same
//     transaction, each resuming what pi resumes at that tip (checked
//     against pi's own code). Claude Code's abandoned branches and side
//     chains stay in the log only.
//   - Line damage (torn lines, NUL runs, a torn write with the next append
//     glued onto it, invalid UTF-8, a torn tail) is handled by one scanner
//     (jsonl.WildScan, jsonl/wild.go): whole objects still in a damaged line are recovered,
//     everything is reported with path, line and reason, and a torn tail is
//     not consumed so that it is read again once complete.
//   - Incremental import: see above. Codex continues at the offset; pi
//     continues when the new entries extend the previous leaf in a line
//     without a compaction, and is read whole otherwise; Claude Code is
//     always read whole (a line added anywhere in the tree can change the
//     resume path, the lines of a response and the results re-attached).
//   - Claude Code messages: the lines of one API response (one content
//     block each, sharing message.id) and the result lines of its
//     parallel tool calls (one each) are in the log line by line; the
//     first line of a response, and the first result line answering it,
//     are Kind "message", the further ones Kind "message-part"
//     (sessiondb.KindMessagePart), decided from the lines before them so
//     that a line's Kind never changes as the file grows. MessageCount
//     therefore counts messages; merging parts into their message is the
//     per-format reader's (issue 22). The resume path takes every line of
//     each response met on the walk from the leaf and the result lines of
//     all its tool calls (each result line hangs off its own tool_use
//     line, the next assistant line off the last result only).
//   - Usage: Claude Code counts one row per API response, CallID
//     message.id + "|" + requestId: the report of its last streamed line
//     (a main-chain line beats a side-chain copy; a line with
//     "usage":{} reports nothing), dated by that line. The earlier
//     lines' figures are partial: Anthropic's output_tokens, and through
//     Anthropic-compatible endpoints the whole prompt reported as input
//     with output 0, a total that can exceed the final report's (issue
//     38: a 2.1.68 file, right up to the first response where it did).
//     ccusage 20 keeps the largest total (testdata/gen/ccusage); on every
//     response of the real corpus both rules count the same figures. A
//     response held by several transcripts of one project folder (a
//     continued session repeats the responses of the one it continues,
//     sometimes re-dated; an aside-question sub-agent replays its
//     session's lines) counts once, in the transcript whose report is on
//     the main chain, then dated earliest, then first in path order.
//     Lines without message.id count once each; <synthetic> lines are no
//     call. Where this differs from ccusage 20.0.24 on the corpus,
//     ccusage is wrong, for three reasons stated in
//     TestClaudeCodeCorpusUsage: responses without requestId (it counts
//     each line of a streamed response), re-dated copies (it dates a call
//     on the day it was copied) and agent_progress snapshots (it counts a
//     partial copy instead of the sub-agent's final report). Codex rows
//     are the increases of total_token_usage; pi rows are the assistant
//     messages' usage; zot rows the increases of its cumulative rows,
//     each named by its line. Each row is dated by the call, so
//     usage_daily answers "what did I spend per day" by day and model. pi
//     records each call's cost; Claude Code (but for the costUSD of old
//     versions) and Codex do not, so their cost is estimated from Prices,
//     the providers' list prices as of PricesAsOf (pricing.go says what
//     the estimate leaves out); a model without a price costs 0 and is
//     named in a Note.
//
// Fidelity: observed versus inferred. pi is observed: its fixtures
// (testdata/pi) were written by pi 0.73.1's own SessionManager
// (testdata/gen/pi/gen.mjs), and the tests compare our transcript with
// what its buildSessionContext returns for each file; pi also opens our
// exports and resumes the same context. Claude Code and Codex cannot be
// run here; their shapes are observed in the corpus of real files
// (testdata/corpus: 112 Claude Code transcripts of 1.0.x to 2.1.x, 38
// Codex rollouts) and their usage checked against ccusage 20.0.24's
// answers on it. Observed there: streamed responses one content block a
// line, partial usage on the early lines, parallel tool results hanging
// off their own tool_use lines (and, in 2.1, the response's next block
// hanging off a result), continued sessions repeating responses,
// workflow sub-agents, newer line types. Still inferred rather than
// observed:
//
//   - Claude Code: the leaf is the last user/assistant line that is not a
//     side chain (Claude Code's own resume code was not run); the walk
//     passes through lines of any type with a uuid; a dangling parentUuid
//     cuts the resume path there; a trailing <synthetic> stop stays on the
//     path; sub-agent sessions are named "<sessionId>:agent-<agentId>"
//     (workflow agents and the 2.0 agent files beside the sessions too);
//     the title is the last custom-title, else the last summary, else the
//     last ai-title; tool-results files are stored as entries of Kind
//     "tool-result-file" after the line that names them (their file name
//     is the tool_use id).
//   - Codex: the transcript is the response items after the last compacted
//     line, preceded by its replacement history; a compacted line without
//     replacement_history becomes one user message holding its text (the
//     exact bridge text older Codex builds is not reproduced); input tokens
//     exclude cached input; titles come from session_index.jsonl, else the
//     first typed user message. Codex's state_N.sqlite index is not read.
//   - Recovering an entry glued onto a torn line goes beyond all three
//     tools (pi, for one, drops both lines), so on such files our
//     transcript can hold more than the tool resumes; each recovery is a
//     Problem.
//
// Clean real archives import with exit code 0 (TestImportCorpusExitsZero):
// what real files hold but loses nothing is a note, not a problem: a
// workflow's journal.jsonl and a sub-agent's agent-<id>.meta.json
// (skipped), a sub-agent's first line hanging off its parent's line in
// another file, a path that ends with a <synthetic> stop or a tool call
// cut off, pi's header written twice (pi's own SessionManager does so
// when it opens an empty file; pi loads the file as usual).
//
// # Gemini CLI and Qwen Code
//
// Gemini CLI (package gemini) and Qwen Code (package qwen, a fork of
// Gemini CLI) keep their messages in the @google/genai shapes
// (Content {role, parts}; what both read of them, and their older
// whole-JSON chats, is in internal/geminichat). Both are read under the
// wild formats' rules above (every line an entry of its exact bytes,
// jsonl.WildScan for damage, the transcript what the agent resumes,
// expressed with a compaction when it is not a suffix of the log, a file
// that grew read whole again), and their package docs say how each maps
// its lines:
//
//   - Gemini CLI's JSONL chat is an event log of a message list: a
//     header, message records (a record whose id was written before
//     replaces that message in place: a model message is written again
//     with its tool calls and again when they complete), $set patches
//     (one of them the whole list, on resume) and $rewindTo. The
//     transcript is the list after the last line; the longest tail of it
//     that is the tail of the message lines is kept from the log, the
//     messages before it are copied into the compaction's summary. Usage:
//     one row per model message id (its tokens), priced from Prices.
//   - Qwen Code's JSONL is Claude Code's envelope (uuid, parentUuid,
//     sessionId, type) around Gemini's messages: the transcript is the
//     parentUuid path from the last record (records of one uuid merged:
//     KindMessagePart), after the last chat_compression its compressed
//     history. Usage: its api_response telemetry records (every call, a
//     background memory agent's included), as Qwen Code counts it; Qwen
//     models are not priced (LiteLLM prices them by tiers of prompt size).
//
// Observed, not inferred: both agents ran here offline
// (testdata/gen/geminiqwen: Gemini CLI 0.61.0 and 0.38.2, Qwen Code
// 0.15.10 and 0.1.3, against a scripted model server), and their tests
// compare our transcript of each chat with the history the agent itself
// sent its model after --resume (requests.jsonl), and our usage with the
// token stats the agent printed (runs.jsonl). Rewinds, compressions and
// sub-agent layouts they were not run with are crafted fixtures, written
// after the agents' sources (testdata/gemini/crafted,
// testdata/qwen/crafted).
//
// # Prices
//
// The estimated costs (Claude Code but for old costUSD lines, Codex) are
// marked sessiondb.Usage.CostEstimated; a cost a tool recorded (pi, zot,
// swink, costUSD) is never estimated nor changed. The importer prices
// with Options.Prices: nil is Prices, the built-in table of PricesAsOf
// (figures from LiteLLM's model_prices_and_context_window.json as ccusage
// 20.0.24 embeds it, each entry's source in pricing.go), and then, for
// every model the table does not list, the snapshot of LiteLLM's whole
// file that the binary embeds (litellm.go, LiteLLMSnapshot: its source
// and day; testdata/gen/prices/litellm.py refreshes it), so that the
// third-party models met in real archives (MiniMax, MiMo, Kimi, …) are
// priced when the field prices them; LoadPrices reads a file in
// LiteLLM's shape (the whole LiteLLM file works) that overrides and
// extends the table (pricesfile.go says which fields are read and why).
// A model that no table prices costs 0, stays marked estimated (a later
// reprice with a price for it fixes it), and is named in one Note per
// import, however many files use it. Model names match case aside,
// without a provider prefix ("openrouter/anthropic/"), a Bedrock vendor
// and version ("us.anthropic.", "-v1:0") or a variant tag (":free",
// "[1m]"): the dated name of a snapshot first (some cost another price),
// then the name without its date, then with the dots of its version
// written as dashes or the other way round ("claude-opus-4.8" is
// "claude-opus-4-8"). A newer model is never priced like its elder.
//
// Cache writes are priced by lifetime: Claude Code 2.x splits each
// response's cache writes into ephemeral_5m_input_tokens and
// ephemeral_1h_input_tokens (usage.cache_creation); the ledger keeps the
// 1-hour part (sessiondb.Usage.CacheWrite1hTokens, at most the response's
// cache_creation_input_tokens) and prices it at Price.CacheWrite1h (2x
// input for Anthropic's models), the rest at Price.CacheWrite (1.25x).
//
// Compared with ccusage on the real corpus (TestCorpusCostAgainstCcusage),
// every day and model both price costs within 1% of ccusage's figure (65
// of 65 rows; before the 1-hour rate, 47). The rules still differ in two
// places that the corpus does not reach: ccusage applies long-context
// tiers per kind of token above 200k (we bill the whole call at the tier,
// as Anthropic does), and prices 1-hour writes at 2x input for every
// model (we use the model's 1-hour rate, or its cache write rate when it
// has none). glm-4.7-flash is free at Z.ai per LiteLLM; ccusage prices it
// from a reseller.
//
// # Export
//
// Export writes sessions back in a format such that the source tool's
// loader (and Import) returns the same transcript.
//
// Same format: a session imported from Claude Code, Codex or pi is written
// back from the log of its file's latest import (jsonl.ImportedLog; after a
// rewrite in place, the entries of the re-import), one line per entry,
// which gives the file's bytes: Claude Code in its layout
// (projects/<folder>/<id>.jsonl, sub-agent files under
// <id>/subagents/, tool-results files under <id>/tool-results/, each at
// the path below "projects" it was imported from; claudecode/export.go),
// Codex at sessions/YYYY/MM/DD/rollout-….jsonl (codex/export.go);
// opencode as the JSON `opencode export` prints (<id>.json, byte for byte
// what opencode printed for every session of its fixtures and corpus,
// loaded by `opencode import`; opencode/export.go). Over the
// real corpus and the fixtures (TestExportCorpusByteIdentity) every file
// comes back byte for byte but a damaged one (NUL runs, torn lines: what
// the import recovered is written) and a tool-results file no line names
// (the import waits for the line, so the store does not hold it); a
// Codex thread name from the shared session_index.jsonl is not written.
// picoclaw, zot and swink render the session as before.
//
// Across formats: the transcript is read into a neutral conversation and
// written in the target's own shapes (translate.go says what each source
// gives and each target takes; translate_pi.go, translate_bodies.go);
// content the target has no place for is refused with ErrUntranslatable
// (which wraps sessiondb.ErrInvalid) naming each kind and its count, and
// nothing is written for that session. pi, opencode, Codex and Claude
// Code write another format's session translated (translate_pi.go,
// translate_opencode.go, translate_codex.go: Codex refuses thinking and
// error flags, which package handoff leaves out and names through
// LeaveOutUncarried; translate_claudecode.go: Claude Code refuses
// thinking Anthropic did not sign and context messages, left out and
// counted under LeaveOutUnsendable). A session an application wrote
// is translated for pi and opencode, and rendered as stored by picoclaw,
// zot and swink, as before. TestExportCorpusCrossFormat exports every session of the
// fixtures and the corpus into every other format and imports each
// export back: refused, or the same conversation (texts, thinking with
// signatures, images, tool calls and results, calls still paired);
// TestExportCorpusPiLoadsInPi opens the pi translations with pi's own
// SessionManager.
//
// A session ID comes from an archive or a user, so it is hostile input to
// the exporter. Each format renders a session into relative file names and
// writers (ExportFiles) without touching the disk; ExportWith plans every
// session first and writes only when the whole plan holds: every name
// component a plain file name (not "", "." or "..", no NUL, at most 255
// bytes, so an ID ".." names "..jsonl" inside DIR, never DIR's parent, and
// a long swink ID fails before its .jsonl is written), no two sessions on
// one name compared case-insensitively (case-insensitive file systems),
// and, without Force, no existing file. IDs need no other encoding: each
// format keeps the exact ID inside the file (picoclaw's meta "key", zot's
// and swink's headers), and Import reads it from there. Files are created
// 0600 with O_EXCL (with Force: a temporary file renamed into place) and
// directories 0700 one component at a time, never through a symbolic link.
// Memory stays bounded by one session: each is rendered once to plan and
// once to write (the second rendering must give the same names, or the
// export stops with ErrConflict).
//
// # Concurrent imports
//
// Deciding that a file is new or unchanged (prepare) and writing it are
// one transaction: each unit's Commit carries ExpectSource, the source
// record the decision was based on (none, or its hash and offset), and the
// store refuses the commit with ErrConflict if another importer recorded
// the file meanwhile; the unit is then prepared again and found unchanged.
// Two importers of one archive therefore leave what one leaves.
//
// # Files that are not archives
//
// An argument that is not a regular file (a FIFO, which blocks in open
// until a writer comes; a device such as /dev/zero, which never ends) is a
// problem "not a regular file" and is not opened. A file no format claimed
// because it cannot be opened is reported "cannot read", not "unknown
// format".
//
// The same rule holds for every file a reader opens, side files included
// (picoclaw's .meta.json, Claude Code's tool-results files and sub-agent
// metas, Codex's index, opencode's and Gemini CLI's JSON files), and for a
// file replaced after it was listed: all are opened by jsonl.Open
// (O_NONBLOCK, so a FIFO cannot block; fstat after the open, so only a
// regular file is read), and those read whole by jsonl.ReadFile, whose
// size limit is checked before the first byte is read and enforced again
// by a LimitReader. A picoclaw meta that is a FIFO or a device makes its
// session "cannot import" (its skip cannot be known); a tool-results file
// over 64 MiB or not regular is a problem and its session is imported
// without it. A side file that could not be read (permission denied) is
// read at the next import once it can be: its recorded stamp keeps the
// file's mode, which a chmod changes.
//
// # Layout: formats as packages
//
// A format is a package of its own; this package keeps the importer (walk,
// detect, resume, report, batching), the export of many sessions, the
// translation between formats and the registry. Who imports whom (an arrow
// reads "imports"; nothing imports upwards, so there is no cycle):
//
//	cmd/sessionctl, watch, viewer, mcpserver, bench, torture
//	        │
//	        ▼
//	jsonlimport ──────────────► jsonlimport/picoclaw, zot, swink,
//	                             claudecode, codex, pi, gemini, qwen, opencode,
//	                             crush (and opencodego, its Go ancestor),
//	                             goose, cursor, cursoragent, cline, aider,
//	                             entire (reads each
//	                             transcript with the registry's readers:
//	                             entire.SetReaders)
//	  importer, registry         one package per format: Claim, Parse,
//	  (Formats, formats.go),     ExportFiles, Understand (its message
//	  translation, pricing,      reader), its tests, fuzz targets and
//	  Understand, PromptTitle    fixtures
//	        │                           │
//	        ▼                           ▼
//	jsonlimport/foreigndb (opencode, crush, goose, cursor, and the importer's stores):
//	  another program's SQLite database read from a copy taken aside
//	        │
//	        ▼
//	jsonlimport/jsonl: the interfaces (Format, Exporter, SideLister,
//	  Skipper, Reserver, MessageReader, StoreFormat, DirSkipper),
//	  Parsed/Unit/Resume/Problem/Branch, the session paths of stores,
//	  the line reader, the readers' Cache, the export writer (Plan,
//	  ExportDir), Message and the message-reading helpers (MessageObject,
//	  ContentText, …, ReadMessage), the prompt titles (TitleOf,
//	  StripContext, PromptTitle), the wild-line scanner (WildScan) and
//	  its helpers, the own-format export helpers (ImportedLog, WriteLine,
//	  FileName), file identity and hashes (Inode, TailHash, HashRange),
//	  TrimReread, and the hooks SetTranslator, SetForeignWriter,
//	  SetEstimator, SetReserved
//	        │
//	        ▼
//	sessiondb
//
// The registry is Formats in formats.go: adding a format is adding its
// package and a line there (explicit, since the list's order decides which
// format claims a file). What the registry answers for the formats:
// Understand looks up the format's jsonl.MessageReader by name (a name no
// format has is read by the body's shape), and jsonl.Reserved asks every
// jsonl.Reserver, so that a format earlier in the claim order leaves a
// later format's files alone without importing it (picoclaw leaves Claude
// Code's agent-<id>.jsonl and .meta.json pairs, which claudecode.Format
// reserves). What is the importer's business stays here and reaches the
// format packages through hooks set at init: the translation of another
// format's sessions (SetTranslator for picoclaw, zot and swink, which
// write translated bodies; SetForeignWriter for Claude Code, Codex and pi,
// which write their own sessions back as imported and, for another
// format's, pi's translation or a refusal) and the estimate of the cost of
// usage rows with the built-in prices (SetEstimator, for Claude Code's and
// Codex's rows). What this package reads of a format is exported by the
// format, under names that do not repeat the package's
// (claudecode.SessionFile, codex.IndexName, pi.LineType, …); no format
// package imports another (pi and Codex name files with jsonl.FileName, not
// with each other's helpers; what Gemini CLI and Qwen Code share, the
// @google/genai part shapes and the whole-JSON chats both once wrote, is
// jsonlimport/internal/geminichat, below both).
// This package keeps its public names: Format, Parsed, Unit, Message,
// ToolCall, ToolResult and the others are aliases of jsonl's, and each moved
// format keeps its name here (Picoclaw, FormatPicoclaw, Swink, …), so
// callers did not change (the format packages' own names do not stutter:
// claudecode.Format, codex.Name, zot.Format, swink.ErrVersion). The tests of
// a format package are an external test package (picoclaw_test, swink_test,
// zot_test, claudecode_test, codex_test, pi_test, gemini_test, qwen_test):
// they import and export
// through jsonlimport, as users do, and see the format's internals through
// its export_test.go (picoclaw's fuzz targets, which check its line parser's
// internal result, are in package picoclaw) and call jsonlimport, jsonl and
// the helpers by their own names (no list of aliases);
// jsonlimport/internal/jsonltest holds the helpers they share with this
// package's tests (the store, the growth snapshot, the one-line fuzz harness
// of the wild formats), and jsonlimport/internal/wildtest, which imports
// jsonlimport and so serves only external test packages, the golden
// snapshots of Claude Code's and Codex's fixtures. Tests that need several
// formats (cross-format export, the corpus, growth, golden exports,
// Understand's golden file) and tests of importer rules (disambiguate, in
// import_test) stay here. Fixtures stay in the repository's testdata/, which
// the CLI's tests read too.
//
// Moved (issue 27 item 2): picoclaw, swink and zot, then pi, Codex and
// Claude Code, each with its message reader, tests, fuzz targets and doc.
// Still here, as rules across formats: SubAgent (Claude Code's and Codex's
// sub-agents), DropEchoes (Codex's echoes, a rule of search results),
// ClaimScope (which folders a watcher covers), the translation
// (translate*.go) and the corpus tests, which compare several formats or
// the importer's growth.
//
// # Reading messages back
//
// Understand(format, entry) is the one reading of a stored body as a
// message (role, text, thinking, tool calls and results, bookkeeping,
// injected context), written once per format beside its reader (its
// jsonl.MessageReader: *_message.go here, message.go or the format's file
// in a format package) and used by the viewer, `sessionctl show`, the MCP
// server and the readers' titles: a session the tool did not title is
// titled by its first real user prompt (PromptTitle, title.go; the rules
// are jsonl.TitleOf's). SubAgent tells a
// sub-agent session from a fork; DropEchoes removes search hits on Codex
// event_msg echoes.
package jsonlimport
