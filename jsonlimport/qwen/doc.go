// Package qwen reads and writes the chat files of Alibaba's Qwen Code (npm
// @qwen-code/qwen-code, a fork of Gemini CLI), the format jsonlimport
// registers as "qwen-code" (Name). Format is its jsonl.Format,
// jsonl.Exporter, jsonl.Reserver, jsonl.Skipper and jsonl.MessageReader;
// jsonlimport lists it in its registry, before Claude Code, and imports
// through it.
//
// # The format
//
// Qwen Code keeps a session in ~/.qwen/projects/<cwd, every character but
// ASCII letters and digits as '->/chats/<session id>.jsonl ($QWEN_HOME
// replaces ~/.qwen, $QWEN_RUNTIME_DIR the folder holding projects/); a
// background sub-agent's transcript is
// ~/.qwen/projects/<cwd>/subagents/<session id>/agent-<agent id>.jsonl,
// with agent-<agent id>.meta.json beside it (its type, description,
// status).
//
// Observed (Qwen Code 0.15.10, run offline by testdata/gen/geminiqwen, and
// 0.24.4 in the agents' corpus, testdata/agents/qwen, with a sub-agent;
// its ChatRecordingService, SessionService and agent-transcript writer
// read in the 0.15.10 npm bundle), one record per line, appended (0.24
// adds a "provenance" member and does not write the <system-reminder>
// parts it sends with a prompt):
//
//	{uuid, parentUuid, sessionId, timestamp, type, cwd, version,
//	 gitBranch?, …}
//
// Claude Code's envelope, around Gemini's message shapes:
//
//   - "user": message {role: "user", parts}; subtype "notification" or
//     "cron" for what Qwen Code injects;
//   - "assistant": message {role: "model", parts: text, thought parts,
//     functionCall {id, name, args}}, model, usageMetadata (Gemini's:
//     promptTokenCount, candidatesTokenCount, thoughtsTokenCount,
//     cachedContentTokenCount, totalTokenCount), contextWindowSize;
//   - "tool_result": one per tool call, message {role: "user", parts:
//     [functionResponse {id, name, response}]}, toolCallResult {callId,
//     status, resultDisplay};
//   - "system" with a subtype and a systemPayload: ui_telemetry (every
//     model response's api_response event with its token counts, tool
//     calls), attribution_snapshot, custom_title {customTitle,
//     titleSource}, chat_compression {info, compressedHistory}, rewind,
//     slash_command, at_command.
//
// Each record's parentUuid is the record written before it in the same
// process, so the file is a tree: a rewind re-roots the chain (the
// records after the rewound turn hang off a dead branch), and a record
// written twice with one uuid (by older writers) is merged. On resume
// (SessionService.loadSession → reconstructHistory →
// buildApiHistoryFromConversation) Qwen Code takes the last record of the
// file, walks parentUuid to a root, merges the records of each uuid
// (their parts appended), and sends the messages of the path: after the
// last chat_compression that has a compressedHistory, that history and
// the messages after it. Sub-agent transcripts carry agentId, agentName
// and isSidechain; a file made by /branch carries forkedFrom {sessionId,
// messageUuid} on every record.
//
// Qwen Code 0.1 (observed with 0.1.3) wrote Gemini CLI's whole-JSON chats
// instead, ~/.qwen/tmp/<sha256 of the project path>/chats/
// session-<minute>-<id8>.json, the model's records typed "qwen" (see
// jsonlimport/internal/geminichat); they are read, and written back, as
// Gemini CLI's are.
//
// # How the reader maps that onto sessiondb
//
//   - Every readable line is one log entry whose body is its exact bytes.
//     user, assistant and tool_result records with a message are Kind
//     "message" (Role "user", "assistant", "user"), a later record of a
//     uuid that already has a message Kind "message-part"
//     (sessiondb.KindMessagePart: merged into it, as Qwen Code merges
//     them); system records Kind "system"; other types keep their type.
//   - The transcript is the path Qwen Code resumes (above). When the
//     path's message records are the file's last message records, a
//     compaction's KeepFromSeq keeps them (its summary the compressed
//     history, wrapped as {"type":"user"|"assistant","message":<Content>},
//     when a chat_compression is on the path); otherwise (a rewind, a
//     dangling parentUuid) the compaction's summary holds copies of the
//     path's records and keeps no log entry.
//   - Usage, the counts Qwen Code itself reports (its --output-format json
//     stats, and /stats after a resume, which replays them): one row per
//     api_response telemetry event (CallID the response id, the model it
//     names), which covers every request of the session, a background
//     memory agent's included; an assistant record's usageMetadata counts
//     only when no api_response event came since the assistant record
//     before it (a writer that records no telemetry). The session's file
//     also holds the events of its sub-agents' requests (their prompt_id
//     is "<session>#<agent id>#<turn>", the session's own
//     "<session>########<n>"): those of a sub-agent with a transcript of
//     its own (subagents/<session>/agent-<agent id>.jsonl, beside the
//     chats folder) are counted there, from its records' usageMetadata
//     (the model from its meta file), so that the session and its
//     sub-agents add up to Qwen Code's figure and each matches its
//     source in Qwen Code's stats (bySource); a helper without a
//     transcript (the memory extractor) stays in the session. InputTokens is the
//     prompt less its cached tokens (CacheReadTokens), OutputTokens the
//     output count, which through an OpenAI-compatible provider includes
//     the reasoning tokens (ReasoningTokens; geminichat.Usage decides from
//     the total). Qwen Code records no cost: it is estimated from the
//     price table.
//   - Session: ID the sessionId; a sub-agent's "<session>:agent-<agent
//     id>", ParentID the session, Attrs agentId, agentName and what its
//     meta file says; a /branch copy's ParentID its forkedFrom session.
//     Title: the last custom_title, else the first prompt of the file (as
//     Qwen Code lists sessions). Attrs: cwd, version, gitBranch, model.
//   - Damage: lines are read by jsonl.WildScan (torn lines with the next
//     append glued on, which Qwen Code's parseLineTolerant also recovers;
//     NUL runs; invalid UTF-8; a torn tail left for the next import), each
//     reported. Records without a uuid are kept as data and reported.
//   - Incremental import: a file that grew is read whole again (the path
//     depends on the last record) and only its new entries are appended.
//
// Inferred rather than observed: rewinds, chat compressions and records of
// one uuid written twice were not run here (their fixtures are written by
// hand after the source; a sub-agent was run, in the agents' corpus); that
// an older writer's usageMetadata stands for its call when no telemetry
// covers it.
//
// # Export
//
// A session imported from a Qwen Code chat is written back byte for byte
// from the log of its latest import, at its path below ~/.qwen
// (projects/<cwd>/chats/<id>.jsonl, a sub-agent's
// projects/<cwd>/subagents/<id>/agent-<agent>.jsonl, an old chat's
// tmp/<hash>/chats/<file>.json; ExportPath). A sub-agent's meta file is
// not written (it is read, not stored). A session of another format is
// refused with jsonlimport.ErrUntranslatable, naming what it holds; a
// Qwen Code session is translated into pi, picoclaw, zot and swink.
package qwen
