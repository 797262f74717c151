//go:build !race

package compactor

const raceEnabled = false
