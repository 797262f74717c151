// Package cursor reads the conversations of the Cursor IDE ("composers":
// its chat, agent and edit panes) from its state databases, state.vscdb:
// the global one (~/.config/Cursor/User/globalStorage/state.vscdb; macOS
// ~/Library/Application Support/Cursor/User/…, Windows %APPDATA%\Cursor\
// User\…) and the per-workspace ones (workspaceStorage/<hash>/state.vscdb,
// a workspace.json beside each naming the folder). A store is never opened
// in place: foreigndb copies it (and any -wal or -journal) aside and reads
// the copy; only the keys a composer needs are read, by ranges of the key
// column's unique index, never the whole database.
//
// # The store (observed)
//
// A state.vscdb is VS Code's key-value database: ItemTable(key TEXT
// UNIQUE ON CONFLICT REPLACE, value BLOB), to which Cursor adds
// cursorDiskKV of the same shape. Values are JSON texts (some NULL).
// Two eras were seen:
//
//   - Cursor 0.4x (November 2024; composerDataVersion 0): ItemTable's
//     composer.composerData holds {allComposers: [...],
//     selectedComposerId}; each composer object carries composerId,
//     name (absent until Cursor names it), createdAt, lastUpdatedAt
//     (milliseconds), status, context, and its conversation inline: a
//     list of bubbles {type, bubbleId, text, richText, context,
//     codeBlocks, relevantFiles, capabilityStatuses}.
//   - The older chat pane (the same November 2024 store):
//     ItemTable's workbench.panel.aichat.view.aichat.chatdata holds
//     {tabs: [{tabId, chatTitle, lastSendTime (milliseconds, a
//     string), bubbles: [{type "user" or "ai", id, text, richText,
//     modelType, requestId, …}]}], …}.
//   - Cursor 0.46 on (2025): ItemTable's list keeps only each composer's
//     head ({type: "head", composerId, name, createdAt, lastUpdatedAt,
//     unifiedMode, forceMode}); the composer lives in cursorDiskKV under
//     composerData:<composerId> (_v 9 in September 2025: name,
//     createdAt, lastUpdatedAt, status, fullConversationHeadersOnly
//     [{bubbleId, type, serverBubbleId}], conversationMap,
//     generatingBubbleIds, modelConfig {modelName, maxMode},
//     unifiedMode, usageData, contextUsagePercent, todos, …) and each
//     bubble under bubbleId:<composerId>:<bubbleId> (_v 3: type 1 user, 2
//     assistant; text, richText (a Lexical editor state, the same text),
//     thinking, toolFormerData {tool, toolIndex, modelCallId,
//     toolCallId, status, rawArgs, name, params, result,
//     additionalData}, tokenCount {inputTokens, outputTokens},
//     timingInfo {clientStartTime (performance.now), clientRpcSendTime,
//     clientSettleTime, clientEndTime (ms since the epoch)},
//     usageUuid, requestId, checkpointId, context, capabilityType,
//     supportedTools, …). Readers of later stores show bubbles with
//     createdAt (an RFC 3339 string) too; it is read when present. A
//     workspace's own cursorDiskKV is then empty: the conversations are
//     in the global store. Other keys of cursorDiskKV (checkpointId:,
//     messageRequestContext:, inlineDiffs-) and of ItemTable (editor
//     state, aiService.prompts, the older aichat panes) are not read.
//
// # What is imported
//
// Every composer holding a conversation is a session (unit
// <store>#<composerId>, id the composerId): one whose composerData key
// is in cursorDiskKV is read from there (its inline conversation, if
// any, when it has no headers), else its object in ItemTable's list. A
// composer never used (no header, no bubble; Cursor makes one per new
// tab) or emptied (a NULL value) is no session. Every tab of the older
// chat pane holding bubbles is a session too (id its tabId, title its
// chatTitle, model its bubbles' modelType); its bubbles carry no time,
// and all take the tab's lastSendTime (inferred).
//
// Its entries are its bubbles, one each, in the order of
// fullConversationHeadersOnly (the order Cursor shows them), each body
// the bubble's value byte for byte; role user (type 1) or assistant
// (type 2; "user" and "ai" in the chat pane). Bubbles of the composer that its headers do not name (seen:
// the tool steps of a turn whose final answer alone stayed in the
// headers) are not imported, with a note counting them: Cursor does not
// show them and nothing says where they went.
//
// A bubble's toolFormerData is a tool call and its result at once (name,
// toolCallId, rawArgs — params when there are none —, result, status):
// Understand reads both from the one entry, paired by the call id; a
// toolFormerData without a name is no call. thinking is the thinking.
//
// Times: a bubble's createdAt, else timingInfo's clientRpcSendTime (then
// clientSettleTime, clientEndTime); a bubble without any (most of them)
// takes the time of the one before it, the first the composer's
// createdAt (inferred: entries never go back in time). The session's
// times are the composer's createdAt and lastUpdatedAt.
//
// Titles are the composer's name; a composer Cursor has not named is
// titled by its first prompt. Attrs: model (modelConfig.modelName, or a
// bubble's modelInfo.modelName), mode (unifiedMode: chat, edit, agent),
// and for a workspace store the folder of its workspace.json as cwd and
// project.
//
// Usage: each bubble's tokenCount, when not zero, is one ledger row
// (CallID "cursor:<bubbleId>", provider cursor, the composer's model), as
// recorded: Cursor records no cost and no cache tokens, and the model
// named is often "default" (Cursor's choice, not recorded).
//
// # Growth, bubbles being generated
//
// Cursor rewrites the database in place. A composer is stamped with its
// composerData value and the count and size of its bubble rows; one whose
// stamp did not change is not read again, a changed one is read whole
// (Parse returns ErrNotIncremental for a resumed read) and the importer
// appends the entries after those imported, so one import of the final
// state equals the imports of every state on the way (TestCursorGrowth).
// A bubble named in generatingBubbleIds of a composer updated less than
// InFlightFor (10 minutes) ago is being streamed: it and the bubbles
// after it are held back (a problem beginning with
// jsonl.UnfinishedMarker) until Cursor finishes; after that long it is
// imported as left, with a note (inferred, as crush's rule: the store does
// not say whether Cursor runs).
//
// # Damage
//
// A bubble that is not a JSON object, or of another type than 1 and 2, is
// left out with a problem; a bubble the headers name that is not in the
// store is a problem; a composerData that is not JSON is skipped with a
// problem; a database with neither cursorDiskKV nor ItemTable is refused
// (foreigndb.ErrNotDatabase), and Claim takes no .vscdb whose schema lacks
// both. Nothing panics (FuzzCursorValues).
//
// # Not read
//
// The Cursor CLI's (cursor-agent) transcripts
// (~/.cursor/projects/<project>/agent-transcripts/…) and chat stores
// (~/.cursor/chats/<hash>/<id>/store.db): no real file of either was
// found to learn them from. aiService.prompts (the prompts alone, which
// the composers and chat tabs hold with their answers).
//
// # Export
//
// Export refuses (ErrNoExport): Cursor has no import, and its database is
// only read. A Cursor session exported into another format goes through
// that format's translation (translate_cursor.go in jsonlimport).
//
// # Corpus
//
// testdata/corpus/cursor holds reduced copies of real stores committed to
// public repositories (testdata/gen/cursor: plan.tsv, reduce.py, fetch.sh;
// MANIFEST.md beside the stores).
package cursor
