// Package scriptmodel is a scripted model server for tests and for the
// generator of the agents' corpus (testdata/gen/agents): the real coding
// agents (Claude Code, Codex, Gemini CLI, Qwen Code, pi, opencode) talk to
// it as to their model provider, write their real session stores, and
// resume from them, with no network beyond 127.0.0.1.
//
// # Protocols
//
// One server speaks, streamed and not, the four wire protocols those
// agents use:
//
//	POST /v1/messages                      Anthropic Messages (SSE message_start,
//	                                       content_block_start/delta/stop, message_delta,
//	                                       message_stop; thinking with signature_delta,
//	                                       tool_use with input_json_delta)
//	POST /v1/messages/count_tokens         {"input_tokens": body bytes / 4}
//	POST /v1/responses                     OpenAI Responses (response.created … output_item
//	                                       added/done, reasoning summaries, function calls,
//	                                       response.completed with usage)
//	POST /v1/chat/completions              OpenAI Chat Completions (deltas with
//	                                       reasoning_content, content and tool_calls; usage in
//	                                       a last chunk with no choices; data: [DONE])
//	POST /v1beta/models/M:streamGenerateContent (?alt=sse), :generateContent, :countTokens
//	                                       Gemini (thought parts, functionCall parts with a
//	                                       thoughtSignature on the first, usageMetadata on the
//	                                       last chunk)
//	GET  /v1/models, /v1beta/models        a short model list
//
// Anything else gets 404 with a JSON error, and is logged like the rest.
// A base URL of URL()+"/v1" fits the OpenAI clients; URL() fits the
// Anthropic and Gemini ones.
//
// # The script
//
// Every request is reduced to a Conversation (messages with their texts,
// tool calls and tool results; the tools offered; a structured-output
// schema), the same for every protocol, and Script.Play picks the answer:
//
//   - the latest prompt is the latest user message with a text of the
//     user's (not starting with "<": agents add reminders and environment
//     context as user text in tags) and no tool results;
//   - a tag [[name]] in it names the scenario; the step is found by the
//     number of tool results after the prompt (each step with calls
//     advances by its number of calls), so a resumed session, or a
//     conversation rebuilt from an edited store, continues where the
//     history says, not where the server's memory says (it has none);
//   - tool calls are abstract shell commands, made calls of whichever
//     shell tool the request offers (Bash, bash, run_shell_command,
//     shell_command, exec_command, shell, the Cline SDK's run_commands),
//     with the argument names its schema has (command or cmd, an argv
//     array where the schema says array, run_commands' list of command
//     lines, a description, other required properties filled in);
//   - a request that offers no tools is a side request (a title, a
//     summary): a short text; one that asks for JSON gets a document made
//     from its schema (an enum answers "user" where it can, so that Gemini
//     CLI's next-speaker check hands the turn back).
//
// DefaultScript holds the scenarios the corpus uses: hello (thinking and
// unicode text), tools (two parallel calls, a failing call, a long output,
// a final answer), parallel (two calls, then an answer: the live
// test's short session), long (a 6 KB answer), recall (quotes the first
// tagged prompt the model was sent: after a hand edit of the store and a
// resume, the answer says what the agent read back), agent (a call of
// the sub-agent tool the request offers — Agent, task, agent or
// invoke_agent, with the general-purpose agent type each knows — whose
// prompt plays sub) and sub (a shell call, then the answer, also as a
// call of complete_task where the request offers it: Gemini CLI's
// sub-agents return only that way). Every answer holds Marker.
//
// # Determinism
//
// Ids (messages, calls, responses) and token counts are functions of the
// scenario, the turn (prompts in the conversation) and the step (call
// ids of the sub scenario start with "sub", apart from the parent's), never of
// the request's bytes or of the order requests arrive in: the requests
// hold temporary paths and dates, and agents send side requests
// concurrently. Two runs of one script give the same answers and the same
// usage. Usage is reported per protocol as that protocol counts: Anthropic
// input_tokens exclude cache reads and writes; OpenAI (Responses and
// Chat) and Gemini input counts include the cached tokens; OpenAI output
// includes reasoning, Gemini's candidatesTokenCount excludes the thoughts
// (thoughtsTokenCount). Cache writes exist only in Anthropic's usage.
//
// # Bounds
//
// The server listens on 127.0.0.1 only (a port of the caller's or a free
// one); a request body over MaxBody gets 413; after MaxRequests it
// answers 429 and stops; with no request for IdleTimeout it stops by
// itself (Done is closed, Err says ErrStopped), so a test or a generator
// that dies leaves nothing listening for long.
//
// # The log
//
// Every request (method, path, query, protocol, the scenario, turn and
// step played, the status, the body as sent) is kept in memory
// (Requests, Len) and, with LogDir, appended to LogDir/requests.jsonl as
// it ends. What an agent sends after --resume is the proof of what it
// read back from its store.
package scriptmodel
