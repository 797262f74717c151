// Package viewer is the read-only web viewer behind `sessionctl serve`: a
// net/http Handler over any sessiondb.Store (it never imports a backend),
// with html/template pages, one small hand-written script and stylesheet
// embedded with embed, and a JSON API. Nothing is fetched from the network
// and nothing is built: the binary holds every asset.
//
// # Pages and API
//
//	/                     sessions, newest first, ListPageSize per page (store cursor);
//	                      ?q= (title, alias, project; an exact ID or alias through Resolve),
//	                      ?project= (the sessions' working directory, the store's filter),
//	                      ?format=, ?since=, ?until= (YYYY-MM-DD, on UpdatedAt),
//	                      ?parent=ID (the forks of that session)
//	/s/{id}               a transcript, TranscriptPageSize log positions per page
//	                      (?from=, ?at=SEQ, ?all=1 for superseded turns)
//	/s/{id}/raw/{seq}     the stored body of one entry, byte for byte, as text/plain
//	/search?q=            search across everything (?project=), snippets with <mark>
//	                      (sessiondb.SplitSnippet), links to the entry
//	/usage[?session=]     tokens and cost per day and per model: SVG bar charts and tables
//	/api/sessions         = sessionctl list --json (?q=, ?parent=, ?limit=, ?cursor=; next cursor in X-Next-Cursor)
//	/api/sessions/{id}    = the "session" object of sessionctl show --json --state
//	/api/sessions/{id}/transcript  = sessionctl show --json, a page at a time: TranscriptAPIPageSize
//	                      log entries (?limit= up to MaxTranscriptAPIPage), the next page's ?from=
//	                      in X-Next-From; ?last=N, or ?from=&to= log positions
//	/api/search?q=        = sessionctl search --json (?session=, ?role=, ?kind=, ?limit=)
//	/api/usage?by=        usage rows grouped by session, model and/or day
//
// The JSON types mirror the CLI's (package main cannot be imported);
// cmd/sessionctl's TestServeAPIMatchesCLIJSON checks that both encode the
// same fields. API responses escape <, > and & as \u003c… (the CLI does
// not): same values, safer bytes in a browser.
//
// # Paging
//
// A transcript page is one Store.Entries range, so the first page of a
// 100,000-entry session costs what a short session's does; the effective
// transcript starts at the latest compaction's KeepFromSeq, whose summary
// is shown above the first page. ?all=1 starts at #1, marks superseded
// turns and shows each compaction where it cut. The session is read with
// sessiondb.SessionLookup when the store has it (Resolve and Get in one
// call, without Get's count of the log's rows, which alone cost more than
// the page's Entries on 100,000 entries); with Resolve and Get otherwise.
// The page also lists the session's newest maxForksShown forks (one
// Store.List with ParentID), each linking to the entry it was forked at,
// and links to /?parent=ID for all of them.
//
// The list is one Store.List page with ListOptions.Usage: the store sums
// the page's usage ledger in the same read (one query, not one
// UsageTotals per row); a store that leaves SessionInfo.Usage nil is
// asked row by row. The format and date filters are not indexed by the
// store: they are applied to the rows read, reading further store pages
// until the page is full, the dates run out (rows are newest first), or
// maxListScan rows were read.
//
// # One message, one card
//
// The further lines of one streamed API response (KindMessagePart, Claude
// Code's one line a content block) are shown in the card of the message
// they continue (mergeParts, before pairCalls), as MessageCount counts
// them: four parallel tool calls are one assistant card. Each line keeps
// its anchor (#eN, search results link there; app.js marks the card) and
// its raw link. A tool call's summary line says what it ran
// (jsonl.ToolCall.Summary: the command, the file path) before it is
// opened.
//
// # Slow clients
//
// Any web page the user visits can make the browser start requests to
// the viewer (no-cors fetches carry Host: 127.0.0.1), and a client may stop
// reading. So: at most Options.MaxRenders requests are answered at once
// (static files aside); a request that finds no free slot within
// Options.RenderWait is answered 503 with Retry-After. The transcript API
// answers a page (TranscriptAPIPageSize entries by default) and streams
// it: entries are read a chunk at a time (about 1 MiB of bodies, at least
// one entry) and each write has Options.WriteStall to complete, so a
// client that stops reading is cut off and frees its slot, and the server
// never holds a page's entries or its JSON whole; a transcript page (HTML)
// holds its TranscriptPageSize entries. NewServer (what sessionctl serve
// runs) bounds reading headers, writing an answer and idle keep-alive
// connections. TestSlowClientsHoldBoundedMemory measures it: 8 clients
// that request a 24 MiB transcript and read nothing grew the live heap by
// 13-20 MiB (431 MiB before).
//
// # Cost
//
// BenchmarkListFirstPage and BenchmarkTranscriptFirstPage time each page
// against the store call under it in the same loop (figures and profile
// in BENCHMARKS.md, "Issue 17: viewer"; SQLite, 2 shared cores, medians
// of 3 runs, two sets). On 10,000 sessions, what the first list page
// reads costs 1.5-1.6x one Store.List (0.53 vs 0.34 ms) and rendering its
// 50 rows about 1 ms: the page is 3.0-3.2x. For the first page of a
// 100,000-entry transcript the reads (Lookup, Compactions, Entries,
// ListCheckpoints, the forks' List) cost 1.5-1.6x its Store.Entries call
// (0.37 vs 0.24 ms) and rendering 100 entries 2.4-2.9 ms (parsing bodies
// and rendering markdown in sessionData.present, ~0.7 ms; the rest is
// html/template, whose escapers run as reflective calls): the page is
// 7.3-7.7x. Both meet issue 17's target of at most 2x the store call
// plus rendering. The JSON API is 1.4x (list) and 1.1-1.2x (transcript)
// its store call.
//
// # Safety
//
// Transcripts are hostile text. Every value goes through html/template;
// markdown is rendered by goldmark (markdown.go: CommonMark with GFM
// tables, strikethrough and autolinks) with the renderers of raw HTML,
// links, images, headings and code replaced: raw HTML in a transcript is
// shown as escaped text, only absolute http(s) URLs are links, images are
// never loaded. Against goldmark's quadratic scan of unterminated link
// destinations ("[a](" repeated: 8 s for 64 KiB), a "](" whose
// destination does not end within 512 bytes is escaped first.
//
// What a body says (text, thinking, tool calls and results, bookkeeping,
// injected context) is jsonlimport.Understand's reading under the
// session's source format, shared with `sessionctl show` and the MCP
// server. Bookkeeping lines and result entries shown inside their calls
// are hidden behind a toggle, and a transcript page reads past them until
// it holds TranscriptPageSize messages (at most maxPageScan entries).
// Markdown through goldmark costs about 3x the former hand-written subset
// (BenchmarkMarkdownLarge, 64 KiB of real assistant text: 6.7-8.5 ms
// against 1.9-2.8 ms) and renders what the subset got wrong (reference
// links, nested lists, code inside lists). Each rendered page is passed
// through visible, so bidi overrides and control characters show as \u202e
// escapes. Images are never loaded. Bodies are clipped to 64 KiB per block
// in pages, and a page reads at most 1 MiB of each body
// (sessiondb.EntriesClipped, maxBodyRead): a longer body is shown as its
// prefix's JSON text, clipped, with its full size; the raw endpoint serves the rest as text/plain under a
// "sandbox" CSP. Every response carries a strict Content-Security-Policy
// (scripts and styles from 'self' only: no inline script, no inline
// style), nosniff, frame denial and no-referrer.
//
// Secrets found in the store (see "Secrets" in sessiondb's doc) are
// shown as [REDACTED:rule] on every page, in every API answer and in the
// raw body endpoint: New reads a store that keeps them through its
// Redacted view unless Options.ShowSecrets (sessionctl serve never sets
// it). Pages are shared and screenshotted; a person who needs the stored
// text has sessionctl show --no-redact.
//
// Only GET and HEAD are served: no endpoint writes, and the CLI opens the
// store read-only as well. Without Options.Remote, requests whose Host is
// not localhost or a loopback IP are refused (421), which defeats DNS
// rebinding; with Options.Token every request needs the token (?token=
// once, then an HttpOnly SameSite=Strict cookie, or a Bearer header). The
// redirect that drops ?token= goes to the request's path cleaned to one
// local absolute path (localTarget): "//evil.example/" would otherwise be
// a protocol-relative redirect to another host.
// `sessionctl serve` listens on loopback unless --allow-remote, and then
// generates the token.
package viewer
