package pgstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
)

func insertUsage(ctx context.Context, tx *ptx, id string, lastSeq int64, u sessiondb.Usage, now time.Time) error {
	return backend.InsertUsage(ctx, tx, id, lastSeq, u, formatTime(orNow(u.CreatedAt, now)))
}

// UsageTotals implements sessiondb.Store.
func (s *Store) UsageTotals(ctx context.Context, id string) (sessiondb.UsageTotals, error) {
	if err := sessiondb.ValidateID(id); err != nil {
		return sessiondb.UsageTotals{}, fmt.Errorf("usage of %s: %w", id, err)
	}
	var t sessiondb.UsageTotals
	err := s.read(ctx, func(tx *ptx) error {
		if err := sessionExists(ctx, tx, id); err != nil {
			return err
		}
		return tx.QueryRowxContext(ctx, `SELECT count(*), coalesce(sum(input_tokens), 0)::bigint,
			coalesce(sum(output_tokens), 0)::bigint, coalesce(sum(cache_read_tokens), 0)::bigint,
			coalesce(sum(cache_write_tokens), 0)::bigint, coalesce(sum(reasoning_tokens), 0)::bigint, coalesce(sum(cost), 0)
			FROM usage WHERE session_id = ?`, id).Scan(&t.Calls, &t.InputTokens, &t.OutputTokens,
			&t.CacheReadTokens, &t.CacheWriteTokens, &t.ReasoningTokens, &t.Cost)
	})
	return t, err
}

// usageTotalsOf sums the usage ledgers of ids in one query, probing
// usage_by_session once per ID; a session without usage rows gets no map
// entry. The IDs travel as one text[] parameter, so the statement text is
// the same for every page size.
func usageTotalsOf(ctx context.Context, tx *ptx, ids []string) (map[string]sessiondb.UsageTotals, error) {
	rows, err := tx.QueryContext(ctx, `SELECT session_id, count(*), coalesce(sum(input_tokens), 0)::bigint,
		coalesce(sum(output_tokens), 0)::bigint, coalesce(sum(cache_read_tokens), 0)::bigint,
		coalesce(sum(cache_write_tokens), 0)::bigint, coalesce(sum(reasoning_tokens), 0)::bigint, coalesce(sum(cost), 0)
		FROM usage WHERE session_id = ANY(?::text[]) GROUP BY session_id`, ids)
	if err != nil {
		return nil, err
	}
	return backend.ScanUsageTotals(rows)
}

// UsageReport implements sessiondb.Store.
func (s *Store) UsageReport(ctx context.Context, q sessiondb.UsageQuery) ([]sessiondb.UsageRow, error) {
	cols := []string{"''::text", "''::text", "''::text", "''::text"}
	var group []string
	if q.BySession {
		cols[0] = "session_id"
		group = append(group, "session_id")
	}
	if q.ByModel {
		cols[1], cols[2] = "provider", "model"
		group = append(group, "provider", "model")
	}
	if q.ByDay {
		cols[3] = "substr(created_at, 1, 10)"
		group = append(group, "substr(created_at, 1, 10)")
	}
	query := `SELECT ` + strings.Join(cols, ", ") + `, count(*), coalesce(sum(input_tokens), 0)::bigint,
		coalesce(sum(output_tokens), 0)::bigint, coalesce(sum(cache_read_tokens), 0)::bigint,
		coalesce(sum(cache_write_tokens), 0)::bigint, coalesce(sum(reasoning_tokens), 0)::bigint, coalesce(sum(cost), 0)
		FROM usage`
	var args []any
	if q.SessionID != "" {
		if err := sessiondb.ValidateID(q.SessionID); err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
		query += ` WHERE session_id = ?`
		args = append(args, q.SessionID)
	}
	if len(group) > 0 {
		query += ` GROUP BY ` + strings.Join(group, ", ") + ` ORDER BY ` + strings.Join(group, ", ")
	}
	var out []sessiondb.UsageRow
	err := s.read(ctx, func(tx *ptx) error {
		if q.SessionID != "" {
			if err := sessionExists(ctx, tx, q.SessionID); err != nil {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r sessiondb.UsageRow
			if err := rows.Scan(&r.SessionID, &r.Provider, &r.Model, &r.Day, &r.Calls, &r.InputTokens,
				&r.OutputTokens, &r.CacheReadTokens, &r.CacheWriteTokens, &r.ReasoningTokens, &r.Cost); err != nil {
				return err
			}
			if r.Calls > 0 || len(group) > 0 {
				out = append(out, r)
			}
		}
		return rows.Err()
	})
	return out, err
}
