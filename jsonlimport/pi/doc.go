// Package pi reads and writes the session files of pi (badlogic/pi-mono,
// npm @mariozechner/pi-coding-agent), the format jsonlimport registers as
// "pi" (Name). Format is its jsonl.Format, jsonl.Exporter and
// jsonl.MessageReader; jsonlimport lists it in its registry, translates the
// sessions of other formats into pi's shapes (jsonl.WriteForeign) and
// imports through it.
//
// # The format
//
// pi (badlogic/pi-mono, npm @mariozechner/pi-coding-agent) keeps one JSONL
// file per session: ~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl. Line
// 1 is a header {"type":"session","version":3,"id":…,"cwd":…}; every other
// line is an entry with id/parentId forming a tree (formats/wild.md §3,
// pi's docs/session.md and session-manager.ts).
//
// How the reader maps that onto sessiondb:
//
//   - Every readable line is one log entry whose Body is the line's exact
//     bytes: the header (Kind "session"), "message" entries (Kind
//     "message", Role = message.role), and the entry types that pi turns
//     into context messages, "custom_message" and "branch_summary", also
//     Kind "message" (Role "custom" and "branchSummary"). Every other type
//     (compaction, model_change, thinking_level_change, custom, label,
//     session_info, types added later) keeps its type as Kind.
//   - The transcript follows pi's buildSessionContext: the leaf is the last
//     entry in file order (pi persists no leaf), the path runs from it to
//     the root through parentId (it stops at a parent no line of the file
//     holds: a note, since every line is still in the log). With a compaction on the path, the transcript is its
//     summary, then the path entries from firstKeptEntryId up to the
//     compaction, then those after it. The compaction becomes a sessiondb
//     compaction whose one summary message is a copy of the compaction line
//     (Summary true); pi renders it as {"role":"compactionSummary",…}. When
//     the context entries are exactly the Kind "message" entries from some
//     entry on, that KeepFromSeq is used; otherwise (abandoned branches, a
//     firstKeptEntryId on another branch) the summary also holds copies of
//     the context entries and no log entry is kept. Filtered to Kind
//     "message", the effective transcript is then, entry for entry, what
//     pi's loader returns (checked against pi 0.73.1 by the golden tests).
//   - Branches: every entry stays in the session's log, and the branch
//     tips other than the leaf are listed in Attrs.branches (tip id and the
//     id where the branch leaves the resume path). Each tip also becomes a
//     fork session (Parsed.Branches), written in the same transaction:
//     ID "<session>@<tip>", ParentID the session, ForkSeq the log position
//     of the entry where the branch leaves the resumed path; its log is
//     the header and the lines on the path from the root to the tip, and
//     its transcript is what pi resumes after /tree moves the leaf to the
//     tip (checked against pi 0.73.1: expected/*.branches.json). A path
//     never changes, so an existing fork's log is not rewritten; when pi
//     later continues a branch, the old leaf's path becomes a new fork and
//     the forks already made keep their logs (their branch points move
//     with the resumed path), but the fork of a tip pi went back to and
//     went on from (/tree, then a prompt or a branch summary there) is
//     deleted in the commit that imports the grown file
//     (Parsed.Continued): that tip is no branch of its own any more, and
//     one import of the file makes no fork for it (issue 38: a session
//     that navigated its tree held 94 entries grown, 67 imported once). A
//     fork an application wrote to since is kept, with a problem. Forks
//     hold no usage (the session counts every branch's calls), and their
//     lines are copies of the session's, so a search finds a branch's
//     text in both.
//   - A file made by /fork has a header with parentSession (the source
//     file's path): when the source file can be read (there, or beside the
//     fork), its ParentID is the id in the source's header and ForkSeq the
//     entry number in it of the last entry the fork copied; otherwise
//     ParentID is the uuid in the source's file name (pi's names are
//     <time>_<id>.jsonl, but pi --session NAME keeps a session in a file
//     of the user's naming).
//   - Title: the name of the last session_info entry, else the first
//     real user prompt (jsonl.PromptTitle). Labels: the current
//     label of each entry (pi's rules: a label entry without label clears
//     it) in Attrs.labels. Attrs also hold cwd, version, parentSession and
//     the model and thinking level in force at the leaf.
//   - Usage: one row per assistant message (every branch: each was a model
//     call), with pi's own token counts and cost.total, dated by the
//     message's own timestamp (the entry's when it has none). The messages
//     a /fork copied from a source file that can be read are not counted
//     again in the fork (when the source is gone, they are).
//   - Corruption: pi skips lines that JSON.parse rejects; so do we, with a
//     Problem. Beyond pi (and reported): an entry glued onto a torn line or
//     written behind NUL bytes is recovered, so the transcript can then hold
//     more than pi loads. A file whose first line is not a session header
//     is one pi refuses (it starts it afresh); it is not claimed.
//   - Versions: pi migrates older files on load and rewrites them; we keep
//     the bytes and apply the migrations' meaning: a version 1 file (no
//     ids) is a chain in file order, its entries named "v1:<position>" in
//     the tree and its compaction's firstKeptEntryIndex honoured; a
//     version 2 "hookMessage" role is Role "custom", as version 3 names it.
//   - Resume: a file that only grew is read from the offset when the new
//     entries continue the previous leaf in a line without a compaction
//     (every new entry on the new leaf's path: one off it, even a
//     compaction or a model change pi went back before, is a branch tip);
//     otherwise Parse returns ErrNotIncremental, the importer reads the
//     file whole and appends only the new entries (the context, branches
//     and metadata being those of the whole file). A fork made for a tip
//     keeps its log; its title, labels and branch point (ForkSeq,
//     attrs.branch) follow the file: when pi's resumed path moves, the
//     branch leaves it elsewhere (sessiondb.MetaPatch.ForkSeq). A /fork
//     file imported while pi was still copying the source's entries gets
//     the ForkSeq of its last copy once the copies are all there.
//   - A second session header (pi's SessionManager writes one when it
//     opens an empty file, testdata/gen/pi: double-header) is kept as
//     data with a note; pi loads such a file as usual.
//
// Export writes a session as a pi file that pi's SessionManager opens: a
// session imported from pi is written back line for line (its whole log,
// so branches survive and a re-import gives the same bytes); another
// session is translated into pi's shapes (jsonlimport's translate_pi.go),
// or refused
// with jsonlimport.ErrUntranslatable naming what pi has no shape for.
package pi
