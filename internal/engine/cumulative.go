package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

// Cumulative usage (issue 44, sessiondb.Commit.CumulativeUsage): a row
// that gives a session's running totals becomes, inside the commit, the
// delta against the previous total, recorded as one ledger row. The
// previous total is the session's row of usage_cumulative (the last total
// it reported), or, before its first, the sum of its ledger. A total
// below the previous one in any count or the cost is a reset: the row is
// the delta as it stands.

// usageTotal is a running total as usage_cumulative stores it.
type usageTotal struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h, Reasoning int64
	Cost                                                          float64
}

func totalOf(u sessiondb.Usage) usageTotal {
	return usageTotal{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens,
		u.CacheWrite1hTokens, u.ReasoningTokens, u.Cost}
}

// previousTotal reads the total the next cumulative row of session id is
// diffed against.
func previousTotal(ctx context.Context, tx Tx, id string) (usageTotal, error) {
	var t usageTotal
	fields := []any{&t.Input, &t.Output, &t.CacheRead, &t.CacheWrite, &t.CacheWrite1h, &t.Reasoning, &t.Cost}
	err := tx.QueryRowxContext(ctx, `SELECT input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
		cache_write_1h_tokens, reasoning_tokens, cost FROM usage_cumulative WHERE session_id = ?`, id).Scan(fields...)
	if !errors.Is(err, sql.ErrNoRows) {
		return t, err
	}
	err = tx.QueryRowxContext(ctx, `SELECT coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
		coalesce(sum(cache_read_tokens), 0), coalesce(sum(cache_write_tokens), 0),
		coalesce(sum(cache_write_1h_tokens), 0), coalesce(sum(reasoning_tokens), 0), coalesce(sum(`+backend.CostSQL+`), 0)
		FROM usage u WHERE session_id = ?`, id).Scan(fields...)
	return t, err
}

// cumulativeDelta is the ledger row for the running total cum after prev:
// the difference, or cum itself on a reset. zero says it adds nothing.
func cumulativeDelta(cum sessiondb.Usage, prev usageTotal) (delta sessiondb.Usage, zero bool) {
	c := totalOf(cum)
	if c == prev {
		return sessiondb.Usage{}, true
	}
	delta = cum
	if c.Input >= prev.Input && c.Output >= prev.Output && c.CacheRead >= prev.CacheRead &&
		c.CacheWrite >= prev.CacheWrite && c.Reasoning >= prev.Reasoning && c.Cost >= prev.Cost {
		delta.InputTokens -= prev.Input
		delta.OutputTokens -= prev.Output
		delta.CacheReadTokens -= prev.CacheRead
		delta.CacheWriteTokens -= prev.CacheWrite
		delta.ReasoningTokens -= prev.Reasoning
		delta.Cost -= prev.Cost
		// The 1-hour part is within the cache writes of the call (a
		// total whose 1-hour part went down while its cache writes grew
		// gives that part no share of the delta).
		delta.CacheWrite1hTokens = min(max(c.CacheWrite1h-prev.CacheWrite1h, 0), delta.CacheWriteTokens)
	}
	return delta, false
}

// insertCumulativeUsage records the running total cum of session id
// (after the commit's appends, lastSeq): the delta row in the ledger and
// cum as the new previous total. It reports whether it wrote.
func insertCumulativeUsage(ctx context.Context, tx Tx, id string, lastSeq int64, cum sessiondb.Usage, now time.Time) (bool, error) {
	prev, err := previousTotal(ctx, tx, id)
	if err != nil {
		return false, fmt.Errorf("cumulative usage of %s: %w", id, err)
	}
	delta, zero := cumulativeDelta(cum, prev)
	if zero {
		return false, nil
	}
	c := totalOf(cum)
	if totalOf(delta) != (usageTotal{}) { // a reset to zero only moves the previous total
		if err := InsertUsage(ctx, tx, id, lastSeq, delta, now); err != nil {
			return false, err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO usage_cumulative (session_id, input_tokens, output_tokens,
		cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens, cost, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET input_tokens = excluded.input_tokens,
		output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
		cache_write_tokens = excluded.cache_write_tokens, cache_write_1h_tokens = excluded.cache_write_1h_tokens,
		reasoning_tokens = excluded.reasoning_tokens, cost = excluded.cost, updated_at = excluded.updated_at`,
		id, c.Input, c.Output, c.CacheRead, c.CacheWrite, c.CacheWrite1h, c.Reasoning, c.Cost,
		FormatTime(OrNow(cum.CreatedAt, now)))
	if err != nil {
		return false, fmt.Errorf("cumulative usage of %s: %w", id, err)
	}
	return true, nil
}
