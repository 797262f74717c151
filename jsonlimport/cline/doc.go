// Package cline reads and writes the task folders of Cline (the VS Code
// extension saoudrizwan.claude-dev and its CLI 2) and of Roo Code (the
// extension rooveterinaryinc.roo-cline, a fork of Cline that keeps the
// same layout), and the session folders of the Cline SDK (the CLI 3,
// Cline 4: "The SDK layout" below), the format jsonlimport registers as
// "cline" (Name).
// Format is its jsonl.Format, jsonl.Exporter, jsonl.Skipper and
// jsonl.MessageReader.
//
// # The format
//
// An extension keeps its tasks in its globalStorage folder
// (<editor user data>/User/globalStorage/<extension>/tasks/<taskId>/: VS
// Code, VS Code Insiders, VSCodium, Cursor, Windsurf); the Cline CLI (npm
// "cline" 2.x) in ~/.cline/data/tasks/<taskId>/ (CLINE_DATA_DIR, or
// CLINE_DIR/data). A Cline task's ID is the time it began
// (Date.now()); Roo Code's is a UUID. Observed (Cline's source, cline/cline
// up to the commit before the SDK rewrite, extension 3.85.0:
// src/core/storage/disk.ts, src/shared/ExtensionMessage.ts,
// HistoryItem.ts, getApiMetrics.ts, ContextManager.ts; Roo Code 3.52.1's
// src/core/task-persistence; a task the Cline CLI 2.18.0, core 3.82.0,
// wrote here against sessiondb's scripted model, testdata/cline/cli; and
// the UI messages of four real tasks from public repositories,
// testdata/cline/corpus), a task folder holds:
//
//   - api_conversation_history.json: the conversation as Cline sends it
//     to the model, a JSON array of Anthropic messages {role, content}
//     (content a string or blocks: text, image, thinking with its
//     signature, redacted_thinking, tool_use, tool_result), with Cline's
//     own members (ts, modelInfo, metrics, id; Roo Code: ts, and
//     reasoning items {type: "reasoning", summary, encrypted_content}
//     without a role). Before native tool calls (and still for models
//     that do not call tools) the model writes its calls as XML in its
//     text and Cline answers with a text block "[tool for 'arg'] Result:"
//     followed by the result. The first user message holds the task in
//     <task>…</task>; every user message ends with <environment_details>.
//   - ui_messages.json (claude_messages.json before Cline 2): what the
//     extension shows, a JSON array of {ts (ms), type "say"|"ask", say or
//     ask kind, text, images, files, partial, modelInfo,
//     conversationHistoryIndex (the index of the API history's last
//     message when it was written), conversationHistoryDeletedRange,
//     lastCheckpointHash, …}. An API request is a say "api_req_started"
//     whose text is JSON {request, tokensIn, tokensOut, cacheWrites,
//     cacheReads, cost, cancelReason?, streamingFailedMessage?}; the
//     usage of deleted messages is a say "deleted_api_reqs", of a batch
//     of sub-agents a say "subagent_usage", with the same numbers.
//   - task_metadata.json: {files_in_context, model_usage [{ts, model_id,
//     model_provider_id, mode}], environment_history}, indented by two.
//   - Roo Code: history_item.json, the task's index entry (below).
//   - context_history.json (the context manager's edits of old messages,
//     kept aside), settings.json: not read.
//
// Both arrays are written whole by JSON.stringify (no white space) on
// every change, through a temporary file and a rename. The index,
// <storage>/state/taskHistory.json, is a JSON array of HistoryItem {id,
// ts, task, tokensIn, tokensOut, cacheWrites, cacheReads, totalCost,
// size, cwdOnTaskInitialization, conversationHistoryDeletedRange,
// modelId, …}; it loses tasks whose folders are still on disk (a
// failed write, a crash, Cline's "delete" that left the folder).
//
// # How the reader maps that onto sessiondb
//
//   - One session per task folder, whatever the index says; its ID is
//     the folder's name. The unit's primary file is
//     api_conversation_history.json; a task without one (the UI's
//     messages are all that is left, as in every public copy found) is
//     read from ui_messages.json. The other files of the folder, and the
//     index, are its side files (a change to any re-imports the task).
//   - With an API history, every message is a log entry (Kind "message",
//     Role its role; a reasoning item Kind "reasoning") whose body is the
//     element's exact bytes (compacted when the file was indented). Its
//     time is its ts when it has one, else the time of the last UI
//     message written before the history held it (by their
//     conversationHistoryIndex), never earlier than the message before.
//     Without one, every UI message is an entry (Kind KindUI, Role "user"
//     for the task (before Cline 3 a say "text" with
//     conversationHistoryIndex -1) and the user's feedback, "assistant" for the model's
//     text, completion and questions, else its say or ask kind).
//   - The transcript is what Cline sends when it resumes
//     (resumeTaskFromHistory reads the whole API history back and merges
//     a trailing user message with its resumption notice): the history
//     less conversationHistoryDeletedRange (the last UI message that
//     carries one, else the index entry's), which Cline's context
//     manager cuts out while keeping the first two messages: a
//     compaction whose summary is a copy of the messages before the
//     range and which keeps the messages after it. The edits
//     context_history.json records (file contents replaced by a notice)
//     are not applied.
//   - Usage: one row per usage-carrying UI message that records a number,
//     as getApiMetrics sums them (its totals are the index entry's, and
//     what Cline shows): tokensIn, tokensOut, cacheWrites, cacheReads and
//     cost as recorded (tokensIn is what the provider reported as input:
//     for Anthropic, without the cache), the model of the message's
//     modelInfo; a row without a cost is priced (estimated). A row is
//     attached to the API message that answered the request (Roo Code,
//     whose rows name no history index: the first assistant message from
//     the request's time on).
//   - Title: the task's text (the "task" UI message, else the index
//     entry's task, else the <task> block of the first message). Attrs:
//     model and provider (the last of task_metadata's model_usage, else
//     of the UI messages' modelInfo, else the index entry's modelId),
//     cwd (the index entry's cwdOnTaskInitialization, Roo Code's
//     workspace), mode (Roo Code), extension ("cline" or "roo-code", by
//     the storage folder or a history_item.json; absent when neither
//     tells), api_history "missing" for a task read from its UI messages.
//   - State: {"files": {name: text}}, the task's other files (the UI
//     messages when the API history is the primary file, the metadata,
//     Roo Code's history item) as read, for export.
//   - Damage (invalid JSON, a file cut short, invalid UTF-8, an element
//     over sessiondb.MaxBodySize) is a Problem; the elements before it
//     are imported. The files are rewritten, not appended to: the offset
//     an import consumed ends before the closing bracket, so that a task
//     that went on (the same bytes up to there) is read whole again
//     (ErrNotIncremental) and only its new messages are appended.
//
// # Export
//
// A task imported from this format is written back as
// tasks/<id>/<file>: the primary file from the log of its latest import,
// its elements joined as JSON.stringify joins them (the file's bytes
// when Cline wrote it), and the side files from the state, as read. A
// session of another format is refused, naming what it holds: a task
// Cline resumes needs its UI messages, which no other format has.
//
// # The SDK layout (the Cline CLI 3, Cline 4)
//
// The Cline SDK (npm @cline/core, @cline/shared, @cline/agents; the
// CLI "cline" 3.x and the Cline 4 extension run on it) keeps a session
// in <data>/sessions/<id>/ (CLINE_SESSION_DATA_DIR, else the data folder
// above plus sessions/). Observed: the CLI 3.0.65 (SDK 0.0.86) run here
// offline against sessiondb's scripted model (testdata/gen/cline/sdk.sh,
// testdata/cline/sdk: a text session, a session of four run_commands
// calls, a session the CLI compacted, each resumed once); the rest is read from the SDK's installed
// JavaScript (@cline/core dist: SessionManifestSchema,
// SessionCompactionStateSchema, projectSessionCompactionState, the
// session store's file names; @cline/shared: MessageWithMetadata,
// normalizeUserInput; @cline/llms: the pricing of usage), as marked. The
// ID is "<Date.now()>_<5 random characters>" (observed). The folder
// holds:
//
//   - <id>.messages.json: {version: 1, updated_at, agent, sessionId,
//     origin {source, mode, sessionId, version}, messages, system_prompt},
//     written whole by JSON.stringify(v, null, 2) after every message
//     (updated_at, before the messages, changes every time). messages
//     are MessageWithMetadata: {id, role "user"|"assistant", content (a
//     string or blocks: text, thinking {thinking, signature}, redacted_thinking,
//     tool_use {id, name, input}, tool_result {tool_use_id, name,
//     content, is_error}, image {data, mediaType}, file {path, content}),
//     ts (ms), modelInfo {id, provider}, metrics {inputTokens,
//     outputTokens, cacheReadTokens, cacheWriteTokens, cost}, metadata}.
//     Observed: the prompt is stored in its <user_input mode="act">
//     envelope and sent without it; each tool result is a user message of
//     its own, its content the tool's structured output
//     ([{"query", "result", "error", "success"}] for run_commands), sent
//     as that JSON text; the thinking of an OpenAI-compatible model has no
//     signature. From the source: a message with metadata.displayOnly is
//     shown, never sent.
//   - <id>.json, the manifest: {version, session_id, source ("cli"), pid,
//     started_at, ended_at, exit_code, status, interactive, provider,
//     model, cwd, workspace_root, team_name, enable_tools, enable_spawn,
//     enable_teams, prompt, metadata {title, usage, aggregateUsage,
//     totalCost, sessionHistoryOrigin, …}, messages_path,
//     compaction_path}. metadata.usage is the sum of the messages'
//     metrics (observed); the SDK's inputTokens is the whole input, cache
//     reads and writes included (observed with the scripted model's
//     cached tokens; the SDK prices inputTokens - cacheReadTokens -
//     cacheWriteTokens as uncached input). The CLI recorded no cost for a
//     model without a price (metrics without cost, totalCost 0).
//   - <id>.compaction.json: {version, updated_at, conversation_id,
//     source_message_count, source_prefix_hash, source_last_message_key,
//     messages, system_prompt}: the working context is its messages
//     followed by the session's messages (display-only ones left out)
//     from source_message_count on, when the first source_message_count
//     of them still hash as recorded (a state without a hash: when the
//     last of them has source_last_message_key); the messages file keeps
//     everything. Observed: with the provider's contextWindow at 3000
//     tokens the CLI compacted session C after its first two calls (a
//     summary request without tools, then a state whose messages are a
//     user "Context summary:" message and copies of the last messages),
//     and its resume sent the projection.
//   - <data>/db/sessions.db (SQLite, table sessions: the manifests'
//     fields, parent_session_id and agent_id of sub-agents): not read,
//     skipped with a note.
//
// The CLI 3.0.65 resumes only interactively (cline --id opens the TUI)
// or through the Agent Client Protocol (cline --acp: session/load, then
// session/prompt), which is how the corpus' resumes were run. What it
// sent then is the session's messages as stored, with the transformations
// above, and nothing added (the scripted model's log, requests/).
//
// The SDK layout is read by this package under the same format name: it
// is Cline's own successor in the same data folder, and its messages are
// the API history's messages with the same members (ts, id, modelInfo,
// metrics); the files are told apart by name (<id>.messages.json, a JSON
// object whose first member is "version"). Its mapping:
//
//   - One session per messages file (the primary file); the manifest and
//     the compaction state are its side files. Every message is a log
//     entry (Kind "message", KindDisplay for a display-only one) whose
//     body is the message's bytes compacted, timed by its ts (never
//     earlier than the message before).
//   - Transcript: the messages, with the compaction state applied as a
//     compaction (its messages the summary, kept from the message after
//     the source's last) when it matches as the SDK checks it: the
//     reader computes the SDK's source_prefix_hash (SHA-256 over the
//     source messages' role, content with the user's texts as
//     formatDisplayUserInput shows them, agent, sessionId, metadata,
//     modelInfo and metrics, each as JSON.stringify writes them; checked
//     against the CLI's own state); a state that does not match is a
//     problem, not applied, as Cline ignores it. The
//     message model (Understand, translate_cline.go) reads a user text
//     without its <user_input> envelope and a structured tool result as
//     its JSON text, as the CLI sends them; the tool results' middle
//     truncation the SDK's MessageBuilder applies when sending (over
//     8000 characters) is not applied.
//   - Usage: one row per assistant message with metrics, its CallID the
//     message's id; InputTokens is inputTokens less the cache reads and
//     writes, so that input + cache read + cache write is the SDK's
//     figure; the cost is metrics.cost, else priced (estimated).
//   - Title: the manifest's metadata.title, else its prompt, else the
//     first user text. Attrs: model and provider (the last message's
//     modelInfo, else the manifest's), cwd, status, source,
//     cline_version (origin version), extension "cline", layout "sdk".
//   - State: {"sdk": {head, tail, indent}, "files": {manifest, compaction
//     state}}: the bytes before and after the messages array and the
//     file's indentation, so that an export lays the log's messages out
//     as JSON.stringify did (the file byte for byte); a file laid out
//     otherwise is kept whole ({"sdk": {"raw"}}), a damaged one as the
//     messages read, closed.
//   - Growth: the file is rewritten with a new updated_at first, so the
//     format is a jsonl.HeaderRewriter: a grown file is read whole and
//     only the messages after those imported are appended.
//   - Export: sessions/<id>/<id>.messages.json, <id>.json and
//     <id>.compaction.json. Observed: the CLI 3.0.65 resumed session B
//     from its export into a fresh data folder (no sessions.db row),
//     sending its whole history. Sub-agents (spawn_agent, teams) were not
//     run here; sessions.db has their parent_session_id, which is not
//     read.
//
// # Not read
//
// Roo Code's non-destructive condensing (condenseParent,
// truncationParent) is kept as written, not applied to the transcript.
// The SDK's sessions.db, teams.db and hub files are not read.
package cline
