package jsonl

import (
	"errors"
	"io"
	"sort"
	"sync"
)

// Cache is where readers keep their parse state between the imports of an
// importer that runs on (jsonlimport.Follow), each format under its own
// name, so that a file that grew is parsed from where the last import
// stopped. A nil *Cache keeps nothing. It is safe for concurrent use.
type Cache struct {
	// Dir, when not "", is a directory where readers keep their parse
	// states across runs: Close has each value that is a Saver write
	// what it keeps there, and a reader of the next run with the same
	// Dir reads it back (jsonlimport.NewFollowIn).
	Dir string

	mu   sync.Mutex
	vals map[string]any
}

// Saver is a value kept in a Cache that can write what it keeps into a
// directory (Cache.Dir) when the cache is closed, for the next run.
type Saver interface {
	Save(dir string) error
}

// Do calls fn with the value kept under name (nil when none) and keeps
// what fn returns, holding the cache's lock meanwhile: fn must not call
// the cache again. On a nil Cache, fn gets nil and its result is dropped.
func (c *Cache) Do(name string, fn func(v any) any) {
	if c == nil {
		fn(nil)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vals == nil {
		c.vals = map[string]any{}
	}
	c.vals[name] = fn(c.vals[name])
}

// Close has every value kept that is a Saver save into Dir (when set),
// closes every value kept that is an io.Closer (a reader's copy of a
// database, which removes it) and forgets them all. The importer closes
// the cache it makes for one import at the end of the import; a Follow's
// is closed with the Follow. The cache stays usable.
func (c *Cache) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	vals := c.vals
	c.vals = nil
	c.mu.Unlock()
	names := make([]string, 0, len(vals))
	for n := range vals {
		names = append(names, n)
	}
	sort.Strings(names)
	var errs []error
	for _, n := range names {
		if sv, ok := vals[n].(Saver); ok && c.Dir != "" {
			errs = append(errs, sv.Save(c.Dir))
		}
		if cl, ok := vals[n].(io.Closer); ok {
			errs = append(errs, cl.Close())
		}
	}
	return errors.Join(errs...)
}
