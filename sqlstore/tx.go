package sqlstore

import (
	"context"
	"fmt"
	"time"

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

// timeLayout is how times are stored: UTC, fixed width, so that text order
// is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) time.Time {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		// Rows written by hand with sqlite3 may use another RFC 3339 form.
		t, _ = time.Parse(time.RFC3339Nano, s)
	}
	return t
}

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t
}
