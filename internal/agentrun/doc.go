// Package agentrun knows how to run the real coding agents on these
// machines against a scripted model server (internal/scriptmodel): per
// agent (Claude Code, Codex, Gemini CLI, Qwen Code, pi, opencode) its npm
// package and pinned version, how to install it into a cache folder, the
// throw-away home it runs in, the config files and environment that keep
// it talking only to the server, its command lines for a new session and
// for a resume, and where it writes its store. The corpus generator
// (testdata/gen/agents), the live test beside this file and a handoff
// test (a session written into an agent's store, then resumed there) use
// it; it holds no main-like code. New and Resume run one turn against a
// scriptmodel.Server and return its requests (Turn.Sent: did the first
// model request hold a text).
//
// # Installing
//
// Agent.Install runs `npm install --no-audit --no-fund PACKAGE@VERSION`
// in CACHE/NAME@VERSION (never globally) unless Find sees it there;
// Installed.Version is what npm actually installed (package.json), which
// the manifest records. npm 11 does not run install scripts unless told:
// the packages used here work without them (Claude Code's bin is its
// native build already, Codex and opencode pick their platform package).
//
// # Isolation
//
// A Home is HOME with the XDG folders under it and a project folder the
// agent runs in. Env builds the whole environment from scratch: PATH (for
// node), HOME, XDG_*, TMPDIR under the home, TZ=UTC, LANG=C.UTF-8,
// TERM=dumb, NO_COLOR=1 and the agent's variables; nothing else of the
// caller's (CI, proxies, API keys) leaks in. Stdin is /dev/null: Gemini
// CLI, Qwen Code and opencode read stdin when it is not a terminal and
// would wait. The config each agent needs so as not to try other hosts
// or stop for a question is written by Setup (see agents.go and
// ../../../shared/formats/agents-offline.md, which these follow).
//
// # Sessions
//
// NewArgs and ResumeArgs are the headless command lines; SessionID reads
// the id a run reports (JSON output for most, Qwen Code takes it up front
// with --session-id, pi's is read from its JSON events or its newest
// session file). Store lists where the agent writes; SessionDir where the
// sessions of the home's project go (or opencode's database, into which
// ImportArgs loads an exported session); SessionFiles finds a session's
// files; EditText is a hand edit of the store (a byte
// replacement of the JSON-escaped text in the session's files, or an
// UPDATE of the session's rows in opencode's database) so that a test can
// check, from the server's request log, that what was written into the
// store reaches the model on resume.
package agentrun
