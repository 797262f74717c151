// Package cline reads and writes the task folders of Cline (the VS Code
// extension saoudrizwan.claude-dev and its CLI) and of Roo Code (the
// extension rooveterinaryinc.roo-cline, a fork of Cline that keeps the
// same layout), the format jsonlimport registers as "cline" (Name).
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
// # Not read
//
// The Cline SDK's sessions (Cline 4 and the CLI 3: ~/.cline/data/sessions,
// <id>.messages.json and sessions.db) are another format; Roo Code's
// non-destructive condensing (condenseParent, truncationParent) is kept
// as written, not applied to the transcript.
package cline
