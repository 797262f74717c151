// Package opencode reads and writes the sessions of opencode (the npm
// package opencode-ai), the format jsonlimport registers as "opencode"
// (Name). Format is its jsonl.Format, jsonl.StoreFormat, jsonl.Exporter
// and jsonl.MessageReader; jsonlimport lists it in its registry.
//
// # Where opencode keeps its sessions
//
// opencode 1.18 keeps every session of a user in one SQLite database,
// $XDG_DATA_HOME/opencode/opencode.db (~/.local/share/opencode on every
// platform; opencode-<channel>.db for a development channel; $OPENCODE_DB
// when set), in WAL mode, with its -wal and -shm beside it. opencode runs
// "PRAGMA wal_checkpoint(PASSIVE)" when it opens the database but never
// truncates the log on exit: a store copied after a run holds most of its
// commits in the -wal only (the fixture does). The database is read
// through jsonlimport/foreigndb, copied aside, never in place; that
// package's doc says why, and how a store's sessions become units.
//
// Older versions (1.1.65 observed) kept JSON files instead, under
// storage/ in the same folder: storage/session/<project>/<session>.json
// (the session's info), storage/message/<session>/<message>.json (a
// message's info) and storage/part/<message>/<part>.json (a part), plus
// storage/project/<project>.json (its worktree), session_diff/ and a
// migration counter. opencode 1.18.33 does not read that tree (it moved
// nothing into its database when run on one), so old sessions are only
// there. `opencode export [id]` prints one session as JSON, which
// `opencode import FILE` loads.
//
// The three are read into the same entries. Claim takes opencode.db,
// opencode-*.db and any other .db whose first pages hold opencode's table
// definitions (with the -wal and -shm as side files), the session files
// of a storage/ tree (with their message and part files as side files,
// and the tree's message, part and project files consumed), and .json
// files that start like an export ({"info": {"id": "ses…). Each is a
// store (jsonl.StoreFormat): Sessions lists its sessions (all the rows of
// the database's session table; one for a session file or an export).
// SkipDir keeps an import of opencode's data folder out of its snapshot/
// (git objects), log/, bin/, repos/ and tool-output/ folders; SkipReason
// notes the storage/ files that hold no session.
//
// # The database (opencode 1.18.33, observed)
//
// Tables read (Drizzle schema, created by opencode's own migrations):
//
//	session  id, project_id, workspace_id, parent_id, slug, directory, path, title,
//	         version, share_url, summary_additions/deletions/files/diffs, metadata,
//	         cost, tokens_input/output/reasoning/cache_read/cache_write, revert,
//	         permission, agent, model (JSON {id, providerID, variant}),
//	         time_created, time_updated, time_compacting, time_archived (ms)
//	message  id, session_id, time_created, time_updated, data (the message's info
//	         as JSON, without id and sessionID)
//	part     id, message_id, session_id, time_created, time_updated, data (the
//	         part as JSON, without id, sessionID and messageID)
//	project  id, worktree, … (the session's project folder)
//	event_sequence  aggregate_id (a session id), seq: opencode's event number
//	         per session, raised by every change it makes to the session, its
//	         messages and parts (the stamp, below)
//
// Not read: event (the events themselves: the same changes as the rows
// hold), session_message, session_input and session_context_epoch (empty
// in every store observed), todo, session_share, permission, workspace,
// project_directory, account, credential, control_account,
// data_migration. A store without the session, message and part tables
// is not opencode's: ErrNotDatabase, a problem.
//
// opencode orders a session's messages by time_created, then id, and a
// message's parts by id; it builds a message as {...data, id, sessionID}
// and a part as {...data, id, sessionID, messageID} (JavaScript's spread:
// a member data already has keeps its place). A session's info is built
// from its row by Session.fromRow (member order, members left out when a
// column is null). The reader builds them the same way (spread in
// jsjson.go, sessionInfo in db.go), so that each body is what
// `opencode export` prints for it.
//
// # Entries: one per message of a finished turn
//
// Every session row becomes a session: its ID is opencode's, ParentID its
// parent_id (a sub-agent session the task tool made; SubAgent says so; a
// forked session has no parent in opencode), its title opencode's, or,
// while opencode has only its placeholder ("New session - <time>",
// "Child session - <time>"), the first prompt (jsonl.PromptTitle). Attrs
// hold cwd (the session's directory), project (the project's worktree),
// project_id, slug, agent, model ("provider/model"), opencode_version and
// archived. The session's info as `opencode export` prints it is its State
// (replaced at every import), from which the export writes it back.
//
// Every message is one log entry whose body is the message as `opencode
// export` prints it, compact: {"info": {...}, "parts": [...]}. Role is the
// info's role, CreatedAt its time created. Its kind is "message" when
// opencode sends it back to the model on resume (MessageV2.toModelMessages:
// a message with a part that is sent), else KindUnsent: an assistant
// message whose call failed (kept, for the log and the export, but not
// sent; an aborted one with content is sent), or one without a part that
// is sent. Tool calls and their results are in the same part (state
// input, then output or error), as opencode keeps and resends them: the
// message reader gives each tool part as a call and its result.
//
// opencode rewrites a turn's messages until the turn ends: an assistant
// message's parts stream in and its info gets tokens, cost, finish and
// time.completed at the end; the turn's user message gets its summary
// again at every step. So only finished turns are imported: every message
// before a user message whose turn is whole (each assistant message in it
// completed), and the last turn when its last assistant message ended it
// (completed, with a finish other than "tool-calls" and "unknown", after
// which opencode asks the model again, or failed). This holds for the
// places opencode writes while it works (its database, its storage/ tree);
// an export file is written whole, and all of it is read. A session opencode
// made but wrote no message to yet is a session without entries. A last
// turn still being written is left for a later import and reported with
// jsonl.UnfinishedMarker ("unfinished: the last turn is not finished …"),
// as a torn last line of a JSONL file is; a watcher holds that problem back
// while the database is being written. A session opencode was killed in
// keeps that problem until opencode resumes it. A message once imported
// therefore never changes as opencode goes on, and a session that grew is
// imported equal to one import of its final state (TestOpencodeGrowth,
// and watch's TestOpencodeStoreWrittenLive, which writes the fixture into
// a live database message by message, each assistant message first
// unfinished).
//
// # Compactions
//
// opencode compacts a session by a user message with a "compaction" part
// answered by an assistant message marked summary; once that summary has
// finished without error, opencode resumes from the compaction's request
// on (MessageV2.filterCompacted), the older messages staying in its
// database. Each such point is a sessiondb compaction whose KeepFromSeq
// is the request's entry, so the effective transcript is what opencode
// resumes: the request (which opencode sends as "What did we do so far?"),
// the summary, and what follows (checked against the request opencode sent
// after a compaction: those three messages and the new prompt). A
// compaction part with tail_start_id keeps the messages from that one
// before the request: the compaction's summary then holds copies of the
// request, its summary and that tail, in the order opencode sends them
// (inferred from opencode's code; not in the fixtures).
//
// # Usage
//
// One usage row per assistant message (CallID its id), with opencode's
// own figures: tokens.input (which excludes the cache read), output,
// reasoning, cache.read, cache.write, and its cost as a recorded cost
// (never estimated, never repriced). opencode's session totals (its
// session row's cost and tokens columns) are these rows' sums, so every
// imported session's usage equals opencode's (TestOpencodeUsageEqualsOpencodes).
// A message with no tokens and no cost (aborted before the model
// answered) is no call. opencode 1.18.33 counts reasoning outside output
// (a reply of 50 tokens with 7 of reasoning is output 43, reasoning 7);
// 1.1.65 counted it inside (output 50, reasoning 7): both are kept as
// recorded.
//
// # Incremental import
//
// A session's stamp is a hash of its row (its info as built), the count,
// latest update and total size of its messages, and its event sequence
// number, or, for a session without one (an older store, a session
// `opencode import` wrote without events), the count and latest update of
// its parts: a session whose stamp did not change is not read. A changed
// session is read from the cursor its last import recorded (messages
// consumed; the last one's time created and id), after checking a
// fingerprint of the messages up to the cursor and their parts (counts
// and latest updates): only the messages after the cursor are read. When
// those before it changed (opencode pruned old tool output, a revert
// deleted messages), the session is read whole and, as the importer does
// for a rewritten file, its transcript replaced when its first messages no
// longer read as imported (old rows stay in the log; usage replaced). A
// storage/ session and an export file have no cursor: a changed one is
// read whole, and only the messages after those imported are appended
// when the first ones read as before.
//
// The same session in several places (the database, and an export of it,
// or a copy of the database) is imported once: a session whose messages
// are those another place already gave its ID, or their start, is a copy,
// skipped with a note (jsonlimport's stores.go).
//
// # Damage
//
// A message or part whose data is not a JSON object is a problem naming
// it and is left out; the rest of the session and the other sessions are
// imported. A file named like opencode's database that is not one, and a
// database that cannot be copied consistently, are problems of the store;
// nothing panics (FuzzOpencodeExport, FuzzOpencodeRows).
//
// # Export
//
// A session imported from opencode is written as `opencode export` prints
// it: {"info": <the session's info as last imported>, "messages": [...]},
// the messages the log of its latest import (failed calls included), laid
// out as JSON.stringify(doc, null, 2) does, with a newline at the end, as
// <session id>.json. For every session of the fixture it is byte for byte
// what opencode printed (TestOpencodeExportIsOpencodes), and `opencode
// import` loads it (tried by hand with opencode 1.18.33: it keeps every
// message and part, and sets the session's directory to its own). A
// session of another format is translated by jsonlimport
// (jsonl.WriteForeign, translate_opencode.go: user, context, assistant
// messages with reasoning, text and tool parts holding their results), or
// refused naming what opencode cannot hold.
//
// # Observed and inferred
//
// Observed: the schema and the stores of opencode 1.18.33 and the storage
// tree of 1.1.65, written by those versions themselves against a local
// scripted model (testdata/gen/opencode: parallel tool calls, a tool
// error, reasoning, a task sub-agent, a failed call, a compaction made
// through opencode's own API, a run killed while the model streamed);
// what opencode sent the model after a compaction; `opencode export` of
// each session. Inferred from opencode's code and not met in those files:
// tail_start_id compactions, reverts (kept as messages; the pending revert
// is a note), pruned tool output (state.time.compacted: kept as written;
// opencode then sends "[Old tool result content cleared]"), file and
// subtask parts, an aborted message with content.
package opencode
