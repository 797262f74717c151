package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sessiondb/sessiondb"
)

// Query runs a read-only query on the reader pool (query_only), for ad-hoc
// SQL against the documented schema. A statement that would write fails.
// The caller closes the rows.
func (s *Store) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s.closed.Load() {
		return nil, sessiondb.ErrClosed
	}
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query: %w", translate(err))
	}
	return rows, nil
}

// Vacuum rebuilds the database file and its search index file to reclaim
// the space of deleted and pruned rows, then truncates the WAL.
func (s *Store) Vacuum(ctx context.Context) error {
	if s.closed.Load() {
		return sessiondb.ErrClosed
	}
	// VACUUM copies the whole database through SQLite's temporary storage:
	// on the writer's one connection, held for both statements, with the
	// default temp_store, whatever a batch of appends left set
	// (setTempInMemory: in memory, the copy would be the database's size
	// in RAM).
	conn, err := s.writer.Connx(ctx)
	if err != nil {
		return fmt.Errorf("vacuum %s: %w", s.path, translate(err))
	}
	_, err = conn.ExecContext(ctx, `PRAGMA temp_store = DEFAULT`)
	if err == nil {
		_, err = conn.ExecContext(ctx, `VACUUM`)
	}
	conn.Close()
	if err != nil {
		return fmt.Errorf("vacuum %s: %w", s.path, translate(err))
	}
	if s.indexer != nil {
		// The index file too: deleted rows leave its pages free as well.
		if _, err := s.indexer.ExecContext(ctx, `VACUUM search`); err != nil {
			return fmt.Errorf("vacuum %s: %w", IndexPath(s.path), translate(err))
		}
	}
	if _, err := s.writer.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("checkpoint %s: %w", s.path, translate(err))
	}
	return nil
}
