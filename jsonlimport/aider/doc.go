// Package aider reads the chat history aider (aider.chat, the Python
// coding agent) writes into a project, the format jsonlimport registers as
// "aider" (Name). Format is a jsonl.StoreFormat, jsonl.Exporter,
// jsonl.Skipper and jsonl.MessageReader; jsonlimport lists it last in its
// registry.
//
// # The files
//
// Aider appends everything it shows to .aider.chat.history.md in the
// project's git root (--chat-history-file names another file), and every
// line typed at its prompt to .aider.input.history (--input-history-file),
// prompt_toolkit's FileHistory: a record "# 2025-04-01 18:41:10.102517"
// then the input's lines, each prefixed "+". Neither has ids. Aider reads
// the chat history back itself only with --restore-chat-history.
//
// Observed in 14 runs of 6 public repositories (testdata/aider/MANIFEST,
// aider 0.79.2, 0.84.0, 0.86.1 and 0.86.2) and read in aider's io.py, the
// chat history is a sequence of appends, each one write:
//
//   - a run header, "\n# aider chat started at 2026-05-02 13:55:39\n\n",
//     when aider starts: the local time, with no zone;
//   - a prompt, "\n#### first line  \n#### second line  \n" (user_input:
//     every line of what was typed, "####" and a space before, two
//     spaces after, Markdown's line break); answers typed to aider's
//     questions are written the same way;
//   - a reply, "\n" + the model's text + "\n\n" (ai_output), reasoning
//     models' thinking inside it between <thinking-content-<hash>> tags
//     (aider's REASONING_TAG);
//   - aider's own output, "> " + a message + "  \n" (tool_output,
//     tool_warning, tool_error and the questions confirm_ask asks with the
//     answer): the version and model lines at start ("Aider v0.86.2",
//     "Model: openai/x with whole edit format" or "Main model: …"),
//     "Applied edit to …", "Commit 1a2b3c4 …", and after each model
//     response "Tokens: 2.4k sent, 91 received. Cost: $0.0085 message,
//     $0.02 session." (cache writes and hits when the provider reports
//     them; the cost part only when aider knows the model's price; token
//     counts rounded as aider prints them). A message of several lines
//     has "> " on its first line only.
//
// # Sessions and blocks
//
// A run (from one header to the next) is a session: the file is a store
// of sessions (jsonl.StoreFormat), each listed with a stamp of its bytes
// and the input history. Its ID is "aider-" and the header's time
// (aider-2026-05-02T13-55-39), with "-2", "-3" for a second run started
// in the same second; lines before any header make a run "aider-run1".
//
// Each write is one entry, its body {"type": "header"|"user"|"assistant"|
// "output", "text": the write's bytes}. The file does not say where one
// write ends, so blocks are inferred from line shapes: a header line, a
// run of "#### " lines, each "> " line (with the unquoted lines right
// after it, the rest of a message of several lines), and a reply, which
// runs from a line of text after a blank line to the next line of another
// kind. Blank lines go with the write aider made them in: the last one
// before a header, a prompt or a reply leads it, any others end the block
// before. Entry kinds: "message" for prompts (role user) and replies
// (role assistant), "aider.header" and "aider.output" (role aider) for
// the rest; the message reader makes the latter bookkeeping.
//
// Project: the "Git working dir:" aider prints when it runs in a
// subfolder, else the folder the chat history is in (inferred: aider
// writes it at the git root it works in).
//
// Times: a header's time is read as UTC (the zone is not written; Attrs
// "started" keeps it as written). A prompt takes the time of its record
// in the input history (the next record, in order, with the same text
// and a time not before the run's start), every other entry the latest
// time before it: so a reply is dated by the prompt that asked for it.
//
// Usage: each Tokens line is a usage row at its entry, with the model
// of the run's last model line (a "provider/" prefix becomes the
// provider), tokens as printed (rounded: "1.9k" is 1900) and the message
// cost as printed; a line without a cost is estimated from the price
// table like any tool that records none. The session's cost is then the
// sum of the message costs, which equals aider's "session" figure within
// its rounding (TestAiderUsageEqualsSession).
//
// Aider makes no tool calls: the model writes edit blocks in its reply
// and aider applies them. Nothing is paired; "Applied edit to" and the
// commit lines are aider's output entries.
//
// Titles: the first prompt that is neither an aider command (/add, /run,
// …; /ask, /code and /architect give their text) nor a short answer to
// aider's questions.
//
// # Growth
//
// A run is read whole (ErrNotIncremental for an offset): the importer
// keeps the entries after those it has. A last line without its newline
// is a write in progress: it and the block it would end are left for the
// next import. The last block of the file is read as whole: at any point
// between aider's writes, a growing file imports as one import of the
// final file does (TestAiderGrowth cuts at every write and in the middle
// of every line). A prefix cut between two lines of one write (a
// prompt or a reply of several lines), which aider's single write()
// never leaves on disk but for the instant it runs, would be read as a
// shorter block, and the longer one later replaces the transcript.
//
// # Export
//
// A run imported from aider is written back byte for byte as
// <session id>/.aider.chat.history.md (one folder per run: runs of one
// project share the file); bytes that were not UTF-8 are the one
// difference, and reported at import. A session of another format is
// translated (jsonl.WriteForeign): a run header at its start, each user
// message a prompt, each assistant message a reply with its thinking
// between aider's thinking tags; aider's history has no place for tool
// calls, tool results, images or instruction messages, so a session
// holding any is refused naming how many, and nothing is written
// (TestAiderTranslated). Aider's runs
// translate into the other formats through their message reader: prompts
// and replies (with thinking) are carried, the header and aider's output
// lines, its own log, are left out as Claude Code's bookkeeping is.
//
// # Default places
//
// None: aider keeps its files in each project, not in a folder of the
// user's, so `sessionctl import` and `watch` need the project's path.
package aider
