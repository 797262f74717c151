package compactor

import (
	"fmt"

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
	// the summary. The tail starts at a message boundary that separates no
	// tool call from its results, inside a turn when need be (a split turn:
	// the turn's beginning is summarized apart, see Plan.Split); it fits
	// the budget whenever the last entries that can be kept alone (the
	// last message with the results of its calls) do. When both KeepTurns
	// and KeepTokens are set, the shorter of the two tails is kept.
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
	// Split is true when the kept tail starts inside a turn rather than at
	// the user prompt that starts one (KeepTokens cut a long turn): the
	// dropped entries [TurnStart, KeepFrom) are that turn's beginning, and
	// [Anchor, TurnStart) the history before it; the two are summarized
	// apart (pi's "split turn"). TurnStart is the turn's prompt, or Anchor
	// when the turn began before the dropped part (in an earlier summary).
	Split     bool
	TurnStart int
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
	type early struct {
		at int
		id string
	}
	var unmatched []early
	for i, in := range infos {
		for _, id := range in.results {
			if c, ok := open[id]; ok && c < i {
				// Cuts c+1 … i separate call c from result i.
				diff[c+1]++
				diff[i+1]--
			} else if in.understood {
				unmatched = append(unmatched, early{i, id})
			}
		}
		for _, id := range in.calls {
			open[id] = i
		}
	}
	// Claude Code sometimes writes a tool_result line before the
	// tool_use line it answers (a later block of the same response): in
	// the formats read through Understand, a result with no call before
	// it pairs with the first call with its ID after it.
	if len(unmatched) > 0 {
		later := map[string][]int{}
		for i, in := range infos {
			for _, id := range in.calls {
				later[id] = append(later[id], i)
			}
		}
		for _, u := range unmatched {
			for _, c := range later[u.id] {
				if c > u.at {
					diff[u.at+1]++
					diff[c+1]--
					break
				}
			}
		}
	}
	ok := make([]bool, n+1)
	run := 0
	for i := 0; i <= n; i++ {
		run += diff[i]
		ok[i] = run == 0 && (i == n || (!infos[i].toolResult() && !infos[i].part))
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
	return PlanFormat("", t, p)
}

// PlanFormat is PlanTranscript for a session of the given source format
// (Session.SourceFormat). Claude Code, Codex and pi sessions are read
// through jsonlimport.Understand and cut at turn starts only (see the
// package doc, "Claude Code, Codex and pi"); every other format is read as
// PlanTranscript reads it.
func PlanFormat(format string, t []sessiondb.Entry, p Policy) Plan {
	return plan(t, inspectAll(format, t), p, -1)
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
	if len(infos) > 0 && infos[0].understood {
		return planTurns(t, infos, ok, p, prevSummary)
	}

	a := min(max(p.Anchor, 0), n)
	for !ok[a] {
		a++
	}
	// The anchor was fixed by the first compaction: it never reaches past
	// the previous summary message into what came after it.
	if prevSummary >= 0 && a > prevSummary && ok[prevSummary] {
		a = prevSummary
	}

	k := tailStart(t, infos, ok, a, p)
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
	return splitTurn(t, infos, Plan{Anchor: a, KeepFrom: k, Drop: true}, prevSummary)
}

// splitTurn marks pl split when its tail starts inside a turn: before
// its first user prompt, the tail holds the model's work (an assistant
// message or a tool result), not only bookkeeping, custom or rich
// entries. The turn began at the last prompt of the dropped part (or,
// with none there, before it).
func splitTurn(t []sessiondb.Entry, infos []bodyInfo, pl Plan, prevSummary int) Plan {
	if !pl.Drop {
		return pl
	}
	inside := false
	for i := pl.KeepFrom; i < len(t) && !inside; i++ {
		if i != prevSummary && infos[i].userRequest() {
			break
		}
		kind := t[i].Kind
		inside = (kind == sessiondb.KindMessage || kind == sessiondb.KindMessagePart) && (infos[i].role == "assistant" || infos[i].toolResult())
	}
	if !inside {
		return pl
	}
	pl.Split, pl.TurnStart = true, pl.Anchor
	for i := pl.KeepFrom - 1; i >= pl.Anchor; i-- {
		if i != prevSummary && infos[i].userRequest() {
			pl.TurnStart = i
			break
		}
	}
	return pl
}

// tailStart is the first entry of the tail the policy wants, before tool
// groups are taken into account (the cut before it may still separate a
// call from its result; plan moves it earlier then). It is at most n-1.
func tailStart(t []sessiondb.Entry, infos []bodyInfo, ok []bool, a int, p Policy) int {
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
		k = max(k, budgetCut(t, p.counter(), tokens, func(i int) bool { return ok[i] && i > a }))
	}
	return min(k, n-1)
}

// budgetCut is where a tail kept within tokens starts: the first allowed
// cut (allowed(i)) at or after the first entry the budget covers, so that
// the tail fits; when no cut there is allowed (the last message and the
// results of its calls exceed the budget together), the last allowed cut
// before it, the shortest tail that can be kept; len(t) when there is
// none at all.
func budgetCut(t []sessiondb.Entry, count TokenCounter, tokens int, allowed func(int) bool) int {
	n := len(t)
	kt := budgetStart(t, count, tokens)
	for i := kt; i < n; i++ {
		if allowed(i) {
			return i
		}
	}
	for i := min(kt, n) - 1; i >= 0; i-- {
		if allowed(i) {
			return i
		}
	}
	return n
}

// budgetStart is the first entry of the longest tail of t whose
// estimated tokens fit in tokens (len(t) when not even the last does).
func budgetStart(t []sessiondb.Entry, count TokenCounter, tokens int) int {
	sum, k := 0, len(t)
	for i := len(t) - 1; i >= 0; i-- {
		sum += count(t[i])
		if sum > tokens {
			break
		}
		k = i
	}
	return k
}

// anchorEnd is where the anchor ends: Policy.Anchor moved later until the
// cut is allowed, and never past the previous summary message.
func anchorEnd(n int, ok []bool, p Policy, prevSummary int) int {
	a := min(max(p.Anchor, 0), n)
	for !ok[a] {
		a++
	}
	if prevSummary >= 0 && a > prevSummary && ok[prevSummary] {
		a = prevSummary
	}
	return a
}

// planTurns is plan for the formats read through Understand (Claude Code,
// Codex, pi). KeepTurns keeps the last KeepTurns turns: the tail starts
// at a user prompt at which a cut is allowed (a turn start). KeepTokens
// keeps what fits the budget: the tail starts at the first message
// boundary the budget covers where a cut is allowed (no call separated
// from its results, not among the lines of one streamed response), which
// may lie inside a turn (Plan.Split); only when even the last message
// with its results is over the budget does the tail start earlier, at the
// last boundary before. The tail may start among the summary entries of
// the current compaction (an import's copies of a resume path, our
// previous tail): those are carried into the new compaction as copies.
// Every reason for dropping nothing names the counts.
func planTurns(t []sessiondb.Entry, infos []bodyInfo, ok []bool, p Policy, prevSummary int) Plan {
	n := len(t)
	a := anchorEnd(n, ok, p, prevSummary)
	var starts []int
	for i := range t {
		if i != prevSummary && ok[i] && infos[i].userRequest() {
			starts = append(starts, i)
		}
	}
	turns, tokens := p.KeepTurns, p.KeepTokens
	if turns <= 0 && tokens <= 0 {
		turns = DefaultKeepTurns
	}
	k := 0
	if turns > 0 {
		switch {
		case len(starts) == 0 && tokens <= 0:
			return Plan{Anchor: a, KeepFrom: a, Reason: fmt.Sprintf(
				"nothing to drop: no entry of the transcript (%s) is a user prompt at which a kept tail could start (it is one turn, or has no prompt)", plural(n, "entry", "entries"))}
		case len(starts) <= turns && tokens <= 0:
			return Plan{Anchor: a, KeepFrom: a, Reason: fmt.Sprintf(
				"nothing to drop: the transcript (%s) has %s and the policy keeps the last %d (a turn starts at a user prompt)", plural(n, "entry", "entries"), plural(len(starts), "turn", "turns"), turns)}
		case len(starts) > turns:
			k = starts[len(starts)-turns]
		}
	}
	if tokens > 0 {
		// A message boundary: not a bookkeeping line (a cut before one
		// would keep it and drop the message it belongs with), not the
		// previous summary.
		boundary := func(i int) bool {
			return i > a && i != prevSummary && ok[i] && (infos[i].role != "" || t[i].Summary)
		}
		kt := budgetCut(t, p.counter(), tokens, boundary)
		if kt >= n {
			return Plan{Anchor: a, KeepFrom: a, Reason: fmt.Sprintf(
				"nothing to drop: no message boundary of the transcript (%s) after the anchor keeps every tool call with its results", plural(n, "entry", "entries"))}
		}
		k = max(k, kt)
	}
	if k <= a {
		return Plan{Anchor: a, KeepFrom: a, Reason: fmt.Sprintf(
			"nothing to drop: the anchor (%s) reaches the turn the kept tail starts with", plural(a, "entry", "entries"))}
	}
	if k == a+1 && a == prevSummary {
		return Plan{Anchor: a, KeepFrom: k, Reason: ReasonOnlySummary}
	}
	return splitTurn(t, infos, Plan{Anchor: a, KeepFrom: k, Drop: true}, prevSummary)
}

// plural is "1 entry", "2 entries".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
