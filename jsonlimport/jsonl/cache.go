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
	mu   sync.Mutex
	vals map[string]any
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

// Close closes every value kept that is an io.Closer (a reader's copy of a
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
		if cl, ok := vals[n].(io.Closer); ok {
			errs = append(errs, cl.Close())
		}
	}
	return errors.Join(errs...)
}
