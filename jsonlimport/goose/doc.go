// Package goose reads the sessions of Block's goose agent: its SQLite
// store (sessions/sessions.db in goose's data folder) and the legacy
// one-file-per-session JSONL files older goose kept in the same folder.
//
// # What this is based on
//
// goose is a Rust program that cannot be installed here, and only one
// public store was found (jwp23/dotfiles: schema 5, one session, no
// message). The format below is therefore read from goose's own source
// (github.com/block/goose) and the corpus (testdata/corpus/goose) is
// CONSTRUCTED, not observed: testdata/gen/goose writes it by following
// goose's schema SQL and serialization statement by statement, each
// citing the file and commit it comes from. The sources:
//
//	crates/goose/src/session/session_manager.rs @ 0164300 (schema 5)
//	crates/goose/src/session/migrations.rs       @ 865e4a0 (schema 13)
//	crates/goose/src/conversation/message/*.rs   @ 865e4a0 (Message)
//	crates/goose/src/session/storage.rs          @ 01a262b (legacy JSONL)
//	crates/goose/src/session/legacy.rs           @ 0fc5e54 (legacy import)
//	crates/goose/src/config/paths.rs             @ 0780e22 (GOOSE_PATH_ROOT)
//
// Newer goose (v1.53 per a third-party project that quotes its schema;
// schema 14 to 16) adds cache token columns, accumulated_cache_*,
// parent_session_id and a usage_ledger table with one row per model call.
// That schema was not found in goose's source here: the reader takes
// those columns and that table when present, and the one corpus store of
// that shape (constructed-ledger) follows the quotation, not goose.
//
// # The store (sessions.db)
//
// Tables read: sessions (one row per session), messages (one row per
// message), usage_ledger when present. schema_version records the
// versions applied (5 at goose's first SQLite release seen here, 13 at
// 865e4a0: 6 provider_name, model_config_json; 7 messages.message_id; 8
// goose_mode; 9 session_type acp; 10 thread_id and the threads and
// thread_messages tables; 11 the provider inventory; 12 archived_at,
// project_id; 13 accumulated_cost). threads and thread_messages are not
// read: a thread groups sessions (sessions.thread_id, kept in Attrs) and
// thread_messages repeats their messages.
//
// A message row holds role (user or assistant; goose skips any other,
// and so does this reader, with a problem), content_json (the message's
// content list, below), created_timestamp (seconds), timestamp (when the
// row was inserted: goose orders a session's rows by it, and so does this
// reader, then by row id), metadata_json (MessageMetadata) and, from
// schema 7, message_id. Each row is one entry whose body is goose's own
// Message serialization rebuilt from the row: {"id", "role", "created",
// "content", "metadata"} with content and metadata as goose wrote them
// (compacted); id is message_id, or msg_<session>_<row id> as migration 7
// fills it for older rows. A row whose content_json is not a JSON list is
// left out with a problem (goose fails to load the whole session).
//
// A session row gives the session: id (YYYYMMDD_N), name (the title;
// description in schema 5 and before, where name may be empty),
// user_set_name, session_type, working_dir, created_at and updated_at
// (SQLite's "YYYY-MM-DD HH:MM:SS" or sqlx's RFC 3339), provider_name and
// model_config_json (model_name). A name goose gives before its model
// names the session (CLI Session, ACP Session, New Chat) is replaced by
// the first prompt unless the user set it.
//
// Usage: goose records per session the last call's input_tokens,
// output_tokens and total_tokens and their accumulated_* sums over the
// session (accumulated_cost from schema 13). One usage row (CallID
// goose:session) holds the accumulated counts and cost, replaced at each
// import; where the ledger exists, its rows are the usage instead, one
// per call with its model, tokens, cache tokens and cost.
//
// The store is read from a copy (package foreigndb): the database and
// its -wal, whose committed frames are read even when the main file does
// not hold them yet (the constructed-v13 store has a message and a usage
// update only in its -wal).
//
// # Compaction
//
// When goose compacts a conversation it keeps the old messages for the
// user but hides them from the model (metadata agentVisible false) and
// adds its summary (userVisible false) after them. A run of such hidden
// messages at the start of a session, with a message the model sees
// after it, is recorded as a compaction that keeps from that message on:
// the effective transcript is what goose sends its model. goose hides
// the messages by rewriting their rows, so a session imported before its
// compaction and again after has its transcript replaced: it equals one
// import of the compacted session, and the log also keeps the rewritten
// rows as first imported (TestGooseCompactedLater).
//
// # Legacy files (sessions/<id>.jsonl)
//
// Written by goose before its SQLite store, read once by goose when it
// creates sessions.db (legacy.rs) and never again. The first line is the
// session's metadata (SessionMetadata: working_dir, description,
// schedule_id, message_count and the token counts, as above); each
// following line is one Message ({"role", "created", "content"}; later
// ones add id and metadata). goose reads a file whose first line is a
// message as one without metadata. The file name without .jsonl is the
// session id; description the title. Each message line is an entry whose
// body is the line as written. goose rewrote the file whole at every
// save, so the file is always read whole (jsonl.ErrNotIncremental). Files
// beside a goose database are skipped with a note: goose copied them into
// the database when it created it.
//
// # Message content
//
// content is a list of items tagged by type (MessageContent, camelCase):
// text {text}, image {data, mimeType}, toolRequest {id, toolCall: {status
// success, value {name, arguments}} or {status error, error}},
// toolResponse {id, toolResult: {status success, value: a CallToolResult
// {content, isError} (a bare list of content in older goose)} or {status
// error, error}}, thinking {thinking, signature}, redactedThinking
// {data}, frontendToolRequest, toolConfirmationRequest, actionRequired,
// systemNotification {notificationType, msg}; and, in older files,
// reasoning {text} and conversationCompacted, which goose converts or
// drops on load. A tool call is an assistant message's toolRequest; its
// result the toolResponse of the same id in the next user message.
//
// # Export
//
// Export refuses (ErrNoExport): goose reads sessions only from its own
// database, which is never written here.
package goose
