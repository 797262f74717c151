package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sessiondb/sessiondb"
)

// ErrNoReaderRole is returned by QueryUntrusted when the schema's read-only
// role (see migrations/postgres/00005_sql_reader_role.sql) does not exist,
// cannot be used by the connecting user, or has more powers than reading.
var ErrNoReaderRole = errors.New("no usable read-only role")

// readerRoleSQL computes the name of the current schema's read-only role,
// as the migration that creates it does: roles are cluster-wide, so the
// name is derived from the database and the schema.
const readerRoleSQL = `SELECT 'sessiondb_reader_' || left(encode(sha256(convert_to(current_database() || '.' || current_schema(), 'UTF8')), 'hex'), 16)`

// UntrustedQueryOptions configure QueryUntrusted.
type UntrustedQueryOptions struct {
	// Timeout is the server's statement_timeout for the query (0: none).
	Timeout time.Duration
	// AsSessionUser runs the query as the connecting user instead of the
	// schema's read-only role: still in a READ ONLY transaction that is
	// rolled back, with the same statement checks, but with every other
	// privilege of that user (a superuser's pg_read_server_files, say).
	// For databases whose migrating user could not create the role.
	AsSessionUser bool
}

// ReaderRole returns the name of the current schema's read-only role,
// whether or not it exists.
func (s *Store) ReaderRole(ctx context.Context) (string, error) {
	var name string
	if err := s.db.GetContext(ctx, &name, readerRoleSQL); err != nil {
		return "", fmt.Errorf("reader role: %w", translate(err))
	}
	return name, nil
}

// QueryUntrusted runs one query written by someone who may only read
// sessiondb's tables (sessionctl sql): the caller closes the rows, then
// calls done. The query
//
//   - must be one statement of a kind that only reads: SELECT, WITH,
//     VALUES, TABLE, SHOW, or EXPLAIN without ANALYZE (SET, RESET, COPY,
//     NOTIFY, CHECKPOINT, DO, CALL, LOCK, … are refused: ErrInvalid);
//   - may not call a function that acts beyond the transaction or runs SQL
//     text of its own (unsafeFunction: advisory locks, pg_notify,
//     set_config, query_to_xml, dblink, large objects, server files and
//     signals, …: ErrInvalid), whatever its case, quoting, schema
//     qualification or the comments around it;
//   - runs in a READ ONLY transaction that is always rolled back, with
//     standard_conforming_strings on (as the check reads strings), sent
//     with the extended protocol (the server itself refuses a second
//     statement, whatever the URL's default_query_exec_mode), with
//     statement_timeout set for that transaction;
//   - runs as the schema's read-only role (SET LOCAL ROLE), which has
//     SELECT on the schema's tables and views and nothing else, unless
//     AsSessionUser. The role must exist, the connecting user must be a
//     member, and it must have no attribute and no membership of its own:
//     anything else is ErrNoReaderRole, and nothing runs.
//
// Reading a table the role may not read, or calling a function only a
// privileged role may (pg_read_file, pg_terminate_backend, lo_import, …),
// fails with sessiondb.ErrReadOnly as PostgreSQL's insufficient_privilege.
func (s *Store) QueryUntrusted(ctx context.Context, query string, o UntrustedQueryOptions) (*sql.Rows, func(), error) {
	if s.closed.Load() {
		return nil, nil, sessiondb.ErrClosed
	}
	if err := checkUntrusted(query); err != nil {
		return nil, nil, err
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("query: %w", translate(err))
	}
	done := func() { _ = tx.Rollback() }
	fail := func(err error) (*sql.Rows, func(), error) {
		done()
		return nil, nil, err
	}
	// checkUntrusted reads '…' as PostgreSQL does with standard-conforming
	// strings (a backslash is text); a server, database or role default of
	// off would make '\'' end elsewhere than the check saw.
	if _, err := tx.ExecContext(ctx, "SET LOCAL standard_conforming_strings = on"); err != nil {
		return fail(fmt.Errorf("query: %w", translate(err)))
	}
	if o.Timeout > 0 {
		ms := max(o.Timeout.Milliseconds(), 1)
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", ms)); err != nil {
			return fail(fmt.Errorf("query: %w", translate(err)))
		}
	}
	if !o.AsSessionUser {
		if err := setReaderRole(ctx, tx); err != nil {
			return fail(err)
		}
	}
	rows, err := tx.QueryContext(ctx, query, pgx.QueryExecModeDescribeExec)
	if err != nil {
		return fail(fmt.Errorf("query: %w", translate(err)))
	}
	return rows, done, nil
}

// setReaderRole switches tx to the schema's read-only role after checking
// that it is one: an existing role with no attribute (not superuser, no
// login, no CREATEROLE, CREATEDB, REPLICATION, BYPASSRLS) and no membership
// in another role, so that SET ROLE can only take powers away.
func setReaderRole(ctx context.Context, tx *sql.Tx) error {
	var name string
	if err := tx.QueryRowContext(ctx, readerRoleSQL).Scan(&name); err != nil {
		return fmt.Errorf("query: %w", translate(err))
	}
	var r struct {
		exists, powerful, member bool
	}
	err := tx.QueryRowContext(ctx, `SELECT true,
			rolsuper OR rolcanlogin OR rolcreaterole OR rolcreatedb OR rolreplication OR rolbypassrls,
			EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = r.oid)
		FROM pg_roles r WHERE rolname = $1`, name).Scan(&r.exists, &r.powerful, &r.member)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("query: %w: role %s does not exist (the user that created this schema could not create roles)", ErrNoReaderRole, name)
	case err != nil:
		return fmt.Errorf("query: %w", translate(err))
	case r.powerful || r.member:
		return fmt.Errorf("query: %w: role %s has attributes or role memberships beyond reading; refusing to run as it", ErrNoReaderRole, name)
	}
	if _, err := tx.ExecContext(ctx, "SET LOCAL ROLE "+pgx.Identifier{name}.Sanitize()); err != nil {
		var user string
		_ = tx.QueryRowContext(ctx, "SELECT session_user").Scan(&user)
		return fmt.Errorf("query: %w: %s may not use role %s (GRANT %s TO %s): %v", ErrNoReaderRole, user, name, name, user, err)
	}
	return nil
}

// readingStatements are the first keywords of the statements
// QueryUntrusted runs.
var readingStatements = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true, "SHOW": true, "EXPLAIN": true}

// checkUntrusted refuses a query that is not a reading statement or that
// calls an unsafe function (see QueryUntrusted).
func checkUntrusted(query string) error {
	toks, err := sqlTokens(query)
	if err != nil {
		return fmt.Errorf("query: %w: %v", sessiondb.ErrInvalid, err)
	}
	first := ""
	for _, t := range toks {
		if t.text != "(" {
			first = strings.ToUpper(t.text)
			break
		}
	}
	if !readingStatements[first] {
		return fmt.Errorf("query: %w: refused: only SELECT, WITH, VALUES, TABLE, SHOW and EXPLAIN run here, not %s", sessiondb.ErrInvalid, orNothing(first))
	}
	for i, t := range toks {
		if t.ident && first == "EXPLAIN" && (strings.EqualFold(t.text, "analyze") || strings.EqualFold(t.text, "analyse")) && !t.quoted {
			return fmt.Errorf("query: %w: refused: EXPLAIN ANALYZE runs the statement; use EXPLAIN", sessiondb.ErrInvalid)
		}
		if t.ident && i+1 < len(toks) && toks[i+1].text == "(" {
			name := t.text
			if !t.quoted {
				name = strings.ToLower(name)
			}
			if unsafeFunction(name) {
				return fmt.Errorf("query: %w: refused: %s() acts beyond this read-only query", sessiondb.ErrInvalid, name)
			}
		}
	}
	return nil
}

func orNothing(s string) string {
	if s == "" {
		return "an empty statement"
	}
	return s
}

// unsafeNames and unsafePrefixes are the functions QueryUntrusted refuses:
// those whose effect outlives or escapes the rolled-back transaction
// (session advisory locks, notifications, settings such as role), those
// that run SQL text of their own (which the checks here cannot see), and
// those that reach the server itself (files, programs, signals, other
// connections, replication, statistics). Many are denied to the read-only
// role anyway; they are refused here too so that AsSessionUser keeps the
// same limits and the error says why.
var (
	unsafeNames = map[string]bool{
		"set_config": true, "pg_notify": true,
		"query_to_xml": true, "query_to_xml_and_xmlschema": true, "query_to_xmlschema": true,
		"cursor_to_xml": true, "cursor_to_xmlschema": true, "ts_stat": true, "ts_rewrite": true,
		"pg_reload_conf": true, "pg_rotate_logfile": true, "pg_terminate_backend": true, "pg_cancel_backend": true,
		"pg_stat_file": true, "pg_switch_wal": true, "pg_promote": true, "pg_log_backend_memory_contexts": true,
		"pg_backup_start": true, "pg_backup_stop": true, "pg_start_backup": true, "pg_stop_backup": true,
		"pg_import_system_collations": true, "pg_wal_replay_pause": true, "pg_wal_replay_resume": true,
		"loread": true, "lowrite": true,
	}
	unsafePrefixes = []string{
		"pg_advisory_", "pg_try_advisory_", "dblink", "lo_", "pg_ls_", "pg_read_", "pg_file_", "pg_logdir_",
		"pg_stat_reset", "pg_replication_", "pg_create_", "pg_drop_replication_", "pg_copy_", "pg_sequence_",
		"pg_logical_",
	}
)

// unsafeFunction reports whether calling the function name is refused.
func unsafeFunction(name string) bool {
	if unsafeNames[name] {
		return true
	}
	for _, p := range unsafePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// sqlToken is one token of a query as checkUntrusted sees it: identifiers
// and keywords (ident; quoted for "…"), and single punctuation characters.
// String constants and numbers are dropped: a function name inside a
// string is text, not a call.
type sqlToken struct {
	text          string
	ident, quoted bool
}

// sqlTokens splits q into tokens following PostgreSQL's lexical rules for
// what matters here: comments (-- and nested /* */) are dropped, string
// constants ('…' with ” escapes, E'…' with backslash escapes, $tag$…$tag$)
// are dropped, quoted identifiers are unquoted. Unicode-escaped
// identifiers and strings (U&"…", U&'…') are refused: they would hide a
// name from the check.
func sqlTokens(q string) ([]sqlToken, error) {
	var toks []sqlToken
	isIdentStart := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 }
	isIdent := func(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(q[i:], "--"):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return toks, nil
			}
			i += j + 1
		case strings.HasPrefix(q[i:], "/*"):
			depth, j := 0, i
			for j < len(q) {
				if strings.HasPrefix(q[j:], "/*") {
					depth++
					j += 2
				} else if strings.HasPrefix(q[j:], "*/") {
					depth--
					j += 2
					if depth == 0 {
						break
					}
				} else {
					j++
				}
			}
			if depth != 0 {
				return nil, errors.New("unterminated comment")
			}
			i = j
		case (c == 'U' || c == 'u') && i+2 < len(q) && q[i+1] == '&' && (q[i+2] == '"' || q[i+2] == '\''):
			return nil, errors.New("Unicode escapes (U&) are not accepted here")
		case c == '\'' || (c == 'E' || c == 'e') && i+1 < len(q) && q[i+1] == '\'' && (i == 0 || !isIdent(q[i-1])):
			backslash := c != '\''
			if backslash {
				i++
			}
			j := i + 1
			for ; j < len(q); j++ {
				if backslash && q[j] == '\\' {
					j++
					continue
				}
				if q[j] == '\'' {
					if j+1 < len(q) && q[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(q) {
				return nil, errors.New("unterminated string")
			}
			i = j + 1
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == '"' {
					if j+1 < len(q) && q[j+1] == '"' {
						b.WriteByte('"')
						j++
						continue
					}
					break
				}
				b.WriteByte(q[j])
			}
			if j >= len(q) {
				return nil, errors.New("unterminated quoted identifier")
			}
			toks = append(toks, sqlToken{text: b.String(), ident: true, quoted: true})
			i = j + 1
		case c == '$' && (i == 0 || !isIdent(q[i-1])):
			// $tag$…$tag$ (tag empty or an identifier), or a parameter $1.
			j := i + 1
			for j < len(q) && isIdent(q[j]) && q[j] != '$' {
				j++
			}
			if j < len(q) && q[j] == '$' && (j == i+1 || isIdentStart(q[i+1])) {
				tag := q[i : j+1]
				k := strings.Index(q[j+1:], tag)
				if k < 0 {
					return nil, errors.New("unterminated dollar-quoted string")
				}
				i = j + 1 + k + len(tag)
				continue
			}
			toks = append(toks, sqlToken{text: "$"})
			i++
		case isIdentStart(c):
			j := i
			for j < len(q) && isIdent(q[j]) {
				j++
			}
			toks = append(toks, sqlToken{text: q[i:j], ident: true})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := numberEnd(q, i)
			if j < len(q) && isIdent(q[j]) {
				// PostgreSQL 15 and later refuse this ("trailing junk
				// after numeric literal"); earlier versions split it into
				// a number and a name, so 0pg_advisory_lock(1) is a call.
				return nil, fmt.Errorf("trailing junk after numeric literal at %q", q[i:min(j+1, len(q))])
			}
			i = j
		default:
			toks = append(toks, sqlToken{text: string(c)})
			i++
		}
	}
	return toks, nil
}

// numberEnd returns where the numeric constant starting at q[i] ends, by
// PostgreSQL's rules: a decimal integer with optional _ separators and an
// optional fraction and exponent, or a 0x, 0o or 0b integer (PostgreSQL
// 16). "1..2" is the integer 1 followed by "..". An exponent marker
// without digits is left for the caller, which refuses it as junk.
func numberEnd(q string, i int) int {
	digits := func(j int, ok func(byte) bool) int {
		for j < len(q) && (ok(q[j]) || q[j] == '_' && j+1 < len(q) && ok(q[j+1]) && j > 0 && ok(q[j-1])) {
			j++
		}
		return j
	}
	dec := func(c byte) bool { return c >= '0' && c <= '9' }
	if q[i] == '0' && i+2 < len(q) {
		var ok func(byte) bool
		switch q[i+1] {
		case 'x', 'X':
			ok = func(c byte) bool { return dec(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
		case 'o', 'O':
			ok = func(c byte) bool { return c >= '0' && c <= '7' }
		case 'b', 'B':
			ok = func(c byte) bool { return c == '0' || c == '1' }
		}
		if ok != nil && ok(q[i+2]) {
			return digits(i+2, ok)
		}
	}
	j := digits(i, dec)
	if j < len(q) && q[j] == '.' && !(j+1 < len(q) && q[j+1] == '.') {
		j = digits(j+1, dec)
	}
	if j+1 < len(q) && (q[j] == 'e' || q[j] == 'E') {
		k := j + 1
		if q[k] == '+' || q[k] == '-' {
			k++
		}
		if k < len(q) && dec(q[k]) {
			j = digits(k, dec)
		}
	}
	return j
}

// DropReaderRoles drops the read-only roles that the migrations created for
// the schemas of database, through db (a connection to any database of the
// same server, as a role allowed to drop them). Roles are cluster-wide: they
// outlive DROP DATABASE, and a dropped database's roles hold no privilege
// any more. Call it after dropping a database that held sessiondb schemas
// (tests do). It finds them by the comment the migration gives them.
func DropReaderRoles(ctx context.Context, db *sql.DB, database string) error {
	prefix := "sessiondb: reads " + database + "."
	rows, err := db.QueryContext(ctx, `SELECT r.rolname FROM pg_roles r
		JOIN pg_shdescription d ON d.objoid = r.oid AND d.classoid = 'pg_authid'::regclass
		WHERE left(d.description, length($1)) = $1 AND r.rolname LIKE 'sessiondb\_reader\_%'`, prefix)
	if err != nil {
		return fmt.Errorf("list reader roles of %s: %w", database, err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		if _, err := db.ExecContext(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{n}.Sanitize()); err != nil {
			errs = append(errs, fmt.Errorf("drop role %s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}
