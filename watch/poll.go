package watch

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// fileSig is what a poll compares: a change of any field is a change of
// the file. The inode tells a file replaced under its name (written
// elsewhere and renamed over) from one that was written in place.
type fileSig struct {
	size  int64
	mtime int64
	ino   uint64
	dir   bool
}

// poller follows directories by listing them and comparing what it sees
// with what it saw last time. It runs only while it has directories.
type poller struct {
	q        *queue
	interval time.Duration

	mu   sync.Mutex
	dirs map[string]map[string]fileSig // directory → name → signature
	run  bool                          // the loop is running

	// lastScan is the duration of the last full poll, for the interval
	// (PollBudget) and for the benchmark.
	lastScan time.Duration
	scans    int
}

func newPoller(q *queue, interval time.Duration) *poller {
	return &poller{q: q, interval: interval, dirs: map[string]map[string]fileSig{}}
}

// add starts polling dir, remembering what it holds now (so that its
// present files are not reported as new). It reports whether the poll
// loop must be started.
func (p *poller) add(dir string) (start bool) {
	snap := listSigs(dir)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.dirs[dir]; !ok {
		p.dirs[dir] = snap
	}
	if !p.run {
		p.run = true
		return true
	}
	return false
}

// remove stops polling dir and every directory below it.
func (p *poller) remove(dir string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for d := range p.dirs {
		if d == dir || isUnder(d, dir) {
			delete(p.dirs, d)
		}
	}
}

func (p *poller) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.dirs)
}

// loop polls until ctx is done.
func (p *poller) loop(ctx context.Context) {
	t := time.NewTimer(p.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		took := p.scan()
		next := p.interval
		if b := took * PollBudget; b > next {
			next = b
		}
		t.Reset(next)
	}
}

// scan polls every directory once and queues what changed.
func (p *poller) scan() time.Duration {
	start := time.Now()
	p.mu.Lock()
	dirs := make([]string, 0, len(p.dirs))
	for d := range p.dirs {
		dirs = append(dirs, d)
	}
	p.mu.Unlock()
	for _, d := range dirs {
		now := listSigs(d)
		p.mu.Lock()
		old, ok := p.dirs[d]
		if ok {
			p.dirs[d] = now
		}
		p.mu.Unlock()
		if !ok {
			continue // removed meanwhile
		}
		if now == nil {
			// The directory is gone (or unreadable): the worker finds out
			// which, and stops following it.
			p.q.add(d, listed)
			continue
		}
		for name, s := range now {
			o, seen := old[name]
			switch {
			case !seen || o.ino != s.ino || o.dir != s.dir:
				p.q.add(filepath.Join(d, name), listed)
			case o.size != s.size || o.mtime != s.mtime:
				p.q.add(filepath.Join(d, name), changed)
			}
		}
		for name := range old {
			if _, ok := now[name]; !ok {
				p.q.add(filepath.Join(d, name), listed)
			}
		}
	}
	took := time.Since(start)
	p.mu.Lock()
	p.lastScan, p.scans = took, p.scans+1
	p.mu.Unlock()
	return took
}

// listSigs lists dir with a signature per entry; nil when it cannot be
// read.
func listSigs(dir string) map[string]fileSig {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil
	}
	out := make(map[string]fileSig, len(ents))
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			continue // removed between the listing and the stat
		}
		s := fileSig{size: fi.Size(), mtime: fi.ModTime().UnixNano(), dir: fi.IsDir()}
		s.ino = inode(fi)
		if s.dir {
			s.size, s.mtime = 0, 0 // a listing change shows up inside it
		}
		out[e.Name()] = s
	}
	return out
}
