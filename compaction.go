package sessiondb

import (
	"encoding/json"
	"time"
)

// Compaction is a compaction checkpoint: from it on, the effective
// transcript is Summary followed by the log entries with Seq >= KeepFromSeq.
// A truncation is a compaction without summary; replacing the transcript is
// a compaction whose KeepFromSeq is the first newly appended entry.
type Compaction struct {
	// ID is assigned by the store; IDs increase, and the compaction with the
	// highest ID is the session's current one.
	ID int64
	// AtSeq is the log length when the compaction was made. Zero on write
	// means the session's LastSeq after the commit's appends.
	AtSeq int64
	// KeepFromSeq is the first log entry kept verbatim. It must be between 1
	// and LastSeq+1 (LastSeq+1 keeps nothing).
	KeepFromSeq int64
	// Summary holds the synthetic messages placed before the kept entries.
	// Bodies must be JSON; kinds and roles default as for Entry.
	Summary      []Entry
	TokensBefore int64
	TokensAfter  int64
	// Details is free JSON (summarizer, model, reason, …); nil when unset.
	Details   json.RawMessage
	CreatedAt time.Time
}

// Usage is one model call's token and cost accounting.
type Usage struct {
	// Seq is the log entry the call produced, when known (0 otherwise).
	Seq int64
	// CallID names the model call within the session's ledger (an API
	// response's ID, for instance); "" when it has none. A row with a
	// CallID replaces the ledger row of the same session with that CallID,
	// so a call reported several times (Claude Code writes partial usage on
	// the early lines of a streamed response and the final usage on its
	// last) is counted once, with its last report. Within one commit the
	// later row wins too. At most MaxCallIDLen bytes of valid UTF-8
	// without NUL.
	CallID           string
	Provider         string
	Model            string
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	// CacheWrite1hTokens is the part of CacheWriteTokens written to the
	// cache for one hour rather than the default five minutes (Anthropic's
	// ephemeral_1h_input_tokens), which costs more (Price.CacheWrite1h);
	// 0 when the tool does not split its cache writes by lifetime. At
	// least 0 and at most CacheWriteTokens, or the commit fails with
	// ErrInvalid.
	CacheWrite1hTokens int64
	ReasoningTokens    int64
	Cost               float64
	// CostEstimated says Cost was computed from a price table (by an
	// importer, for a tool that records no cost) rather than given by the
	// tool that made the call. Repricing recomputes only such costs.
	CostEstimated bool
	CreatedAt     time.Time
}

// MaxCallIDLen is the longest Usage.CallID, in bytes, a store accepts.
const MaxCallIDLen = 512

// UsageTotals sums Usage rows.
type UsageTotals struct {
	Calls            int64
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	ReasoningTokens  int64
	Cost             float64
	// Unpriced counts the calls among Calls whose cost is unknown: an
	// estimate (Usage.CostEstimated) of 0 for calls that counted tokens,
	// which is what an importer writes when no price list prices the
	// model. Cost sums the other calls only; a view shows such calls as
	// "unpriced", never as $0.00. (A free model's calls are priced: the
	// importers record their zero cost as known, not estimated.)
	Unpriced int64
}

// Add adds u to t.
func (t *UsageTotals) Add(u Usage) {
	t.Calls++
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.CacheReadTokens += u.CacheReadTokens
	t.CacheWriteTokens += u.CacheWriteTokens
	t.ReasoningTokens += u.ReasoningTokens
	t.Cost += u.Cost
	if u.Unpriced() {
		t.Unpriced++
	}
}

// Unpriced reports whether the call's cost is unknown: estimated at 0
// while it counted tokens (see UsageTotals.Unpriced).
func (u Usage) Unpriced() bool {
	return u.CostEstimated && u.Cost == 0 && u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens > 0
}
