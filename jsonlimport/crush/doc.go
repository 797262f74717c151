// Package crush reads crush's session store, .crush/crush.db in each
// project (SQLite, migrated with goose), and, through the same Store
// reader, the store of the Go opencode crush was forked from (package
// opencodego). The database is never opened in place: foreigndb copies
// it and its -wal aside and reads the copy, so commits that are still
// only in the log are read and nothing is created or written beside the
// store.
//
// # Schema (observed: goose versions up to 20250627000000 in crush's
// stores of August–September 2025; one store at 20260127000000, with the
// later columns below, held no session)
//
//   - sessions: id (a UUID; a sub-agent's session is named by the agent
//     tool call's id, a title session "title-<parent>"),
//     parent_session_id, title ("New Session" until the title model
//     names it), message_count, prompt_tokens, completion_tokens, cost,
//     created_at, updated_at, summary_message_id (added by a later
//     migration; absent in older stores, read when present), todos
//     (20260127000000: the agent's to-do list; not read).
//   - messages: id, session_id, role (user, assistant, tool), parts (a
//     JSON list of {"type", "data"}), model, provider (crush only),
//     created_at, updated_at, finished_at, is_summary_message
//     (20260127000000: every summary message marked). Part types: text {text},
//     reasoning {thinking, signature, …}, tool_call {id, name, input (a
//     JSON text), type, finished}, tool_result {tool_call_id, name,
//     content, metadata (a JSON text), is_error}, binary {path,
//     mime_type, data}, image_url {url, detail}, finish {reason (stop,
//     end_turn, tool_use, canceled, error, permission_denied …), time,
//     message, details}.
//   - files: the history of files the agent wrote (path, content,
//     version): not part of the conversation, not read.
//   - read_files (20260127000000: which files a session read, when):
//     not read.
//   - goose_db_version: the migrations applied; not read.
//
// Times: the schema's comments say milliseconds, but every store seen
// holds seconds (the programs write time.Now().Unix(), their update
// triggers strftime('%s')). A value too large for seconds is read as
// milliseconds (unixTime).
//
// # What is imported
//
// Every session row is a session (its unit is <db>#<id>); its messages,
// in the program's order (created_at, then rowid, as the program loads
// them), are its entries, one per message, the body the row itself:
// {"id", "role", "parts", "model", "provider", "created_at",
// "finished_at"} (and "summary": true on the summary message). Tool
// calls are the assistant's tool_call parts and their results the
// tool_result parts of the next message (role tool), paired by call id;
// reasoning parts are the thinking (Understand). parent_session_id is the
// session's parent; an agent tool's result names the sub-agent's session
// (its id is the call's).
//
// Titles are the program's; a session it has not titled is titled by its
// first prompt. The project is the folder holding .crush/ (.opencode/ for
// the Go opencode): inferred from where the store lies, as the programs
// keep it there.
//
// Summaries: summary_message_id names the assistant message holding the
// latest summary, from which the program resumes the session (sending it
// as a user message): a compaction at that message keeping the log from
// it on (its body marked "summary": true, read as Context). Older stores
// record only the latest id, so only the latest is a compaction and the
// earlier summary messages stay in the log as what they are; newer crush
// marks every summary message (is_summary_message, "is_summary_message":
// true in the body), and each one before the current summary is a
// compaction too, in order (one after it is still being written and is
// not). TestCrushSummaryIsACompaction and TestCrushEarlierSummaries
// build these on copies of corpus stores: no store of the corpus holds a
// summary.
//
// Usage: the programs record usage per session only: cost is the sum
// over the session's model calls, prompt_tokens and completion_tokens
// those of its latest call (verified on the corpus: a session of ten
// gpt-4o calls records 15361 prompt tokens and $0.48, which is about
// 190 000 input tokens). They are imported as recorded, as one ledger row
// per session (CallID "<format>:session", replaced at each import, so the
// session's totals are always the store's), with the model and provider
// of the latest assistant message. Per-call usage does not exist in the
// store and is not invented.
//
// # Growth, unfinished messages
//
// A session is stamped with its row and its messages' count, latest
// update, latest finish and size; a session whose stamp did not change is
// not read again. A changed session is read whole (Parse returns
// ErrNotIncremental for a resumed read): messages never change once
// finished, so the importer appends only those after the ones imported,
// and one import of the final state equals the imports of every state on
// the way (TestCrushGrowth).
//
// An assistant message without a finish part is being streamed when it
// is the session's last and changed less than InFlightFor (10 minutes)
// ago: it is held back (a problem beginning with jsonl.UnfinishedMarker,
// which a watcher holds back) and imported once it is finished. An
// unfinished message followed by others, or quiet for longer, was
// abandoned (a failed request, a killed program): it is imported as it
// is, of kind KindAbandoned (bookkeeping), with a note. The stamp marks
// a session whose last message is in flight, so that it is read again
// once the wait is over (TestCrushUnfinishedMessage), at the next
// import; a watcher imports again only when the store's files change, so
// a message abandoned by a killed program waits for the program's next
// write (or a plain import). This ten-minute rule is inferred: the store
// says nothing of whether the program is running.
//
// # Damage
//
// A message whose parts are not a JSON list is left out, with a problem;
// a session row without id is skipped with a problem; a database without
// the sessions and messages tables is refused (foreigndb.ErrNotDatabase);
// one with no table yet holds no session. A summary_message_id that
// names no message of the session is a problem and the transcript is kept
// whole.
//
// # Export
//
// Export refuses (ErrNoExport): the programs have no import, and their
// databases are only read, never written. A crush session exported into
// another format goes through that format's translation.
//
// # Corpus
//
// testdata/corpus/crush and testdata/corpus/opencode-go hold reduced
// copies of real stores committed to public repositories
// (testdata/gen/sqlitecorpus: plan.tsv, reduce.py, manifest.json), most
// with a -wal holding commits their main file does not; TestCrushCorpus
// imports them all.
package crush
