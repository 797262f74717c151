package sqlstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// maxBusyRetries bounds how often a write that timed out waiting for the
// lock is retried. Each attempt already waited BusyTimeout inside SQLite.
const maxBusyRetries = 3

// write runs fn in one IMMEDIATE transaction on the writer connection. It
// commits when fn returns nil and rolls back on error or panic (a panic
// becomes an error: none escapes the library). Only the transaction may be
// used inside fn: asking the one-connection pool for another connection
// would deadlock. A busy timeout is retried a few times with jitter, which
// is safe because the failed attempt was rolled back.
func (s *Store) write(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	if s.closed.Load() {
		return sessiondb.ErrClosed
	}
	for attempt := 0; ; attempt++ {
		err := s.writeOnce(ctx, fn)
		if err == nil || !isBusy(err) || attempt >= maxBusyRetries || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(10+rand.IntN(40)) * time.Millisecond)
	}
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx *sqlx.Tx) error) (err error) {
	tx, err := s.writer.BeginTxx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sqlstore: internal error: %v", p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return translate(err)
	}
	return translate(tx.Commit())
}

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
