package watch

import (
	"sync"
	"time"
)

// change says what happened to a path since the last burst.
type change uint8

const (
	// changed: the content may have changed (written, truncated).
	changed change = 1 << iota
	// listed: the path appeared in or left its directory (created,
	// removed, renamed), or is a directory that may have.
	listed
)

// queue collects the paths that changed, from the event and poll
// goroutines, until the worker takes them as one burst. Adding never
// blocks on the worker, so the kernel's event queue is drained while a
// burst is being imported.
type queue struct {
	mu     sync.Mutex
	paths  map[string]change
	first  time.Time // when the oldest pending change arrived
	last   time.Time // when the newest one arrived
	rescan bool      // events were lost: discover everything again
	wake   chan struct{}
}

func newQueue() *queue {
	return &queue{paths: map[string]change{}, wake: make(chan struct{}, 1)}
}

func (q *queue) add(path string, c change) {
	now := time.Now()
	q.mu.Lock()
	if len(q.paths) == 0 && !q.rescan {
		q.first = now
	}
	q.paths[path] |= c
	q.last = now
	q.mu.Unlock()
	q.signal()
}

// lost records that events were lost (the kernel's queue overflowed).
func (q *queue) lost() {
	now := time.Now()
	q.mu.Lock()
	if len(q.paths) == 0 && !q.rescan {
		q.first = now
	}
	q.rescan = true
	q.last = now
	q.mu.Unlock()
	q.signal()
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// due returns how long to wait before the pending burst is taken: until
// the paths have been quiet for settle, but not past maxDelay after the
// first change. ok is false when nothing is pending.
func (q *queue) due(now time.Time, settle, maxDelay time.Duration) (wait time.Duration, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.paths) == 0 && !q.rescan {
		return 0, false
	}
	at := q.last.Add(settle)
	if limit := q.first.Add(maxDelay); limit.Before(at) {
		at = limit
	}
	return at.Sub(now), true
}

// take returns the pending burst and empties the queue.
func (q *queue) take() (map[string]change, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	paths, rescan := q.paths, q.rescan
	q.paths, q.rescan = map[string]change{}, false
	return paths, rescan
}
