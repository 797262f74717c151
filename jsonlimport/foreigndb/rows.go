package foreigndb

import (
	"context"
	"database/sql"
	"strconv"
)

// Row is one row of a foreign store, by column name. Other programs'
// schemas change between their versions (columns come and go, a type
// changes from TEXT to INTEGER), so readers take rows as maps and ask for
// a column in the type they need; a missing column reads as its zero.
type Row map[string]any

// QueryRows runs q on a snapshot's database and returns its rows by column
// name, with SQLite's damage translated (Translate).
func QueryRows(ctx context.Context, db *sql.DB, q string, args ...any) ([]Row, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, Translate(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, Translate(err)
	}
	var out []Row
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, Translate(err)
		}
		r := make(Row, len(cols))
		for i, c := range cols {
			r[c] = vals[i]
		}
		out = append(out, r)
	}
	return out, Translate(rows.Err())
}

// Has reports whether the row has the column and it is not NULL.
func (r Row) Has(col string) bool { v, ok := r[col]; return ok && v != nil }

// Str returns a column as text: TEXT and BLOB as they are, numbers in
// their shortest form, NULL and a missing column as "".
func (r Row) Str(col string) string {
	switch v := r[col].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return ""
}

// Int returns a column as an integer: a REAL truncated, text parsed, and
// anything else (NULL, a missing column, text that is not a number) 0.
func (r Row) Int(col string) int64 {
	switch v := r[col].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	case string:
		i, _ := strconv.ParseInt(v, 10, 64)
		return i
	case []byte:
		i, _ := strconv.ParseInt(string(v), 10, 64)
		return i
	}
	return 0
}

// Float returns a column as a float: integers converted, text parsed,
// anything else 0.
func (r Row) Float(col string) float64 {
	switch v := r[col].(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	case string:
		f, _ := strconv.ParseFloat(v, 64)
		return f
	case []byte:
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	}
	return 0
}
