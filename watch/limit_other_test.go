//go:build !linux

package watch

// limitedWatcherMain needs Linux user namespaces.
func limitedWatcherMain() int { return 2 }
