//go:build race

package torture

// raceEnabled: this test binary is race-instrumented, so child processes
// run from a separately built, uninstrumented binary (see childExe).
const raceEnabled = true
