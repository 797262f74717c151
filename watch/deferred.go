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
	fi, err := os.Stat(path)
	return err == nil && time.Since(fi.ModTime()) < w.opts.TornAfter
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
		fi, err := os.Stat(path)
		if err != nil || time.Since(fi.ModTime()) >= w.opts.TornAfter {
			out = append(out, ps...)
			continue
		}
		w.deferred[path] = &deferredProblem{torn: ps, size: fi.Size(), mtime: fi.ModTime()}
	}
	return out
}

// deferUnclaimed holds back the problem of an unrecognised file that is
// still being written.
func (w *watcher) deferUnclaimed(path string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	w.deferred[path] = &deferredProblem{unclaimed: true, size: fi.Size(), mtime: fi.ModTime()}
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
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			delete(w.deferred, path) // gone: its event says so
		case fi.Size() != d.size || !fi.ModTime().Equal(d.mtime):
			// Written since: that change is (or was) imported, and decides.
			if time.Since(fi.ModTime()) < w.opts.TornAfter {
				d.size, d.mtime = fi.Size(), fi.ModTime()
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
