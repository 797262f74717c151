package watch

import (
	"os"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

// A line still being written is not a damaged line. The readers leave a
// last line without a newline unconsumed (it is read again once complete)
// and report it as a problem "torn last line"; a file whose first line is
// still being written is one no format recognises yet. While the file was
// written within Options.TornAfter, the watcher holds such a problem back.
// When the file has stayed quiet that long, it is looked at again: a torn
// line that is still there is reported (EventTorn), once; a file still
// unrecognised is offered to the formats again and reported if it still is.
// A torn line that the next append glues onto is reported by the reader
// as a damaged line, like any other.

// tornMarker is how every reader words the problem of a last line without
// a newline ("torn last line …"). A store's reader words the problem of a
// session whose last turn is still being written with
// jsonl.UnfinishedMarker, which is held back the same way, by the store's
// file (jsonlimport.FileOf of the session's path).
const tornMarker = "torn last line"

// stillWritten reports whether a problem is one of what is still being
// written.
func stillWritten(p jsonlimport.Problem) bool {
	return strings.Contains(p.Reason, tornMarker) || strings.HasPrefix(p.Reason, jsonlimport.UnfinishedMarker)
}

// deferredProblem is a problem held back until its file is quiet.
type deferredProblem struct {
	torn      []jsonlimport.Problem // the reader's torn-line problems
	unclaimed bool                  // a file no format recognised
	size      int64                 // the file as it was when held back
	mtime     time.Time
}

// young reports whether path was modified within TornAfter.
func (w *watcher) young(path string) bool {
	_, mtime, err := written(path)
	return err == nil && time.Since(mtime) < w.opts.TornAfter
}

// written returns a file's size and modification time; for an SQLite
// database with a write-ahead log beside it (an agent's store, written
// through its -wal while the main file changes only at checkpoints), the
// sum of both sizes and the later time.
func written(path string) (int64, time.Time, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, time.Time{}, err
	}
	size, mtime := fi.Size(), fi.ModTime()
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Mode().IsRegular() {
		size += wal.Size()
		if wal.ModTime().After(mtime) {
			mtime = wal.ModTime()
		}
	}
	return size, mtime, nil
}

// holdBack returns problems without the torn-line problems of files that
// are still being written, which it keeps until they are quiet. parsed
// lists the files whose import read them (not found unchanged): a held
// back torn line that their import no longer reports was completed.
func (w *watcher) holdBack(problems []jsonlimport.Problem, parsed []string) []jsonlimport.Problem {
	torn := map[string][]jsonlimport.Problem{}
	var out []jsonlimport.Problem
	for _, p := range problems {
		if stillWritten(p) {
			f := jsonlimport.FileOf(p.Path)
			torn[f] = append(torn[f], p)
			continue
		}
		out = append(out, p)
	}
	for _, path := range parsed {
		if d, ok := w.deferred[path]; ok && len(d.torn) > 0 && len(torn[path]) == 0 {
			delete(w.deferred, path)
		}
	}
	for path, ps := range torn {
		size, mtime, err := written(path)
		if err != nil || time.Since(mtime) >= w.opts.TornAfter {
			out = append(out, ps...)
			continue
		}
		w.deferred[path] = &deferredProblem{torn: ps, size: size, mtime: mtime}
	}
	return out
}

// deferUnclaimed holds back the problem of an unrecognised file that is
// still being written.
func (w *watcher) deferUnclaimed(path string) {
	size, mtime, err := written(path)
	if err != nil {
		return
	}
	w.deferred[path] = &deferredProblem{unclaimed: true, size: size, mtime: mtime}
}

// nextDeferred returns when the earliest held-back problem is due.
func (w *watcher) nextDeferred() time.Time {
	var at time.Time
	for _, d := range w.deferred {
		t := d.mtime.Add(w.opts.TornAfter)
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	return at
}

// checkDeferred looks at the files whose problems are due.
func (w *watcher) checkDeferred() {
	now := time.Now()
	for path, d := range w.deferred {
		if d.mtime.Add(w.opts.TornAfter).After(now) {
			continue
		}
		size, mtime, err := written(path)
		switch {
		case err != nil:
			delete(w.deferred, path) // gone: its event says so
		case size != d.size || !mtime.Equal(d.mtime):
			// Written since: that change is (or was) imported, and decides.
			if time.Since(mtime) < w.opts.TornAfter {
				d.size, d.mtime = size, mtime
				continue
			}
			delete(w.deferred, path)
			w.q.add(path, changed|listed)
		case d.unclaimed:
			delete(w.deferred, path)
			w.q.add(path, listed) // offered to the formats again, reported if still unknown
		default:
			delete(w.deferred, path)
			e := Event{Kind: EventTorn, Path: path, Problems: d.torn}
			if u, ok := w.units[path]; ok {
				e.Format = u.Format
			}
			w.emit(e)
		}
	}
}
