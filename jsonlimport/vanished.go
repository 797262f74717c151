package jsonlimport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// This file holds the rule for sources that vanish (issue 43). Agents
// delete their own history: Claude Code removes transcripts older than its
// cleanup period, a user clears picoclaw's .jsonl, opencode drops a row.
// sessiondb keeps what it imported:
//
//   - A source that is gone changes nothing in its session: an import or a
//     watcher never empties, replaces or deletes a session because its
//     file or row went away.
//   - A file that would take over a session whose own source is gone
//     (ownsFile: picoclaw's .meta.json left behind when its .jsonl was
//     deleted, which picoclaw reads as an empty session) does so only when
//     it holds at least the session's messages (a legacy session moved to
//     its .jsonl does). Otherwise it is skipped with a note and the session
//     is kept whole (modeKept).
//   - The session is marked (sessiondb.SourceTracker): SourceSeenAt is
//     the last import that found its source present (to within
//     sessiondb.SourceSeenResolution: a mark that recent is not written
//     again, so an import that finds everything in place writes no row),
//     SourceGoneAt when an import found it gone. A source that comes back
//     clears the mark.
//
// What counts as gone: a source record under a directory Import was given
// whose file no longer exists (the directory itself must exist: an
// unmounted disk is not a cleanup), a session of an agent's database that
// the database, listed without a problem, no longer holds, and a unit a
// watcher reports deleted (package watch calls MarkGone).

// countMessages counts the entries of a parse that are messages (by the
// rule of Session.MessageCount).
func countMessages(entries []sessiondb.Entry) int64 {
	var n int64
	for _, e := range entries {
		if e.Kind == sessiondb.KindMessage || e.Kind == sessiondb.KindCustom || e.Kind == "" {
			n++
		}
	}
	return n
}

// keepsVanished reports whether the new file u, whose parse is pd, would
// take over the session existing only because existing's own source is
// gone (ownsFile by absence), while holding fewer messages than it: the
// session is then kept whole and u is not imported over it. machine is
// the importer's.
func keepsVanished(existing sessiondb.Session, u Unit, machine string, pd *Parsed) bool {
	if !ownsFile(existing, u, machine) || existing.SourcePath == u.Path {
		return false
	}
	for _, x := range u.Extra {
		if existing.SourcePath == x {
			return false // the session's own side file: a continuation
		}
	}
	return countMessages(pd.Entries) < existing.MessageCount
}

// listedStore is an agent's database whose sessions an import listed
// without a problem: a session recorded under it that the listing lacks
// is gone.
type listedStore struct {
	path     string
	sessions map[string]bool
}

// markSources records what the import found present (seen: the units it
// read) and gone (records under roots whose file is missing, sessions a
// listed store no longer holds, rep.gone), when the store keeps marks and
// the import is not a dry run. sc holds the roots, the formats offered
// (nil: all) and the records read under the roots before the import
// (those of a root it lacks are read now): a record written since is of
// a file the import read, present.
func markSources(ctx context.Context, store sessiondb.Store, opts Options, seen []string, sc scan, stores []listedStore, rep *Report) error {
	roots, formats := sc.roots, sc.formats
	tr, ok := store.(sessiondb.SourceTracker)
	if !ok || opts.DryRun {
		return nil
	}
	present := make(map[string]bool, len(seen))
	for _, p := range seen {
		present[p] = true
	}
	offered := map[string]bool{}
	for _, f := range formats {
		offered[f.Name()] = true
	}
	gone := append([]string(nil), rep.gone...)
	consider := func(prefix string, recs []sessiondb.SourceFile, read bool, isGone func(sessiondb.SourceFile) bool) error {
		if !read {
			var err error
			if recs, err = tr.SourcesWithPrefix(ctx, opts.Machine, prefix); err != nil {
				return err
			}
		}
		for _, r := range recs {
			if present[r.Path] || (len(offered) > 0 && !offered[r.Format]) {
				continue
			}
			if isGone(r) {
				gone = append(gone, r.Path)
			}
		}
		return nil
	}
	for _, root := range roots {
		recs, read := sc.records[root]
		err := consider(root+string(filepath.Separator), recs, read, func(r sessiondb.SourceFile) bool {
			_, err := os.Lstat(jsonl.FileOf(r.Path))
			return errors.Is(err, os.ErrNotExist)
		})
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	for _, s := range stores {
		err := consider(jsonl.SessionPath(s.path, ""), nil, false, func(r sessiondb.SourceFile) bool {
			return !s.sessions[r.Path]
		})
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	n, err := tr.MarkSources(ctx, sessiondb.SourceMarks{Seen: seen, Gone: gone, Machine: opts.Machine})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	rep.Gone += int(n)
	return nil
}

// importRoots returns the directories among paths, absolute as discover
// names their files; a path that is not an existing directory is left out.
func importRoots(paths []string) []string {
	var roots []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			roots = append(roots, filepath.Clean(abs))
		}
	}
	return roots
}

// MarkGone marks the sessions of the source paths as gone (their files
// were deleted or moved away): a watcher calls it for the units it saw
// disappear. machine, when not "", is the watcher's: only that machine's
// sessions (and those no machine recorded) are marked. It returns how many sessions it marked that were not already;
// a store that keeps no marks marks none.
func MarkGone(ctx context.Context, store sessiondb.Store, machine string, paths ...string) (int, error) {
	tr, ok := store.(sessiondb.SourceTracker)
	if !ok || len(paths) == 0 {
		return 0, nil
	}
	n, err := tr.MarkSources(ctx, sessiondb.SourceMarks{Gone: paths, Machine: machine})
	return int(n), err
}
