//go:build race

package main

// raceEnabled is true in a -race build: the tests that replay the real
// corpus run without it (.ci/run runs them in a step of their own), as
// they exercise no concurrency and -race makes them run many times longer.
const raceEnabled = true
