// Command bench measures sessiondb against the physical limits of the
// machine it runs on (issue 9). Every workload measures sessiondb AND its
// baseline in the same run, on the same disk, interleaved, and prints the
// medians, the absolute values, the ratio and whether the target is met.
// Numbers are output, never assertions: the command fails only when a
// workload cannot run at all.
//
//	go run ./bench                    # full sizes, 5 runs (about half an hour on 2 CPUs)
//	go run ./bench -quick             # small sizes, 3 runs (~1 minute; what CI runs: a smoke test, the targets are for full sizes)
//	go run ./bench -only 1,2 -runs 9  # some workloads, more runs
//	go run ./bench -json > out.json   # machine-readable results
//	go run ./bench -dir /mnt/ssd      # benchmark another disk (default: os.TempDir())
//
// BENCHMARKS.md at the repository root records the figures of a full run,
// the machine, and what each missed target needs.
//
// # Method
//
// A run is one repetition of a workload's measurement; a workload does at
// least 5 runs (3 with -quick) and reports the median of the per-run
// values (each per-run value is itself a median over many operations, or
// one timing for long operations). Both sides are measured in every run,
// back to back or interleaved, so the ratio is the median of the per-run
// ratios (a paired comparison: a disturbance that slows a run slows both
// sides); the ratio of the two medians is printed too. Setup (generating data, building databases) is done once per
// workload and is not timed into the results; it is reported. Reads run
// with a warm page cache on both sides: the kernel's cache is not dropped,
// so the read workloads compare CPU and memory work, not cold disk reads.
//
// Each workload runs in a child process of the benchmark binary (the
// parent re-executes itself with -child), so its peak RSS is its own and
// its heap starts empty. Peak RSS is read from VmHWM in /proc/self/status:
// "with setup" is the child's lifetime peak, "measuring" the peak after
// VmHWM was reset (echo 5 > /proc/self/clear_refs) at the end of the
// setup. Some workloads also report the peak of one call of each side.
// -inproc runs everything in one process (peaks are then cumulative);
// -cpuprofile writes a CPU profile (and implies -inproc).
//
// The durable workloads use sessiondb's default, DurabilityFull
// (synchronous=FULL: every acknowledged commit was fsynced). Figures for
// DurabilityNormal, which does not survive power loss, are printed only as
// clearly labelled notes. Setup of the read workloads uses
// DurabilityNormal and large commits to save time; that does not change
// what the reads measure.
//
// Test data is generated deterministically: picoclaw-shaped message lines
// ({"role","content","model_name","created_at"}), content drawn from a
// Zipf-distributed vocabulary of 20,000 pseudo-words spelled with English
// letter frequencies, so that search queries range from a word in most
// entries to a word in a few hundred. The same bytes are stored in
// sessiondb and written to the JSONL files of the baselines.
//
// # Workloads
//
// 1. append — Durable append. One writer appends one ~1 KB message per
// transaction (Store.Append, DurabilityFull). Baseline: open(2) O_APPEND,
// write(2) of the same line, fsync(2), close(2): what a JSONL store does
// per message (picoclaw's addMsg, minus its meta rewrite). They alternate
// op by op. Value: median latency. Ratio sessiondb/baseline; target ≤ 1.5×.
// Also printed: p99, CPU time per append, and SQLite's floor (the same row
// inserted alone into a plain table at synchronous=FULL, interleaved). The
// DurabilityNormal variant is set against two floors at synchronous=NORMAL:
// the row alone in a plain table, and the data model's own (modelFloor in
// floor.go: the session row's UPDATE … RETURNING and the entry's INSERT,
// by hand, in sessiondb's tables).
//
// 2. concurrent — Concurrent durable appends. 16 goroutines, each appending
// to its own session through one Store. Baseline: 16 goroutines, each
// writing and fsyncing the same lines to its own O_APPEND file, all at
// once. Value: appends per second. Ratio sessiondb/baseline; target ≥ 1×.
// Also printed: latency percentiles under contention, CPU time per append
// (which bounds throughput on a machine with few CPUs), and SQLite's floor
// (groupCommitFloor in floor.go: the same rows handed to one committer that
// inserts all queued rows into a plain table in one transaction).
//
// 3. load — Load a whole 10,000-message session (Store.Load). Baseline: read
// the JSONL file of the same messages, split it into lines, json.Valid each
// line, keep the lines (no decoding, no copy): the least a JSONL store can
// do to return a transcript it has checked. Value: median latency. Ratio
// sessiondb/baseline; target ≤ 1.5×.
//
// 4. tail — Load the last 50 messages of a 100,000-message session
// (LoadOptions{LastN: 50}). Baseline: the same whole-file JSONL read as in
// 3, because a JSONL store must parse the whole file to know where the last
// 50 valid lines are. Ratio baseline/sessiondb (a speedup); target ≥ 100×.
//
// 5. list — List the 100 newest of 10,000 sessions (Store.List{Limit:100}).
// Baseline: what picoclaw's ListSessions does: read the directory, read and
// json.Unmarshal every .meta.json, sort by updated_at, keep 100. Ratio
// baseline/sessiondb; target ≥ 50×.
//
// 6. import — Bulk import of a generated picoclaw archive of at least 50 MB
// ({key}.jsonl + {key}.meta.json per session) with jsonlimport.Import into a
// fresh store (default options). Baseline: read the same files, split the
// lines and INSERT (session_id, seq, body) into a plain table, all in ONE
// transaction, with the same WAL/synchronous=FULL settings: the least work
// that puts the same rows in SQLite. Value: MB of JSONL per second. Ratio
// sessiondb/baseline; target ≥ 0.5× (at most twice the raw cost). Peak RSS
// of each side is reported, the database sizes, the time until search is
// ready (the index caught up), and SQLite's floor for it: the same text put
// into an index defined as sessiondb's (indexFloor in floor.go).
//
// 7. search — Store.Search over 1,000,000 entries (50,000 with -quick) built
// once per program run. Ten queries of every selectivity (common, rare,
// absent, two words, a phrase, a 2-letter term that the trigram index
// cannot serve) run against Store.Search and against an equivalent
// `text LIKE '%term%' … ORDER BY created_at DESC LIMIT 50` scan of the same
// database. Values: median latency over all query executions; p50/p99 and
// per-query figures in the notes; ratio baseline/sessiondb (a speedup). The
// issue sets no numeric target. Also printed: the FTS index size against
// the entries table and the extracted text (dbstat).
//
// 8. open — Time to first result in a new process: sqlstore.Open of an
// existing 10,000-session database (default options: pragmas, WAL check,
// schema version and schema check) + Get + Load of one session, versus sql.Open of the
// same file with modernc.org/sqlite and one SELECT of that session's bodies.
// Ratio sessiondb/baseline; the issue sets no numeric target.
//
// # The archive workload
//
// `-archive N` (archive.go; issue 42) replaces the workloads above with a
// deterministic archive of about N messages (4,700,000: cass's published
// size) in Claude Code, Codex, pi and Gemini CLI files, driven through the
// sessionctl binary as a user runs it, each step a process of its own
// (wall, CPU and peak RSS from getrusage): the import to searchable, two
// no-op re-imports and one after 1 % of the files grew; the import's floor
// (archivefloor.go: the same texts, read back from the database, into an
// FTS5 trigram index defined as sessiondb's, alone, one writer: the least
// any store searching substrings with this index spends before its search
// is ready); cold searches (a process per query, p50 and p99), `usage
// daily` and `list`, the MCP server's answer and its warm searches (each
// query class many times in one process), the viewer's first pages, the
// secret scan the import's processes left, and `watch` over the whole
// archive: its start-up, its idle CPU and its first append. `-archive-pg`
// copies the database into PostgreSQL and searches it there.
//
// # Noise
//
// The benchmark shares its CPUs and disk with whatever else runs. Medians
// of several interleaved runs absorb short disturbances, not a machine that
// is busy throughout: compare ratios, which move less than absolute values,
// and look at the CPU-time figures, which do not depend on waiting.
package main
