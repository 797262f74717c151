package pgstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// readerRows runs query through queryUnchecked — without the statement
// checks, as if they had missed it — and returns its rows as text.
func readerRows(ctx context.Context, s *Store, query string) ([][]string, error) {
	rows, done, err := s.queryUnchecked(ctx, query, UntrustedQueryOptions{})
	if err != nil {
		return nil, err
	}
	defer done()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// TestUntrustedQueryLogsInAsReader (issue 36 item 4): the statement checks
// are a second line. A query that gets past them — here they are skipped —
// runs on a connection whose session user is the read-only role, so that
// every way back to the connecting superuser (SET ROLE, RESET ROLE,
// set_config('role', …), SET SESSION AUTHORIZATION, inside a DO block or
// not) leads nowhere, and what only a privileged role may do (server
// files, programs, signals, writes) fails and changes nothing.
func TestUntrustedQueryLogsInAsReader(t *testing.T) {
	s := MustOpenStore(t, nil)
	ctx := context.Background()
	if _, err := s.Create(ctx, sessiondb.Session{ID: "victim-session"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "victim-session", sessiondb.Entry{Kind: sessiondb.KindMessage, Body: json.RawMessage(`{"role":"user","content":"hello"}`)}); err != nil {
		t.Fatal(err)
	}
	role, err := s.ReaderRole(ctx)
	if err != nil {
		t.Fatal(err)
	}
	victim, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	var victimPID int
	if err := victim.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&victimPID); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "pgstore-reader-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "marker")

	for _, q := range []string{
		// The probe's attack: a -- comment ended by \r hid this from
		// the check; as the reader, set_config('role', session_user)
		// stays the reader, and pg_read_file is denied.
		"SELECT 1 --\r, set_config('role', session_user, true), query_to_xml('select pg_read_file(''/etc/hostname'')', true, true, '')",
		"SELECT set_config('role', 'postgres', true)",
		"SELECT set_config('session_authorization', 'postgres', true)",
		"SET ROLE postgres",
		"SET SESSION AUTHORIZATION postgres",
		"DO $$ BEGIN EXECUTE 'RESET ROLE'; PERFORM pg_read_file('/etc/hostname'); END $$",
		"DO $$ BEGIN EXECUTE 'SET ROLE postgres'; END $$",
		"DO $$ BEGIN EXECUTE 'SET SESSION AUTHORIZATION postgres'; END $$",
		"DO $$ BEGIN PERFORM set_config('role', session_user, true); PERFORM pg_read_file('/etc/hostname'); END $$",
		"SELECT pg_read_file('/etc/hostname')",
		"SELECT pg_read_binary_file('/etc/hostname')",
		"SELECT * FROM pg_ls_dir('/')",
		"SELECT lo_import('/etc/hostname')",
		fmt.Sprintf("SELECT pg_terminate_backend(%d)", victimPID),
		fmt.Sprintf("SELECT pg_cancel_backend(%d)", victimPID),
		"SELECT pg_reload_conf()",
		fmt.Sprintf("COPY (SELECT 1) TO PROGRAM 'touch %s'", marker),
		fmt.Sprintf("COPY (SELECT 1) TO '%s'", marker),
		"WITH d AS (DELETE FROM sessions RETURNING 1) SELECT count(*) FROM d",
		"WITH u AS (UPDATE sessions SET title = 'owned' RETURNING 1) SELECT count(*) FROM u",
		"DELETE FROM sessions",
		"SELECT * FROM pg_authid",
		"CREATE TABLE owned (x int)",
	} {
		got, err := readerRows(ctx, s, q)
		if err == nil {
			t.Errorf("%q ran as the reader: %q", q, got)
			continue
		}
		if errors.Is(err, ErrNoReaderRole) {
			t.Errorf("%q: %v (the reader could not log in)", q, err)
		}
	}
	// A way back that does not fail leads to the reader itself.
	for _, q := range []string{
		"SELECT set_config('role', session_user, true), current_user, session_user",
		"SELECT set_config('role', 'none', true), current_user, session_user",
	} {
		got, err := readerRows(ctx, s, q)
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		if len(got) != 1 || got[0][1] != role || got[0][2] != role {
			t.Errorf("%q = %q, want the reader %s", q, got, role)
		}
	}
	if _, err := readerRows(ctx, s, "RESET ROLE"); err != nil {
		t.Logf("RESET ROLE: %v", err)
	}

	// Nothing happened.
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the server wrote %s", marker)
	}
	if err := victim.PingContext(ctx); err != nil {
		t.Errorf("the victim backend was ended: %v", err)
	}
	sess, err := s.Get(ctx, "victim-session")
	if err != nil || sess.Title != "" {
		t.Errorf("the session changed: %+v, %v", sess, err)
	}
	var owned bool
	if err := s.DB().QueryRowContext(ctx, "SELECT to_regclass('owned') IS NOT NULL").Scan(&owned); err != nil || owned {
		t.Errorf("a table was created (%v)", err)
	}

	// Reading still works, as the reader.
	got, err := readerRows(ctx, s, "SELECT count(*), current_user, session_user FROM transcript")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0][0] != "1" || got[0][1] != role || got[0][2] != role {
		t.Errorf("reading the transcript as the reader: %q", got)
	}
	// And through QueryUntrusted, the checks refuse the probe's query
	// before it reaches the server.
	if _, _, err := s.QueryUntrusted(ctx, "SELECT 1 --\r, set_config('role', session_user, true)", UntrustedQueryOptions{}); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("the --\\r query: %v, want ErrInvalid", err)
	}
}

// TestUntrustedQueryReaderLogin: migration 00005 made the role NOLOGIN;
// the first query gives it LOGIN and nothing else. A login the server
// refuses is ErrNoReaderRole, saying how to allow it, and nothing runs as
// the URL's user instead.
func TestUntrustedQueryReaderLogin(t *testing.T) {
	s := MustOpenStore(t, nil)
	ctx := context.Background()
	role, err := s.ReaderRole(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var login bool
	if err := s.DB().QueryRowContext(ctx, "SELECT rolcanlogin FROM pg_roles WHERE rolname = $1", role).Scan(&login); err != nil || login {
		t.Fatalf("before the first query: rolcanlogin %v, %v; want a NOLOGIN role from the migration", login, err)
	}
	if got, err := readerRows(ctx, s, "SELECT current_user"); err != nil || len(got) != 1 || got[0][0] != role {
		t.Fatalf("first query: %q, %v", got, err)
	}
	var powerful bool
	if err := s.DB().QueryRowContext(ctx, readerPowersSQL, role).Scan(&powerful, &login, new(bool)); err != nil || !login || powerful {
		t.Fatalf("after the first query: login %v, powerful %v, %v", login, powerful, err)
	}

	// The server refuses the login: no fallback.
	if _, err := s.DB().ExecContext(ctx, "ALTER ROLE "+role+" CONNECTION LIMIT 0"); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.QueryUntrusted(ctx, "SELECT current_user", UntrustedQueryOptions{})
	if !errors.Is(err, ErrNoReaderRole) || !strings.Contains(err.Error(), "pg_hba.conf") || !strings.Contains(err.Error(), role) {
		t.Errorf("refused login: %v, want ErrNoReaderRole naming the role and pg_hba.conf", err)
	}
	if _, err := s.DB().ExecContext(ctx, "ALTER ROLE "+role+" CONNECTION LIMIT -1"); err != nil {
		t.Fatal(err)
	}

	// A role that was given a power is refused before anyone logs in.
	if _, err := s.DB().ExecContext(ctx, "GRANT pg_read_server_files TO "+role); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.QueryUntrusted(ctx, "SELECT 1", UntrustedQueryOptions{})
	if !errors.Is(err, ErrNoReaderRole) || !strings.Contains(err.Error(), "memberships") {
		t.Errorf("reader with a membership: %v, want ErrNoReaderRole", err)
	}
	if _, err := s.DB().ExecContext(ctx, "REVOKE pg_read_server_files FROM "+role); err != nil {
		t.Fatal(err)
	}
}

// TestReaderConfig: the reader's connection is the store's URL with the
// role as user; the URL's password (in the user info or a parameter) and
// $PGPASSWORD, which are the URL user's, are never sent for the role.
func TestReaderConfig(t *testing.T) {
	t.Setenv("PGPASSWORD", "alices-env-password")
	t.Setenv("PGPASSFILE", filepath.Join(t.TempDir(), "none"))
	for _, u := range []string{
		"postgres://alice:alices-password@db.example:5433/app?search_path=s1,public&sslmode=disable",
		"postgres://alice@db.example:5433/app?search_path=s1,public&sslmode=disable&password=alices-password&user=bob",
	} {
		cfg, err := readerConfig(u, "sessiondb_reader_x", "")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.User != "sessiondb_reader_x" || cfg.Password != "" || cfg.Host != "db.example" || cfg.Port != 5433 ||
			cfg.Database != "app" || cfg.RuntimeParams["search_path"] != "s1,public" {
			t.Errorf("readerConfig(%s) = user %q password %q host %q:%d db %q params %v", u, cfg.User, cfg.Password, cfg.Host, cfg.Port, cfg.Database, cfg.RuntimeParams)
		}
		cfg, err = readerConfig(u, "sessiondb_reader_x", "readers-password")
		if err != nil || cfg.Password != "readers-password" {
			t.Errorf("readerConfig with a password: %q, %v", cfg.Password, err)
		}
	}
	// The password file's line for the role is used.
	pass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pass, []byte("db.example:5433:app:alice:alices\ndb.example:5433:app:sessiondb_reader_x:from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSFILE", pass)
	cfg, err := readerConfig("postgres://alice:alices@db.example:5433/app", "sessiondb_reader_x", "")
	if err != nil || cfg.Password != "from-file" {
		t.Errorf("password file: %q, %v", cfg.Password, err)
	}
}
