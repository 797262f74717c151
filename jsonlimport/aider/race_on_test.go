//go:build race

package aider_test

// raceEnabled is true in a -race build: the growth tests, which replay
// files many times and exercise no concurrency, run without it (.ci/run
// runs them in a step of their own).
const raceEnabled = true
