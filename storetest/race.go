//go:build race

package storetest

// raceEnabled: the binary runs under the race detector, which makes
// SQLite (transpiled C, instrumented) some 30 times slower; the heaviest
// property tests then run fewer cases.
const raceEnabled = true
