// Package gemini reads and writes the chat files of Google's Gemini CLI
// (npm @google/gemini-cli), the format jsonlimport registers as
// "gemini-cli" (Name). Format is its jsonl.Format, jsonl.Exporter,
// jsonl.Skipper and jsonl.MessageReader; jsonlimport lists it in its
// registry and imports through it.
//
// # The format
//
// Gemini CLI keeps a project's chats in ~/.gemini/tmp/<project>/chats/
// ($GEMINI_CLI_HOME replaces the home directory). <project> is the short
// name ~/.gemini/projects.json gives the project's folder ({"projects":
// {"/path/to/proj": "proj"}}, with ~/.gemini/tmp/<project>/.project_root
// holding the path); versions before the registry used the sha256 of the
// path, which every chat records as projectHash. A chat is
// session-<UTC minute>-<first 8 of the session id>.jsonl; a sub-agent's
// chat (the invoke_agent tool) is chats/<parent session id>/<its own
// session id>.jsonl, and the parent's tool call names it (agentId).
//
// Observed (Gemini CLI 0.61.0, run offline by testdata/gen/geminiqwen and
// in the agents' corpus, testdata/agents/gemini, with a sub-agent; the
// chat recording service's source, ChatRecordingService and
// loadConversationRecord, read in google-gemini/gemini-cli and in the
// 0.61.0 npm bundle), one JSON object per line, appended
// (appendFileSync), of four kinds:
//
//   - a header {sessionId, projectHash, startTime, lastUpdated, kind
//     ("main" or "subagent"), directories?}: the first line, and again
//     when Gemini CLI starts a chat whose file name (the same minute, the
//     same session) is that of the file: a --resume within the minute the
//     session began appends a new header to the same file. Its members
//     merge into the chat's metadata;
//   - a message record {id, timestamp, type, content, …} (see
//     jsonlimport/internal/geminichat): type "user" (content: the parts
//     sent, displayContent what the user typed when it differs), "gemini"
//     (content: the text, or, rewritten from the history, its parts with
//     thoughts and function calls; thoughts, tokens, model, toolCalls
//     [{id, name, args, result, status, agentId?, …}]), "info", "error",
//     "warning". A record whose id was written before replaces that
//     message in place: Gemini CLI writes a model message when its text
//     is complete, again with its tool calls, again when they complete
//     (their results inside), and again when its tokens arrive late. The
//     function responses sent back are also a record of their own (type
//     "user", functionResponse parts);
//   - {"$set": {…}}: a patch of the metadata (lastUpdated after every
//     message, sessionId on resume, summary, directories,
//     memoryScratchpad) or of the whole message list ("messages": the new
//     list, written when Gemini CLI syncs its history into the file: on
//     resume, the list as the model's history then holds it, each model
//     message's parts with its thoughts and calls and a
//     "<id>_response" user message of its results after it, but without
//     the tokens, toolCalls and thoughts members);
//   - {"$rewindTo": id} (/rewind): the message id and all after it leave
//     the list (an id not in the list empties it).
//
// Older Gemini CLI (up to 0.38, observed with 0.38.2) wrote
// session-<minute>-<id8>.json, the whole ConversationRecord as indented
// JSON, rewritten after every change; Gemini CLI 0.61 reads such a file
// and, when it resumes it, migrates it to <name>.jsonl beside it (and
// leaves the .json).
//
// # How the reader maps that onto sessiondb
//
//   - Every readable line is one log entry whose body is its exact bytes:
//     headers Kind "session", $set lines Kind "set", $rewindTo lines Kind
//     "rewind", user and gemini records Kind "message" (Role "user",
//     "assistant"), info, error and warning records their type. A line of
//     no known shape is kept as data (Kind "gemini-cli.other") with a
//     problem.
//   - The transcript is the message list as loadConversationRecord
//     leaves it after the last line (a JavaScript Map: a rewritten id
//     keeps its place), filtered to the user's and the model's records:
//     what Gemini CLI turns into the model's history on resume
//     (convertSessionToClientHistory). Since rewrites and $set lines make
//     the message lines differ from the list, the reader finds the longest
//     tail of the list that is the tail of the file's message lines: those
//     lines stay the transcript (a compaction's KeepFromSeq), and the
//     messages before them, exact copies of the bytes of their latest
//     version (a line, or an element of a $set's list), are the
//     compaction's summary. A file without rewrites needs no compaction.
//   - A message is read as Gemini CLI resumes it
//     (geminichat.UnderstandRecord): a model record's calls come with the
//     results its toolCalls hold, the "<id>_response" turn Gemini CLI
//     sends after it; the record of function responses Gemini CLI also
//     wrote is a user message of those results, which Gemini CLI sends as
//     well (observed: after --resume, the request holds each result twice,
//     in one user turn). Thoughts are thinking ("**subject**
//     description", as Gemini CLI rebuilds them). The context Gemini CLI
//     injects (<session_context>) is Context; slash commands are
//     bookkeeping (Gemini CLI leaves both out on resume).
//   - Usage: one row per model message id with tokens (the last report
//     of its id wins, CallID the id), dated by the message, with the
//     model it names; rows are kept when a rewind or a $set drops their
//     message (the calls were made). tokens.input counts the cached
//     tokens, so InputTokens is input - cached (+ tool, the tool-use
//     prompt), CacheReadTokens cached; output excludes the thoughts, so
//     OutputTokens is output + thoughts and ReasoningTokens thoughts: the
//     row's tokens add up to tokens.total, and the sums equal the figures
//     Gemini CLI reports (--output-format json: stats.models.*.tokens,
//     where "input" is prompt - cached). Gemini CLI records no cost: it is
//     estimated from the price table (jsonlimport's Prices).
//   - Session: ID the sessionId (the last one set); ParentID, for a
//     sub-agent's chat, the folder it is in (its parent's session id);
//     Summary the chat's summary ($set summary: Gemini CLI's generated
//     summary, or what a sub-agent returned); title that summary, as
//     Gemini CLI lists sessions, but for a sub-agent, else the first real
//     prompt of the file; Attrs cwd (ProjectRoot: .project_root
//     or projects.json, checked against projectHash), projectHash, kind,
//     directories and the last model.
//   - A chat with no prompt or answer yet (a header and Gemini CLI's own
//     context, which it writes when it starts: a --resume in another
//     minute leaves such a file beside the chat it resumed) is skipped
//     with a note and looked at again on the next import.
//   - Damage: lines are read by jsonl.WildScan (torn lines, NUL runs,
//     invalid UTF-8, a torn tail left for the next import), each reported
//     with path, line and reason; Gemini CLI itself skips a line
//     JSON.parse rejects, silently.
//   - Incremental import: the list depends on every line, so a file that
//     grew is read whole again (Parse returns ErrNotIncremental for an
//     offset) and only its new entries are appended; the compaction is
//     that of the whole file. Its cost: a file grown under `sessionctl
//     watch` records a new compaction whenever its copied messages change
//     (after every turn whose calls were rewritten in place), each holding
//     copies of the messages before the last rewrite, where one import of
//     the final file records one; the transcript and log are the same.
//   - Whole-JSON chats (.json): read by geminichat.ParseLegacy: a session
//     entry (the top-level object, its messages left out) and one entry
//     per message, in order (no compaction); a .json Gemini CLI has
//     migrated to a .jsonl beside it is skipped with a note (the .jsonl
//     holds its messages), as are the devtools logs
//     (tmp/<project>/logs/session-*.jsonl).
//
// Inferred rather than observed: $rewindTo (interactive /rewind only, not
// run here: the fixture's rewind is written by hand after the source), a
// header carrying a whole messages list (the source reads one), the
// hash-named project folders of versions before projects.json, and that
// Gemini CLI sends a message the same whatever the version that wrote it.
//
// # Export
//
// A session imported from a Gemini CLI chat is written back byte for byte
// from the log of its latest import (jsonl.ImportedLog), at its path below
// ~/.gemini (tmp/<project>/chats/<file>, ExportPath); a whole-JSON chat as
// indented JSON again (geminichat.RenderLegacy). Not written:
// projects.json and .project_root, which belong to the project and not to
// one chat. A session of another format is refused with
// jsonlimport.ErrUntranslatable, naming what it holds (a chat Gemini CLI
// resumes needs a projectHash and message ids this package would have to
// invent); a Gemini CLI session is translated into the formats that take
// other formats' sessions (pi, picoclaw, zot, swink; jsonlimport's
// translate.go).
package gemini
