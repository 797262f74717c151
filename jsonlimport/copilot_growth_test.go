package jsonlimport

import (
	"slices"
	"testing"

	"github.com/sessiondb/sessiondb/internal/longtest"
)

// copilotRoots are the Copilot CLI stores: what the real Copilot CLI wrote
// (testdata/gen/copilot/gen.sh) and the crafted file made from it.
var copilotRoots = []string{"../testdata/copilot/session-state", "../testdata/copilot/crafted"}

// TestGrowthCopilot grows every Copilot CLI file line by line (as
// TestGrowthFixtures does, whose quick run samples 16 files of all the
// formats) and compares with one import of the whole file: usage,
// compactions and entries equal.
func TestGrowthCopilot(t *testing.T) {
	longtest.Skip(t, "imports each Copilot CLI file once per line and half line (~3 s)")
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	cases := growthCases(t, copilotRoots, true)
	for _, c := range slices.Clone(cases) {
		c.follow = true
		cases = append(cases, c)
	}
	counts, diffs := growthReport(t, cases)
	t.Logf("growth equality on Copilot CLI files (files equal/total): %s", formatCounts(counts))
	if len(cases) == 0 {
		t.Fatal("no Copilot CLI file found")
	}
	for _, d := range diffs {
		t.Error(d)
	}
}
