// Package codex reads and writes the rollout files of OpenAI's Codex CLI,
// the format jsonlimport registers as "codex" (Name). Format is its
// jsonl.Format, jsonl.Exporter and jsonl.MessageReader; jsonlimport lists
// it in its registry and imports through it.
//
// # The format
//
// OpenAI Codex CLI keeps one "rollout" JSONL file per thread:
// ~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<thread-uuid>.jsonl, every line
// an envelope {"timestamp":…,"type":<kind>,"payload":{…}} (formats/wild.md
// §2). Thread names live in ~/.codex/session_index.jsonl.
//
// Codex CLI 0.171 (testdata/codex-real, written by the real CLI) adds an
// "ordinal" to every envelope and a "metadata" object beside the payload
// of response items, writes two new kinds, "world_state" and
// "token_usage_record" (one per model response, with its usage and
// response id; kept as data: the token_count events carry the same
// figures, but for one call: the remote compaction of the built-in OpenAI
// provider, whose usage is in its token_usage_record only. That call is
// not counted, as ccusage 20.0.24 does not count it either, so that both
// report the same totals; the API bills it), and no longer mirrors user and agent text in event_msg
// user_message/agent_message (event_msg item_completed instead). A fork
// no longer copies the parent's lines (history_base, below).
//
// How the Codex reader maps that onto sessiondb:
//
//   - Every readable line is one log entry whose Body is the line's exact
//     bytes. "response_item" lines (what Codex rebuilds its model history
//     from on resume) are entries of Kind "message"; their Role is the
//     payload's role for a message, "assistant" for reasoning and tool calls,
//     "tool" for *_output items. Every other kind ("session_meta",
//     "turn_context", "event_msg", "compacted", kinds added later) is kept as
//     data, Kind = its type. So the event_msg mirrors of user and agent text
//     are in the log but not in the Kind "message" view, which is not
//     duplicated.
//   - compacted: a compaction recorded at the line, keeping the entries
//     after it, whose summary messages are the replacement_history items,
//     each wrapped in the response_item envelope of the compacted line's
//     timestamp (the item's bytes unchanged inside). A compacted line
//     without replacement_history (older Codex) gets one user message
//     holding its "message" text (inferred: the exact bridge text older Codex
//     builds is not reproduced).
//   - A fork written by Codex 0.171 (session_meta history_base: the parent
//     thread and the byte offset of the parent's rollout it continues)
//     holds none of the parent's lines; Codex resumes it with the parent's
//     history up to that offset. Its transcript therefore starts with that
//     history: a compaction at the session_meta line, keeping all of the
//     fork's own entries, whose summary is the parent's effective
//     response items at the offset (read from the parent's rollout, found
//     beside the fork or in the same Codex home; a parent that is itself
//     such a fork brings its own parent's). Without the parent's file the
//     transcript is the fork's own items, with a problem saying so. The
//     parent's lines are read, never imported twice: its usage and log stay
//     the parent's.
//   - session_meta: the thread id is the session ID; cwd, originator,
//     cli_version, source, model_provider, git and the root session_id go to
//     Attrs; forked_from_id (else parent_thread_id) is the ParentID. Legacy
//     files (a first line with the meta fields at top level and bare response
//     items without envelope) are read too; the bare items are Kind
//     "message"; their {"record_type":…} filler lines are Kind "record".
//   - turn_context: the last model and effort go to Attrs; the model names
//     the usage rows.
//   - Usage: event_msg/token_count lines carry cumulative totals
//     (total_token_usage) that are repeated; each increase becomes one row
//     holding the difference, so the session total equals the last
//     total_token_usage. A total that decreases starts a new count (its
//     last_token_usage is taken). token_count with info null is skipped.
//     A fork (forked_from_id) starts from the parent's totals: Codex
//     0.171 carries them over into the fork's first token_count, so that
//     event counts only its last_token_usage, the fork's own call (as
//     ccusage does); the parent's calls stay counted in the parent.
//     InputTokens excludes cached input (cached_input_tokens is
//     CacheReadTokens); ReasoningTokens is reasoning_output_tokens, which
//     Codex also counts in output_tokens.
//   - Title: the thread_name of session_index.jsonl (4 directories above
//     the rollout) when present, else the first user_message event that
//     is not all injected context (else the first such user message),
//     made a title by jsonl.TitleOf: the IDE context before "## My request
//     for Codex:" and markdown syntax dropped, cut at a word boundary.
//   - Resume: rollouts are append-only; parsing continues at the offset
//     with the meta, model and usage totals in ResumeState.
//
// # Export
//
// A session imported from a Codex rollout is written back byte for byte:
// the log of the rollout's latest import (jsonl.ImportedLog), one line per
// entry (every line's exact bytes are the entry's body), at
//
//	sessions/YYYY/MM/DD/rollout-<timestamp>-<thread id>.jsonl
//
// relative to the export directory: the rollout's own name, and the date
// folders it was in (an archived rollout, from archived_sessions/, goes
// back under sessions/ by the date in its name). Copied into ~/.codex on
// another machine, that is where Codex looks for a thread to resume
// (inferred: Codex itself cannot be run here; newer builds also keep an
// index in state_N.sqlite, which they rebuild from the rollout files).
// The thread name of session_index.jsonl is not written: that file is
// shared by every thread, so an export of one session cannot own it; the
// session's title comes back from the first user message instead.
//
// Not byte for byte: what the import did not keep as a line (empty lines,
// a trailing '\r', torn lines). TestExportCodexCorpus counts the files of
// the real corpus that come back identical.
//
// A session of another format is translated (jsonl.WriteForeign:
// jsonlimport's translate_codex.go) into a rollout named after the
// thread id its session_meta gives it (ThreadID), or refused with
// jsonlimport.ErrUntranslatable naming what a rollout cannot hold.
package codex
