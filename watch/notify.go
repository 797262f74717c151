package watch

import (
	"github.com/sessiondb/sessiondb/jsonlimport"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// Where the watcher learns of changes: an inotify (kqueue, …) watch per
// directory through fsnotify, or the poller. A directory is polled when
// Options.Poll says so, when it is on a file system that gives no
// reliable events (remoteFS), when the watch limit is reached, or when
// no event watcher could be made at all. Each reason is said once.

// startEvents makes the fsnotify watcher and the goroutine that moves its
// events into the queue. Without one (the per-user instance limit), every
// directory is polled.
func (w *watcher) startEvents(ctx context.Context) {
	if w.opts.Poll {
		w.fallback("poll", "polling every directory (--poll)")
		return
	}
	if w.opts.addWatch != nil {
		return
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		w.fallback("no-events", fmt.Sprintf("cannot watch for file-system events (%v): polling every directory", err))
		return
	}
	w.fsw = fsw
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-fsw.Events:
				if !ok {
					return
				}
				switch {
				case ev.Has(fsnotify.Create), ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
					w.q.add(ev.Name, listed)
				case ev.Has(fsnotify.Write), ev.Has(fsnotify.Chmod):
					// A chmod can make readable a file whose import
					// failed with "permission denied": it is tried again
					// (an unchanged file costs a stat).
					w.q.add(ev.Name, changed)
				}
			case err, ok := <-fsw.Errors:
				if !ok {
					return
				}
				if errors.Is(err, fsnotify.ErrEventOverflow) {
					// Events were lost: look at everything again.
					w.q.lost()
					continue
				}
				w.errs.add(err)
			}
		}
	}()
}

// addWatch follows directory dir: by an event watch, else by polling.
func (w *watcher) addWatch(dir string) {
	if _, ok := w.dirs[dir]; ok {
		return
	}
	if fi, err := os.Lstat(dir); err == nil {
		w.dirIno[dir] = inode(fi)
	}
	poll := w.fsw == nil && w.opts.addWatch == nil
	if !poll {
		if fsName := remoteFS(dir); fsName != "" {
			w.fallback("remote:"+fsName, fmt.Sprintf("%s is on a %s file system, which sends no events for changes made elsewhere: polling it", dir, fsName))
			poll = true
		}
	}
	if !poll && w.limitHit {
		poll = true
	}
	if !poll {
		var err error
		if w.opts.addWatch != nil {
			err = w.opts.addWatch(dir)
		} else {
			err = w.fsw.Add(dir)
		}
		switch {
		case err == nil:
			w.dirs[dir] = false
			return
		case errors.Is(err, syscall.ENOSPC):
			w.limitHit = true
			w.fallback("limit", fmt.Sprintf("the file-system watch limit is reached (%s) after %d directories: polling the others; raise it with: sysctl fs.inotify.max_user_watches=524288", watchLimit(), len(w.dirs)))
		case errors.Is(err, fs.ErrNotExist):
			return // gone already; its parent's event says so
		default:
			// Said once, whatever the directory: kqueue (macOS, BSD) needs a
			// descriptor per watched file and fails with EMFILE past the
			// open-file limit, for every directory after that.
			w.fallback("add", fmt.Sprintf("cannot watch %s (%v): polling it and every other directory that cannot be watched", dir, err))
		}
	}
	w.dirs[dir] = true
	if w.poll.add(dir) {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.poll.loop(w.ctx)
		}()
	}
}

// dropWatches stops following dir and the directories below it.
func (w *watcher) dropWatches(dir string) {
	for d, polled := range w.dirs {
		if d != dir && !isUnder(d, dir) {
			continue
		}
		delete(w.dirs, d)
		delete(w.dirIno, d)
		if !polled && w.fsw != nil {
			_ = w.fsw.Remove(d) // already gone when the directory was deleted
		}
	}
	w.poll.remove(dir)
}

// watchTree follows dir and every directory below it (symbolic links are
// not followed, as the importer does not follow them) and returns the
// directories found. The watch of a directory is added before it is
// listed, so a file created meanwhile is either listed or sends an event.
func (w *watcher) watchTree(dir string) []string {
	var found []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != dir {
				w.errs.add(fmt.Errorf("cannot read %s: %w", p, err))
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != dir && jsonlimport.SkipDir(p) != "" {
				return fs.SkipDir // no sessions there (opencode's snapshots, logs)
			}
			w.addWatch(p)
			found = append(found, p)
		}
		return nil
	})
	return found
}

// watchLimit reads the inotify watch limit for the message.
func watchLimit() string {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return "the per-user limit"
	}
	return "fs.inotify.max_user_watches = " + string(trimSpace(b))
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// isUnder reports whether p is strictly inside directory dir.
func isUnder(p, dir string) bool {
	if dir == string(filepath.Separator) {
		return len(p) > 1 && p[0] == filepath.Separator
	}
	return len(p) > len(dir) && p[len(dir)] == filepath.Separator && p[:len(dir)] == dir
}
