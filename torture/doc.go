// Package torture is sessiondb's torture suite: a randomized multi-process
// crash workload checked against an oracle, full disks, read-only storage,
// hostile database files, hostile import files, and the fuzzing harness.
// It exists to catch the bugs a storage engine must not have — a lost
// acknowledged write, a torn commit, state and transcript from different
// revisions, a panic or hang on bad input — with real processes, real
// SIGKILLs and real file-system failures.
//
// Everything runs under plain `go test ./torture/` (about 30 s, under a
// minute with -race). The non-test code of the package is what the child
// processes run: the test binary re-executes itself with TORTURE_ROLE set
// (TestMain dispatches to ChildMain), except under -race, where the tests
// build internal/cmd/tortureworker without the detector so that children
// run at production speed and report their true memory.
//
// # The crash workload (TestCrashWorkload)
//
// A driver starts K worker processes (-torture.workers, default 3) on one
// database. Each runs several goroutines (-torture.goroutines, default 4)
// doing random operations on shared sessions: SaveFull (create; replace
// with fresh messages; replace with the current transcript plus new ones,
// which the store appends as a tail only), Append, Commit with
// ExpectSequence (append + state + interrupt + usage), Truncate, Compact
// with summary messages, Fork (now or at an earlier position), Delete,
// SaveState, SaveInterrupt, ClearInterrupt, LoadFull and Search, and
// jsonlimport.Import of a private copy of a picoclaw sample
// (testdata/picoclaw). The first Opens race to create and migrate the
// database. The eight oldest sessions are never deleted, so that their
// logs grow long; the others come and go. Incarnations alternate
// DurabilityFull and DurabilityNormal: both promise to survive a process
// crash. Every few hundred milliseconds the driver SIGKILLs a random
// worker, stops the others (SIGSTOP, waiting until every thread is
// stopped), runs the checker, resumes them and restarts the killed one; at
// the end it kills all, checks again, and writes once more to prove the
// database still works.
//
// Each worker keeps an oracle log per incarnation (oracle-wN.M.jsonl): an
// "intent" line before each operation and an "ack" or "fail" line after
// it, each fsynced, the ack written only after the store returned. An op
// with an intent and no outcome was in flight when its process died: it may
// or may not have committed. Bodies, state and interrupt documents are
// self-describing: they carry the op, session, part k of n and a hash, and
// are a pure function of those, so the checker regenerates them and
// compares byte for byte.
//
// Sessions come in two kinds. "u-" sessions take every operation. "p-"
// (paired) sessions are created by SaveFull with a state describing its
// messages, or by a fork taken at the current position (which copies
// transcript and state together), and are then only written by
// read-modify-write commits at the sequence read: append and/or
// compaction and/or transcript replacement and/or interrupt change, plus a
// state document that records the length and digest of the transcript it
// was committed with and the sequence of its commit. SaveFull is not used
// on existing paired sessions: it recreates a session deleted meanwhile,
// and an ExpectSequence read before the delete would then match the new
// session (see TestExpectSequenceAcrossRecreate).
//
// # Invariants checked
//
// After every kill (workers stopped) and at the end (workers dead), with a
// fresh sqlstore.Open:
//
//   - PRAGMA integrity_check is "ok" and PRAGMA foreign_key_check is empty.
//   - Seqs are contiguous: Entries returns exactly 1..LastSeq (the
//     workload never prunes).
//   - Every body in the log is byte-identical to what its op wrote, and
//     its op has an intent in some oracle log (no phantom writes) and did
//     not fail (a write that returned an error left nothing).
//   - All or nothing: the bodies a commit appended to its own session
//     appear all together, contiguous and in order, or not at all —
//     whether or not the commit was acknowledged; and across the parts
//     of a commit: when its state, interrupt or compaction is visible, so
//     are the entries it appended.
//   - Every acknowledged append is in the log at the seqs its returned
//     LastSeq implies, unless a delete of the session may have committed
//     after it (session IDs are only reused when SaveFull recreates a
//     deleted session; writes that overlap a delete are not required).
//   - Sequence and LastSeq are at least the highest acknowledged ones.
//   - When an acknowledged op that knew its resulting transcript made the
//     session's current revision, the transcript has that digest.
//   - The effective transcript (LoadFull) equals the latest compaction's
//     summary followed by the log from its KeepFromSeq; every compaction
//     an op recorded has exactly that op's summary messages; every
//     acknowledged compaction is there with the KeepFromSeq asked for.
//   - State and interrupt: the document present is the one of the
//     acknowledged write with the highest Sequence, or of a write that may
//     have committed after it (in flight when that one started, or
//     overlapping a delete); a cleared interrupt is absent; a fork starts
//     with its parent's state and no interrupt.
//   - Paired sessions: state and transcript come from the same revision —
//     the state's recorded length and digest match LoadFull's transcript,
//     and its recorded sequence matches the session's. Workers check this
//     on every snapshot they read as well, under concurrent writers.
//   - Forks record their parent and fork position, and their copied
//     entries equal the parent's log at that position.
//   - Deleted sessions stay deleted unless a SaveFull may have recreated
//     them; a session missing without such a delete is a lost session.
//   - Imports: every imported session equals the sample's transcript as a
//     private import gives it (never partial) and is booked with its
//     source record; every acknowledged import left its record, a failed
//     one none.
//   - Workers report no unexpected errors: the only failures allowed are
//     ErrConflict, ErrNotFound, ErrInvalid and ErrExists where the
//     workload provokes them.
//
// TestCheckerCatchesTampering proves the checker is not vacuous: it
// damages copies of a workload's database (a lost append, a torn commit, a
// rewritten body, a stale state, a lost session, a phantom write, a
// partial import, half a commit, lost state and interrupt writes) and
// expects each to be reported.
//
// # Seeds, replay and soak
//
// The seed (-torture.seed or $TORTURE_SEED; random by default) fixes the
// kill schedule and every worker's choices; it is printed at the start and
// with every failure, together with the command that replays it:
//
//	go test ./torture -run TestCrashWorkload -v -torture.seed=N -torture.duration=20s
//
// Process interleavings still vary from run to run, so a replay explores
// the same operations, not the same schedule. A failed run keeps its
// database (as the checker saw it), oracle logs, worker logs and worker
// death times in a directory it names; the checker runs again on it with
//
//	go test ./torture -run TestCrashWorkload -v -torture.recheck=DIR
//
// The default duration is 20 s ($TORTURE_DURATION or -torture.duration).
// The soak:
//
//	go test ./torture -run TestCrashWorkload -v -timeout 0 -torture.duration=30m -torture.workers=4
//
// ci.sh runs the workload for a minute with a fixed seed and a minute with
// a random one, then fuzz.sh.
//
// # Full disk and read-only storage
//
// TestFullDiskRlimit runs a writer in a child with RLIMIT_FSIZE lowered
// (SIGXFSZ ignored) at several limits, so that write(2) fails with EFBIG
// at different points of a commit: the write must fail with
// sessiondb.ErrFull, reads must keep working, the failed commit must leave
// nothing, every earlier commit must survive, and writing must work again
// once the limit is raised (in the same process) or in a new process.
// TestFullDiskTmpfs does the same on a 2 MiB tmpfs (ENOSPC) in a private
// mount namespace and grows the file system to recover.
//
// TestReadOnly opens and writes databases on storage that cannot be
// written. Tests run as root, where permission bits do not stop writes, so
// read-only storage is made with a read-only tmpfs (directory), a
// read-only bind mount (file) and chattr +i, and permission bits are
// tested in a child running as uid 65534. Open must fail with
// ErrReadOnly, or open for reading and fail writes with ErrReadOnly; and
// a read-only Open (Options.ReadOnly, what the read commands use) must
// open and read the database on every such storage (issue 23 item 6:
// SQLite needs a -shm beside a WAL database, so it falls back to
// immutable=1). A
// database path that is a directory, or below a regular file, must fail
// with ErrInvalid.
//
// # Hostile files
//
// TestHostileDatabaseFiles damages a database: bytes flipped in the header
// and in pages, pages zeroed or randomised, the file cut at many lengths,
// replaced by text, JSONL, random bytes, NULs or a gzip stream, a garbage
// WAL beside it. Opening and using it must never panic or hang, every
// error must match a sessiondb sentinel (ErrCorrupt for damage), a file
// that is not SQLite must be refused by Open with ErrCorrupt, and damage
// that Open lets through must be visible to PRAGMA integrity_check or to
// the reads (payload bytes, which SQLite does not checksum, may go
// unnoticed; the test logs how many). TestOpenRefusesNonDatabaseFile
// checks that Open never rewrites a non-database file.
//
// TestHostileImports feeds each reader (picoclaw, zot, swink, Claude Code,
// Codex, pi, and format detection) random bytes, a 2 GiB sparse file, a 100 MB line, JSON nested
// 100,000 deep (arrays and objects), invalid UTF-8, CRLF line ends and NUL
// runs, in a child process that reports its peak RSS (VmHWM). The import
// must not crash or fail as a whole, must report problems, must stay under
// 512 MiB, must import every valid line around the damage, and must leave
// a sound database whose sessions are complete and booked with their
// source records. A 60 MB line (under the 64 MiB MaxLineSize) must import,
// within 1 GiB (a few copies of the line, not of the file).
// TestConcurrentImportsOfOneSession imports copies of one session at
// several paths at once: each must land. TestHostileClaudeCodeGrowth
// imports a Claude Code transcript of one response with 5,000 parallel
// tool calls (the 2.1 shape taken to an extreme: every block its own
// line, every result hanging off its own tool_use line) at eight prefixes
// cut mid-line, then whole: each line must be in the log once, the
// response and its results must be one message each, the usage one call
// with its final report, as in a one-shot import.
//
// TestHostileCopies fills 40 sessions with random text PostgreSQL cannot
// hold as it is (NUL, bytes that are not UTF-8, U+FFFF and backslash
// escapes, in titles, summaries, bodies, roles, attrs, state, usage and
// checkpoint labels) and runs the real sessionctl copy, in its own
// processes, SQLite → PostgreSQL → SQLite: every dump must come back
// byte-identical. It then copies them into a target holding other sessions
// under the same IDs (the same Sequence, sometimes the same LastSeq): all
// are conflicts, the target must not change, and --rename-conflicts must
// put each source session beside its namesake, unchanged on a rerun.
//
// # A live mirror under faults (TestWatchFaults)
//
// The test grows the session files of all six formats (the samples under
// testdata, in their agents' layouts) chunk by chunk at random cut points,
// a quarter of them inside a line, and writes side files whole by rename,
// for TORTURE_WATCH_DURATION (6 s), while on one database two `sessionctl
// watch` processes follow the tree, `sessionctl import` of the tree runs
// again and again for two thirds of the run (the watchers alone must
// finish), and a third watcher is SIGKILLed every 0.1-0.7 s and
// restarted. Once the watchers have caught up, they are stopped with
// SIGTERM (each must exit 0 with a "stopped" event and no "error"), and
// the database must hold what one import of the final files gives: logs
// byte for byte, usage totals, effective transcripts, state, interrupt,
// titles and forks (internal/sessionview), and pass integrity_check. It
// runs on SQLite and on PostgreSQL when a server is reachable.
//
// When a session differs, the test replays the same growth with plain
// imports and no watcher and says whose fault it is: the importer's (a
// plain import of the prefixes gives the same wrong answer) or the
// watcher's.
//
// # Regression tests for what the suite found
//
// Failures of the workload are turned into small deterministic (or
// nearly so) tests: TestConcurrentFirstOpen (processes opening one new
// database together must all succeed), TestConcurrentImportsOfOneSession,
// TestExpectSequenceAcrossRecreate (an expected sequence read before a
// delete must not match the recreated session), TestOpenUnsupportedFileFormat
// and TestOpenRefusesNonDatabaseFile (hostile headers), and the
// path-below-a-file case of TestReadOnly. So that the randomized tests
// keep checking everything else while a known bug is open, they tolerate
// it and say so: the workload retries an Open that failed with the
// first-open SQLITE_BUSY and counts imports that lost the create race,
// and TestHostileDatabaseFiles logs the unmapped "unsupported file
// format" instead of failing on it.
//
// # Fuzzing
//
// fuzz.sh finds every `func Fuzz…` in the module's _test.go files and runs
// each alone for FUZZTIME (10 s):
//
//	go test -run='^$' -fuzz='^FuzzName$' -fuzztime=10s ./pkg
//
// A crasher is written by Go to pkg/testdata/fuzz/FuzzName/ and becomes a
// regression case of every later go test.
package torture
