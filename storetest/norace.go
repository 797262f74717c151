//go:build !race

package storetest

// raceEnabled: see race.go.
const raceEnabled = false
