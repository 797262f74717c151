package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pgSeeded returns the URL of a new PostgreSQL database holding one
// imported session, migrated by the test server's user (a superuser).
func pgSeeded(t *testing.T) string {
	t.Helper()
	u := pgURL(t)
	archive := t.TempDir()
	picoArchive(t, archive, "agent:main:cli:direct:a", "hello from the archive")
	sessionctl(t, u, "import", archive).mustSucceed(t)
	return u
}

// TestSQLPostgresCannotReachServer (issue 23 item 4): `sql` on PostgreSQL
// runs as the schema's read-only role, so that what a READ ONLY
// transaction alone allows a superuser is refused — and has no effect —
// while reading the tables and views still works.
func TestSQLPostgresCannotReachServer(t *testing.T) {
	u := pgSeeded(t)
	ctx := context.Background()
	admin, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// A victim session for pg_terminate_backend, and the files the
	// server would write or read.
	victim, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	var victimPID int
	if err := victim.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&victimPID); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "sessionctl-sql-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "marker")
	dblink := false
	if _, err := admin.Exec(`CREATE EXTENSION IF NOT EXISTS dblink`); err == nil {
		dblink = true
	} else {
		t.Logf("dblink is not available (%v): its case is skipped", err)
	}
	var dbname string
	if err := admin.QueryRow(`SELECT current_database()`).Scan(&dbname); err != nil {
		t.Fatal(err)
	}

	refused := []string{
		fmt.Sprintf(`COPY (SELECT 1) TO PROGRAM 'touch %s'`, marker),
		fmt.Sprintf(`COPY (SELECT 1) TO '%s'`, marker),
		`SELECT pg_read_file('/etc/hostname')`,
		`SELECT pg_catalog.pg_read_file('/etc/hostname')`,
		`SELECT "pg_read_file"('/etc/hostname')`,
		`SELECT pg_read_binary_file('/etc/hostname')`,
		`SELECT * FROM pg_ls_dir('/')`,
		fmt.Sprintf(`SELECT pg_terminate_backend(%d)`, victimPID),
		fmt.Sprintf(`SELECT pg_cancel_backend(%d)`, victimPID),
		`SELECT pg_reload_conf()`,
		`CHECKPOINT`,
		`NOTIFY sessiondb_test, 'x'`,
		`SELECT pg_notify('sessiondb_test', 'x')`,
		`SELECT pg_advisory_lock(4242)`,
		`SELECT PG_ADVISORY_LOCK /* hidden */ (4242)`,
		`SELECT pg_try_advisory_lock(4242)`,
		`SELECT pg_advisory_xact_lock(4242)`,
		`SELECT lo_import('/etc/hostname')`,
		fmt.Sprintf(`SELECT lo_export(0, '%s')`, marker),
		`SELECT lo_create(0)`,
		`SET ROLE postgres`,
		`RESET ROLE`,
		`SET SESSION AUTHORIZATION postgres`,
		`RESET ALL`,
		`SELECT set_config('role', 'postgres', true)`,
		`SELECT set_config('session_authorization', 'postgres', false)`,
		`SELECT query_to_xml('SELECT pg_read_file(''/etc/hostname'')', true, true, '')`,
		`SELECT ts_stat('SELECT to_tsvector(pg_read_file(''/etc/hostname''))')`,
		`SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, (''b'' || pg_advisory_lock(4242)::text)::tsquery')`,
		`SELECT 0pg_advisory_lock(4242)`,
		`DO $$ BEGIN PERFORM pg_advisory_lock(4242); END $$`,
		`LISTEN sessiondb_test`,
		`LOCK TABLE sessions`,
		`DISCARD ALL`,
		`LOAD 'auto_explain'`,
		`EXPLAIN ANALYZE SELECT pg_sleep(0)`,
		`SELECT 1; SELECT pg_read_file('/etc/hostname')`,
		`SELECT $a$ ' $a$; SET ROLE postgres; SELECT '`,
		`SELECT * FROM pg_authid`,
		`SELECT U&"\0070g_read_file"('/etc/hostname')`,
		`INSERT INTO sessions (id, created_at, updated_at) VALUES ('x', '', '')`,
		`WITH d AS (DELETE FROM sessions RETURNING 1) SELECT * FROM d`,
		`SELECT nextval('entries_id_seq')`,
		// Issue 36: a -- comment that \r ends hid the rest from the
		// check; the rest runs as the read-only role's login anyway.
		"SELECT 1 --\r, set_config('role', session_user, true), query_to_xml('select pg_read_file(''/etc/hostname'')', true, true, '')",
		"SELECT 1 --\r, set_config('role', 'postgres', true)",
		"SELECT 1 --\r, pg_terminate_backend(" + fmt.Sprint(victimPID) + ")",
		"SELECT 1 --\r\n; SET SESSION AUTHORIZATION postgres",
		`WITH u AS (UPDATE sessions SET title = 'owned' RETURNING 1) SELECT * FROM u`,
	}
	if dblink {
		refused = append(refused,
			fmt.Sprintf(`SELECT * FROM dblink('dbname=%s user=postgres host=127.0.0.1', 'SELECT pg_read_file(''/etc/hostname'')') AS t(x text)`, dbname),
			fmt.Sprintf(`SELECT dblink_exec('dbname=%s user=postgres host=127.0.0.1', 'CHECKPOINT')`, dbname))
	}
	for _, q := range refused {
		r := sessionctl(t, u, "sql", q)
		if r.code == 0 {
			t.Errorf("sql %q ran (exit 0):\n%s", q, r.stdout)
			continue
		}
		if r.code != exitError && r.code != exitUsage {
			t.Errorf("sql %q: exit %d, want 1 or 2: %s", q, r.code, r.stderr)
		}
		if strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("sql %q: stderr is not one line: %q", q, r.stderr)
		}
	}
	// None of it happened.
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the server wrote %s", marker)
	}
	if err := victim.PingContext(ctx); err != nil {
		t.Errorf("the victim session was terminated: %v", err)
	}
	var free bool
	if err := victim.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(4242)`).Scan(&free); err != nil || !free {
		t.Errorf("advisory lock 4242 is held by someone (%v)", err)
	}

	// Reading sessiondb's tables and views works, as the read-only role.
	for q, want := range map[string]string{
		`SELECT count(*) FROM sessions`:                                         "1",
		`SELECT text FROM transcript`:                                           "hello from the archive",
		`SELECT id FROM session_stats`:                                          "agent:main:cli:direct:a",
		`SELECT count(*) FROM usage_daily`:                                      "0",
		`SELECT count(*) FROM current_compactions`:                              "0",
		`SELECT count(*) FROM entries e JOIN sessions s ON s.id = e.session_id`: "1",
		`WITH x AS (SELECT 1 AS one) SELECT one FROM x`:                         "1",
		`VALUES ('lo_import(')`:                                                 "lo_import(",
		`SELECT current_user LIKE 'sessiondb_reader_%'`:                         "true",
		`SELECT session_user = current_user`:                                    "true",
		`SHOW transaction_read_only`:                                            "on",
	} {
		r := sessionctl(t, u, "sql", "--csv", q)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("sql %q: exit %d, stdout %q, stderr %q; want %q", q, r.code, r.stdout, r.stderr, want)
		}
	}
	sessionctl(t, u, "sql", "EXPLAIN SELECT * FROM transcript").mustSucceed(t)

	// With standard_conforming_strings off by default, '\'' would end
	// the string where the check does not see it end, and the call after
	// it would run; sql turns the setting on for its transaction.
	if _, err := admin.Exec(`ALTER DATABASE ` + dbname + ` SET standard_conforming_strings = off`); err != nil {
		t.Fatal(err)
	}
	hidden := `SELECT '\'', pg_advisory_lock(4243) --'`
	if r := sessionctl(t, u, "sql", "--csv", hidden); r.code != 0 || !strings.Contains(r.stdout, `', pg_advisory_lock(4243) --`) {
		t.Errorf("sql %q: exit %d, stdout %q, stderr %q; want the whole query read as one string", hidden, r.code, r.stdout, r.stderr)
	}
	if err := victim.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(4243)`).Scan(&free); err != nil || !free {
		t.Errorf("advisory lock 4243 is held by someone after %q (%v)", hidden, err)
	}
}

// TestSQLPostgresWithoutReaderRole (issue 23 item 4): a user that may not
// create roles still migrates its schema, and sql then refuses to run,
// naming --unsafe-role; with the flag it runs, still read-only and with
// the same statement checks.
func TestSQLPostgresWithoutReaderRole(t *testing.T) {
	base := pgURL(t)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	user := fmt.Sprintf("sessiondb_t_plain_%d", time.Now().UnixNano()%1e9)
	for _, q := range []string{
		`CREATE ROLE ` + user + ` LOGIN NOCREATEROLE NOSUPERUSER`,
		`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`,
		`CREATE SCHEMA app AUTHORIZATION ` + user,
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(`DROP SCHEMA app CASCADE`)
		if _, err := admin.Exec(`DROP ROLE ` + user); err != nil {
			t.Errorf("drop role %s: %v", user, err)
		}
	})
	p := mustParse(t, base)
	p.User = url.User(user)
	q := p.Query()
	q.Set("search_path", "app,public")
	p.RawQuery = q.Encode()
	u := p.String()

	archive := t.TempDir()
	picoArchive(t, archive, "agent:main:cli:direct:a", "hello")
	sessionctl(t, u, "import", archive).mustSucceed(t)
	r := sessionctl(t, u, "sql", "SELECT count(*) FROM sessions")
	r.mustFail(t, exitError, "--unsafe-role")
	if !strings.Contains(r.stderr, "sessiondb_reader_") {
		t.Errorf("the refusal does not name the role: %s", r.stderr)
	}
	if got := sessionctl(t, u, "sql", "--unsafe-role", "--csv", "SELECT count(*) FROM sessions").mustSucceed(t).stdout; got != "count\n1\n" {
		t.Errorf("--unsafe-role: %q", got)
	}
	sessionctl(t, u, "sql", "--unsafe-role", "SELECT pg_advisory_lock(1)").mustFail(t, exitError, "refused")
	sessionctl(t, u, "sql", "--unsafe-role", "SET ROLE postgres").mustFail(t, exitError, "refused")
	sessionctl(t, u, "sql", "--unsafe-role", "DELETE FROM sessions").mustFail(t, exitError, "refused")
}
