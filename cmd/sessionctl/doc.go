// Command sessionctl imports AI-agent session archives into a sessiondb
// database, shows, searches and exports sessions, runs read-only SQL, and
// maintains the database file.
//
//	sessionctl import ~/.picoclaw/workspace/sessions
//	sessionctl list
//	sessionctl show SESSION
//	sessionctl sql 'SELECT id, message_count FROM session_stats'
//
// Run "sessionctl help COMMAND" for each command's flags and examples.
//
// # The database
//
// Every command works on one database: --db, else $SESSIONDB_PATH, else
// $SESSIONDB_URL, else $XDG_DATA_HOME/sessiondb/sessions.db (an absolute XDG_DATA_HOME
// only), else ~/.local/share/sessiondb/sessions.db. Missing directories are
// created with mode 0700 and the file with 0600: transcripts are private.
// Only import creates a missing database (and migrates an older one);
// import --dry-run creates nothing: it reads an existing database
// read-only, and checks against an empty one in a temporary directory
// when the database does not exist (no file, no -search index, no lock
// at --db).
// Commands that only look (list, show, search, sql, stats, usage, export,
// doctor, checkpoint list, completion, serve, mcp, reprice --dry-run) open
// it read-only and change nothing: a
// missing file, someone else's SQLite file and a schema that needs
// "sessionctl migrate" are refused with a message saying so, untouched (no
// WAL switch). Commands that change existing sessions (rename, delete,
// prune, truncate, fork, compact, checkpoint create/restore), reprice,
// vacuum, reindex and migrate refuse a database that does not exist, so a typo in
// --db never leaves an empty file behind.
//
// An import ends with the database complete: what it wrote is indexed
// (lazyIndexer.CatchUpIndex, after the last commit) and scanned for
// secrets (importScan, a step at a time beside the import, finished after
// the last commit), so no later command pays for them: without it the
// process left the scan of a large import to whichever writer lived long
// enough (a watch), and `secrets` scanned that backlog again on every call
// (103 s at 4.7 million messages). The scan costs the import about 10 %
// more CPU and, on two cores, little wall time (470,000 messages, paired:
// 55-67 s either way). copy does neither: a copy's target catches up when
// it is next written.
//
// # Backends
//
// Each of those may be a file path (SQLite) or a postgres:// or
// postgresql:// URL (PostgreSQL). backend.go is the one place that maps the
// value to a store: the commands hold a sessiondb.Store and ask, through
// small interfaces defined there (readOnlyQuerier, vacuumer, backupKeeper,
// lazyIndexer, reindexer, schemaChecker, migrator, engineChecker,
// fileBacked), for what only some backends do; a backend without one says
// what replaces it (noter: "vacuum: on PostgreSQL the server's autovacuum
// does this; nothing to do"). Adding a backend adds a case and an adapter
// there, not a change to the commands. Read-only commands open PostgreSQL
// without migrating it; the server database itself always exists.
//
// # Copy
//
// copy --from A --to B moves every session between any two databases with
// sessiondb.Copier (DumpSession from one snapshot, PutSession in one
// transaction on the target, guarded by the target's sequence). The
// target is meant to be a copy of the source. A session already there is
// read whole and compared by sessioncopy.Compare: it is an earlier copy
// only if it was created at the same time from the same source and its log
// agrees with the source's entry for entry; otherwise it is another
// session under the same ID (a conflict: left alone and reported, exit 1,
// or with --rename-conflicts copied beside it as ID~hash). An earlier copy
// whose Sequence and LastSeq match is skipped, so a rerun after a kill
// copies only the rest; one whose counters are ahead was written there
// since and is left alone (reported, exit 1), since replacing it would lose
// those writes. A session the target refuses (ErrInvalid, ErrExists) is
// skipped and reported, and the copy goes on (exit 1). Deletions are not
// copied. Reading the target's session whole costs a second read per
// session on a rerun: identity is decided on the bytes, not the counters.
// --jobs sessions (3 by default) are copied at once, while the sessions in
// flight hold at most copyRowBudget log rows, and their outcomes are
// reported in the source's order; after the copy, a PostgreSQL target's
// planner statistics are refreshed (pgstore.Store.RefreshStatistics), as
// after an import.
//
// # Usage reports and prices
//
// usage reports the usage ledger per local day (default), month, session
// or model, as ccusage does for Claude Code: --tz (IANA name, default the
// local zone; tzdata is built in), --since/--until (local dates, both
// inclusive), --breakdown. The store groups calls by UTC quarter hour
// (sessiondb.UsageQuery.ByQuarterHour) and the command folds them into the
// zone's days with time.Location, which is exact for every zone in use
// (all are whole quarter hours off UTC) across DST; the day bounds of
// --since/--until are the instants of the local midnights (dayStart
// handles DST changes at midnight). With --tz UTC the days are
// usage_daily's and the sums equal its. Its --json uses ccusage's
// camelCase field names (inputTokens, cacheCreationTokens, totalCost,
// modelsUsed, modelBreakdowns, …) so that scripts written for ccusage
// read it; that is the one exception to snake_case below.
//
// Costs sessiondb estimated (Claude Code and Codex record none) come from
// jsonlimport's price table; import, reprice and usage take --prices FILE,
// else $SESSIONDB_PRICES, a file in LiteLLM's
// model_prices_and_context_window.json shape over the built-in table.
// reprice rewrites the stored estimates (sessiondb.Repricer, one
// transaction, never a recorded cost); usage --prices only reports with
// them.
//
// # Output contract
//
// Human output goes to stdout. Every listing (list, show, search, sql,
// stats, usage, reprice, checkpoint list, migrate status, doctor, import's
// report, export's files, version) has --json, which prints only JSON on
// stdout. Field names are snake_case (but usage's, see above) and stable; times are RFC 3339 in UTC. "show ID --json"
// prints the effective transcript as a JSON array whose elements are the
// stored message bodies byte for byte (never re-encoded). Times are in
// UTC.
//
// # Tables
//
// list, search and usage fit their tables to the terminal (table.go):
// the width is stdout's when it is a terminal; below compactWidth (100)
// columns they show compact views (ccusage's for usage: input, output,
// cost), and cuttable columns (titles, projects, model lists) are cut
// with "…", the widest first. IDs are never cut: they are what the other
// commands take; an ID wider than its column (picoclaw's 70-character
// sk_v1_ keys) gets a line of its own, its row on the next. usage session and search put what has no room beside
// the figures (a session's title, project and models; a hit's snippet) on
// a line of its own under the row. Numbers are right-aligned. Piped, or
// with --wide, every cell is whole on one line and no escape sequence is
// printed; search marks matches in bold only on a terminal. Other
// tables are aligned with text/tabwriter.
//
// # Messages and projects
//
// Messages are counted as Session.MessageCount counts them (one API
// response is one message; its further lines are
// sessiondb.KindMessagePart), in list, show's header and show's body,
// which prints a response's lines as one message (render.go). A session's
// project (Session.Project, its agent's working directory) is shown by
// list, show and usage session, filtered by --project (list, search,
// usage) and summed by usage project.
//
// Stored text is hostile to a terminal: titles, summaries, message text,
// snippets and sql cells come from archives, tool output and LLMs, and may
// hold ESC/CSI and OSC sequences (window title, OSC 52 clipboard), BEL, C1
// controls or bidi overrides. Human output passes them through visible(),
// which prints them as escapes (\x1b, \u202e); --json and --csv stay exact.
// rename refuses such characters in a title.
//
// # Secrets
//
// Commands whose output is read by someone else than the person at the
// terminal mask the secrets the store found (sessiondb's doc, "Secrets")
// as [REDACTED:rule]: mcp and serve always; show, search and list by
// default, with --no-redact for a person at a terminal (show --json then
// prints the stored bodies byte for byte again); export into an agent's
// format only with --redact, since an exact export is its contract, and
// export --format markdown|html (files for people to read and share) by
// default, with --no-redact; handoff writes the session as stored (it
// goes into an agent's store on this machine, as export does). backend.go's
// redactedView is the one place they get the view. secrets lists what
// was found, never a secret; scrub rewrites the stored bodies (--yes
// always) and doctor reports every scrub.
//
// # Errors and exit codes
//
//	0  success
//	1  error: the command failed (unknown session, unreadable file, write
//	   refused by sql, failed doctor check, …)
//	2  usage error: unknown command or flag, wrong arguments; nothing done
//	3  import finished, but some input had problems (the report lists them;
//	   the readable rest was imported, or nothing with --strict)
//
// An error prints exactly one line on stderr, "sessionctl CMD: what failed
// (what to do)", never a stack trace; the one exception is cobra's
// suggestion for a mistyped command, printed as cobra lays it out ("Did
// you mean this?" and one suggestion a line). An interrupt (Ctrl-C) stops
// at the next transaction boundary: what was committed stays, nothing is
// half-written. import says how far it got (files done of the total,
// sessions written) and that running it again continues: what it
// imported is found unchanged and skipped.
//
// # Confirmation
//
// delete, prune of several sessions (--all, --format, --source), and
// migrate down-to (which drops tables, and takes a backup first unless
// --no-backup), ask for confirmation on a terminal. When stdin is not a terminal they require --yes, and refuse
// with exit code 2 without it, so that a script neither deletes by accident
// nor hangs on a prompt.
//
// # Selecting by source
//
// delete and prune take --format (the source format sessions were
// imported from; none: written by an application) and --source (the file
// they were imported from, or a directory above it, made absolute as
// import records it) instead of IDs, and --dry-run, which lists the
// sessions selected and their count and changes nothing
// (selectsessions.go). That is how the README's demo sessions, or one
// archive's, leave a database without naming 35 IDs.
//
// # Progress
//
// import and copy draw a progress bar on stderr when stderr is a terminal, so that
// stdout stays clean for --json and pipes; otherwise it prints only the
// summary.
//
// # Read-only SQL
//
// sql runs exactly one statement on the store's read-only connection pool
// (query_only): a statement that writes is refused by SQLite and reported as
// such. ATTACH, DETACH, VACUUM (INTO) and PRAGMA assignments are refused
// before they reach the database, since SQLite creates the files of the
// first two even on a query_only connection. A script of several statements
// is refused too, because the driver would run all of them and one could
// switch query_only off. PRAGMA x(v) is an assignment too and is refused,
// except the table_info-style pragmas whose argument names what to read.
// Rows are streamed (the table aligned 1000 rows at a time) so a large
// result does not have to fit in memory, table cells are clipped before
// they are formatted, and --timeout bounds a query.
//
// On PostgreSQL the statement runs in a READ ONLY transaction that is
// always rolled back, with --timeout also set as the transaction's
// statement_timeout, so the server stops a runaway query even when the
// client is gone.
//
// # Watch
//
// watch (and serve --watch, which runs it beside the viewer in one
// process) is the one long-running writer: it opens the database like
// import (created when missing), runs package watch until SIGINT or
// SIGTERM, and exits 0 when stopped that way; it stops between
// transactions. Its log is for a service manager: a quiet line per new
// session, deletion, problem and fallback, appends summarised at most once
// a minute (the summary's timer runs only when there is something to
// say); --verbose logs every file, --json prints one object per event on
// stdout (watch.go: watchEventJSON). Problems never change its exit code:
// it keeps following. docs/sessiondb-watch.service and
// docs/dev.sessiondb.watch.plist run it as a user service.
//
// # Time travel
//
// checkpoint restore forks a new session as of the checkpoint by default;
// with --in-place it rewinds the session itself. Both are one store
// transaction (Store.Restore): a rewind appends the transcript at the
// checkpoint again and makes it current with a compaction, and sets the
// state to the checkpoint's; the abandoned history stays in the log until
// pruned.
package main
