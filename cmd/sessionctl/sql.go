package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb"
)

type sqlOptions struct {
	json       bool
	csv        bool
	timeout    time.Duration
	unsafeRole bool
}

func (a *app) sqlCommand() *cobra.Command {
	var o sqlOptions
	c := &cobra.Command{
		Use:   "sql QUERY",
		Short: "Run one read-only SQL query",
		Long: `Sql runs one SQL statement on a read-only connection and prints the rows as
an aligned table (cells cut to 100 characters), --json (an array of objects,
keys in column order) or --csv (a header row, then the rows; NULL is empty).

Rows are printed as they are read, so a large result does not have to fit
in memory (the table is aligned 1000 rows at a time); --timeout stops a
query that runs too long (Ctrl-C always does).

A statement that writes is refused by SQLite itself and reported as an
error (exit 1); so are ATTACH, DETACH, VACUUM and PRAGMAs that set a value
(PRAGMA x = v, and PRAGMA x(v) except the read-only table_info-style
pragmas), which are refused before they reach the database. A script of several statements
is a usage error (exit 2). The schema is documented in
migrations/00001_initial.sql; the views transcript, session_stats and
usage_daily answer the common questions.

On PostgreSQL, sql logs in as the schema's read-only role
sessiondb_reader_<hash> on a connection of its own (the URL with that
user and without the URL's password), in a READ ONLY transaction that
is always rolled back. That role may only read sessiondb's tables and
views and has no way back to a more privileged one: COPY ... TO
PROGRAM, pg_read_file, pg_terminate_backend, pg_reload_conf, SET ROLE,
RESET ROLE, SET SESSION AUTHORIZATION and set_config('role', ...) are
refused or reach nothing. As a second line, sql runs only SELECT, WITH,
VALUES, TABLE, SHOW and EXPLAIN (not ANALYZE), and refuses functions
that act beyond the query or run SQL text of their own (advisory locks,
pg_notify, set_config, query_to_xml, dblink, large objects, server
files, signals, replication).

The migrations create that role when the migrating user may create
roles. The first sql gives it LOGIN (and CONNECT on the database), which
needs a user with CREATEROLE; LOGIN without a password lets no one in by
password. The server must then accept its login: pg_hba.conf trust or
peer (with a map), a certificate, or a password you set
(ALTER ROLE sessiondb_reader_<hash> PASSWORD '...') and give in ~/.pgpass
or $SESSIONDB_READER_PASSWORD. The URL's own password is never sent for
it. When the role is missing or its login is refused, sql fails and
says why; --unsafe-role runs the query as the URL's user instead, with
the same checks but all of that user's privileges. A role with
CREATEROLE can create the role by hand:
  CREATE ROLE sessiondb_reader_<hash> LOGIN;
  GRANT USAGE ON SCHEMA <schema> TO sessiondb_reader_<hash>;
  GRANT SELECT ON ALL TABLES IN SCHEMA <schema> TO sessiondb_reader_<hash>;`,
		Example: `  sessionctl sql 'SELECT id, title, message_count FROM session_stats ORDER BY updated_at DESC LIMIT 5'
  sessionctl sql --json "SELECT role, text FROM transcript WHERE session_id = 'my-session'"
  sessionctl sql --csv 'SELECT * FROM usage_daily' > usage.csv`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if o.json && o.csv {
				return usageErrorf(c, "--json and --csv exclude each other")
			}
			if strings.TrimSpace(args[0]) == "" {
				return usageErrorf(c, "empty query")
			}
			if multipleStatements(args[0]) {
				return usageErrorf(c, "give one SQL statement; this query holds several")
			}
			if refusedStatement(args[0]) {
				return errWriteRefused
			}
			return a.runSQL(args[0], o)
		},
	}
	c.Flags().BoolVar(&o.json, "json", false, "print rows as a JSON array of objects")
	c.Flags().BoolVar(&o.csv, "csv", false, "print rows as CSV")
	c.Flags().DurationVar(&o.timeout, "timeout", 0, "stop the query after this long (e.g. 30s; 0: no limit)")
	c.Flags().BoolVar(&o.unsafeRole, "unsafe-role", false, "PostgreSQL: run as the URL's user when the read-only role is missing or cannot log in (that user's privileges apply)")
	return c
}

// sqlRefused is a query the backend refused for a reason its message
// gives (no read-only role, a privilege the role lacks): sqlError leaves
// it as it is.
type sqlRefused struct{ err error }

func (e *sqlRefused) Error() string { return e.err.Error() }
func (e *sqlRefused) Unwrap() error { return e.err }

// errWriteRefused is returned for a statement that tries to write.
var errWriteRefused = errors.New("refused: sessionctl sql is read-only and this statement writes; change data with import, rename, delete, truncate, prune")

func (a *app) runSQL(query string, o sqlOptions) error {
	st, err := a.openRead(nil)
	if err != nil {
		return err
	}
	ctx := a.ctx
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	err = a.streamSQL(ctx, st, query, o)
	if o.timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("query stopped after --timeout %s", o.timeout)
	}
	return err
}

// tableBlock is how many rows the table output aligns and prints at a
// time: rows are streamed, so memory does not grow with the result (a
// column may change width from one block to the next).
const tableBlock = 1000

// streamSQL runs query and prints each row as it is read: nothing holds
// the whole result. A table cell is cut to 100 characters before it is
// formatted, so a huge value costs its scan, not copies of it.
func (a *app) streamSQL(ctx context.Context, st sessiondb.Store, query string, o sqlOptions) error {
	q, ok := st.(userQuerier)
	if !ok {
		return fmt.Errorf("sql: %s does not take SQL", location(st))
	}
	rows, done, err := q.QueryUser(ctx, userQueryOptions{
		timeout: o.timeout, unsafeRole: o.unsafeRole, readerPassword: a.getenv("SESSIONDB_READER_PASSWORD"),
	}, query)
	if err != nil {
		return sqlError(err)
	}
	defer done()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return sqlError(err)
	}
	// An exact decimal (PostgreSQL numeric, as the cost views give) comes
	// from the driver as text; JSON output writes it as a number, with its
	// digits unchanged, so the same query gives the same JSON on both
	// backends.
	decimal := make([]bool, len(cols))
	if types, err := rows.ColumnTypes(); err == nil {
		for i, ct := range types {
			switch strings.ToUpper(ct.DatabaseTypeName()) {
			case "NUMERIC", "DECIMAL":
				decimal[i] = true
			}
		}
	}
	clip := 0
	if !o.json && !o.csv {
		clip = 4 * 100 // table cells show 100 characters
	}
	cells := make([]sqlCell, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		cells[i].clip = clip
		ptrs[i] = &cells[i]
	}
	var emit func([]any) error
	var finish func(n int) error
	switch {
	case o.json:
		bw := bufio.NewWriter(a.stdout)
		bw.WriteString("[")
		n := 0
		emit = func(row []any) error {
			if n > 0 {
				bw.WriteString(",")
			}
			n++
			for i, v := range row {
				if t, ok := v.(string); ok && decimal[i] && jsonNumber(t) {
					row[i] = json.Number(t)
				}
			}
			if err := writeRowJSON(bw, cols, row); err != nil {
				return err
			}
			// A failed write (closed pipe, full disk) is sticky in bw:
			// stop reading rows rather than run the query to its end.
			_, err := bw.WriteString("")
			return err
		}
		finish = func(rows int) error {
			if rows > 0 {
				bw.WriteString("\n")
			}
			bw.WriteString("]\n")
			return bw.Flush()
		}
	case o.csv:
		w := csv.NewWriter(a.stdout)
		_ = w.Write(cols)
		rec := make([]string, len(cols))
		emit = func(row []any) error {
			for i, v := range row {
				if v == nil {
					rec[i] = ""
				} else {
					rec[i] = textValue(v)
				}
			}
			return w.Write(rec)
		}
		finish = func(int) error {
			w.Flush()
			return w.Error()
		}
	default:
		tw := newTable(a.stdout)
		header := func() {
			for i, c := range cols {
				if i > 0 {
					fmt.Fprint(tw, "\t")
				}
				fmt.Fprint(tw, cell(c, 0))
			}
			fmt.Fprintln(tw)
		}
		header()
		n := 0
		emit = func(row []any) error {
			for i, v := range row {
				if i > 0 {
					fmt.Fprint(tw, "\t")
				}
				s := "NULL"
				if v != nil {
					s = textValue(clipValue(v, 100))
				}
				fmt.Fprint(tw, cell(s, 100))
			}
			fmt.Fprintln(tw)
			n++
			if n%tableBlock == 0 {
				return tw.Flush()
			}
			return nil
		}
		finish = func(rows int) error {
			if err := tw.Flush(); err != nil {
				return err
			}
			if rows == 1 {
				fmt.Fprintln(a.stdout, "(1 row)")
			} else {
				fmt.Fprintf(a.stdout, "(%d rows)\n", rows)
			}
			return nil
		}
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return sqlError(err)
		}
		row := make([]any, len(cells))
		for i, c := range cells {
			row[i] = normalizeValue(c.v)
		}
		if err := emit(row); err != nil {
			return err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return sqlError(err)
	}
	return finish(n)
}

// sqlCell receives one value from the driver without the copy that
// scanning into an *any makes of a []byte: the row is printed before the
// next rows.Next, while the driver's buffer is still valid. With clip > 0
// (table output) a longer text or blob keeps only its first clip bytes, so
// a 200 MB value is not copied again to be cut to 100 characters.
type sqlCell struct {
	v    any
	clip int
}

// Scan implements sql.Scanner.
func (c *sqlCell) Scan(src any) error {
	switch x := src.(type) {
	case []byte:
		if c.clip > 0 && len(x) > c.clip {
			x = x[:c.clip]
		}
		c.v = x
	case string:
		if c.clip > 0 && len(x) > c.clip {
			x = x[:c.clip]
		}
		c.v = x
	default:
		c.v = src
	}
	return nil
}

// clipValue cuts a long text or blob to about max characters (bytes for a
// blob) before it is formatted for a table cell.
func clipValue(v any, max int) any {
	switch x := v.(type) {
	case string:
		if len(x) > 4*max {
			return x[:4*max]
		}
	case []byte:
		if len(x) > max {
			return x[:max]
		}
	}
	return v
}

// sqlError turns the read-only pool's refusal into a message that says why.
func sqlError(err error) error {
	var refused *sqlRefused
	if errors.Is(err, sessiondb.ErrInvalid) || errors.Is(err, errWriteRefused) || errors.As(err, &refused) {
		return err // a refusal that says why
	}
	msg := strings.ToLower(err.Error())
	if errors.Is(err, sessiondb.ErrReadOnly) || strings.Contains(msg, "readonly") ||
		strings.Contains(msg, "read-only") || strings.Contains(msg, "query_only") {
		return errWriteRefused
	}
	return err // the store's message already starts with "query:"
}

// normalizeValue maps driver values to what the outputs print: text for
// valid UTF-8 blobs and times, nil for NULL.
func normalizeValue(v any) any {
	switch x := v.(type) {
	case []byte:
		if utf8.Valid(x) {
			return string(x)
		}
		return x
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return v
}

func textValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []byte:
		return fmt.Sprintf("x'%X'", x)
	}
	return fmt.Sprint(v)
}

// jsonNumber reports whether s is a number in JSON's grammar: a numeric
// column's text ("NaN" and "Infinity" are not) can then be written as is.
func jsonNumber(s string) bool {
	if s == "" {
		return false
	}
	return json.Valid([]byte(s)) && (s[0] == '-' || s[0] >= '0' && s[0] <= '9')
}

// writeRowJSON writes one row as a JSON object on its own line.
func writeRowJSON(w *bufio.Writer, cols []string, row []any) error {
	w.WriteString("\n  {")
	for i, v := range row {
		if i > 0 {
			w.WriteString(", ")
		}
		k, _ := json.Marshal(cols[i])
		w.Write(k)
		w.WriteString(": ")
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			v = textValue(f)
		}
		if err := writeJSONValue(w, v); err != nil {
			return fmt.Errorf("encode column %s: %w", cols[i], err)
		}
	}
	w.WriteString("}")
	return nil
}

// multipleStatements reports whether q holds more than one SQL statement:
// a semicolon outside strings, quoted identifiers and comments followed by
// anything but blanks, comments and semicolons. The driver would run every
// statement of a script, so sql takes exactly one.
func multipleStatements(q string) bool {
	ended := false
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`' || ch == '[':
			if ended {
				return true
			}
			closer := ch
			if ch == '[' {
				closer = ']'
			}
			j := strings.IndexByte(q[i+1:], closer)
			if j < 0 {
				return false // unterminated: let SQLite report it
			}
			i += j + 1
		case ch == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return false
			}
			i += j
		case ch == '/' && i+1 < len(q) && q[i+1] == '*':
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += j + 3
		case ch == ';':
			ended = true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f':
		default:
			if ended {
				return true
			}
		}
	}
	return false
}

// refusedStatement reports statements refused before they reach SQLite:
// ATTACH and VACUUM INTO create files even when the connection is
// query_only, DETACH pairs with ATTACH, and a PRAGMA assignment changes a
// setting rather than reading one.
func refusedStatement(q string) bool {
	kw, rest := firstKeyword(q)
	switch kw {
	case "ATTACH", "DETACH", "VACUUM":
		return true
	case "PRAGMA":
		if strings.Contains(rest, "=") {
			return true
		}
		// PRAGMA x(v) sets x like PRAGMA x = v, except for the pragmas
		// whose argument names what to read.
		name, _, ok := strings.Cut(rest, "(")
		if !ok {
			return false
		}
		name = strings.TrimSpace(name)
		if k := strings.LastIndexByte(name, '.'); k >= 0 {
			name = name[k+1:]
		}
		return !readPragmasWithArgument[strings.ToLower(strings.Trim(name, "\"`[] \t\r\n"))]
	}
	return false
}

// readPragmasWithArgument are the pragmas whose parenthesised argument
// selects what to read rather than a value to set.
var readPragmasWithArgument = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_info": true, "index_xinfo": true,
	"index_list": true, "foreign_key_list": true, "foreign_key_check": true,
	"integrity_check": true, "quick_check": true,
}

// firstKeyword returns the first word of q, upper-cased, skipping blanks
// and comments, and the text after it.
func firstKeyword(q string) (string, string) {
	for {
		q = strings.TrimLeft(q, " \t\r\n\f")
		switch {
		case strings.HasPrefix(q, "--"):
			i := strings.IndexByte(q, '\n')
			if i < 0 {
				return "", ""
			}
			q = q[i+1:]
		case strings.HasPrefix(q, "/*"):
			i := strings.Index(q[2:], "*/")
			if i < 0 {
				return "", ""
			}
			q = q[i+4:]
		default:
			end := strings.IndexFunc(q, func(r rune) bool {
				return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
			})
			if end < 0 {
				end = len(q)
			}
			return strings.ToUpper(q[:end]), q[end:]
		}
	}
}
