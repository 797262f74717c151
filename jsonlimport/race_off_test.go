//go:build !race

package jsonlimport

const raceEnabled = false
