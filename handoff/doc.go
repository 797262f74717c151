// Package handoff writes a stored session into another coding agent's own
// store so that the agent resumes it (sessionctl handoff ID --to AGENT):
// Claude Code, Codex, Gemini CLI, Qwen Code, pi or opencode.
//
// # What is written
//
// The session is exported in the target's format by jsonlimport.Export:
// byte for byte when it was imported from that agent, translated
// otherwise (jsonlimport/translate*.go), or refused with
// jsonlimport.ErrUntranslatable, which names what the target has no
// shape for; nothing is dropped silently. Today the translations exist
// into pi, Gemini CLI and Qwen Code (from every other agent), opencode
// (from Codex, Gemini CLI, Qwen Code, pi; a Claude Code session is refused
// there for results written out of their calls' order), Codex (from every
// other agent: thinking and tool results' error flags, which a rollout
// cannot hold, are left out through jsonlimport.LeaveOutUncarried and
// named in Result.Lost, shell calls become Codex's exec_command calls; a
// session whose id is no UUID, opencode's, gets a UUIDv7 thread id, NewID)
// and Claude Code (from every other agent). Qwen Code resumes only UUIDs
// of versions 1 to 5: a session of another id (Codex's and pi's UUIDv7,
// opencode's ses_…) is written under a UUIDv4 made from it
// (qwen.SessionID), a new id (Result.NewID). What a translation
// carries but the target cannot use, or leaves out, is listed in
// Result.Lost: thinking signed by another vendor's API, calls of tools
// the target does not have, Claude Code's attachment lines (the context
// it added to prompts: the handoff leaves them out, counted, through
// jsonlimport.LeaveOutAttachments, since the target adds its own). Claude
// Code replays every thinking block to Anthropic's API, which accepts
// only thinking it signed: a translation into Claude Code leaves out
// other thinking and the source's context messages (its instructions)
// through jsonlimport.LeaveOutUnsendable, and Result.Lost names them by
// vendor and role; a shell call Bash holds whole (pi's and opencode's
// bash, Gemini CLI's and Qwen Code's run_shell_command, Codex's
// exec_command {cmd}) is written as a call of Claude Code's Bash
// (Result.Notes says so). Claude Code names sessions by UUID: a session whose
// id is not one (opencode's ses_…) is written under a UUID made from it
// (Result.NewID).
//
// opencode resumes a session with the model its last user message names;
// for a translated session that is the source agent's, which opencode's
// providers may lack (the resume then fails: ProviderModelNotFoundError).
// The user messages are given the model of the target's opencode.json;
// without one, Result.Lost says so.
//
// # Where
//
// Target.Root is the agent's store under Env (a home folder and the
// variables the agents read: CLAUDE_CONFIG_DIR, CODEX_HOME,
// GEMINI_CLI_HOME, QWEN_HOME, XDG_DATA_HOME). The agents list the
// sessions of the directory they run in, so each file is placed for
// Options.Cwd (default: the session's project if it exists, else the
// current directory): Claude Code projects/<cwd as key>/, Qwen Code
// projects/<cwd as key>/chats/, Gemini CLI tmp/<short name>/chats/ (the
// short name is the one projects.json gives cwd, or it is registered
// there: the folder's base name, made unique), pi --<cwd>--/, Codex its
// date folders (it finds a session by id wherever it was run). opencode
// keeps one SQLite database: the export JSON is written to
// <data>/opencode/handoff/<id>.json and loaded with `opencode import
// FILE`, opencode's own transaction (Options.Opencode names the
// executable; without one the file is left and ErrNotImported says the
// command to run).
//
// # Safety
//
// Every file goes through a temporary file in its folder that is then
// linked into place (a link never replaces an existing file), the
// session's main file last, so a crash leaves no half file the agent
// would list (only a hidden temporary file or staging folder). A session
// the target already holds (its id in a file name, in a Gemini CLI
// header, or as a row of opencode's database) is written under a new id
// of the target's shape (UUIDv4, UUIDv7 for Codex and pi, ses_… for
// opencode), its bytes and file names rewritten; so is a session handed
// to opencode whose id is not of opencode's shape (opencode would give
// it one of its own). Options.Relate records the relation (sessionctl in
// the source's attributes, "handoffs": {NEWID: {agent, at}}: a fork under
// the new id would stand in the way of importing the agent's file later). The session is written with its secrets as stored, as
// export writes it: it goes into a store on this machine, like the one
// it came from.
//
// # Resuming
//
// Result.Resume is the interactive command and Result.ResumeHeadless
// the one-prompt form, as internal/agentrun runs the agents:
//
//	claude-code  claude --resume ID            claude --resume ID -p PROMPT
//	codex        codex resume ID               codex exec resume ID PROMPT
//	gemini       gemini --resume ID            gemini --resume ID -p PROMPT
//	qwen         qwen --resume ID              qwen --resume ID PROMPT
//	pi           pi --session ID               pi --session ID -p PROMPT
//	opencode     opencode --session ID         opencode run --session ID PROMPT
//
// run in Result.Cwd, with Result.Env set first when the store is not the
// user's own (--home).
//
// # Proof by the agents
//
// TestLiveHandoffMatrix (SESSIONDB_LONG; .ci/run runs it after the live
// agents test) hands session A of each agent's corpus (testdata/agents:
// what the real agent wrote) to each of the six agents in a fresh home
// and resumes it there against the scripted model; a pair resumes when
// the target's first model request carries every user prompt, assistant
// text, tool call (its command) with the first line of its result, and a
// marker word of the first prompt. The whole matrix on 2026-12-06 (2
// shared cores, load ~5, after the writers into Claude Code, Codex,
// Gemini CLI and Qwen Code): 35 of 36 pairs resumed, each with 14 to 17
// pieces sent back, none failed, in 102 s. The one refused: Claude Code
// to opencode, whose parts cannot hold two tool results that came back
// in another order than their calls (the handoff fails naming them). Lost,
// and named in each handoff's output: thinking signed by another vendor's
// API (kept as text for pi, opencode, Gemini CLI and Qwen Code, left out
// for Claude Code, which replays thinking to Anthropic's API, and for
// Codex, which replays only its own encrypted reasoning), calls of tools
// the target lacks (kept with their results as history; shell calls
// become Claude Code's Bash and Codex's exec_command where those hold
// them whole), a result's error flag into Codex, Claude Code's attachment
// lines. (The first run, before those four writers, resumed 15 of 36 and
// refused the 20 pairs into them.) TestExpectedPieces is its fast sibling
// (what each session must carry); TestHandoffOpencodeToCodex the fast
// check of a translated Codex handoff, TestHandoffTranslatedToClaudeCode
// and TestHandoffToClaudeCodeNewUUID of a Claude Code one,
// TestHandoffRefusedAndDryRun (its Gemini CLI dry run) and
// TestHandoffQwenNewID of Gemini CLI and Qwen Code ones.
package handoff
