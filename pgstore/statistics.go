package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sessiondb/sessiondb"
)

// RefreshStatistics brings PostgreSQL's planner statistics up to date
// after a bulk write of about written log entries (sessionctl copy and
// import call it when they are done): it runs ANALYZE on the store's
// tables when entries was never analyzed or written is at least a tenth
// of the rows PostgreSQL last counted there, the share at which
// autovacuum would analyze it, but now rather than whenever autovacuum
// comes round to it. It returns whether it ran.
//
// Why it matters: search asks for the newest rows holding a term (ORDER
// BY id DESC LIMIT window), and only the statistics tell the planner
// whether to walk the rows newest first, stopping at the window (right
// for a common word), or to collect every row the trigram index gives
// and sort them (right for a rare one). Without statistics it guesses:
// measured on 6.06 million entries just copied, a common word took
// 25.6 s (every one of its rows read and sorted), and 0.31 s (a whole
// cold sessionctl search) once analyzed (BENCHMARKS.md, "PostgreSQL through `copy` (item 5), at
// full size for the first time").
//
// ANALYZE reads a sample (30,000 rows per table at the default statistics
// target), so it takes seconds even on a large database. It needs the
// tables' owner (the role that migrated the schema); a role that may not
// analyze gets the error, and the statistics stay autovacuum's business.
func (s *Store) RefreshStatistics(ctx context.Context, written int64) (bool, error) {
	if s.closed.Load() {
		return false, sessiondb.ErrClosed
	}
	var counted float64
	err := s.db.QueryRowContext(ctx, `SELECT c.reltuples FROM pg_catalog.pg_class c
		WHERE c.oid = to_regclass(quote_ident(current_schema()) || '.entries')`).Scan(&counted)
	if err != nil {
		return false, fmt.Errorf("refresh statistics: %w", translate(err))
	}
	// reltuples is -1 until the table was first analyzed or vacuumed.
	if counted >= 0 && float64(written) < counted/10 {
		return false, nil
	}
	var tables []struct{ Schema, Name string }
	if err := s.db.SelectContext(ctx, &tables, `SELECT schemaname AS schema, tablename AS name FROM pg_catalog.pg_tables
		WHERE schemaname = current_schema() AND tablename <> 'goose_db_version' ORDER BY tablename`); err != nil {
		return false, fmt.Errorf("refresh statistics: %w", translate(err))
	}
	for _, t := range tables {
		if _, err := s.db.ExecContext(ctx, `ANALYZE `+pgx.Identifier{t.Schema, t.Name}.Sanitize()); err != nil {
			return false, fmt.Errorf("refresh statistics: analyze %s: %w", t.Name, translate(err))
		}
	}
	return true, nil
}
