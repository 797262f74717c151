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
// into pi, Gemini CLI and Qwen Code (from every other agent) and opencode
// (from Codex, Gemini CLI, Qwen Code, pi; a Claude Code session is refused
// there for results written out of their calls' order); Claude Code and
// Codex take back only their own sessions. Qwen Code resumes only UUIDs
// of versions 1 to 5: a session of another id (Codex's and pi's UUIDv7,
// opencode's ses_…) is written under a UUIDv4 made from it
// (qwen.SessionID), a new id (Result.NewID). What a translation
// carries but the target cannot use, or leaves out, is listed in
// Result.Lost: thinking signed by another vendor's API, calls of tools
// the target does not have, Claude Code's attachment lines (the context
// it added to prompts: the handoff leaves them out, counted, through
// jsonlimport.LeaveOutAttachments, since the target adds its own).
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
// marker word of the first prompt. On 2026-12-06 (2 shared cores, load
// ~20): 15 of 36 pairs resumed, 21 refused by the handoff with the
// reason, none failed, in 376 s. Resumed: each agent to itself (6), every
// agent to pi (5), Codex, Gemini CLI, Qwen Code and pi to opencode (4).
// Into Gemini CLI (2026-12-06, its column alone, 51 s): 6 of 6 resumed,
// every other agent's session carrying 15 to 17 pieces; into Qwen Code
// (its column alone, 57 s): 6 of 6, 14 to 17 pieces. Lost, and named:
// thinking signatures of another vendor's API (the text is kept), calls
// of tools the target lacks (Bash, bash, exec_command), Claude Code's
// attachment lines.
// Refused: into Claude Code and Codex from any other agent (no writer of
// their files for foreign sessions yet: 10),
// and Claude Code to opencode (results written out of their calls'
// order). TestExpectedPieces is its fast sibling (what each session must
// carry).
package handoff
