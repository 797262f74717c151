package jsonlimport

import (
	"slices"
	"testing"

	"github.com/sessiondb/sessiondb/internal/longtest"
)

// cursorAgentRoots are the Cursor agent's transcripts: the real corpus
// and the crafted fixtures (testdata/cursor-agent).
var cursorAgentRoots = []string{"../testdata/cursor-agent/corpus", "../testdata/cursor-agent/crafted"}

// TestGrowthCursorAgent grows every Cursor agent transcript line by line
// and half line (as TestGrowthFixtures does, whose quick run samples 16
// files of all the formats), with and without a Follow, and compares with
// one import of the whole file. The trailing turn_ended line a read holds
// back, and a sub-agent's link, must come out the same.
func TestGrowthCursorAgent(t *testing.T) {
	longtest.Skip(t, "imports each Cursor agent transcript once per line and half line (~3 s)")
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	cases := growthCases(t, cursorAgentRoots, true)
	for _, c := range slices.Clone(cases) {
		c.follow = true
		cases = append(cases, c)
	}
	counts, diffs := growthReport(t, cases)
	t.Logf("growth equality on Cursor agent transcripts (files equal/total): %s", formatCounts(counts))
	if len(cases) == 0 {
		t.Fatal("no Cursor agent transcript found")
	}
	for _, d := range diffs {
		t.Error(d)
	}
}
