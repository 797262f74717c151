// Package longtest marks the tests that belong to the long run.
//
// The README's test command (go test ./...) is the contributor's loop and
// must stay quick; what takes long (the real corpus imported many times,
// torture, growth replays, subprocess crash loops, live agents) runs only
// when SESSIONDB_LONG=1, which .ci/run sets for its long step. A test that
// belongs there starts with longtest.Skip(t, why).
package longtest

import (
	"os"
	"testing"
)

// Env is the environment variable that enables the long run.
const Env = "SESSIONDB_LONG"

// Enabled reports whether the long run is on: SESSIONDB_LONG is set to
// anything but "" or "0".
func Enabled() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Skip skips tb unless the long run is on; why says what makes the test
// long, so that the skip message tells a contributor what they leave out.
func Skip(tb testing.TB, why string) {
	tb.Helper()
	if !Enabled() {
		tb.Skipf("long test (%s): set %s=1 to run it", why, Env)
	}
}

// Sample returns all of items in the long run, and otherwise at most n of
// them spread evenly over the list (the first and the last always among
// them), so that a corpus test in the quick run still meets every kind of
// file the list is ordered by, in a fraction of the time.
func Sample[T any](items []T, n int) []T {
	if Enabled() || n <= 0 || len(items) <= n {
		return items
	}
	if n == 1 {
		return items[:1]
	}
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, items[i*(len(items)-1)/(n-1)])
	}
	return out
}

// Size returns long in the long run and quick otherwise: the same test on
// a smaller input.
func Size(quick, long int) int {
	if Enabled() {
		return long
	}
	return quick
}

// Every reports whether case i of a table runs: always in the long run,
// and in the quick run only every n-th case. A test that crosses two lists
// (formats × scenarios) numbers the cases so that the quick run still
// meets every member of both lists, e.g. i = format + scenario.
func Every(i, n int) bool {
	return Enabled() || n <= 1 || i%n == 0
}
