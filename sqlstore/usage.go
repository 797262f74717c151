package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

var _ sessiondb.Repricer = (*Store)(nil)

// UsageTotals implements sessiondb.Store.
func (s *Store) UsageTotals(ctx context.Context, id string) (sessiondb.UsageTotals, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.UsageTotals{}, fmt.Errorf("usage of %s: %w", id, err)
	}
	var t sessiondb.UsageTotals
	err := s.read(ctx, func(tx *sqlx.Tx) error {
		if err := sessionExists(ctx, tx, id); err != nil {
			return err
		}
		return tx.QueryRowxContext(ctx, `SELECT count(*), coalesce(sum(input_tokens), 0),
			coalesce(sum(output_tokens), 0), coalesce(sum(cache_read_tokens), 0),
			coalesce(sum(cache_write_tokens), 0), coalesce(sum(reasoning_tokens), 0), coalesce(sum(cost), 0)
			FROM usage WHERE session_id = ?`, id).Scan(&t.Calls, &t.InputTokens, &t.OutputTokens,
			&t.CacheReadTokens, &t.CacheWriteTokens, &t.ReasoningTokens, &t.Cost)
	})
	return t, err
}

// usageTotalsOf sums the usage ledgers of ids in one query, probing
// usage_by_session once per ID; a session without usage rows gets no map
// entry. The IDs travel as one JSON array, so the statement text is the
// same for every page size (one prepared statement, see stmtcache.go).
func usageTotalsOf(ctx context.Context, tx *sqlx.Tx, ids []string) (map[string]sessiondb.UsageTotals, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT session_id, count(*), coalesce(sum(input_tokens), 0),
		coalesce(sum(output_tokens), 0), coalesce(sum(cache_read_tokens), 0),
		coalesce(sum(cache_write_tokens), 0), coalesce(sum(reasoning_tokens), 0), coalesce(sum(cost), 0)
		FROM usage WHERE session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id`, string(list))
	if err != nil {
		return nil, err
	}
	return backend.ScanUsageTotals(rows)
}

// UsageReport implements sessiondb.Store.
func (s *Store) UsageReport(ctx context.Context, q sessiondb.UsageQuery) ([]sessiondb.UsageRow, error) {
	if q.SessionID != "" {
		if err := sessiondb.ValidateID(q.SessionID); err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
	}
	var out []sessiondb.UsageRow
	err := s.read(ctx, func(tx *sqlx.Tx) error {
		if q.SessionID != "" {
			if err := sessionExists(ctx, tx, q.SessionID); err != nil {
				return err
			}
		}
		var err error
		out, err = backend.UsageReport(ctx, tx, q)
		return err
	})
	return out, err
}

// Reprice implements sessiondb.Repricer: one write transaction (see
// backend.Reprice), or a read transaction for a dry run.
func (s *Store) Reprice(ctx context.Context, prices sessiondb.PriceFunc, dryRun bool) (sessiondb.RepriceReport, error) {
	var rep sessiondb.RepriceReport
	run := s.write
	if dryRun {
		run = s.read
	}
	err := run(ctx, func(tx *sqlx.Tx) error {
		var err error
		rep, err = backend.Reprice(ctx, tx, prices, dryRun)
		return err
	})
	return rep, err
}
