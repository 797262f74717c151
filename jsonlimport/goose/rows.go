package goose

// Rows as the database gives them, read by column name.

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
)

// row is one row, by column name.
type row map[string]any

func queryRows(ctx context.Context, db *sql.DB, q string, args ...any) ([]row, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, foreigndb.Translate(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, foreigndb.Translate(err)
	}
	var out []row
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, foreigndb.Translate(err)
		}
		r := row{}
		for i, c := range cols {
			r[c] = vals[i]
		}
		out = append(out, r)
	}
	return out, foreigndb.Translate(rows.Err())
}

func (r row) has(col string) bool { v, ok := r[col]; return ok && v != nil }

func (r row) str(col string) string {
	switch v := r[col].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	}
	return ""
}

func (r row) int(col string) int64 {
	switch v := r[col].(type) {
	case int64:
		return v
	case float64:
		if v != v || v > 1<<62 || v < -(1<<62) {
			return 0
		}
		return int64(v)
	case bool:
		if v {
			return 1
		}
		return 0
	case string, []byte:
		i, _ := strconv.ParseInt(strings.TrimSpace(r.str(col)), 10, 64)
		return i
	}
	return 0
}

func (r row) float(col string) float64 {
	switch v := r[col].(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	case string, []byte:
		f, _ := strconv.ParseFloat(strings.TrimSpace(r.str(col)), 64)
		return f
	}
	return 0
}

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
func (r row) time(col string) time.Time {
	switch v := r[col].(type) {
	case time.Time:
		return v.UTC()
	case int64:
		return unixTime(v)
	case float64:
		return unixTime(int64(v))
	}
	s := strings.TrimSpace(r.str(col))
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
