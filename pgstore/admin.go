package pgstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/backend"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// Query runs a query for ad-hoc SQL against the documented schema. The
// caller closes the rows. It runs on the store's pool as given: callers
// that must not write (sessionctl sql) wrap it in a READ ONLY transaction.
func (s *Store) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s.closed.Load() {
		return nil, sessiondb.ErrClosed
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query: %w", translate(err))
	}
	return rows, nil
}

// Reindex derives the role and text of every entry and summary message
// again with the store's Extractor (after the extractor changed), in one
// transaction; the trigram indexes follow the rows they index.
func (s *Store) Reindex(ctx context.Context) error {
	return s.write(ctx, func(tx *ptx) error {
		for _, table := range []string{"entries", "summary_messages"} {
			if err := engine.Reextract(ctx, engineDriver{s}, tx, table, backend.TextStore{}); err != nil {
				return err
			}
		}
		return nil
	})
}
