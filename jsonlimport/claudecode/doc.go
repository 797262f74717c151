// Package claudecode reads and writes the transcripts of Anthropic's
// Claude Code, the format jsonlimport registers as "claude-code" (Name).
// Format is its jsonl.Format, jsonl.Exporter, jsonl.MessageReader,
// jsonl.SideLister (tool-results files), jsonl.Skipper (workflow journals)
// and jsonl.Reserver (sub-agent files picoclaw would otherwise take);
// jsonlimport lists it in its registry and imports through it. How a file
// that grew is continued without a re-read is in resume.go, the index of a
// project's copies of a session in index.go.
//
// # The format
//
// Claude Code (Anthropic's CLI) keeps one JSONL transcript per session:
// ~/.claude/projects/<encoded-cwd>/<session-id>.jsonl, sub-agent transcripts
// in <session-id>/subagents/agent-<agentId>.jsonl and oversized tool
// outputs in <session-id>/tool-results/. The format is undocumented; the
// shapes read here are those of formats/wild.md §1.
//
// How the ClaudeCode reader maps that onto sessiondb:
//
//   - Every readable line is one log entry whose Body is the line's exact
//     bytes. Lines of type "user" and "assistant" are entries of Kind
//     "message" (Role from message.role), or "message-part" when they
//     continue the message of an earlier line of their path: an assistant
//     line whose first assistant ancestor (passing lines of other types
//     and the result lines of the same response) has its message.id
//     (Claude Code writes a streamed response one content block per line),
//     and a tool_result line answering a call of a response that already
//     has a result line (each result of parallel calls is its own line).
//     The decision uses only the lines before, so a line's Kind never
//     changes as the file grows. Every other type ("system", "summary",
//     "file-history-snapshot", "progress", "attachment", "last-prompt",
//     "ai-title", "queue-operation", "mode", "permission-mode", and types
//     nobody has seen yet) is kept as data, Kind = its type.
//   - The transcript: Claude Code resumes by walking parentUuid links from
//     the newest message back to a root. The leaf is the last user or
//     assistant line in file order that is not a side chain (in a sub-agent
//     file, the last one); the walk passes through lines of any type that
//     carry a uuid and stops at a null parent, at a parent no line of the
//     file holds (a note, not a problem: an archive that starts
//     mid-conversation loses nothing, every line is in the log and the
//     history before it is not on the resume path, as in Claude Code; in a
//     sub-agent file the first line hangs off its parent's line in another
//     file), or at a cycle (a Problem). The resume path
//     is that walk plus every line of each API response met on it and the
//     result lines of all its tool calls: the lines of parallel calls hang
//     off each other and each result off its own tool_use line, the next
//     assistant line off the last result only, so the walk alone misses
//     results. When the path's messages are exactly the message entries
//     from some entry on (the usual case), the transcript is that suffix
//     of the log: a compaction with that KeepFromSeq is recorded when it
//     does not start at the first entry. When the path is not a suffix (an
//     edited prompt left an abandoned branch, side-chain lines are
//     interleaved), a compaction whose summary holds copies of the path's
//     entries (Summary true) and which keeps no log entry makes the
//     effective transcript exactly the path.
//   - Compaction: a "system" line with subtype "compact_boundary" has a
//     null parentUuid, so the resume path starts there; the compaction
//     recorded then carries compactMetadata.preTokens as TokensBefore and
//     the trigger in Details. The isCompactSummary user line after it is an
//     ordinary message entry on the path. Pre-compaction lines stay in the
//     log. Claude Code 2.1 keeps some messages of before the boundary
//     verbatim (compactMetadata.preservedSegment: the lines headUuid to
//     tailUuid, and anchorUuid, the summary line) and sends them right
//     after the summary, though the lines after the summary hang off the
//     summary itself; the path takes them there (with their responses'
//     other lines and results), so it is not in file order and the
//     transcript is made of copies (below). Checked against the requests
//     the real CLI sends (testdata/claudecode-real).
//   - Title: the last "custom-title" (a rename), else the last "summary",
//     else the last "ai-title", else the first real user prompt
//     (jsonl.PromptTitle). Project: the last cwd, else the project folder
//     (the path component after "projects"). Attrs: cwd, version, gitBranch, entrypoint
//     and model (of the last assistant line), agentId for a sub-agent,
//     continues (the session whose lines a continued session's file
//     repeats). A file-history-snapshot takes its snapshot's time; other
//     lines without a timestamp take the previous line's. The session is
//     dated by the first time in file order.
//   - Sub-agents: a file <session>/subagents/agent-*.jsonl, a workflow's
//     <session>/subagents/workflows/wf_*/agent-*.jsonl (its lines carry the
//     parent's sessionId too) and Claude Code 2.0's agent-*.jsonl beside
//     the sessions (lines with an agentId and the parent's sessionId) is a
//     session of its own, ID "<session>:agent-<agentId>", whose ParentID
//     is the parent session's ID. A workflow's journal.jsonl and the
//     agent-<id>.meta.json beside a sub-agent are skipped with a note.
//   - Usage: one row per API response (see the package notes): CallID
//     message.id + "|" + requestId, the report of its last streamed line
//     (a main-chain line before a side-chain copy; a line with "usage":{}
//     reports nothing), dated by that line, whatever the file's length or
//     how it grew (TestClaudeCodeUsageRule), a response other transcripts
//     of the project folder also hold counted once among them. Model
//     "<synthetic>" (a stop inserted by the CLI, not an API call) is not
//     counted.
//   - Oversized tool outputs (<session-id>/tool-results/<tool_use id>.txt)
//     are read with the session: each file becomes an entry of Kind
//     "tool-result-file" whose body is {"file": name, "content": text},
//     right after the line that names it; a file no line names comes
//     first. When the file grows, files keep the entry numbers they had.
//   - Corruption: torn lines and NUL runs anywhere are reported and what
//     they still hold is recovered (see jsonl.WildScan); a `<synthetic>` stop or
//     a tool call without result at the end of the path is noted (it can
//     block resume in Claude Code) and kept.
//   - Resume: under the importer's Follow (sessionctl watch) the parse
//     state is kept in memory between imports and a file that grew is
//     continued from the offset (see resume.go for how, and for the few
//     cases that still read the file whole). A Follow with a directory
//     (jsonlimport.NewFollowIn; sessionctl watch on SQLite: <database>-watch)
//     writes those states there when it stops, and the next run continues
//     from them (snapshot.go): after a restart, the first append to a
//     100 MiB transcript cost 0.31 s of CPU instead of 2.6 s (the file
//     replayed, chunk.go). Without a Follow (sessionctl
//     import) a file that grew is read whole (Parse returns
//     ErrNotIncremental for an offset): the importer keeps the new lines,
//     and tells the reader how many entries it imported before
//     (Resume.Reread): only the new lines' responses are looked up in the
//     folder's other transcripts (index.go's ccCopiesOf), so a grown file
//     no longer reads its whole folder, and none of it when its new lines
//     hold no response.
//     A file with no user or assistant line, or no time at all, is skipped
//     with a note until it has one.
//
// # Export
//
// A session imported from Claude Code is written back byte for byte:
// the log of its file's latest import (jsonl.ImportedLog), one line per entry,
// which gives the file's bytes (every line's exact bytes are the entry's
// body), and each tool-results file kept as a "tool-result-file" entry
// written back as <session>/tool-results/<name> beside it. The file goes
// where Claude Code keeps it, relative to the export directory:
//
//	projects/<project folder>/<sessionId>.jsonl
//	projects/<project folder>/<sessionId>/tool-results/<tool_use id>.txt
//	projects/<project folder>/<sessionId>/subagents/agent-<id>.jsonl
//	projects/<project folder>/<sessionId>/subagents/workflows/wf_*/agent-<id>.jsonl
//	projects/<project folder>/agent-<id>.jsonl (Claude Code 2.0 sub-agents)
//
// The path is the imported file's own path below its "projects" folder
// (SourcePath), so sub-agents, workflow agents and a session imported
// under a disambiguated ID land on the file names they came from; a file
// that was not under a "projects" folder goes into the folder Claude Code
// derives from the session's cwd (every character other than an ASCII
// letter or digit becomes '-'). A sub-agent is a session of its own
// ("<session>:agent-<id>"): exporting the parent does not write it
// (export it by ID, or with --all). Copied into ~/.claude on another
// machine, the files are what Claude Code lists and resumes, provided the
// project folder matches the cwd there.
//
// Not byte for byte: what the import did not keep as a line (empty lines,
// a trailing '\r' of a CRLF line, a torn line whose remains were recovered
// as a separate entry or reported, a tool-results file that was not valid
// UTF-8, which was stored with U+FFFD). TestExportClaudeCodeCorpus counts
// the files of the real corpus that come back identical.
//
// A session of another format is translated (jsonl.WriteForeign:
// jsonlimport's translate_claudecode.go) into
// projects/<encoded cwd>/<session UUID>.jsonl (ForeignPath), under its
// own id when that is a UUID, else one made from it (ForeignSessionID);
// what Claude Code has no shape for is refused with
// jsonlimport.ErrUntranslatable, naming it.
package claudecode
