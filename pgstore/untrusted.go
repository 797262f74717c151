package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sessiondb/sessiondb"
)

// ErrNoReaderRole is returned by QueryUntrusted when the schema's read-only
// role (see migrations/postgres/00005_sql_reader_role.sql) does not exist,
// has more powers than reading, may not log in (and the connecting user
// may not let it), or when the server refuses its login (pg_hba.conf, a
// password): the query then does not run.
var ErrNoReaderRole = errors.New("no usable read-only role")

// readerRoleSQL computes the name of the current schema's read-only role,
// as the migration that creates it does: roles are cluster-wide, so the
// name is derived from the database and the schema.
const readerRoleSQL = `SELECT 'sessiondb_reader_' || left(encode(sha256(convert_to(current_database() || '.' || current_schema(), 'UTF8')), 'hex'), 16)`

// UntrustedQueryOptions configure QueryUntrusted.
type UntrustedQueryOptions struct {
	// Timeout is the server's statement_timeout for the query (0: none).
	Timeout time.Duration
	// ReaderPassword is the read-only role's password, for a server that
	// asks one of it (pg_hba.conf md5 or scram-sha-256). Empty: the
	// password file (~/.pgpass or $PGPASSFILE) is searched for the role's
	// line, as libpq does; a server that trusts the login (trust, peer
	// with a map, cert) needs none. The URL's own password is never sent
	// for the role.
	ReaderPassword string
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
//   - runs on a connection of its own that logged in as the schema's
//     read-only role (not the store's pool, not SET ROLE): its session
//     user has SELECT on the schema's tables and views and nothing else,
//     so no statement, function or setting can return to a more
//     privileged role (SET ROLE, RESET ROLE, set_config('role', …) and SET
//     SESSION AUTHORIZATION only ever reach the role itself). The role
//     must exist and have no attribute and no membership; a NOLOGIN role
//     (as migration 00005 made it) is given LOGIN, and CONNECT on the
//     database, through the store's pool the first time, when its user
//     may (see readerLogin). The login uses the store's URL with the user
//     replaced by the role and the URL's password dropped
//     (UntrustedQueryOptions.ReaderPassword, or the password file).
//     Anything else — no role, a role with powers, a login the server
//     refuses — is ErrNoReaderRole and nothing runs: there is no fallback
//     to the URL's user unless the caller asks for AsSessionUser;
//   - must be one statement of a kind that only reads: SELECT, WITH,
//     VALUES, TABLE, SHOW, or EXPLAIN without ANALYZE (SET, RESET, COPY,
//     NOTIFY, CHECKPOINT, DO, CALL, LOCK, … are refused: ErrInvalid);
//   - may not call a function that acts beyond the transaction or runs SQL
//     text of its own (unsafeFunction: advisory locks, pg_notify,
//     set_config, query_to_xml, dblink, large objects, server files and
//     signals, …: ErrInvalid), whatever its case, quoting, schema
//     qualification or the comments around it. These checks are a second
//     line, for the error message and for AsSessionUser: the role's
//     login is what makes a query that slips past them harmless;
//   - runs in a READ ONLY transaction that is always rolled back, with
//     standard_conforming_strings on (as the check reads strings), sent
//     with the extended protocol (the server itself refuses a second
//     statement, whatever the URL's default_query_exec_mode), with
//     statement_timeout set for that transaction.
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
	return s.queryUnchecked(ctx, query, o)
}

// queryUnchecked is QueryUntrusted after the statement checks: what holds
// when they miss something (tests call it with queries they refuse).
func (s *Store) queryUnchecked(ctx context.Context, query string, o UntrustedQueryOptions) (*sql.Rows, func(), error) {
	db, role := s.db.DB, ""
	closeDB := func() {}
	if !o.AsSessionUser {
		var err error
		role, err = s.readerLogin(ctx)
		if err != nil {
			return nil, nil, err
		}
		rdb, err := s.openReader(ctx, role, o.ReaderPassword)
		if err != nil {
			return nil, nil, err
		}
		db, closeDB = rdb, func() { _ = rdb.Close() }
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		closeDB()
		return nil, nil, fmt.Errorf("query: %w", translate(err))
	}
	done := func() {
		_ = tx.Rollback()
		closeDB()
	}
	fail := func(err error) (*sql.Rows, func(), error) {
		done()
		return nil, nil, err
	}
	if role != "" {
		// What the server says this connection is, not what was asked
		// for: the session user must be the role, with no power.
		if err := checkReaderSession(ctx, tx, role); err != nil {
			return fail(err)
		}
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
	rows, err := tx.QueryContext(ctx, query, pgx.QueryExecModeDescribeExec)
	if err != nil {
		return fail(fmt.Errorf("query: %w", translate(err)))
	}
	return rows, done, nil
}

// readerPowersSQL reads, for the role named $1, whether it exists, whether
// it holds an attribute beyond logging in or a membership in any role
// (either could give it back powers), whether it may log in, and whether
// it may connect to the current database.
const readerPowersSQL = `SELECT
		rolsuper OR rolcreaterole OR rolcreatedb OR rolreplication OR rolbypassrls
			OR EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = r.oid),
		rolcanlogin,
		has_database_privilege(r.oid, current_database(), 'CONNECT')
	FROM pg_roles r WHERE rolname = $1`

// readerLogin returns the schema's read-only role after making sure it can
// log in: it must exist and hold no attribute and no membership; if it is
// NOLOGIN (migration 00005 created it so, for SET ROLE) or may not connect
// to the database, the store's user gives it LOGIN and CONNECT — which
// needs CREATEROLE (or superuser) and the database's grant option — once;
// a user that may not gets ErrNoReaderRole with the statements to run.
// LOGIN without a password lets no one in by password: the server lets the
// role in only as pg_hba.conf says (trust, peer, cert) or with a password
// someone set for it.
func (s *Store) readerLogin(ctx context.Context) (string, error) {
	name, err := s.ReaderRole(ctx)
	if err != nil {
		return "", fmt.Errorf("query: %w", err)
	}
	var powerful, login, connect bool
	err = s.db.QueryRowContext(ctx, readerPowersSQL, name).Scan(&powerful, &login, &connect)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", fmt.Errorf("query: %w: role %s does not exist (the user that created this schema could not create roles)", ErrNoReaderRole, name)
	case err != nil:
		return "", fmt.Errorf("query: %w", translate(err))
	case powerful:
		return "", fmt.Errorf("query: %w: role %s has attributes or role memberships beyond reading; refusing to run as it", ErrNoReaderRole, name)
	}
	id := pgx.Identifier{name}.Sanitize()
	if !login {
		if _, err := s.db.ExecContext(ctx, "ALTER ROLE "+id+" LOGIN"); err != nil {
			return "", fmt.Errorf("query: %w: role %s may not log in, and this user may not change that (%v): as a role with CREATEROLE, run ALTER ROLE %s LOGIN", ErrNoReaderRole, name, translate(err), id)
		}
	}
	if !connect {
		var dbname string
		if err := s.db.QueryRowContext(ctx, "SELECT current_database()").Scan(&dbname); err != nil {
			return "", fmt.Errorf("query: %w", translate(err))
		}
		db := pgx.Identifier{dbname}.Sanitize()
		if _, err := s.db.ExecContext(ctx, "GRANT CONNECT ON DATABASE "+db+" TO "+id); err != nil {
			return "", fmt.Errorf("query: %w: role %s may not connect to database %s, and this user may not grant it (%v): as its owner, run GRANT CONNECT ON DATABASE %s TO %s", ErrNoReaderRole, name, dbname, translate(err), db, id)
		}
	}
	return name, nil
}

// openReader opens a one-connection pool logged in as role: the store's
// URL, with its user replaced by role and its password replaced by
// password (empty: the password file's line for role, if any; never
// $PGPASSWORD, which is the URL user's). A login the server refuses is
// ErrNoReaderRole, saying how to allow it.
func (s *Store) openReader(ctx context.Context, role, password string) (*sql.DB, error) {
	cfg, err := readerConfig(s.url, role, password)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	db := openTextDB(cfg)
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("query: %w", ctx.Err())
		}
		return nil, fmt.Errorf("query: %w: the server refused the login of the read-only role %s (%v): allow it in pg_hba.conf, or set its password (ALTER ROLE %s PASSWORD '…') and put it in ~/.pgpass",
			ErrNoReaderRole, role, loginError(err), pgx.Identifier{role}.Sanitize())
	}
	return db, nil
}

// loginError shortens pgx's connection error to the server's reason.
func loginError(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

// readerConfig returns the connection settings of dbURL with role as the
// user and password as its password (or none).
func readerConfig(dbURL, role, password string) (*pgx.ConnConfig, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil, fmt.Errorf("reader URL: %w", err)
	}
	u.User = url.User(role)
	q := u.Query()
	q.Del("user")
	// Set even when empty: an empty password overrides $PGPASSWORD and
	// leaves the password file to pgx, looked up for role.
	q.Set("password", password)
	u.RawQuery = q.Encode()
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("reader URL: %s", err)
	}
	if cfg.User != role {
		return nil, fmt.Errorf("reader URL: connects as %s, not %s", cfg.User, role)
	}
	return cfg, nil
}

// checkReaderSession checks, inside the transaction the query runs in, that
// the server took the connection as role — session and current user —
// and that role still holds no power (an ALTER ROLE between readerLogin
// and the login would show here).
func checkReaderSession(ctx context.Context, tx *sql.Tx, role string) error {
	var session, current string
	var powerful bool
	err := tx.QueryRowContext(ctx, `SELECT session_user, current_user,
			rolsuper OR rolcreaterole OR rolcreatedb OR rolreplication OR rolbypassrls
				OR EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = r.oid)
		FROM pg_roles r WHERE r.rolname = session_user`).Scan(&session, &current, &powerful)
	if err != nil {
		return fmt.Errorf("query: %w", translate(err))
	}
	if session != role || current != role || powerful {
		return fmt.Errorf("query: %w: the read-only connection runs as %s (current user %s), not as the powerless %s", ErrNoReaderRole, session, current, role)
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
			// PostgreSQL ends a -- comment at a newline, \n or \r
			// (scan.l: non_newline is [^\n\r]): text after a lone \r is
			// a statement, and is checked.
			j := strings.IndexAny(q[i:], "\n\r")
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
