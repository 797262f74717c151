// Package foreigndb reads another program's SQLite database safely: the
// stores that agents keep their sessions in (opencode's opencode.db;
// crush's .crush/crush.db, the Go-era opencode's .opencode/opencode.db,
// goose's sessions.db and Cursor's state.vscdb next), while that program
// may be writing them, without ever writing to them or creating a file
// beside them. A Snapshot is such a read; the importer keeps one per
// store in its jsonl.Cache (Acquire, Current) so that every session of a
// store is read from one state, and a watcher refreshes it by what the
// write-ahead log gained.
//
// # Copied aside, not opened in place
//
// A snapshot copies the database's main file and its -wal together into a
// temporary directory of its own (os.MkdirTemp, so $TMPDIR) and opens the
// copy read-only there. The alternatives were rejected:
//
//   - Opening the file in place read-only (mode=ro) is not read-only on
//     disk. A reader of a WAL database needs the -shm file: SQLite
//     creates it (and may create the -wal) beside the database when they
//     are missing, and writes its read marks into the -shm of a running
//     program, whose locks it then shares. That is creating and writing
//     files at a path we were asked only to read; on read-only storage it
//     fails outright.
//   - immutable=1 needs no -shm, but SQLite then ignores the -wal: every
//     commit that is still only in the log (all of a running agent's
//     recent work; a committed corpus file whose -wal holds commits the
//     main file does not) would be silently missing. And immutable
//     promises SQLite that nobody changes the file, which a running agent
//     breaks: torn pages would read as corruption or as wrong rows. We
//     cannot know that a file "cannot change", so the copy is used for
//     every store, the ones without a -wal included.
//
// Only the main file and the -wal are copied (and a rollback journal, if
// the database is not in WAL mode and one is beside it). The -shm is not:
// it is an index of the log that the first connection to the copy
// rebuilds from the log itself (no other connection has the copy open), so
// copying it would add nothing but a chance to copy an index of another
// moment than the log. The source files are only ever opened O_RDONLY, so
// nothing is created at the source's path, even when a -wal is missing;
// TestSnapshotLeavesTheSourceAlone compares the source directory's
// listing (names, sizes, times, contents) before and after, and
// TestSnapshotOfAReadOnlyDirectory reads a store in a 0555 directory as a
// user who cannot write there.
//
// The copy is opened with mode=ro: closing it neither checkpoints its log
// into its main file nor deletes the log, so the copy stays a byte-for-byte
// image of the source as copied. Its directory is removed by Close (a
// process killed with SIGKILL leaves it in $TMPDIR).
//
// # Torn copies and a busy writer
//
// The agent may write while we copy. A copy is consistent when the main
// file did not change during it and the log was neither replaced nor
// restarted nor cut: the main file changes only at a checkpoint (when the
// writer moves the log into it, after which it may restart the log with
// new salts), and a log that merely grew holds, up to any point, a prefix
// of committed transactions followed at most by a torn one, which
// SQLite's recovery drops as uncommitted (its frames' checksums and the
// commit marker). So each copy is bracketed by stamps of both files
// (inode, size, modification time) and the log's 32-byte header (salts,
// checkpoint sequence); when the main file changed or the log's header
// changed or it shrank, the copy is taken again, after a pause that
// doubles (25 ms to 400 ms), up to 8 times; then the read fails with
// ErrUnsettled, a problem the importer reports and retries at its next
// import. TestSnapshotTornCopyIsTakenAgain tears copies on purpose (a
// checkpoint and a commit between the two files), and
// TestSnapshotUnderABusyWriter refreshes snapshots for 1.5 s while a
// writer commits without pause with automatic and truncating checkpoints,
// checking that every snapshot reads one state (two tables written in one
// transaction agree) and never goes back in time.
//
// SQLite itself opens the copy: there are no locks to wait for (the copy
// is ours), so a busy writer never blocks a read and a read never blocks
// the writer (we hold none of its locks, not even a read lock on its log).
//
// # Refreshing: what the log gained
//
// Refresh brings a snapshot to the source's current state. The log does
// not only grow: after a checkpoint has moved every frame into the main
// file, the writer starts the log again at its start, with new salts in
// its header, and writes its next transactions over the old frames in
// place (the file keeps its size, and within the clock's tick its time);
// within a transaction it may also write a frame again, and the checksums
// of the frames after it, before the commit frame. So, while the source's
// log has the header the copy's has, Refresh reads the source's frames
// after the copy's last commit frame, checks each as SQLite's recovery
// does (the header's salts, the checksum chain continued from the copy's,
// wal.go), and appends those up to the last commit frame to the copy's log
// (read once: what is appended is what was checked); when there are none,
// nothing is copied or reopened. The main file is not copied again then:
// a checkpoint only moves into it pages that the log still holds, so the
// copy's main file with its log reads as the source does. When the log's
// header changed (restarted, truncated, removed), or the database keeps no
// log and its file changed, a new whole copy is taken. A watcher that
// follows a running agent therefore copies the database once per restart
// of its log (opencode checkpoints when it starts), and in between only the
// transactions committed since (TestSnapshotAfterTheLogRestarted writes
// transactions over a restarted log's old frames; watch's
// TestLiveOpencodeWatched follows opencode itself).
//
// # Damaged files
//
// A file that does not start with SQLite's header, an empty one, and a
// copy SQLite finds malformed ("file is not a database", "database disk
// image is malformed") are ErrNotDatabase (Translate turns the driver's
// errors into it): a problem of that file, never a panic. A copy that
// SQLite cannot open is taken again before the file is called
// damaged (up to twice more), in case the copy was torn in a way the stamps did not show (a
// file system with coarse times). Pages that a query does not read are
// not checked: a damaged page is an error of the query that meets it.
//
// # Stores of many sessions: the units
//
// An importer unit used to be a file, and the importer's source record is
// keyed by a path; an SQLite store holds many sessions. The design, in
// jsonl.StoreFormat (the small interface every reader of such a store
// implements) and jsonlimport's stores.go:
//
//   - Discovery claims the store as one unit (the database, with its -wal
//     and -shm as side files, so that a watcher that sees the log grow
//     imports the store again).
//   - At import, the format lists the store's sessions
//     (StoreFormat.Sessions), each with a stamp, from one snapshot
//     (Acquire). Each session is then a unit of its own, whose path is
//     jsonl.SessionPath(db, session id) ("<db path>#<id>"), the key of
//     its source record: it is written in a transaction of its own, and
//     its problems name it.
//   - A session whose stamp is the one recorded is unchanged and not read
//     (a store's many sessions cost one listing query when nothing
//     changed). The stamp is the reader's choice: for opencode, the
//     session's row and the count and latest update time of its messages,
//     with opencode's per-session event sequence number, or the count and
//     latest update of its parts where there is none.
//   - A changed session is read from the cursor its last import recorded
//     (Parsed.Offset and ResumeState: the rows consumed, the last one's
//     key), after checking a fingerprint of the rows before the cursor
//     (their count and latest update): only the new rows are read. When
//     the rows before the cursor changed (the agent rewrote or deleted
//     one), the reader returns jsonl.ErrNotIncremental, the importer
//     reads the session whole and appends what follows the entries
//     imported if they still read the same (their digest), else replaces
//     the transcript, as for a file rewritten in place.
//   - A reader only emits rows that the agent will not change any more
//     (opencode: messages of finished turns), so that a session that grew
//     is imported equal to one import of its final state; what is still
//     being written is reported with jsonl.UnfinishedMarker and read
//     again later, as a torn last line of a JSONL file is.
//
// So a crush, goose or Cursor reader implements Claim (its file names),
// Sessions (its listing query and stamps) and Parse (a session from the
// snapshot Current returns, from a cursor), and gets safe reading,
// incremental import and watching from here and from the importer.
package foreigndb
