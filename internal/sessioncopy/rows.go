package sessioncopy

import (
	"context"
	"fmt"

	"github.com/sessiondb/sessiondb/internal/backend"
)

// Bounds of one multi-row INSERT (insertRows): at most chunkRows rows
// (at 14 columns, 7,168 bound values: far below SQLite's 32,766 and
// PostgreSQL's 65,535), and a new statement once the bound strings of a
// statement pass chunkBytes, so a session of large bodies is not sent as
// one message of hundreds of MiB.
const (
	chunkRows  = 512
	chunkBytes = 8 << 20
)

// insertRows writes rows into table with multi-row INSERTs (one round
// trip per chunk, not one per row). Each row holds one value per column,
// in cols' order. what names rows i..j for an error.
func insertRows(ctx context.Context, tx Tx, table, cols string, ncols int, rows [][]any, what func(i, j int) string) error {
	for start := 0; start < len(rows); {
		end, size := start, 0
		for end < len(rows) && end-start < chunkRows && (end == start || size < chunkBytes) {
			for _, v := range rows[end] {
				if s, ok := v.(string); ok {
					size += len(s)
				}
			}
			end++
		}
		args := make([]any, 0, ncols*(end-start))
		for _, r := range rows[start:end] {
			if len(r) != ncols {
				return fmt.Errorf("%s: internal error: %d values for %d columns", what(start, end-1), len(r), ncols)
			}
			args = append(args, r...)
		}
		if _, err := tx.ExecContext(ctx, backend.InsertSQL(table, cols, ncols, end-start), args...); err != nil {
			return fmt.Errorf("%s: %w", what(start, end-1), err)
		}
		start = end
	}
	return nil
}
