// Package compactor does summarization-based context compaction on top of
// any sessiondb.Store: when a session's transcript no longer fits a model's
// context window, the older part is summarized and the recent part kept
// verbatim, and the result is recorded as one compaction checkpoint. It uses
// the root Store interface only, so it works with every backend.
//
//	c := &compactor.Compactor{Store: st, Summarizer: compactor.Offline{},
//		Policy: compactor.Policy{KeepTokens: 20000, Anchor: 1}}
//	res, err := c.MaybeCompact(ctx, sessionID, 100000) // every turn
//
// Nothing is deleted: the summarized entries stay in the log (Dropped lists
// them) until the caller runs Store.Prune, so a compaction can be undone by
// recording a compaction that keeps from an earlier sequence.
//
// # Policy
//
// The store's transcript is "summary messages of the current compaction,
// then every log entry with Seq >= KeepFromSeq". A Policy cuts it in three:
// the anchor (first entries, kept verbatim), the dropped middle (summarized)
// and the kept tail (recent entries, kept verbatim):
//
//   - KeepTurns keeps the last N turns. A turn starts at a user message that
//     is not a tool result and is not a summary message (for Claude Code,
//     Codex and pi: a user prompt as jsonlimport.Understand reads it; see
//     "Claude Code, Codex and pi").
//   - KeepTokens keeps the most recent entries whose estimated tokens fit the
//     budget (the budget covers the tail only), as pi's compaction keeps
//     keepRecentTokens: the tail starts at the first message boundary the
//     budget covers where a cut is allowed (below), inside a turn when the
//     last turn is longer than the budget. The kept part therefore fits the
//     budget whenever the last message and the results of its calls do;
//     only when even they exceed it does the tail start earlier, at the last
//     allowed cut before (the shortest tail that can be kept). With both
//     set, the shorter tail wins; with neither, KeepTurns is
//     DefaultKeepTurns (2).
//   - The tail is never empty: when even the last entry exceeds the budget,
//     it is kept anyway (with its tool group, below).
//   - A split turn (Plan.Split): when the tail starts inside a turn (before
//     its next prompt it holds an assistant message or a tool result), the
//     dropped part is the history before the turn's prompt and the turn's
//     beginning, summarized apart (Request.TurnPrefix) and joined as pi
//     joins them: the history's summary, then "---" and
//     TurnContextHeading with a sentence naming the turn (its prompt, the
//     entries summarized, where the kept part starts: SplitTurnLine), then
//     the turn beginning's summary. A turn that began before the dropped
//     part (its prompt in the previous summary or the anchor) continues the
//     history: one summary, and the sentence says so. Details.SplitTurn
//     records the turn.
//   - Anchor keeps the first K entries. Because the store keeps log entries
//     only from one sequence number on, the anchor cannot stay in the log
//     part of the transcript: its entries are copied verbatim (same kind,
//     role, time and body bytes) into the compaction's summary list, ahead
//     of the summary message. Later compactions find them there and copy
//     them again; the anchor never grows past the previous summary message.
//     Details.AnchorSeqs remembers the log Seqs of the copies.
//   - When nothing would be dropped (the tail and the anchor cover the
//     transcript, or only the previous summary lies between them) nothing is
//     written and Result.Reason says why.
//   - When the new summary would not make the transcript smaller than it was
//     (estimated), nothing is written either (ReasonNoGain).
//
// # Tool calls and their results
//
// No cut ever separates an assistant tool call from its results. ToolIDs
// reads, from an entry body, the call IDs it opens and the result IDs it
// answers, in OpenAI shape (tool_calls[].id; role "tool" with tool_call_id),
// Anthropic shape (tool_use / tool_result blocks), typed blocks of other
// providers (tool_call, function_call with call_id, function_call_output) and
// untyped zot/swink blocks (id+name+arguments or input is a call;
// tool_call_id, call_id or tool_use_id is a result). A result pairs with the
// nearest earlier call with its ID, so per-turn IDs such as "call_0" do not
// chain turns together. A cut before entry i is allowed only when no call
// before i is answered at or after i, and entry i is not itself a tool result
// (role tool or tool_result, or answering an ID) — so results without IDs
// stay with the call before them. The tail's cut moves earlier and the
// anchor's cut moves later until both are allowed, even beyond the budget:
// correctness wins over the token count. Parallel calls answered by several
// messages, possibly out of order and with custom entries between them, stay
// together.
//
// # Claude Code, Codex and pi
//
// Sessions imported from Claude Code, Codex and pi (Session.SourceFormat
// claude-code, codex, pi), and likewise from Gemini CLI and Qwen Code
// (gemini-cli, qwen-code), keep each line of the agent's own file as an
// entry: a message inside an envelope ({"type":"user","message":…},
// {"type":"response_item","payload":…}, {"type":"message","message":…})
// among bookkeeping lines (progress, snapshots, event_msg echoes,
// turn_context, model changes). Read as message objects they have no
// role, so no turn was ever found and every long session had "nothing to
// drop". Their entries are read with jsonlimport.Understand instead, the
// one understanding of each format's messages (issue 22): this package
// imports jsonlimport, which imports only the root package, so there is
// no cycle and no second parser. Every other format (picoclaw, zot,
// swink, sessions an application wrote) is read by ToolIDs' shapes as
// before. For these three formats:
//
//   - A turn starts at a user prompt as Understand reads it: a user
//     message with text that carries no tool result and is neither
//     bookkeeping (Claude Code isMeta lines and command wrappers, Codex
//     event_msg echoes) nor injected context (<environment_context>,
//     <system-reminder>, developer messages, compact summaries), nor a
//     summary message.
//   - KeepTurns starts the kept tail at a turn start where a cut is
//     allowed, and keeps the last N such turns; a transcript with no more
//     turns than that, or with no prompt to start a tail at (one giant
//     turn), is left alone with a reason that gives the counts. KeepTokens
//     starts it at a message boundary (not before a bookkeeping line, a
//     tool result or a later line of one streamed response) where a cut is
//     allowed, inside a turn when need be (a split turn, above): real
//     agentic sessions are a few prompts and hundreds of tool calls, and
//     keeping the whole last turn kept ~48,000 tokens of a 20,000 budget
//     (issue 38).
//   - Tool calls and results are Understand's (tool_use/tool_result
//     blocks, function_call/custom_tool_call and their outputs, toolCall
//     and toolResult messages), paired by call ID as above. Claude Code
//     writes parallel calls one tool_use line each and each result on a
//     line of its own, sometimes a result line before the tool_use line it
//     answers: such a result pairs with the first later call of its ID, so
//     no cut separates them either. No cut goes before a "message-part"
//     entry (a later line of one streamed response).
//   - An import may make the transcript copies of a resume path (Claude
//     Code branches and side chains: a compaction whose summary holds the
//     path and which keeps no log entry; Codex's own compactions). The kept
//     tail may then start among those copies: the compaction carries them
//     after the summary message as verbatim copies (Details.Tail counts
//     them), and the log is kept from the first log entry after them.
//   - The summary message is written in the format's own shape
//     (FormatSummaryMessage): a Claude Code "user" line marked
//     isCompactSummary, as Claude Code marks the summary that continues a
//     compacted conversation; a Codex response_item user message with an
//     input_text block, as Codex puts its summary into a compacted
//     thread's replacement history; a pi "message" line holding a user
//     message; a Gemini CLI user record (id "sessiondb-summary") or a Qwen
//     Code "user" record of one text part. Understand, `sessionctl show`, the viewer and the
//     cross-format export (which reads the effective transcript) read it
//     as a user message with the summary text; a Claude Code summary reads
//     as context. A pi compaction entry ({"type":"compaction"}) was not
//     chosen: cross-format export refuses those. An export into the
//     session's own format writes the file as imported, byte for byte
//     (jsonlimport's exporters write the imported log, not the
//     transcript): the compaction lives in the store, not in the agent's
//     file, and is never written there half. A Compactor.SummaryMessage
//     that builds anything else for these formats (a bare message object,
//     which cross-format export would refuse for Claude Code and pi and
//     leave out for Codex) is refused with ErrUnfitSummary (wrapping
//     sessiondb.ErrInvalid) and nothing is written.
//   - The summarizers read the entries the same way (Request.Format):
//     Offline lists Understand's prompts, tool names and last answer text;
//     OpenAI renders the entries with RenderFormat, without bookkeeping
//     lines.
//
// Measured with --budget 20000 on the twelve longest sessions of the real
// corpus (TestCompactCorpusBudget, offline): every one kept between 11,402
// and 19,986 tokens, each cut inside a turn, no call without its result;
// with the old rule (the tail at a turn start) two of them kept 57,273 and
// 35,308 tokens and one 21,053.
//
// Measured on the real corpus (TestCompactCorpusOwnShapes, --keep 2,
// offline; pi files are the pi exporter's translations of the corpus
// sessions, the repository holding no long real pi file): every session of
// more than 10 turns compacts (Claude Code 8 of 8, Codex 8 of 8, pi 19 of
// 19) with every tool call kept with its result (79, 72 and 122 pairs in
// the kept tails); of the shorter sessions, those with more than two
// turns compact and the rest say why not. TestCompactedExportsLoadInPi
// opens the compacted Claude Code and Codex sessions exported to pi with
// pi's own SessionManager: pi resumes the summary as the first (user)
// message and every kept call with its result.
//
// # Token estimate
//
// The default TokenCounter, EstimateTokens, counts per entry
// MessageOverheadTokens (4), plus one token per BytesPerToken (4) bytes of
// text, rounded up, plus ImageTokens (1000) per image block. Text is every
// JSON string value of the body — message text, reasoning, tool names and
// arguments, tool results, custom and rich entry payloads, summary messages —
// except opaque or non-text values (signature, thought_signature,
// encrypted_content, created_at, timestamp, time); tool arguments given as a
// JSON object count as their compact JSON. Image blocks (type image,
// image_url or input_image, or an untyped block with an image/* mime_type or
// media_type and data) count a flat ImageTokens whatever their size, since
// providers bill images by dimensions, not bytes; 1000 is about one
// 1-megapixel image. Set Policy.Counter to use a real tokenizer.
//
// # Summarizers
//
// A Summarizer receives a Request (the previous summary text, if any, and the
// newly dropped entries) and returns the summary text. Two are provided.
//
// OpenAI calls an OpenAI-compatible POST {BaseURL}/chat/completions (OpenAI,
// Ollama, llama.cpp server, vLLM) with net/http: a system message
// (SummarySystemPrompt) and one user message (UserPrompt: the previous
// summary in <previous-summary> tags, the entries rendered by
// RenderTranscript in <conversation> tags, each cut to 4000 bytes, and the
// instruction). Options left empty come from the environment: BaseURL from
// OPENAI_BASE_URL (default https://api.openai.com/v1), APIKey from
// OPENAI_API_KEY (no Authorization header when empty), Model from
// SESSIONDB_SUMMARY_MODEL (required). Each attempt has a timeout (2 min). A
// 429, a 5xx or a transport error is retried up to MaxRetries (4) times,
// waiting what Retry-After asks (seconds or an HTTP date, capped at 2 min) or
// else an exponential backoff (1s, 2s, 4s, … capped at 30s); any other
// status fails at once with an error naming the URL, the status and the first
// 512 bytes of the body. The response's usage is returned and recorded in
// the session's usage ledger with the compaction. TotalTimeout bounds a
// whole call, retries included (sessionctl compact --timeout, default 5m).
// Error messages show the URL with any user:password@ redacted, and the API
// key and that password are replaced by "[redacted]" wherever they appear
// (a server may echo the key in its error body).
//
// # Offline summaries
//
// Offline needs no network and is deterministic. Its text is exactly:
//
//	[Offline summary of N earlier messages]
//	Earlier summary: <previous summary on one line>   (only if not Offline's)
//	User requests:
//	- (K earlier requests omitted)                    (only if K > 0)
//	- <first non-blank line of each user request>
//	Tools called: <name> (<count>), …                 (first-use order)
//	Last assistant answer: <text of the last assistant message with text>
//
// with "User requests: none", "Tools called: none" and "Last assistant
// answer: none" when there is nothing to list. N counts every summarized
// entry (custom and rich entries included). Requests are user messages that
// are not tool results; each line is cut to 200 bytes and the 30 most recent
// are listed. Tool names are listed up to 40 (further ones count as
// "(other)"), with commas, parentheses and white space replaced by "_". The
// answer is the message text (not tool calls or reasoning) with white space
// collapsed, cut to 600 bytes; a foreign previous summary is cut to 1000.
// Cuts end with "…". Incrementally, an Offline previous summary is parsed and
// merged (counts added, requests appended, the answer replaced when the new
// entries have one) instead of nested; a split turn's summary (two Offline
// digests around the turn context) is read as one, and the file sections
// are left to the details. A turn's beginning (Request.TurnPrefix) is
// summarized in the same form. OpenAI ends the user message of a turn's
// beginning with TurnPrefixInstruction instead (pi's turn-prefix prompt).
//
// # Incremental summaries
//
// A compaction made by this package is recognised by its details
// ({"compactor":"sessiondb/compactor", …}). When the current compaction is
// one, the Request carries its summary text as Previous (the summary
// message's text without SummaryPrefix) and only the entries dropped since:
// the summarizer extends the summary instead of re-reading the history.
// Summary messages of other compactions (another tool's, or what a
// truncation kept of ours) are summarized like any entry.
//
// # Persistence
//
// Compact reads the session with LoadFull (one snapshot: transcript and
// Sequence), then the compaction list, plans, summarizes, and records one
// compaction with Store.Commit and ExpectSequence set to the Sequence it
// read: Summary = anchor copies + the summary message (DefaultSummaryMessage:
// {"role":"user","content":SummaryPrefix+text}, the format's own shape for
// Claude Code, Codex and pi, or Compactor.SummaryMessage) + tail copies
// (Claude Code, Codex and pi only), KeepFromSeq = the first kept log entry, AtSeq = the LastSeq read,
// TokensBefore/TokensAfter = estimated transcript sizes, Details = the
// Details struct (compactor, summarizer, model, anchor, anchor_seqs, tail,
// dropped range, incremental, previous_compaction, policy, attempts,
// split_turn, read_files, modified_files), plus the summarizer's usage rows
// if it reported them (two for a split turn). The session's free-text
// Summary field is not touched.
//
// # Conflicts and failures
//
// If anything committed to the session after the read (an agent appended a
// message while the model was summarizing), the commit fails with a
// sequence conflict and changes nothing. Compact then reads again, plans
// again, and reuses the summary it already has when the request is
// unchanged (same previous summary, same dropped entries byte for byte);
// otherwise it summarizes again. It tries MaxAttempts (5) times, then
// returns an error matching sessiondb.ErrConflict. The appended entries are
// never lost: they are in the log, after the cut. If the summarizer fails
// (or returns an empty summary), Compact returns its error and writes
// nothing: the session, its Sequence and its transcript are unchanged.
//
// # What a compaction dropped
//
// Files read and changed: the compaction's details list the files the
// summarized part read (and did not change) and changed
// (Details.ReadFiles, Details.ModifiedFiles, with those of the previous
// compaction it extends), as pi's compaction details do, and the summary
// text ends with them in pi's <read-files> and <modified-files> sections
// (files.go says which tools count). Files(c) returns them for this
// package's compactions and for pi's own; `sessionctl show` and the
// viewer show them with the turn a compaction cut into.
//
// Dropped(ctx, store, id, compactionID) answers it from the store: the log
// entries from the previous compaction's KeepFromSeq (1 if none) to this
// one's KeepFromSeq-1, minus the anchor entries this package carried along.
// It works for every compaction (truncations and SetHistory too), as long as
// Prune has not deleted the rows.
//
// # Agent loops
//
// MaybeCompact(ctx, id, threshold) estimates the transcript and compacts only
// when it exceeds threshold tokens; call it before every model request. Keep
// the threshold well above the tail the policy keeps, so that a compaction
// frees real room.
package compactor
