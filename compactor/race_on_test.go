//go:build race

package compactor

// raceEnabled is true in a -race build: the tests that compact the whole
// real corpus run without it, as they exercise no concurrency and -race
// makes them run many times longer.
const raceEnabled = true
