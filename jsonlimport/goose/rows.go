package goose

// Rows as the database gives them, read by column name.

import (
	"strings"
	"time"

	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
)

// row is one row, by column name (foreigndb.Row).
type row = foreigndb.Row

// timeLayouts are the ways goose's TIMESTAMP columns are written:
// SQLite's CURRENT_TIMESTAMP and datetime('now') ("2025-12-02
// 16:58:55"), and sqlx's encoding of a chrono DateTime<Utc> (RFC 3339
// with a fraction and an offset).
var timeLayouts = []string{
	"2006-01-02 15:04:05.999999999Z07:00",
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999 -0700 MST",
}

// time reads a TIMESTAMP column (the driver may already have parsed it).
func rowTime(r row, col string) time.Time {
	switch v := r[col].(type) {
	case time.Time:
		return v.UTC()
	case int64:
		return unixTime(v)
	case float64:
		return unixTime(int64(v))
	}
	s := strings.TrimSpace(r.Str(col))
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// unixTime reads a message's created_timestamp: seconds (chrono's
// timestamp()); a value past the year 5138 in seconds is read as
// milliseconds.
func unixTime(v int64) time.Time {
	switch {
	case v <= 0:
		return time.Time{}
	case v > 1e14:
		return time.Time{}
	case v > 1e11:
		return time.UnixMilli(v).UTC()
	}
	return time.Unix(v, 0).UTC()
}
