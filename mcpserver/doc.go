// Package mcpserver is a read-only Model Context Protocol server over any
// sessiondb.Store, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): the server behind `sessionctl
// mcp`, which lets coding agents (Claude Code, Codex, pi, any MCP client)
// search and read their own past sessions. It never imports a backend:
// the same server runs on a SQLite file and on PostgreSQL.
//
// # Tools
//
// Each tool has a typed input and a structured output (the SDK's generic
// AddTool infers both JSON schemas from the Go types in this package); the
// text content of a result is the same JSON.
//
//	search           query, session, project, role, kind, format, since, until, limit, cursor
//	                 → hits {session_id, session_title, format, seq, kind, role, time, snippet, score}
//	                 (snippet: plain text, each match between « and »)
//	list_sessions    query, project, format, since, until, parent, limit, cursor
//	                 → sessions {id, title, aliases, format, project, parent_id, fork_seq, times, counts, usage}
//	read_transcript  session + one of: (nothing) the effective transcript from its start,
//	                 last N, from_seq/to_seq, around_seq/context, entry_seq; include_bookkeeping, cursor
//	                 → messages {seq, role, kind, time, text, thinking, tool_calls {…, result}, tool_results}
//	session_info     session → metadata, counts, parent, forks, compactions, checkpoints, usage
//	usage            by (day, model, session, project: one name, names joined by commas, or a list),
//	                 session, project, since, until, limit, cursor
//	                 → rows, row_count, total
//
// Options.Status lets the program that runs the server say something about
// the store as a whole: `sessionctl mcp` started before the first import
// serves an empty store and says, in the instructions and in the notes of
// list_sessions, search and usage, that the database does not exist yet.
//
// Each session is also a resource, sessiondb://session/{id} (a resource
// template; the ID percent-encoded, see SessionURI), whose contents are
// the first page of read_transcript as JSON.
//
// # Bounded answers
//
// Every result has a size budget: max_bytes, default DefaultMaxBytes (24
// KiB, about 6,000-8,000 tokens), settable from MinMaxBytes to MaxMaxBytes
// (256 KiB). The budget bounds the structured content, the JSON object
// the tool returns; the SDK repeats it as the text content, which is what
// most clients hand the model. A result that stopped early says so
// ("truncated": true, a "note") and returns "next_cursor"; passing it back
// as "cursor" goes on where it stopped. Cursors are opaque, carry the
// query and the position, and name their tool (a cursor given to another
// tool is refused).
//
// read_transcript reads the log a chunk of entries at a time
// (sessiondb.EntriesClipped over a range of seqs), never the whole
// session, and of each body at most its first MiB (maxBodyRead): a body
// longer than that is given as the text of its prefix (no longer JSON),
// clipped like any text, with clipped: true and bytes its full size, so
// that memory follows the page, not the bodies (16 entries of 60 MB: 0.9
// GB of RSS before, 55-120 MB after; see EntriesClipped in
// internal/engine for how secrets across the cut stay masked). It
// stops at the budget: a 100,000-entry session answers in pages of at
// most max_bytes, whatever its length (the tests walk all 100,000 entries
// through 680 pages of at most 24 KiB). A text longer than a quarter of
// the budget (a message, thinking, tool arguments, a tool result) is cut
// and marked "clipped"; read_transcript entry_seq returns that entry's
// stored body whole, max_bytes at a time, so a 60 MB tool result is read
// in pieces or not at all (that read still takes the body whole from
// the store, once per piece). One call reads at most 5,000 entries (a run of
// bookkeeping lines ends a page early with a cursor).
//
// # Tool calls with their results
//
// Entries are read into messages (role, text, thinking, tool calls, tool
// results) by an Understander (Options.Understand); a result whose call is
// in the same answer is folded into that call ("result"), and its entry
// is not repeated. A result whose call is on an earlier page comes alone
// in "tool_results" with its call_id. Bookkeeping lines (Claude Code
// progress and snapshots, Codex event_msg and turn_context, pi model
// changes) are skipped unless include_bookkeeping; the answer counts them.
//
// The server does not look inside a body itself: jsonlimport.Understand
// is the one understanding of each format's messages (issue 22), shared
// with the viewer and `sessionctl show`, and the session's source format
// picks the format's reading; Options.Understand can replace it in tests.
//
// # Hostile text stays data
//
// Transcripts hold text written by others and by tools, including text
// that addresses the model ("ignore previous instructions"), fake
// tool-call markup and whole JSON-RPC messages. It is only ever returned
// inside JSON string values of the structured content, never as the
// tool's own words; the server's own text is the fixed "note", the tool
// errors (which name a session only quoted, %q, and quote none of its
// text) and the instructions given at initialization, which say so. How
// it holds for every tool and the session resource: each answer is one
// Go value encoded by encoding/json (the SDK's text content is the
// structured content's JSON, and the resource's text is the same
// encoding), so stored text can only be a string value — its quotes,
// backslashes and newlines escaped (a newline would end a frame on
// stdio), and <, > and & written \u003c, \u003e, \u0026, so markup
// shows as data; no stored text is a key (usage's rows are a list,
// not an object keyed by model), and no stored text goes into a note or
// an error. TestHostileTranscriptsStayData calls every tool and reads the
// resource over a session made of such text in every field a tool reads
// (title, summary, attrs, messages, tool calls and results, thinking, a
// compaction summary, a checkpoint label, a usage row's model, a fork),
// and checks each answer: one JSON object, every hostile marker inside a
// string value, none in a key or a note, no raw newline, control
// character or bracket. TestHostileTranscriptOnTheWire reads it over the
// stdio transport: one line per answer, each the response to its
// request, no message of the transcript's becoming a frame.
// Control characters, C1 controls, bidi marks and invalid UTF-8 in any
// value taken from the store (titles, IDs, aliases, messages, snippets,
// error messages that quote the caller) are made visible (\x1b, \u202e)
// by internal/safetext, the rule the CLI prints with. Errors are MCP tool
// errors (isError) with one line that says what to change; a panic in a
// handler is recovered into a tool error, and the server keeps serving.
//
// # Secrets
//
// Secrets found in the store (see "Secrets" in sessiondb's doc) never
// reach the client: New reads a store that keeps them through its
// Redacted view, so every tool and the resource return [REDACTED:rule]
// where a secret was, and a search hit whose terms occur only inside a
// secret is not returned (a model could otherwise probe for a key one
// character at a time). Options.ShowSecrets turns this off, for tests
// and tools that need the stored text; sessionctl mcp never sets it.
//
// # Transports and safety
//
// Run serves one client over stdio (end of input or a cancelled context
// ends it cleanly). StdioTransport reads the client's lines: one that is
// not a JSON-RPC message (not JSON, bytes after the message, a batch
// where the negotiated version has none, a line over 1 MiB) gets a
// -32700 or -32600 error and the session goes on, where the SDK's own
// transport would end it. At the end of input it answers every request
// passed in before it ends (a script's printf … | sessionctl mcp gets
// all its answers; a minute without an answer ends the wait).
// HTTPHandler serves the streamable HTTP transport
// behind internal/httpguard, the Host and token rules of `sessionctl
// serve`: without HTTPOptions.Remote only Host headers naming loopback are
// served (421 otherwise: DNS rebinding), with Token every request needs
// "Authorization: Bearer TOKEN"; the standard library's cross-origin
// protection refuses a browser's cross-site POST, request bodies are
// capped at 1 MiB and must arrive within HTTPOptions.BodyTimeout (30 s;
// the connection of a slower client is cut), at most
// HTTPOptions.MaxSessions sessions are open at once (64: one more is
// refused with 503 Service Unavailable and Retry-After, rather than an
// open session evicted under its client) and idle MCP sessions end after
// 30 minutes. The server
// only reads the store; `sessionctl mcp` opens it read-only as well (a
// SQLite file with query_only connections, PostgreSQL with
// default_transaction_read_only).
//
// # Not offered, and why
//
//   - No tool writes (no fork, compact, delete, rename): an agent reading
//     its history must not be able to rewrite it, and a hostile transcript
//     must not be able to make it try.
//   - No raw SQL tool: `sessionctl sql` is for people; a model-written
//     query has no size bound and, on PostgreSQL, a reach the issue 23
//     work is still closing.
//   - No state or interrupt documents: they are the agent's own private
//     working data, often large, and say nothing a transcript does not.
//   - resources/list is empty: a store may hold tens of thousands of
//     sessions; clients find them with list_sessions and search and read
//     them through the template.
//   - No prompts, sampling, elicitation, completion, subscriptions or
//     list-changed notifications: nothing here needs the client's model or
//     user, and the tools do not change.
//   - Search pages are Store.Search pages (offset-based). For terms found
//     in more than about a thousand entries the SQLite store ranks the
//     newest candidates and widens that window for deeper pages, so deep
//     pages of a very common term may repeat or skip hits; narrow the
//     query (session, role, dates) instead.
package mcpserver
