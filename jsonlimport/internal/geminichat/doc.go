// Package geminichat holds what the readers of Gemini CLI's and Qwen Code's
// session files share (jsonlimport/gemini and jsonlimport/qwen; format
// packages never import each other, so the shared part lives here).
//
// # Why they share
//
// Qwen Code began as a fork of Gemini CLI. Both keep the model's messages
// in the shapes of Google's @google/genai SDK: a Content
// {"role": "user"|"model", "parts": [Part…]} whose parts are text (a
// thought when "thought" is true), functionCall {id, name, args},
// functionResponse {id, name, response}, inlineData, fileData,
// executableCode and codeExecutionResult. Read turns a part list into a
// jsonl.Message.
//
// Both also wrote, in older versions, one whole JSON document per chat,
// JSON.stringify(conversation, null, 2) of Gemini CLI's ConversationRecord
// {sessionId, projectHash, startTime, lastUpdated, messages: [MessageRecord…],
// summary?, directories?, kind?}, rewritten whole after every change:
// Gemini CLI up to 0.38 (~/.gemini/tmp/<project>/chats/session-<minute>-<id8>.json,
// observed with 0.38.2) and Qwen Code around 0.1
// (~/.qwen/tmp/<sha256 of the project path>/chats/…, observed with 0.1.3).
// A MessageRecord is {id, timestamp, type, content, …}: type "user", the
// assistant's type ("gemini" for Gemini CLI, "qwen" for Qwen Code), or
// "info", "error", "warning" (shown to the user, never sent to the
// model); the assistant's records carry thoughts [{subject, description,
// timestamp}], tokens {input, output, cached, thoughts, tool, total} (the
// response's usageMetadata), model, and toolCalls [{id, name, args,
// result, status, …}]. UnderstandRecord reads one record; ParseLegacy
// reads a whole-JSON chat and RenderLegacy writes one back byte for byte.
//
// # Whole-JSON chats as entries
//
// A whole-JSON chat has no lines. ParseLegacy makes its entries so that
// the file can be written back: entry 1 (Kind "session") is the
// top-level object, compacted, its members in the file's order, with the
// messages array left empty ([]); then one entry per message, its JSON
// compacted (the bytes of every string and number kept as written).
// RenderLegacy puts the messages back into the array and indents the
// document as JSON.stringify(…, null, 2) does (json.Indent with two
// spaces lays JSON out the same way), without a trailing newline, as
// both agents write it. A message's Kind is "message" for the user's and
// the assistant's records, its type for the others.
//
// # Usage
//
// Tokens maps a record's tokens, or Qwen Code's usageMetadata, onto a
// usage row: input excludes the cached tokens (CacheReadTokens), as in
// the other formats, and output counts the thoughts when the agent's total
// shows that its output count does not (Gemini's candidatesTokenCount
// excludes thoughtsTokenCount; an OpenAI-compatible provider's
// completion_tokens, which Qwen Code reports as candidates, includes its
// reasoning tokens). Either way the row's input, cache read and output
// add up to the agent's total.
package geminichat
