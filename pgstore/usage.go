package pgstore

import (
	"context"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

var _ sessiondb.Repricer = (*Store)(nil)

// UsageTotalsOf sums the usage ledgers of ids in one query, probing
// usage_by_session once per ID; a session without usage rows gets no map
// entry. The IDs travel as one text[] parameter, so the statement text is
// the same for every page size.
func (engineDriver) UsageTotalsOf(ctx context.Context, tx engine.Tx, ids []string) (map[string]sessiondb.UsageTotals, error) {
	rows, err := tx.QueryContext(ctx, `SELECT session_id, count(*), coalesce(sum(input_tokens), 0)::bigint,
		coalesce(sum(output_tokens), 0)::bigint, coalesce(sum(cache_read_tokens), 0)::bigint,
		coalesce(sum(cache_write_tokens), 0)::bigint, coalesce(sum(reasoning_tokens), 0)::bigint, coalesce(sum(`+backend.CostSQL+`), 0),
		`+backend.UnpricedSQL+`
		FROM usage u WHERE session_id = ANY(?::text[]) GROUP BY session_id`, ids)
	if err != nil {
		return nil, err
	}
	return backend.ScanUsageTotals(rows)
}
