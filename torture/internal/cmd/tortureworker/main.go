// Command tortureworker runs one child process role of the torture suite
// (see package torture). The tests build it without the race detector and
// use it instead of re-executing their own binary when that binary is
// race-instrumented: workers then run at production speed and report
// their real peak memory.
package main

import (
	"os"

	"github.com/sessiondb/sessiondb/torture"
)

func main() {
	os.Exit(torture.ChildMain(os.Getenv(torture.EnvRole)))
}
