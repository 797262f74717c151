//go:build !race

package aider_test

const raceEnabled = false
