// Package copilot reads GitHub Copilot CLI's session store and writes it
// back: one events.jsonl per session, in
// ~/.copilot/session-state/<session-id>/ ($COPILOT_HOME replaces
// ~/.copilot; versions before the XDG migration kept it under
// $XDG_STATE_HOME/.copilot, which 1.0.102 moves to ~/.copilot).
//
// # Observed
//
// The format is described as Copilot CLI 1.0.102 (npm @github/copilot,
// its native linux-x64 build) wrote it in testdata/copilot, run offline
// (COPILOT_OFFLINE=true, a BYOK OpenAI-compatible provider: no GitHub
// login) against sessiondb's scripted model (testdata/gen/copilot/gen.sh),
// and as its own JSON schema of the events says
// (schemas/session-events.schema.json in the package Copilot CLI unpacks
// into its cache), and as a public file of Copilot CLI 1.0.55-1 shows
// (qiaolei81/copilot-session-viewer, __tests__/fixtures/sessions/copilot-cli/
// session-demo/events.jsonl, read but not copied: a sub-agent, hooks, the
// older shutdown). Older versions also kept the log as
// session-state/<id>.jsonl, which is claimed the same way (by its first
// line). Each line is one event:
//
//	{"type": "...", "data": {...}, "id": "<uuid>", "timestamp": "<RFC 3339>", "parentId": "<uuid>"|null}
//
// parentId chains each event to the one before it (null on the first);
// the file is only appended to, a resumed run appending after the
// previous run's session.shutdown. A sub-agent's events (1.0.55) carry an
// agentId beside type and data, and data.parentToolCallId. Events the schema marks "ephemeral"
// (deltas, assistant.usage, session.idle, title changes, …) are never
// written. The events seen, and what the reader makes of them:
//
//	session.start       first line: data.sessionId (the session ID), version (1),
//	                    producer ("copilot-agent"), copilotVersion, startTime,
//	                    selectedModel, reasoningEffort, context {cwd, gitRoot,
//	                    repository, branch} → Attrs
//	user.message        data.content (as typed), transformedContent (as sent:
//	                    after a <current_datetime> block), messageId, source,
//	                    attachments → a user message
//	system.message      data {role: "system", content}: the system prompt →
//	                    a context message
//	assistant.turn_start/turn_end  one per model call (turnId) → bookkeeping
//	assistant.message   data.content, reasoningText, toolRequests [{toolCallId,
//	                    name, arguments, type, intentionSummary, toolTitle}],
//	                    model, apiCallId → an assistant message with its tool calls
//	tool.execution_start   toolCallId, toolName, arguments → bookkeeping
//	tool.execution_complete  toolCallId, success, result {content,
//	                    detailedContent}, error, shellExecution {exitCode} →
//	                    the tool result (a failed command still has success:
//	                    true and its exit code in the text, as the model saw it)
//	session.usage_record  data.usage {model, inputTokens (cache reads
//	                    included), outputTokens, cacheReadTokens,
//	                    cacheWriteTokens, reasoningTokens, cost (a premium-request
//	                    multiplier, not money), …}: one per model call → a usage row
//	session.shutdown    end of a run: accountingSnapshot (1.0.102) or the data
//	                    itself (1.0.55) holds modelMetrics
//	                    {<model>: {requests, usage {…Tokens}, tokenDetails}},
//	                    cumulative over the session's runs; codeChanges,
//	                    currentModel. Its inputTokens include cache reads and
//	                    writes (1.0.55: 81666 = 8 input + 54064 read + 27594
//	                    written, tokenDetails)
//	session.resume      a resumed run: resumeTime, eventCount, selectedModel,
//	                    context → Attrs
//	session.model_change  newModel → the model
//	session.compaction_start/_complete  a compaction; complete has success,
//	                    summaryContent, pre/postCompactionTokens
//	anything else       kept as a bookkeeping entry of its type
//
// Every line is an entry, its body the line's bytes; the Kind of a message
// is "message", of anything else the event type.
//
// # What the conversation is
//
// What Copilot CLI sends its model when it resumes a session
// (testdata/copilot/requests.jsonl, and TestResumedConversation checks
// the reader against it): the user messages, the assistant messages with
// their tool calls and the tool results, in file order (plus the system
// prompt, which it rebuilds rather than reading). An event of a sub-agent
// (agentId, data.parentToolCallId) is bookkeeping here: the sub-agent's
// answer reaches the session as the task tool's result; its model does
// not become the session's.
//
// # Inferred (not seen written by the CLI)
//
//   - Usage: from the session.usage_record lines when a file has any; a
//     file without them (older versions, whose per-call usage was the
//     ephemeral assistant.usage) counts each session.shutdown's
//     modelMetrics, less the previous shutdown's, as one row per model at
//     the shutdown. Input tokens are stored less cache reads and writes.
//     Either way a session's rows add up to its last shutdown's totals
//     (TestUsageEqualsShutdown).
//   - Compaction: a successful compaction_complete with a summaryContent
//     is recorded as a compaction whose summary is a user message of that
//     text, keeping the entries after the matching compaction_start (after
//     the complete when there is none). The shape is the schema's; the
//     crafted fixture (testdata/gen/copilot/crafted.py) is the only file
//     with one, so what Copilot CLI keeps across a compaction is not
//     checked against the CLI.
//   - Title: workspace.yaml's name when user_named is true, else its
//     summary, else the first prompt typed by a person.
//
// # Side files
//
// Beside events.jsonl a session folder holds workspace.yaml (read for the
// title), checkpoints/, files/, research/, rewind-file-snapshots/, plan.md
// and lock files; session-state/.session-operation-locks holds a lock per
// session. An import notes them as Copilot CLI's side files and skips them
// (SkipReason).
//
// # Damage
//
// A line that is not JSON, a torn last line, NUL padding and invalid
// UTF-8 are Problems (package jsonl's WildScan); the rest is imported. A
// file with no session.start gets the folder's name as its ID, reported.
// Because the file is only appended to, a file that grew is read from
// where the last import stopped (Parsed.ResumeState keeps the ID, attrs,
// model, first prompt and shutdown totals).
//
// # Export
//
// A session imported from Copilot CLI is written back byte for byte as
// session-state/<id>/events.jsonl (the imported log, compactions
// included: Copilot CLI's file holds them as events). Another format's
// session is translated (jsonlimport's translate_copilot.go) into
// session-state/<SessionID(id)>/events.jsonl, which the real Copilot CLI
// resumes (TestCopilotWrittenResumes), or refused with the reason.
//
// # Not read
//
// The legacy ~/.copilot/history-session-state/*.json files (one JSON
// document per session, before events.jsonl) are not read: no such file
// was found in public repositories to learn them from, and 1.0.102 no
// longer names the folder.
package copilot
