package jsonl

import "sync"

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
