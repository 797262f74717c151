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
