package sqlstore

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// read runs fn in one read transaction on the read-only pool: everything
// fn reads comes from one snapshot of the database.
func (s *Store) read(ctx context.Context, fn func(tx *sqlx.Tx) error) (err error) {
	if s.closed.Load() {
		return sessiondb.ErrClosed
	}
	tx, err := s.reader.BeginTxx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sqlstore: internal error: %v", p)
		}
		_ = tx.Rollback()
	}()
	return translate(fn(tx))
}
