package pgstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sessiondb/sessiondb/internal/backend"
)

// openTextDB opens the store's pool on pgx's database/sql driver, with
// every connection wrapped by textConn: the one place where text
// PostgreSQL cannot hold (U+0000, bytes that are not UTF-8) is made
// storable, for every column and every statement (sessioncopy's and the
// DB() users' included). Each string argument is sent through
// backend.EncodeText and each text value read comes back through
// backend.DecodeText, so every API returns the exact bytes it was given,
// while what PostgreSQL can hold is stored as it is, readable in SQL.
//
// Why here and not in a pgx codec: pgx sends a Go string parameter in text
// format, and scans a text value into a string, by fast paths that never
// consult the type map.
func openTextDB(cfg *pgx.ConnConfig) *sql.DB {
	return sql.OpenDB(textConnector{stdlib.GetConnector(*cfg)})
}

type textConnector struct{ driver.Connector }

func (c textConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*stdlib.Conn)
	if !ok {
		conn.Close()
		return nil, errors.New("pgstore: unexpected pgx stdlib connection type")
	}
	return &textConn{sc}, nil
}

func (c textConnector) Driver() driver.Driver { return c.Connector.Driver() }

// textConn is a pgx stdlib connection whose statements encode and decode
// text (openTextDB). Every other method (transactions, ping, reset,
// argument checks) is the embedded connection's.
type textConn struct{ *stdlib.Conn }

func (c *textConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, q, encodeArgs(args))
}

func (c *textConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := c.Conn.QueryContext(ctx, q, encodeArgs(args))
	if err != nil {
		return nil, err
	}
	return newTextRows(rows), nil
}

func (c *textConn) Prepare(q string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), q)
}

func (c *textConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	st, err := c.Conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return &textStmt{st.(*stdlib.Stmt)}, nil
}

type textStmt struct{ st *stdlib.Stmt }

func (s *textStmt) Close() error  { return s.st.Close() }
func (s *textStmt) NumInput() int { return s.st.NumInput() }

func (s *textStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *textStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *textStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.st.ExecContext(ctx, encodeArgs(args))
}

func (s *textStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := s.st.QueryContext(ctx, encodeArgs(args))
	if err != nil {
		return nil, err
	}
	return newTextRows(rows), nil
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// encodeArgs escapes the string arguments (and JSON documents given as
// json.RawMessage) that PostgreSQL text cannot hold. Byte slices are left
// alone: they may be bytea.
func encodeArgs(args []driver.NamedValue) []driver.NamedValue {
	var out []driver.NamedValue
	for i, a := range args {
		var enc string
		switch v := a.Value.(type) {
		case string:
			enc = backend.EncodeText(v)
			if enc == v {
				continue
			}
		case json.RawMessage:
			if v == nil {
				continue
			}
			enc = backend.EncodeText(string(v))
		default:
			continue
		}
		if out == nil {
			out = append([]driver.NamedValue(nil), args...)
		}
		out[i].Value = enc
	}
	if out == nil {
		return args
	}
	return out
}

// textRows decodes the text values of the rows it reads. It forwards only
// the methods listed here, so that database/sql reads every row through
// Next.
type textRows struct {
	rows driver.Rows
}

func newTextRows(r driver.Rows) *textRows { return &textRows{r} }

func (r *textRows) Columns() []string { return r.rows.Columns() }
func (r *textRows) Close() error      { return r.rows.Close() }

func (r *textRows) Next(dest []driver.Value) error {
	if err := r.rows.Next(dest); err != nil {
		return err
	}
	for i, v := range dest {
		if s, ok := v.(string); ok {
			dest[i] = backend.DecodeText(s)
		}
	}
	return nil
}

func (r *textRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *textRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *textRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *textRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
