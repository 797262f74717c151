package compactor

import (
	"github.com/sessiondb/sessiondb"
)

// DefaultKeepTurns is the number of turns kept verbatim when a Policy sets
// neither KeepTurns nor KeepTokens.
const DefaultKeepTurns = 2

// Policy decides which part of a transcript is kept verbatim. The zero
// value keeps the last DefaultKeepTurns turns and no anchor.
type Policy struct {
	// KeepTurns keeps the last KeepTurns turns verbatim. A turn starts at a
	// user message that is not a tool result (summary messages never start
	// one) and runs to the next. A transcript with fewer turns is kept whole.
	KeepTurns int
	// KeepTokens keeps the most recent entries whose estimated tokens fit in
	// this budget. The budget covers the kept tail only, not the anchor or
	// the summary. When both KeepTurns and KeepTokens are set, the shorter
	// of the two tails is kept.
	KeepTokens int
	// Anchor keeps the first Anchor entries of the transcript verbatim too
	// (for example the system prompt and the original task).
	Anchor int
	// Counter estimates tokens; nil means EstimateTokens.
	Counter TokenCounter
}

func (p Policy) counter() TokenCounter {
	if p.Counter != nil {
		return p.Counter
	}
	return EstimateTokens
}

// Plan is where a policy cuts a transcript: entries [0, Anchor) are the
// anchor, [Anchor, KeepFrom) are dropped (summarized) and [KeepFrom, len)
// are kept verbatim. Drop reports whether anything is dropped at all.
type Plan struct {
	Anchor   int
	KeepFrom int
	Drop     bool
	// Reason says why nothing is dropped (empty when Drop is true).
	Reason string
}

// Reasons a plan or a compaction did nothing.
const (
	ReasonEmpty          = "transcript is empty"
	ReasonNothingToDrop  = "nothing to drop: the kept tail and the anchor cover the transcript"
	ReasonOnlySummary    = "nothing to drop: only the previous summary lies between the anchor and the kept tail"
	ReasonNoCut          = "nothing to drop: no cut keeps every tool call with its results"
	ReasonBelowThreshold = "transcript is below the threshold"
	ReasonNoGain         = "nothing written: the summary would not make the transcript smaller"
)

// cuts records, for every position i in [0, n], whether cutting the
// transcript before entry i keeps every tool call with its results: no call
// opened in [0, i) is answered in [i, n), and entry i is not itself a tool
// result (a result without a usable ID stays with what precedes it).
//
// A result is paired with the nearest earlier call carrying its ID, so
// providers that reuse call IDs across turns ("call_0") do not glue the
// whole transcript together. Results whose call is not in the transcript
// (already summarized) constrain nothing but the rule on entry i.
func cuts(infos []bodyInfo) []bool {
	n := len(infos)
	diff := make([]int, n+2)
	open := map[string]int{}
	for i, in := range infos {
		for _, id := range in.results {
			if c, ok := open[id]; ok && c < i {
				// Cuts c+1 … i separate call c from result i.
				diff[c+1]++
				diff[i+1]--
			}
		}
		for _, id := range in.calls {
			open[id] = i
		}
	}
	ok := make([]bool, n+1)
	run := 0
	for i := 0; i <= n; i++ {
		run += diff[i]
		ok[i] = run == 0 && (i == n || !infos[i].toolResult())
	}
	ok[0], ok[n] = true, true
	return ok
}

// PlanTranscript applies the policy to a transcript. It is a pure function:
// entries with Seq 0 are summary messages of the current compaction (they
// lead the transcript); the kept tail always starts at a log entry (Seq > 0)
// because the store keeps log entries from a sequence number on. The kept
// tail is never empty: when even the last entry exceeds KeepTokens, the last
// entry is kept with its tool group. Cuts move so that no tool call is
// separated from its results: the anchor grows, the tail grows.
func PlanTranscript(t []sessiondb.Entry, p Policy) Plan {
	infos := make([]bodyInfo, len(t))
	for i, e := range t {
		infos[i] = inspectBody(e.Body)
	}
	return plan(t, infos, p, -1)
}

// plan is PlanTranscript with the entries' infos computed and the index of
// the previous summary message (-1: none), which alone is not worth a new
// compaction.
func plan(t []sessiondb.Entry, infos []bodyInfo, p Policy, prevSummary int) Plan {
	n := len(t)
	if n == 0 {
		return Plan{Reason: ReasonEmpty}
	}
	ok := cuts(infos)

	a := min(max(p.Anchor, 0), n)
	for !ok[a] {
		a++
	}
	// The anchor was fixed by the first compaction: it never reaches past
	// the previous summary message into what came after it.
	if prevSummary >= 0 && a > prevSummary && ok[prevSummary] {
		a = prevSummary
	}

	k := tailStart(t, infos, p)
	for !ok[k] {
		k--
	}
	// The tail must start at a log entry: summary messages ahead of it are
	// folded into the new summary.
	first := n
	for i, e := range t {
		if e.Seq > 0 {
			first = i
			break
		}
	}
	if k < first && k > a {
		k = first
		if !ok[k] {
			return Plan{Anchor: a, KeepFrom: k, Reason: ReasonNoCut}
		}
	}
	if k <= a {
		return Plan{Anchor: a, KeepFrom: max(k, a), Reason: ReasonNothingToDrop}
	}
	if k == a+1 && a == prevSummary {
		return Plan{Anchor: a, KeepFrom: k, Reason: ReasonOnlySummary}
	}
	return Plan{Anchor: a, KeepFrom: k, Drop: true}
}

// tailStart is the first entry of the tail the policy wants, before tool
// groups are taken into account. It is at most n-1.
func tailStart(t []sessiondb.Entry, infos []bodyInfo, p Policy) int {
	n := len(t)
	turns, tokens := p.KeepTurns, p.KeepTokens
	if turns <= 0 && tokens <= 0 {
		turns = DefaultKeepTurns
	}
	k := 0
	if turns > 0 {
		seen := 0
		for i := n - 1; i >= 0; i-- {
			if !t[i].Summary && infos[i].userRequest() {
				seen++
				if seen == turns {
					k = i
					break
				}
			}
		}
	}
	if tokens > 0 {
		count := p.counter()
		sum, kt := 0, n
		for i := n - 1; i >= 0; i-- {
			sum += count(t[i])
			if sum > tokens {
				break
			}
			kt = i
		}
		k = max(k, kt)
	}
	return min(k, n-1)
}
