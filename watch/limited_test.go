package watch

import "os"

// limitedWatcherMain is filled in by the user-namespace test.
func limitedWatcherMain() int { return 2 }

var _ = os.Getenv
