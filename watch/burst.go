package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// burst handles one settled batch of changed paths: it follows new
// directories, offers the files of directories whose listing changed to
// the formats again (new sessions, side files gained or lost, deleted
// session files), and imports each affected unit in one transaction.
func (w *watcher) burst(ctx context.Context, paths map[string]change) error {
	affected := map[string]bool{}
	dirs := map[string]bool{}  // directories to claim again
	trees := map[string]bool{} // trees to discover again
	var appeared []string      // given paths that now exist

	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	// Followed directories that are gone lose their watches first: one
	// moved within the tree keeps its inotify watch (it is by inode), so
	// the watch added for its new path below is that same watch, and
	// removing the old path's afterwards would end it (its files would
	// then send no events). So does one replaced by another directory
	// (moved away and made again): its path's watches are the moved
	// one's; the new directory is then followed as a new one.
	gone := map[string]bool{}
	for _, p := range names {
		if _, ok := w.dirs[p]; !ok {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || (w.dirIno[p] != 0 && inode(fi) != w.dirIno[p]) {
			w.dropWatches(p)
			gone[p] = true
		}
	}
	// names grows while it is walked: the files found in a new directory
	// are handled as created files (their side-file owners elsewhere are
	// claimed again too).
	for i := 0; i < len(names); i++ {
		p := names[i]
		ch := paths[p]
		if ch&rootAppeared != 0 {
			if err := w.addRoot(p); err == nil {
				appeared = append(appeared, p)
			}
			continue
		}
		if !w.inScope(p) && len(w.owners[p]) == 0 {
			continue // a neighbour of a file given as a root
		}
		fi, err := os.Lstat(p)
		exists := err == nil
		if gone[p] {
			// A followed directory was deleted, moved away or replaced:
			// the units that were in it are looked at again.
			for u := range w.units {
				if isUnder(u, p) {
					dirs[filepath.Dir(u)] = true
				}
			}
		}
		switch {
		case exists && fi.IsDir():
			if _, ok := w.dirs[p]; !ok {
				// A new directory (Claude Code's folder per project, per
				// sub-agent group): follow it and everything in it.
				for _, d := range w.watchTree(p) {
					dirs[d] = true
					for _, f := range filesIn(d) {
						if _, ok := paths[f]; !ok {
							paths[f] = listed
							names = append(names, f)
						}
					}
				}
			} else if ch&listed != 0 {
				dirs[p] = true // a polled directory that changed
			}
			continue
		case !exists:
			if gone[p] {
				continue
			}
		}
		if ch&listed != 0 || !exists {
			sc := jsonlimport.ClaimScope(p)
			for _, d := range sc.Dirs {
				dirs[d] = true
			}
			for _, t := range sc.Trees {
				trees[t] = true
			}
			for o := range w.owners[p] {
				dirs[filepath.Dir(o)] = true
			}
		}
		if !exists {
			continue
		}
		for o := range w.owners[p] {
			affected[o] = true
		}
		if len(w.owners[p]) == 0 && w.claimAgain(p, fi) {
			dirs[filepath.Dir(p)] = true
		}
	}
	for t := range trees {
		for _, d := range w.watchTree(t) {
			dirs[d] = true
		}
	}
	dirList := make([]string, 0, len(dirs))
	for d := range dirs {
		dirList = append(dirList, d)
	}
	sort.Strings(dirList)
	for _, d := range dirList {
		w.claimDir(ctx, d, affected)
	}

	units := make([]string, 0, len(affected))
	for p := range affected {
		if _, ok := w.units[p]; ok {
			units = append(units, p)
		}
	}
	sort.Strings(units)
	for _, p := range units {
		if ctx.Err() != nil {
			return nil // stop between transactions; the rest is caught up at the next start
		}
		if err := w.importUnit(ctx, w.units[p]); err != nil {
			return err
		}
	}
	for _, p := range appeared {
		if ctx.Err() != nil {
			return nil
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			w.watchTree(p)
		} else {
			w.addWatch(filepath.Dir(p))
		}
		if err := w.catchUp(ctx, []string{p}); err != nil {
			return err
		}
	}
	return nil
}

// linkInside reports whether the symbolic link p, in a followed
// directory, points to a file inside a watched directory that holds p, as
// the importer's walk requires of a link it follows (an archive's
// notes.jsonl -> ~/.claude/projects/…/private.jsonl is not imported under
// the archive's name); it returns the link's target.
func (w *watcher) linkInside(p string) (string, bool) {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	for _, r := range w.roots {
		if r.dir && isUnder(p, r.path) && isUnder(target, r.path) {
			return target, true
		}
	}
	return target, false
}

// filesIn lists the regular files of dir.
func filesIn(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// claimDir offers the files of directory dir to the formats again and
// brings the units whose primary file is in dir up to date: new ones and
// ones whose side files changed are marked affected; ones whose primary
// file is gone are reported deleted.
func (w *watcher) claimDir(ctx context.Context, dir string, affected map[string]bool) {
	var files []string
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			if !w.inScope(p) {
				continue
			}
			switch {
			case e.Type().IsRegular():
				files = append(files, p)
			case e.Type()&fs.ModeSymlink != 0:
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
					if target, ok := w.linkInside(p); !ok {
						// The catch-up's rule (jsonlimport's walk): a
						// link that leaves the tree is not imported.
						w.unclaimedProblem(jsonlimport.Problem{Path: p, Reason: fmt.Sprintf("symbolic link to %s, outside the imported folder; skipped (name that file itself to import it)", target)}, true)
						continue
					}
					files = append(files, p)
				}
			}
		}
	}
	// Forget files no format claimed that are gone (agents' temporary
	// files come and go), so that the watcher's memory stays flat.
	present := make(map[string]bool, len(files))
	for _, f := range files {
		present[f] = true
	}
	for p := range w.unclaimed {
		if filepath.Dir(p) == dir && !present[p] {
			delete(w.unclaimed, p)
		}
	}
	found := map[string]jsonlimport.Unit{}
	if len(files) > 0 {
		disc, err := jsonlimport.Discover(files, w.opts.Format)
		if err != nil {
			w.emit(Event{Kind: EventError, Path: dir, Message: err.Error()})
			return
		}
		for _, u := range disc.Units {
			if filepath.Dir(u.Path) == dir && w.inScope(u.Path) {
				found[u.Path] = u
			}
		}
		for _, p := range disc.Problems {
			w.unclaimedProblem(p, false)
		}
		for _, p := range disc.Skipped {
			w.unclaimedProblem(p, true)
		}
	}
	// Units of dir that were not claimed again.
	for p := range w.units {
		if filepath.Dir(p) != dir {
			continue
		}
		if _, ok := found[p]; ok {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			// Still there but not recognised now (being rewritten, its
			// first line not complete yet): keep following it; the
			// importer decides what its content is.
			continue
		}
		w.deleted(ctx, w.units[p])
	}
	for p, u := range found {
		if old, ok := w.units[p]; !ok || !sameFiles(old, u) {
			affected[p] = true
		}
		w.setUnit(u)
	}
}

// importUnit imports one unit's changes (one transaction) and reports
// them. It returns an error only when the store is closed; other
// failures are reported and the unit is tried again later.
func (w *watcher) importUnit(ctx context.Context, u jsonlimport.Unit) error {
	// The import runs to its end even when ctx is cancelled meanwhile:
	// Run stops between transactions, never inside one.
	ictx := sessiondb.DetachWrites(ctx)
	_, err := sessiondb.SourceFileOn(ictx, w.store, w.opts.Machine, u.Path)
	// A store's sessions have records of their own, never the store: it
	// is not waited for like a new file (its database is written as the
	// agent works, and its sessions are imported as they grow).
	store := jsonlimport.HoldsSessions(u.Format)
	isNew := errors.Is(err, sessiondb.ErrNotFound) && !store
	if isNew {
		if at := w.settledAt(u); at.After(time.Now()) {
			w.retry[u.Path] = at // imported once it and its side files are quiet
			return nil
		}
	}
	rep, err := jsonlimport.ImportUnits(ictx, w.store, []jsonlimport.Unit{u}, jsonlimport.Options{Jobs: 1, Follow: w.follow, Machine: w.opts.Machine, Map: w.opts.Map})
	if err != nil {
		if errors.Is(err, sessiondb.ErrClosed) {
			return fmt.Errorf("watch: %w", err)
		}
		w.emit(Event{Kind: EventError, Path: u.Path, Format: u.Format, Message: fmt.Sprintf("import: %v (retrying)", err)})
		w.failed(u.Path)
		return nil
	}
	w.succeeded(u.Path)
	var parsed []string
	if rep.Unchanged == 0 || store {
		parsed = []string{u.Path} // a store is listed (its sessions read) at every import
	}
	problems := w.onceper(u.Path, w.holdBack(rep.Problems, parsed))
	if rep.Sessions == 0 && len(problems) == 0 && len(rep.Notes) == 0 {
		return nil // unchanged
	}
	e := Event{Kind: EventImport, Path: u.Path, Format: u.Format, Entries: rep.Entries, Problems: problems, Notes: rep.Notes}
	if sf, err := sessiondb.SourceFileOn(ictx, w.store, w.opts.Machine, u.Path); err == nil {
		e.Session = sf.SessionID
		e.New = isNew
	}
	w.emit(e)
	return nil
}

// onceper drops the problems that the unit's previous import reported
// too (the same line, the same reason up to its numbers): a problem at the
// unconsumed end of a file (an unfinished line over the 64 MiB limit,
// whose reported length grows with each append) was reported at every
// burst. A problem is reported again once an import has not found it.
func (w *watcher) onceper(unit string, problems []jsonlimport.Problem) []jsonlimport.Problem {
	if w.reported == nil {
		w.reported = map[string]map[string]bool{}
	}
	prev, now := w.reported[unit], map[string]bool{}
	var out []jsonlimport.Problem
	for _, p := range problems {
		k := problemKey(p)
		now[k] = true
		if !prev[k] {
			out = append(out, p)
		}
	}
	if len(now) == 0 {
		delete(w.reported, unit)
	} else {
		w.reported[unit] = now
	}
	return out
}

// problemKey is what identifies a problem across imports: its file, line
// and reason with the digits taken out.
func problemKey(p jsonlimport.Problem) string {
	reason := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, p.Reason)
	return fmt.Sprintf("%s\x00%d\x00%s", p.Path, p.Line, reason)
}

// settledAt returns when a new unit's directory listing and side files
// will have been quiet for NewSettle. The primary file's own writes do
// not count: a session being written is imported while it grows.
func (w *watcher) settledAt(u jsonlimport.Unit) time.Time {
	var last time.Time
	for _, p := range append([]string{filepath.Dir(u.Path)}, u.Extra...) {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(last) {
			last = fi.ModTime()
		}
	}
	return last.Add(w.opts.NewSettle)
}

// deleted reports that the primary file of u is gone. The session stays:
// the database keeps what the file held, and is marked as the only copy
// (jsonlimport.MarkGone; a file moved within the paths is continued by its
// new path, whose import clears the mark).
func (w *watcher) deleted(ctx context.Context, u jsonlimport.Unit) {
	e := Event{Kind: EventDeleted, Path: u.Path, Format: u.Format}
	note := "session file deleted or moved away; its session is kept"
	if sf, err := sessiondb.SourceFileOn(context.WithoutCancel(ctx), w.store, w.opts.Machine, u.Path); err == nil {
		e.Session = sf.SessionID
		note = fmt.Sprintf("session file deleted or moved away; session %q is kept", sf.SessionID)
	}
	if _, err := jsonlimport.MarkGone(context.WithoutCancel(ctx), w.store, w.opts.Machine, u.Path); err != nil {
		note += fmt.Sprintf(" (not marked gone: %v)", err)
	}
	e.Notes = []jsonlimport.Problem{{Path: u.Path, Reason: note}}
	w.dropUnit(u.Path)
	w.emit(e)
}

// failed schedules the unit of primary file p to be imported again.
func (w *watcher) failed(p string) {
	switch {
	case w.backoff == 0:
		w.backoff = time.Second
	case w.backoff < retryMax:
		w.backoff = min(2*w.backoff, retryMax)
	}
	w.retry[p] = time.Now().Add(w.backoff)
}

func (w *watcher) succeeded(p string) {
	delete(w.retry, p)
	if len(w.retry) == 0 {
		w.backoff = 0
	}
}

func (w *watcher) nextRetry() time.Time {
	var at time.Time
	for _, t := range w.retry {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	return at
}

// retryFailed imports again the units whose time has come.
func (w *watcher) retryFailed(ctx context.Context) error {
	now := time.Now()
	var due []string
	for p, t := range w.retry {
		if !t.After(now) {
			due = append(due, p)
		}
	}
	sort.Strings(due)
	for _, p := range due {
		if ctx.Err() != nil {
			return nil
		}
		u, ok := w.units[p]
		if !ok {
			delete(w.retry, p)
			continue
		}
		if _, err := os.Lstat(p); err != nil {
			w.deleted(ctx, u)
			continue
		}
		if err := w.importUnit(ctx, u); err != nil {
			return err
		}
	}
	return nil
}

// claimAgain reports whether a file no format claimed should be offered
// to the formats again after it was written: only while its first line
// was incomplete (the formats recognise a file by its first lines), or
// when it shrank (rewritten).
func (w *watcher) claimAgain(p string, fi os.FileInfo) bool {
	uc, ok := w.unclaimed[p]
	if !ok {
		return true // not seen yet
	}
	return !uc.firstLine || fi.Size() < uc.size
}

// unclaimedProblem records a file no format claimed and reports it once:
// a problem (unknown format, unreadable) or, when skipped is true, a
// note. A file written within TornAfter may still be getting its first
// line: its problem waits until it has been quiet.
func (w *watcher) unclaimedProblem(p jsonlimport.Problem, skipped bool) {
	if !w.inScope(p.Path) {
		return
	}
	if len(w.owners[p.Path]) > 0 {
		return
	}
	uc := w.noteUnclaimed(p.Path, false)
	if uc.reported {
		return
	}
	if !skipped && w.young(p.Path) {
		w.deferUnclaimed(p.Path)
		return
	}
	uc.reported = true
	w.unclaimed[p.Path] = uc
	e := Event{Kind: EventProblem, Path: p.Path}
	if skipped {
		e.Notes = []jsonlimport.Problem{p}
	} else {
		e.Problems = []jsonlimport.Problem{p}
	}
	w.emit(e)
}

// noteUnclaimed records what a file no format claimed looked like.
// reported marks its problem as already reported (by a catch-up).
func (w *watcher) noteUnclaimed(path string, reported bool) unclaimedFile {
	uc := w.unclaimed[path]
	uc.firstLine, uc.size = firstLineComplete(path)
	uc.reported = uc.reported || reported
	w.unclaimed[path] = uc
	return uc
}

// firstLineComplete reports whether the first 64 KiB of path hold a
// newline, and the file's size.
func firstLineComplete(path string) (bool, int64) {
	f, err := jsonl.Open(path) // a FIFO must not block the watcher
	if err != nil {
		// Unreadable (permission denied): offered again at its next
		// change (a chmod), when it may be read.
		return false, 0
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	buf := make([]byte, 64<<10)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return true, size
	}
	return bytes.IndexByte(buf[:n], '\n') >= 0 || n == len(buf), size
}

// sameFiles reports whether two units read the same files.
func sameFiles(a, b jsonlimport.Unit) bool {
	if a.Format != b.Format || a.Path != b.Path || len(a.Extra) != len(b.Extra) {
		return false
	}
	for i := range a.Extra {
		if a.Extra[i] != b.Extra[i] {
			return false
		}
	}
	return true
}
