package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// root is one path the watcher follows.
type root struct {
	path string // absolute, symbolic links resolved
	dir  bool
}

// watcher is the state of one Run. Everything but q, poll and errs
// belongs to the worker goroutine (Run's).
type watcher struct {
	ctx   context.Context
	store sessiondb.Store
	opts  Options
	q     *queue
	poll  *poller
	fsw   *fsnotify.Watcher
	errs  *errList
	wg    sync.WaitGroup

	roots   []root
	missing []string // given paths that do not exist yet
	// reported: per unit, the problems its last import reported
	// (problemKey), reported once while they stay (onceper).
	reported map[string]map[string]bool

	// dirs are the followed directories: false when watched by events,
	// true when polled.
	dirs     map[string]bool
	dirIno   map[string]uint64 // each followed directory's inode when followed (0: unknown)
	limitHit bool
	said     map[string]bool // fallback reasons said

	// units are the source sessions by primary file; owners maps every
	// file of a unit (primary and side files) to the units that read it.
	units  map[string]jsonlimport.Unit
	owners map[string]map[string]bool
	// unclaimed are files in followed directories that no format claims,
	// with whether their first line was complete when last offered (a
	// file whose first line is still being written may be claimed later).
	unclaimed map[string]unclaimedFile

	// follow is the importer's memory across this run's imports: a
	// file's prefix is hashed whole the first time the run imports it,
	// then checked cheaply, and readers keep their parse state (see
	// jsonlimport.Follow).
	follow *jsonlimport.Follow

	deferred map[string]*deferredProblem // see deferred.go
	retry    map[string]time.Time        // units whose import failed, and when to try again
	backoff  time.Duration
}

type unclaimedFile struct {
	firstLine bool  // the file held a complete first line
	size      int64 // its size then
	reported  bool  // its problem or note was reported
}

// errList carries errors from the event goroutine to the worker.
type errList struct {
	mu   sync.Mutex
	errs []error
	q    *queue
}

func (l *errList) add(err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err)
	l.mu.Unlock()
	l.q.signal()
}

func (l *errList) take() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.errs
	l.errs = nil
	return e
}

// Run imports what is new under opts.Paths and then follows the files as
// they are written, until ctx is done; see the package documentation. It
// returns nil when ctx ends it, and an error only when it cannot start (no
// path, a path that cannot be resolved, an unknown format) or the store is
// closed. Failed imports are reported as EventError and tried again.
func Run(ctx context.Context, store sessiondb.Store, opts Options) error {
	return run(ctx, store, opts, nil)
}

// run is Run; when expose is not nil it is given the watcher (for the
// benchmarks, which read the poller's figures).
func run(ctx context.Context, store sessiondb.Store, opts Options, expose **watcher) error {
	opts.setDefaults()
	if len(opts.Paths) == 0 {
		return fmt.Errorf("watch: no path to follow: %w", sessiondb.ErrInvalid)
	}
	if _, err := jsonlimport.Discover(nil, opts.Format); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	q := newQueue()
	w := &watcher{
		ctx:       ctx,
		store:     store,
		opts:      opts,
		q:         q,
		poll:      newPoller(q, opts.PollInterval),
		errs:      &errList{q: q},
		dirs:      map[string]bool{},
		dirIno:    map[string]uint64{},
		follow:    jsonlimport.NewFollowIn(opts.StateDir),
		said:      map[string]bool{},
		units:     map[string]jsonlimport.Unit{},
		owners:    map[string]map[string]bool{},
		unclaimed: map[string]unclaimedFile{},
		deferred:  map[string]*deferredProblem{},
		retry:     map[string]time.Time{},
	}
	for _, p := range opts.Paths {
		if err := w.addRoot(p); err != nil {
			return err
		}
	}
	if expose != nil {
		*expose = w
	}
	defer func() {
		if w.fsw != nil {
			_ = w.fsw.Close()
		}
		w.wg.Wait()
		// The copies of SQLite stores the run refreshed between imports
		// (jsonlimport/foreigndb) are removed; the readers' parse states
		// are written into opts.StateDir for the next run.
		_ = w.follow.Close()
		w.emit(Event{Kind: EventStopped})
	}()
	// The goroutines stop with ctx; Run's own return must stop them too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.ctx = ctx

	w.startEvents(ctx)
	var present []string
	for _, r := range w.roots {
		if r.dir {
			w.watchTree(r.path)
		} else {
			w.addWatch(filepath.Dir(r.path))
		}
		present = append(present, r.path)
	}
	w.emitWatching()
	if len(w.missing) > 0 {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.waitMissing(ctx)
		}()
	}
	if err := w.catchUp(ctx, present); err != nil {
		return err
	}
	return w.loop(ctx)
}

// addRoot resolves a given path. One that does not exist yet is waited
// for.
func (w *watcher) addRoot(p string) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return fmt.Errorf("watch %s: %w", p, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, os.ErrNotExist) {
		w.missing = append(w.missing, abs)
		return nil
	}
	if err != nil {
		return fmt.Errorf("watch %s: %w", p, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("watch %s: %w", p, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return fmt.Errorf("watch %s: not a regular file or directory: %w", p, sessiondb.ErrInvalid)
	}
	for _, r := range w.roots {
		if r.path == real {
			return nil
		}
	}
	w.roots = append(w.roots, root{path: real, dir: fi.IsDir()})
	return nil
}

// waitMissing looks for the paths that did not exist every
// MissingInterval and queues each one that appears.
func (w *watcher) waitMissing(ctx context.Context) {
	t := time.NewTicker(w.opts.MissingInterval)
	defer t.Stop()
	missing := append([]string(nil), w.missing...)
	for len(missing) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rest := missing[:0]
		for _, p := range missing {
			if _, err := os.Stat(p); err == nil {
				w.q.add(p, listed|rootAppeared)
				continue
			}
			rest = append(rest, p)
		}
		missing = rest
	}
}

// rootAppeared marks a queued path that is a given path that now exists.
const rootAppeared change = 1 << 7

// inScope reports whether p is a root or inside a directory root.
func (w *watcher) inScope(p string) bool {
	for _, r := range w.roots {
		if p == r.path || (r.dir && isUnder(p, r.path)) {
			return true
		}
	}
	return false
}

// loop waits for bursts of changes and imports them, until ctx is done.
func (w *watcher) loop(ctx context.Context) error {
	var deferT, retryT *time.Timer
	defer func() {
		for _, t := range []*time.Timer{deferT, retryT} {
			if t != nil {
				t.Stop()
			}
		}
	}()
	timerC := func(t *time.Timer) <-chan time.Time {
		if t == nil {
			return nil
		}
		return t.C
	}
	arm := func(t **time.Timer, at time.Time) {
		if *t != nil {
			(*t).Stop()
			*t = nil
		}
		if at.IsZero() {
			return
		}
		*t = time.NewTimer(max(time.Until(at), 0))
	}
	for {
		arm(&deferT, w.nextDeferred())
		arm(&retryT, w.nextRetry())
		select {
		case <-ctx.Done():
			return nil
		case <-w.q.wake:
		case <-timerC(deferT):
			deferT = nil
			w.checkDeferred()
			continue
		case <-timerC(retryT):
			retryT = nil
			if err := w.retryFailed(ctx); err != nil {
				return err
			}
			continue
		}
		for _, err := range w.errs.take() {
			w.emit(Event{Kind: EventError, Message: err.Error()})
		}
		// Let the burst settle.
		for {
			wait, ok := w.q.due(time.Now(), w.opts.Settle, w.opts.MaxDelay)
			if !ok || wait <= 0 {
				break
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
		paths, rescan := w.q.take()
		if rescan {
			if err := w.rescan(ctx); err != nil {
				return err
			}
			continue
		}
		if len(paths) == 0 {
			continue
		}
		if err := w.burst(ctx, paths); err != nil {
			return err
		}
	}
}

// catchUp imports what is new under paths with one import (parsed on
// Jobs goroutines, small new sessions batched) and records the units
// found. It is how Run starts, and how a tree that appears or a lost
// event queue is caught up with.
func (w *watcher) catchUp(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		w.emit(Event{Kind: EventCatchUp, Report: &jsonlimport.Report{}})
		return nil
	}
	disc, err := jsonlimport.DiscoverIn(ctx, w.store, w.opts.Machine, paths, w.opts.Format)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	var units []jsonlimport.Unit
	for _, u := range disc.Units {
		if w.inScope(u.Path) {
			units = append(units, u)
		}
	}
	before := w.records(ctx, units)
	rep, err := jsonlimport.ImportUnits(ctx, w.store, units, jsonlimport.Options{Jobs: w.opts.Jobs, Follow: w.follow, Machine: w.opts.Machine, Map: w.opts.Map})
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped: the rest is imported at the next start
		}
		if errors.Is(err, sessiondb.ErrClosed) {
			return fmt.Errorf("watch: %w", err)
		}
		// The store failed: report it, and import each unit again later.
		w.emit(Event{Kind: EventError, Message: fmt.Sprintf("catch-up import: %v (retrying)", err)})
		for _, u := range units {
			w.setUnit(u)
			w.failed(u.Path)
		}
		return nil
	}
	for _, u := range units {
		w.setUnit(u)
	}
	rep.Problems = w.holdBack(rep.Problems, nil)
	// The files no format claims are reported as import reports them.
	rep.Problems = append(w.emptyRootsAreFine(disc.Problems, paths), rep.Problems...)
	rep.Notes = append(append([]jsonlimport.Problem{}, disc.Skipped...), rep.Notes...)
	rep.Skipped = len(disc.Skipped)
	for _, p := range append(append([]jsonlimport.Problem{}, disc.Problems...), disc.Skipped...) {
		if w.inScope(p.Path) {
			w.noteUnclaimed(p.Path, true)
		}
	}
	w.emitImported(ctx, units, before, rep)
	w.emit(Event{Kind: EventCatchUp, Report: &rep, Problems: rep.Problems, Notes: rep.Notes})
	return nil
}

// emptyRootsAreFine returns the discovery's problems without the one a
// readable but empty root directory gets: for `import` a directory with
// no file is probably the wrong path, for a watcher it is an agent's
// archive before its first session, to be followed.
func (w *watcher) emptyRootsAreFine(problems []jsonlimport.Problem, roots []string) []jsonlimport.Problem {
	isRoot := map[string]bool{}
	for _, r := range roots {
		isRoot[r] = true
	}
	var out []jsonlimport.Problem
	for _, p := range problems {
		if isRoot[p.Path] && p.Line == 0 {
			if fi, err := os.Stat(p.Path); err == nil && fi.IsDir() {
				if _, err := os.ReadDir(p.Path); err == nil {
					continue
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// record is what the store held for a unit before a catch-up import.
type record struct {
	found   bool
	offset  int64
	sha     string
	lastSeq int64
}

// records reads the store's record of each unit's primary file (and the
// length of its session's log), so that the files a catch-up import
// changed can be reported one by one.
func (w *watcher) records(ctx context.Context, units []jsonlimport.Unit) map[string]record {
	out := make(map[string]record, len(units))
	for _, u := range units {
		sf, err := sessiondb.SourceFileOn(ctx, w.store, w.opts.Machine, u.Path)
		if err != nil {
			continue
		}
		r := record{found: true, offset: sf.Offset, sha: sf.SHA256}
		if s, err := w.store.Get(ctx, sf.SessionID); err == nil {
			r.lastSeq = s.LastSeq
		}
		out[u.Path] = r
	}
	return out
}

// emitImported sends an EventImport for every file a catch-up import
// changed, with its problems and notes, before the catch-up's totals.
// Entries counts the growth of the file's session log (its branch forks'
// copies are in the totals only).
func (w *watcher) emitImported(ctx context.Context, units []jsonlimport.Unit, before map[string]record, rep jsonlimport.Report) {
	problems, notes := map[string][]jsonlimport.Problem{}, map[string][]jsonlimport.Problem{}
	for _, p := range rep.Problems {
		problems[p.Path] = append(problems[p.Path], p)
	}
	for _, p := range rep.Notes {
		notes[p.Path] = append(notes[p.Path], p)
	}
	for _, u := range units {
		sf, err := sessiondb.SourceFileOn(ctx, w.store, w.opts.Machine, u.Path)
		if err != nil {
			continue // not imported: its problems are in the totals
		}
		b := before[u.Path]
		if b.found && b.offset == sf.Offset && b.sha == sf.SHA256 && len(problems[u.Path]) == 0 {
			continue // unchanged
		}
		e := Event{Kind: EventImport, Path: u.Path, Format: u.Format, Session: sf.SessionID, New: !b.found, CatchUp: true,
			Problems: problems[u.Path], Notes: notes[u.Path]}
		if s, err := w.store.Get(ctx, sf.SessionID); err == nil {
			e.Entries = int(s.LastSeq - b.lastSeq)
		}
		w.emit(e)
	}
}

// rescan catches up with everything after events were lost.
func (w *watcher) rescan(ctx context.Context) error {
	w.fallback("overflow", "the file-system event queue overflowed: looking at every followed file again (raise fs.inotify.max_queued_events if this repeats)")
	delete(w.said, "overflow") // say it each time it happens
	var paths []string
	for _, r := range w.roots {
		if r.dir {
			w.watchTree(r.path)
		}
		paths = append(paths, r.path)
	}
	return w.catchUp(ctx, paths)
}

// setUnit records u and the files it reads.
func (w *watcher) setUnit(u jsonlimport.Unit) {
	if old, ok := w.units[u.Path]; ok {
		w.unown(old)
	}
	w.units[u.Path] = u
	for _, f := range append([]string{u.Path}, u.Extra...) {
		if w.owners[f] == nil {
			w.owners[f] = map[string]bool{}
		}
		w.owners[f][u.Path] = true
		delete(w.unclaimed, f)
	}
}

// dropUnit forgets the unit of primary file p.
func (w *watcher) dropUnit(p string) {
	if u, ok := w.units[p]; ok {
		w.unown(u)
		delete(w.units, p)
	}
	delete(w.retry, p)
	delete(w.deferred, p)
	delete(w.reported, p)
}

func (w *watcher) unown(u jsonlimport.Unit) {
	for _, f := range append([]string{u.Path}, u.Extra...) {
		delete(w.owners[f], u.Path)
		if len(w.owners[f]) == 0 {
			delete(w.owners, f)
		}
	}
}

// emit hands an event to Options.Events.
func (w *watcher) emit(e Event) {
	if w.opts.Events == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	w.opts.Events(e)
}

// fallback says once per reason that some directories are polled.
func (w *watcher) fallback(reason, msg string) {
	if w.said[reason] {
		return
	}
	w.said[reason] = true
	w.emit(Event{Kind: EventFallback, Message: msg})
}

func (w *watcher) emitWatching() {
	var roots []string
	for _, r := range w.roots {
		roots = append(roots, r.path)
	}
	roots = append(roots, w.missing...)
	sort.Strings(roots)
	polled := 0
	for _, p := range w.dirs {
		if p {
			polled++
		}
	}
	mode := "events"
	switch {
	case polled > 0 && polled == len(w.dirs):
		mode = "poll"
	case polled > 0:
		mode = "events+poll"
	}
	w.emit(Event{Kind: EventWatching, Roots: roots, Dirs: len(w.dirs), Polled: polled, Mode: mode})
}
