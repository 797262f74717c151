// Package watch keeps a sessiondb.Store in step with the session files that
// agents (Claude Code, Codex CLI, pi, Gemini CLI, Qwen Code, picoclaw, zot,
// swink) append to as
// they work: Run imports what is new under some paths, then follows the
// files until its context ends. It is what `sessionctl watch` and
// `sessionctl serve --watch` run.
//
// # What is followed
//
// Run first imports what is new under Options.Paths (one
// jsonlimport.ImportUnits of every unit found, the same incremental import
// as `sessionctl import`), then follows, in every directory below the
// paths:
//
//   - lines appended to known files: imported from the byte offset the
//     store recorded for the file, one transaction per file per burst;
//   - new files and folders (Claude Code creates a folder per project and
//     per sub-agent group; a new folder is watched, then listed, so a file
//     created meanwhile is not missed);
//   - side files gained, changed or lost (picoclaw's .meta.json, swink's
//     interrupt and checkpoint files, Claude Code's tool-results, Codex's
//     session_index.jsonl): their session is imported again, as the
//     importer does for a changed side file;
//   - files rewritten or truncated in place, or replaced (written elsewhere
//     and renamed over): the importer's rule for a changed source applies
//     (its consumed prefix no longer hashes the same, so the file is read
//     whole and replaces the session's transcript; old rows stay in the
//     log);
//   - deleted files and folders: the sessions are kept, and an
//     EventDeleted note says so; the sessions are marked as existing only
//     in sessiondb (jsonlimport.MarkGone, only those of Options.Machine:
//     a path missing here says nothing of another machine's file), and
//     a file that would take over such a session holding less of it
//     (picoclaw's .meta.json left behind) is not imported over it. A file moved within the paths is a
//     deletion and a new file: the importer continues the session from its
//     new path as a replacement (its rows are read again; the old ones stay
//     in the log).
//
// Which files make a session (a Unit) is the importer's decision
// (jsonlimport.Discover): when a directory's listing changes, its files are
// offered to the formats again, together with the directories that
// jsonlimport.ClaimScope names for side files kept elsewhere. A file no
// format recognises is reported once (EventProblem); while its first line
// is incomplete it is offered again on each write.
//
// # Bursts
//
// Changes are collected by their own goroutine (so the kernel's event queue
// is drained while an import runs) and taken as one burst once the files
// have been quiet for Options.Settle (50 ms), or Options.MaxDelay (250 ms)
// after the first change for a file written without pause. Each affected
// file is then imported with one transaction, however many lines were
// appended: a tool streaming 200 lines costs a few transactions, not 200.
//
// # Lines still being written
//
// A last line without a newline is not consumed by the readers (it is read
// again once complete), so a line being written is never half-imported.
// The readers also report it as a problem ("torn last line"); the watcher
// holds that problem back while the file was written within
// Options.TornAfter (10 s), and reports it (EventTorn) only if the file
// then stays quiet with the line still incomplete. A torn line the next
// append is glued onto is reported by the reader as a damaged line. The
// same wait applies to a new file whose first line is incomplete (no
// format recognises it yet).
//
// # Events and polling
//
// Directories are watched with fsnotify (inotify on Linux, one watch per
// directory since inotify is not recursive; a watch is added for each new
// folder as it appears). A directory is polled instead — listed and its
// files stat'ed every Options.PollInterval (2 s), stretched so that one
// poll never takes more than 1/PollBudget of the time — when:
//
//   - Options.Poll says so (`--poll`);
//   - it is on a file system that gives no events for changes made by
//     other machines or behind the kernel's back (NFS, SMB/CIFS, FUSE, 9p,
//     AFS, Ceph, Lustre, GPFS: recognised by statfs);
//   - the watch limit is reached (inotify_add_watch fails with ENOSPC): the
//     directories watched so far stay watched, the rest are polled;
//   - a watch cannot be added for another reason (on macOS and the BSDs
//     fsnotify uses kqueue, which holds a descriptor per watched file and
//     fails with EMFILE past the open-file limit);
//   - no event watcher can be made at all (the per-user instance limit).
//
// Each reason is said once (EventFallback), not per file. When the
// kernel's event queue overflows, events were lost: everything is caught
// up with again (one import of all the paths).
//
// # Stopping and failures
//
// Run returns nil when its context ends. It stops between transactions: an
// import that has begun runs to its end (its context is detached from the
// caller's), the next does not begin; what was not imported is caught up
// with at the next start. Killed at any point (SIGKILL), it leaves whole
// transactions only, and the next Run resumes from the offsets recorded.
// Several watchers, or a watcher and `sessionctl import`, may write one
// database at once: the importer's source record is checked in the
// commit (ExpectSource), so a file two of them read is imported once.
//
// An import that fails as a whole (the store unreachable, the disk full)
// is reported (EventError) and tried again after 1 s, doubling up to a
// minute; Run gives up only when the store is closed.
//
// # What is not followed
//
//   - Symbolic links below a path: a link to a file inside the watched
//     tree is imported (at the start, as `import` does, and when it is
//     made later) but changes to its target are not seen (they happen in
//     another directory); a link to a file outside the tree is skipped
//     with a note, by the catch-up and by the watcher alike (the
//     importer's rule); links to directories are not followed
//     at all (as by the importer, so that a cycle cannot make the walk
//     loop). A path given to Run may itself be a link: it is resolved.
//   - For a single file given as a path, only that file and the side files
//     in its own directory are followed (not Claude Code's tool-results
//     folder, swink's checkpoints).
//   - Codex's state_N.sqlite index (not read by the importer either).
//   - Two files that carry one session ID (a copy of a session file): the
//     one imported first keeps the ID, the other gets "ID~hash", so which
//     one depends on the order the files were written in, where one import
//     decides by path order.
//
// # Costs
//
// Idle, the watcher sleeps in the kernel: no timer runs unless a torn line,
// a failed import, a new session waiting for NewSettle or a path that does
// not exist yet is waiting (the last is looked for every
// Options.MissingInterval). BENCHMARKS.md has the figures: with 10,000
// watched files and nothing changing, 0.075 % of a core and a flat heap
// over 10 minutes; a line appended while 16 files are written at once is
// searchable after ~200 ms (median) and within 414-473 ms at the 99th
// percentile; polling 10,000 files costs 0.35 % of a core with a poll every
// ~12 s.
//
// An append costs the parsing of the new bytes from the recorded offset,
// whatever the size of the file: a run keeps one jsonlimport.Follow, so
// the bytes imported before are hashed whole only the first time the run
// imports a file, then checked by inode, size and the last 4 KiB before
// the offset, the hash continuing from its recorded state; and Claude
// Code's reader continues the parse it keeps in memory instead of reading
// the file again (jsonlimport's prefix.go and jsonlimport/claudecode's
// resume.go say what that check cannot see and when a file is still read
// whole). With Options.StateDir (sessionctl watch on SQLite:
// <database>-watch) the parse states are written there when the run stops
// and the next run continues from them: a restart does not cost a parse of
// each large transcript that grew meanwhile (its prefix is still hashed
// once). BENCHMARKS.md has the figures.
package watch
