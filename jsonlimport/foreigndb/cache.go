package foreigndb

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// The snapshots of one import (or of a watcher's whole run) are kept in
// the importer's jsonl.Cache, one per database path, so that the many
// sessions of one store are read from one copy, and a watcher refreshes
// its copy by what the log gained instead of copying the database on
// every change. The cache closes them (jsonl.Cache.Close) when the import
// or the run ends, which removes the copies.

// holder is the cache's value for one database path.
type holder struct {
	mu   sync.Mutex
	snap *Snapshot
}

// Close closes the held snapshot (jsonl.Cache.Close calls it).
func (h *holder) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.snap == nil {
		return nil
	}
	err := h.snap.Close()
	h.snap = nil
	return err
}

func holderOf(c *jsonl.Cache, path string) *holder {
	var h *holder
	c.Do("foreigndb:"+path, func(v any) any {
		if old, ok := v.(*holder); ok {
			h = old
			return old
		}
		h = &holder{}
		return h
	})
	return h
}

// Acquire returns the snapshot of the database at path kept in c,
// refreshed to the database's current state (Snapshot.Refresh), or a new
// one. Call it once per import of a store, where the store's sessions are
// listed; the readers of its sessions then take Current, so that every
// session of one import is read from the state that was listed. With a
// nil c the snapshot is the caller's to close.
func Acquire(ctx context.Context, c *jsonl.Cache, path string) (*Snapshot, error) {
	if c == nil {
		return Open(ctx, path)
	}
	h := holderOf(c, path)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.snap != nil {
		if err := h.snap.Refresh(ctx); err != nil {
			h.snap.Close()
			h.snap = nil
			return nil, err
		}
		return h.snap, nil
	}
	s, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	h.snap = s
	return s, nil
}

// Current returns the snapshot of path kept in c as the last Acquire left
// it, or, when there is none (c is nil, or the store was not listed in
// this cache), a new one as Acquire takes it. owned reports that the
// caller must close it (c was nil).
func Current(ctx context.Context, c *jsonl.Cache, path string) (s *Snapshot, owned bool, err error) {
	if c != nil {
		h := holderOf(c, path)
		h.mu.Lock()
		s := h.snap
		h.mu.Unlock()
		if s != nil {
			return s, false, nil
		}
		s, err := Acquire(ctx, c, path)
		return s, false, err
	}
	s, err = Open(ctx, path)
	return s, true, err
}

// Whole opens path's current snapshot for reading one of its sessions
// whole, as the readers of foreign stores do: it decodes from.State into
// state (a state that does not decode is left at its zero) and refuses a
// read from an offset with jsonl.ErrNotIncremental (rows of a store are
// rewritten in place, so the importer reads the session whole and keeps
// the entries after those it imported). release returns the snapshot.
func Whole(ctx context.Context, from jsonl.Resume, path string, state any) (db *sql.DB, release func(), err error) {
	if len(from.State) > 0 {
		_ = json.Unmarshal(from.State, state)
	}
	if from.Offset > 0 {
		return nil, nil, jsonl.ErrNotIncremental
	}
	snap, owned, err := Current(ctx, from.Cache, path)
	if err != nil {
		return nil, nil, err
	}
	release = func() {}
	if owned {
		release = func() { snap.Close() }
	}
	return snap.DB(), release, nil
}
