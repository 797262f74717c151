package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/sqlstore"
)

func TestSQL(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	// notes holds a custom message and a model_change, which is not a
	// message.
	q := "SELECT id, title, message_count, NULL AS nada, 1.5 AS x FROM session_stats ORDER BY id"

	r := sessionctl(t, db, "sql", q).mustSucceed(t)
	want := "" +
		"id     title             message_count  nada  x\n" +
		"chat   Capital question  5              NULL  1.5\n" +
		"empty                    0              NULL  1.5\n" +
		"notes  Release notes     1              NULL  1.5\n" +
		"(3 rows)\n"
	if r.stdout != want {
		t.Errorf("table:\n%s\nwant:\n%s", r.stdout, want)
	}

	r = sessionctl(t, db, "sql", "--json", q).mustSucceed(t)
	if !strings.Contains(r.stdout, `{"id": "chat", "title": "Capital question", "message_count": 5, "nada": null, "x": 1.5}`) {
		t.Errorf("--json keeps column order and types:\n%s", r.stdout)
	}
	var rows []map[string]any
	r.decode(t, &rows)
	if len(rows) != 3 || rows[2]["id"] != "notes" {
		t.Errorf("--json rows: %v", rows)
	}
	r = sessionctl(t, db, "sql", "--json", "SELECT 1 WHERE 0").mustSucceed(t)
	if r.stdout != "[]\n" {
		t.Errorf("no rows in JSON: %q", r.stdout)
	}

	r = sessionctl(t, db, "sql", "--csv", `SELECT body FROM transcript WHERE session_id = 'chat' ORDER BY position`).mustSucceed(t)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatalf("--csv output is not CSV: %v\n%s", err, r.stdout)
	}
	if len(recs) != 1+len(chatBodies) || recs[0][0] != "body" {
		t.Fatalf("--csv: %v", recs)
	}
	for i, b := range chatBodies {
		if recs[i+1][0] != b {
			t.Errorf("csv row %d = %q, want %q", i+1, recs[i+1][0], b)
		}
	}
}

func TestSQLRefusesWrites(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	for _, q := range []string{
		"DELETE FROM sessions",
		"UPDATE sessions SET title = 'x'",
		"INSERT INTO sessions (id, created_at, updated_at) VALUES ('x', '', '')",
		"DROP TABLE usage",
		"CREATE TABLE t (x)",
	} {
		sessionctl(t, db, "sql", q).mustFail(t, exitError, "read-only")
	}
	// Statements that would create files or change settings are refused
	// before they reach the database.
	dir := t.TempDir()
	for _, q := range []string{
		"VACUUM INTO '" + dir + "/copy.db'",
		"  /* x */ attach database '" + dir + "/att.db' AS x",
		"DETACH x",
		"PRAGMA user_version = 5",
		"pragma foreign_keys=0",
	} {
		sessionctl(t, db, "sql", q).mustFail(t, exitError, "read-only")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused statements created files: %v", entries)
	}
	sessionctl(t, db, "sql", "PRAGMA table_info(sessions)").mustSucceed(t)
	// A script could switch query_only off before writing: several
	// statements are refused before reaching the database.
	for _, q := range []string{
		"PRAGMA query_only = 0; DELETE FROM sessions",
		"SELECT 1; SELECT 2",
		"SELECT 1 /* c */ ; DELETE FROM sessions -- x",
	} {
		sessionctl(t, db, "sql", q).mustFail(t, exitUsage, "one SQL statement")
	}
	var got []map[string]any
	sessionctl(t, db, "list", "--json").mustSucceed(t).decode(t, &got)
	if len(got) != 3 || got[0]["title"] != "Capital question" {
		t.Errorf("the database changed: %v", got)
	}
	// Semicolons inside strings and comments, and a trailing one, are fine.
	r := sessionctl(t, db, "sql", "SELECT 'a;b' AS s, \"x;\" FROM (SELECT 1 AS \"x;\") -- ; DELETE\n;  ").mustSucceed(t)
	if !strings.Contains(r.stdout, "a;b") {
		t.Errorf("quoted semicolon: %q", r.stdout)
	}
	sessionctl(t, db, "sql", "SELEC 1").mustFail(t, exitError, "syntax error")
	sessionctl(t, db, "sql", "--json", "--csv", "SELECT 1").mustFail(t, exitUsage, "exclude each other")
	sessionctl(t, db, "sql", "  ").mustFail(t, exitUsage, "empty query")
}

func TestMultipleStatements(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1":                  false,
		"SELECT 1;":                 false,
		"SELECT 1; -- done":         false,
		"SELECT 1; /* done */ ;":    false,
		"SELECT ';' || \";\"":       false,
		"SELECT [a;b] FROM t":       false,
		"SELECT 'it''s; fine'":      false,
		"SELECT 1; SELECT 2":        true,
		"SELECT 1;SELECT 2":         true,
		"SELECT 1; 'x'":             true,
		"SELECT 1 -- ;\n; DELETE":   true,
		"SELECT /* ; */ 1; DELETE ": true,
	} {
		if got := multipleStatements(q); got != want {
			t.Errorf("multipleStatements(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestStats(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	var got statsReport
	sessionctl(t, db, "stats", "--json").mustSucceed(t).decode(t, &got)
	bodyBytes := 0
	for _, b := range chatBodies {
		bodyBytes += len(b)
	}
	bodyBytes += len(`{"type":"label","label":"v1.2 shipped"}`) + len(`{"model":"gpt-5"}`)
	// 5 chat messages and notes' custom message; its model_change is an
	// entry but not a message.
	if got.Sessions != 3 || got.Messages != 6 || got.Entries != 7 || got.Bytes != int64(bodyBytes) {
		t.Errorf("counts: %+v (want 3 sessions, 6 messages, 7 entries, %d bytes)", got, bodyBytes)
	}
	if len(got.Formats) != 1 || got.Formats[0].Format != "native" || got.Formats[0].Sessions != 3 {
		t.Errorf("formats: %+v", got.Formats)
	}
	u := got.Usage
	if u.Calls != 2 || u.InputTokens != 250 || u.OutputTokens != 50 || u.CacheReadTokens != 7 || u.Cost != 0.75 {
		t.Errorf("usage: %+v", u)
	}
	if got.DatabaseBytes <= 0 || got.Path != db {
		t.Errorf("file: %q %d bytes", got.Path, got.DatabaseBytes)
	}
	r := sessionctl(t, db, "stats").mustSucceed(t)
	for _, want := range []string{"sessions     3\n", "2 calls, 250 input + 50 output tokens", "native  3"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stats lacks %q:\n%s", want, r.stdout)
		}
	}
}

// limitedWriter accepts n bytes, then fails every write, as a closed pipe
// does.
type limitedWriter struct{ n int }

func (w *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("pipe closed")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestSQLStreamsRows (issue 13 item 9): rows are printed as they are read,
// in every output mode, so a query with an endless result stops at the
// first failed write instead of holding every row in memory. Before the
// fix the whole result was collected first, and this test never ended.
func TestSQLStreamsRows(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	const endless = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, 'row ' || x AS label FROM c`
	for _, mode := range [][]string{nil, {"--json"}, {"--csv"}} {
		args := append([]string{"--db", db, "sql"}, mode...)
		args = append(args, endless)
		var stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &limitedWriter{n: 256 << 10}, &stderr)
		if code != exitError || !strings.Contains(stderr.String(), "pipe closed") {
			t.Errorf("sql %v on an endless result into a closed pipe: exit %d, %q", mode, code, stderr.String())
		}
	}
}

// TestSQLTimeout (item 9): --timeout stops a query that runs too long.
func TestSQLTimeout(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	const endless = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`
	sessionctl(t, db, "sql", "--timeout", "100ms", endless).mustFail(t, exitError, "--timeout 100ms")
}

// TestSQLRefusesPragmaCall (item 15): PRAGMA x(v) sets x like PRAGMA x = v
// and is refused the same way (journal_mode(delete) used to fail with a
// misleading "write lock" message); table_info-style pragmas still read.
func TestSQLRefusesPragmaCall(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	for _, q := range []string{"PRAGMA journal_mode(delete)", "PRAGMA user_version(7)", "pragma main.cache_size ( 10 )", `PRAGMA "query_only"(0)`} {
		sessionctl(t, db, "sql", q).mustFail(t, exitError, "read-only")
	}
	r := sessionctl(t, db, "sql", "--csv", "PRAGMA table_info(sessions)").mustSucceed(t)
	if !strings.Contains(r.stdout, "title") {
		t.Errorf("PRAGMA table_info: %q", r.stdout)
	}
	sessionctl(t, db, "sql", "PRAGMA journal_mode").mustSucceed(t)
}

// TestSQLSQLiteReaderCannotWrite (issue 36 item 4): the PostgreSQL probe
// hid statements from sql's checks behind a -- comment ended by \r. On
// SQLite the checks are not what keeps the data unchanged: the reader pool
// opens the file mode=ro with query_only, so writes that reach it without
// any check — even a script that turns query_only off first — fail and
// change nothing. ATTACH and VACUUM INTO create files even on that pool,
// so for them the checks are the barrier: they read comments as SQLite
// does (a -- comment ends only at \n; /* */ does not nest), so a \r or a
// comment before the keyword hides nothing.
func TestSQLSQLiteReaderCannotWrite(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	withStore(t, db, func(st *sqlstore.Store) {
		b := sqliteBackend{st}
		ctx := context.Background()
		for _, q := range []string{
			"PRAGMA query_only = 0; DELETE FROM sessions",
			"PRAGMA query_only = 0; UPDATE sessions SET title = 'owned'",
			"PRAGMA query_only = 0; CREATE TABLE owned (x)",
			"PRAGMA journal_mode = delete",
		} {
			rows, done, err := b.QueryUser(ctx, userQueryOptions{}, q)
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
				done()
			}
			if err == nil {
				t.Errorf("%q ran on the reader pool", q)
			}
		}
	})
	dir := t.TempDir()
	for _, q := range []string{
		"--\r\nATTACH '" + dir + "/a.db' AS y",
		"/* x */\rATTACH '" + dir + "/b.db' AS y",
		"/* /* */ ATTACH '" + dir + "/c.db' AS y",
		"-- c\nVACUUM INTO '" + dir + "/d.db'",
		"\r\f\tvacuum into '" + dir + "/e.db'",
	} {
		sessionctl(t, db, "sql", "--", q).mustFail(t, exitError, "read-only")
	}
	// A \r does not end a -- comment in SQLite: what follows it is
	// comment, for SQLite and for the checks alike.
	r := sessionctl(t, db, "sql", "--csv", "SELECT count(*) AS n FROM sessions --\rATTACH '"+dir+"/f.db' AS y").mustSucceed(t)
	if r.stdout != "n\n3\n" {
		t.Errorf("sql with --\\r: %q", r.stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("sql created files: %v", entries)
	}
	var got []map[string]any
	sessionctl(t, db, "list", "--json").mustSucceed(t).decode(t, &got)
	if len(got) != 3 || got[0]["title"] != "Capital question" {
		t.Errorf("the database changed: %v", got)
	}
}
