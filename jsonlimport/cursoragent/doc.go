// Package cursoragent reads the JSONL transcripts the Cursor agent writes
// (the CLI, cursor-agent, and the agent of recent Cursor IDE versions) and
// writes them back: one file per conversation under
//
//	~/.cursor/projects/<slug>/agent-transcripts/<uuid>/<uuid>.jsonl
//	~/.cursor/projects/<slug>/agent-transcripts/<uuid>.jsonl          (older CLI versions)
//	~/.cursor/projects/<slug>/agent-transcripts/<uuid>/subagents/<uuid>.jsonl
//
// ($CURSOR_DATA_DIR replaces ~/.cursor). The format name is
// "cursor-agent".
//
// # Why a package of its own
//
// Package cursor reads the IDE's state.vscdb: an SQLite store of many
// conversations (a jsonl.StoreFormat, read by key ranges, never resumed
// from an offset). These transcripts are JSONL files, one conversation
// each, appended to, claimed by the shape of their first line and
// imported on the incremental path every JSONL format takes (Resume,
// ResumeState). They share nothing with the database reader but the
// vendor, so they are a format of their own, registered after cursor.
//
// # What was observed, and where
//
// Real files (copied into testdata/cursor-agent/corpus, see its
// MANIFEST.md): the two transcripts committed in taneliang/farcooler
// (crates/core/fixtures/session-logs/cursor-complete-turn.jsonl and
// cursor-turn-ended-error.jsonl, cursor-agent 2026.08.11-e8db854, macOS),
// whose docs/agent-session-logs.md describes the four transcripts of that
// machine. No other real transcript was found in public repositories;
// what follows beyond those two files is what other tools' parsers and
// notes say they saw (read, not copied): wesm/agentsview
// (internal/parser/cursor.go), the Cursor adapters of several session
// viewers and monitors, and tests that quote lines "recorded from
// cursor-agent 2026.09.28" and 2026.09.02.
//
// Observed in the real files:
//
//	{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Sunday, Aug 16, 2026, 8:43 AM (UTC-7)</timestamp>\n<user_query>\n…\n</user_query>"}]}}
//	{"role":"assistant","message":{"content":[{"type":"text","text":"…"},{"type":"tool_use","name":"Shell","input":{"command":"…","description":"…"}}]}}
//	{"type":"turn_ended","status":"success"}
//	{"type":"turn_ended","status":"error","error":"Named models unavailable …"}   (a whole file)
//
// Lines carry no id, no time, no model and no usage; tool_use blocks carry
// no id; no tool result is written. A prompt's text holds the time it was
// sent, an English date to the minute with its UTC offset.
//
// Reported by others (not seen here): an RFC 3339 <timestamp> in headless
// runs; content as a plain string; turn_ended with status "aborted" and
// an error string, or "error" with an error object ({}); turn_ended lines
// in the middle of a file (the IDE's); an IDE transcript holding only turn
// markers, the conversation being in state.vscdb; sub-agents' transcripts
// in subagents/ of their parent's folder (their file named by an id the
// parent's Task call does not record); a file Cursor rewrote to one
// turn_ended error line when an account ran out of usage; and, seen live
// with cursor-agent 2026.09.02, the trailing turn_ended line removed when
// the next turn starts and the next prompt written in its place. The
// project folder's name is the workspace path with every run of
// characters other than ASCII letters and digits made "-", the ends
// trimmed, cut to 84 characters and a "-" and seven hex digits of a
// SHA-256 when longer than 92 (cursor-agent's workspace-paths.js, as
// others read it); .workspace-trusted in that folder holds
// {"trustedAt","workspacePath","trustMethod"}; the folder also holds
// terminals/, agent-tools/, mcps/, agent-notes/ and mcp-*.json.
//
// # What is imported
//
// Each transcript is a session; its ID is the file's name (the uuid, which
// is the IDE's composerId when the IDE wrote it: a conversation imported
// from both state.vscdb and its transcript is kept twice, the one
// imported second under a derived ID, as any ID two sources share; since
// this is how Cursor keeps it and not a fault of the archive, the import
// says so in a note, not a problem, and a first import of Cursor's default
// places ends with exit 0: jsonlimport's twinFormats). Every line is an entry whose body
// is the line's bytes: a message line Kind "message" and Role its role; a
// turn_ended line Kind "turn_ended" (bookkeeping); a line of another
// shape keeps its type as Kind, with a problem.
//
// Times (inferred): a user line takes its <timestamp> (the English form
// or RFC 3339; its minute: lines of one minute keep their file order);
// every other line the time of the line before it. A line with no time
// before it (a file without any timestamp: older versions) takes the
// file's modification time at the import that reads it. The session is
// created at its first entry's time and updated at the file's
// modification time (or the last entry's, if later).
//
// Title: the first prompt (the <user_query> of the first user line,
// jsonl.TitleOf), as the other readers do: the format has no title.
//
// Project: the workspacePath of the folder's .workspace-trusted when it
// gives the folder's name; else a folder of the importing machine whose
// path gives the name, walked down from / (the name alone is ambiguous:
// /a/b, /a-b and /a_b share it); else the folder's name. Attrs: cwd (the
// path, when found), project_slug, kind "subagent" and parent for a
// sub-agent's transcript, and the trailing turn_ended lines (below).
//
// Sub-agents: a transcript in <parent>/subagents/ is a session whose
// ParentID is <parent> (the parent's transcript ID) and whose attrs say
// kind "subagent" (jsonlimport.SubAgent). Its position in the parent
// (ForkSeq) is not known: the parent's Task call names no transcript.
//
// Tool calls: Cursor's tool_use blocks have no id; the message reader
// (Understand) and the translation give the i-th call of the entry at
// log position seq the id CallID(seq, i). Results are read when a file
// has tool_result blocks (Anthropic's shape; none seen): by tool_use_id,
// else (translation) the earliest call not answered yet. A transcript
// without results leaves its calls unpaired, as Cursor wrote them.
// There is no usage to import: the files record none.
//
// # Growth, and the trailing turn_ended line
//
// Cursor appends to a transcript, except that it removes the trailing
// turn_ended line when the next turn starts. A read therefore never
// consumes the turn_ended lines that end the file, or that only blank
// lines or a torn last line follow (Parsed.Offset stops before them, as
// before a torn last line): they are read again by the
// next import, which makes entries of them once another line follows
// them, and otherwise finds them, or whatever replaced them, where the
// last import stopped. The bytes an import consumed are never rewritten,
// so a file that grew is read from where the last import stopped
// (ResumeState keeps the ID, line count, first prompt and times), and
// one import of the final file equals the imports of every state on the
// way (TestCursorAgentTurnRewritten). The held lines are kept in the
// session's attrs (turn_ended, the lines as text; last_turn_status, the
// last one's status) and written back by an export. A file holding only
// turn markers has no conversation yet (jsonl.ErrNoConversation: a note,
// looked at again next time). A file Cursor rewrote whole (out of usage)
// no longer starts with the bytes imported: the importer reads it again
// as a replacement.
//
// # Damage
//
// A line that is not JSON, a torn last line, NUL padding and invalid
// UTF-8 are problems (jsonl.WildScan); a line of another shape is kept
// with a problem; the rest is imported. Nothing panics
// (FuzzCursorAgentLine).
//
// # Claim
//
// Claim takes a .jsonl whose first line begins {"role":"…","message":{
// (role first, as Cursor writes it) or {"type":"turn_ended" and parses as
// such a line (no type, uuid, sessionId, parentUuid or content member
// beside role and message), wherever it lies. Claude Code's lines carry
// type, uuid and sessionId, OpenAI-shaped messages (picoclaw's) content:
// neither is taken, and cursor-agent reserves its files from picoclaw
// (jsonl.Reserver), which takes any line beginning {"role":. The project
// folder's other files and folders are noted as Cursor's and skipped
// (SkipReason, SkipDir), and so are the older plain-text transcripts
// (agent-transcripts/*.txt), which are not read.
//
// # Export
//
// A session imported from a transcript is written back byte for byte as
// projects/<slug>/agent-transcripts/… (its source path from the project
// folder on): the imported log, then the held turn_ended lines. Another
// format's session is refused (ErrNoForeign): Cursor resumes from its
// chat store (~/.cursor/chats/<hash>/<id>/store.db, not read: a chain of
// protobuf-framed blobs no public description settles), never from a
// transcript. Cursor's sessions are translated into the other formats by
// jsonlimport's translate_cursoragent.go.
package cursoragent
