package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// seedHostileText adds to db sessions whose text PostgreSQL cannot hold as
// it is: a NUL in a title and a summary, bodies with bytes that are not
// UTF-8, a title that starts like the escape pgstore uses, and attrs,
// state, usage and checkpoint labels with both.
func seedHostileText(t testing.TB, db string) {
	t.Helper()
	ctx := context.Background()
	withStore(t, db, func(st *sqlstore.Store) {
		for i, title := range []string{"nul\x00title", "caf\xe9 latin1", "\uFFFF\\x00 looks escaped"} {
			id := fmt.Sprintf("hostile-%d", i)
			if _, err := st.Commit(ctx, id, sessiondb.Commit{
				Create: &sessiondb.Session{Title: title, Summary: "sum\x00mary \xff", Attrs: json.RawMessage("{\"cwd\":\"/home/caf\xe9\"}"), CreatedAt: t0},
				Append: []sessiondb.Entry{
					{Body: json.RawMessage("{\"role\":\"user\",\"content\":\"bad \xff\xfe bytes\"}"), CreatedAt: t0},
					{Body: json.RawMessage(`{"role":"assistant","content":"nul \u0000 escaped"}`), CreatedAt: t0},
				},
				State: json.RawMessage("{\"s\":\"\xc3\"}"),
				Usage: []sessiondb.Usage{{Provider: "p\x00", Model: "m\xff", InputTokens: 3, CreatedAt: t0}},
				Now:   t0,
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := st.SaveCheckpoint(ctx, sessiondb.Checkpoint{ID: id + "-cp", SessionID: id, Label: "l\x00\xfe", CreatedAt: t0}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestCopyHostileTextRoundTrip: sessions with a NUL in the title, bytes
// that are not UTF-8 in bodies and the like copy SQLite → PostgreSQL →
// SQLite byte-identical, and every read command prints the same on both
// backends. On main the copy to PostgreSQL stopped at the first of them
// ("invalid byte sequence for encoding UTF8", exit 1) and copied nothing
// after it.
func TestCopyHostileTextRoundTrip(t *testing.T) {
	src := tempDB(t)
	seed(t, src)
	seedHostileText(t, src)
	pg := pgURL(t)
	back := tempDB(t)
	want := dumps(t, src)
	if tot := copyRun(t, src, pg); tot.Copied != int64(len(want)) || len(tot.Skipped) != 0 {
		t.Fatalf("copy to PostgreSQL: %+v", tot)
	}
	sameDumps(t, want, dumps(t, pg))
	sameOutputs(t, src, pg)
	if tot := copyRun(t, pg, back); tot.Copied != int64(len(want)) {
		t.Fatalf("copy back: %+v", tot)
	}
	sameDumps(t, want, dumps(t, back))
	for _, id := range []string{"hostile-0", "hostile-1", "hostile-2"} {
		for _, args := range [][]string{{"show", "--", id}, {"search", "bytes"}, {"list"}} {
			if a, b := sessionctl(t, src, args...).mustSucceed(t).stdout, sessionctl(t, pg, args...).mustSucceed(t).stdout; a != b {
				t.Errorf("%v differs between SQLite and PostgreSQL:\n%s\n%s", args, a, b)
			}
		}
	}
	// What PostgreSQL can hold is stored as it is, readable in SQL.
	r := sessionctl(t, pg, "sql", "--json", "SELECT title FROM sessions WHERE id = 'chat'").mustSucceed(t)
	if !strings.Contains(r.stdout, "Capital question") {
		t.Errorf("plain title not stored as it is: %s", r.stdout)
	}
}

// TestImportHostileTextIntoPostgres: a picoclaw file with a NUL in its
// summary and a line that is not UTF-8 imports into PostgreSQL as into
// SQLite: the same session, byte for byte, and the same report. On main
// PostgreSQL dropped the whole file with an error naming no line.
func TestImportHostileTextIntoPostgres(t *testing.T) {
	dir := t.TempDir()
	lines := "{\"role\":\"user\",\"content\":\"caf\xe9 \xff\",\"created_at\":\"2026-11-29T12:33:00Z\"}\n" +
		`{"role":"assistant","content":"ok \u0000","created_at":"2026-11-29T12:33:01Z"}` + "\n"
	meta := `{"key":"agent:main:cli:direct:bob","summary":"sum\u0000mary","skip":0,"count":2,"created_at":"2026-11-29T12:32:44Z","updated_at":"2026-11-29T12:33:01Z"}`
	if err := os.WriteFile(filepath.Join(dir, "agent_main_cli_direct_bob.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent_main_cli_direct_bob.meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	lite, pg := tempDB(t), pgURL(t)
	// The line that is not UTF-8 is reported (picoclaw's own loader reads
	// U+FFFD there) and imported byte for byte, on both backends alike.
	var ra, rb importReport
	a := sessionctl(t, lite, "import", "--json", dir)
	a.decode(t, &ra)
	b := sessionctl(t, pg, "import", "--json", dir)
	b.decode(t, &rb)
	if a.code != b.code || ra.Sessions != 1 || rb.Sessions != 1 || ra.Entries != rb.Entries || len(ra.Problems) != len(rb.Problems) {
		t.Fatalf("import: SQLite exit %d %+v, PostgreSQL exit %d %+v", a.code, ra, b.code, rb)
	}
	da, db := dumps(t, lite), dumps(t, pg)
	if len(da) != 1 {
		t.Fatalf("SQLite import: %d sessions", len(da))
	}
	// Two imports, a moment apart: when each last saw the source differs.
	for _, m := range []map[string]sessiondb.SessionDump{da, db} {
		for id, d := range m {
			d.Session.SourceSeenAt = time.Time{}
			m[id] = d
		}
	}
	sameDumps(t, da, db)
	for _, d := range db {
		if d.Session.Summary != "sum\x00mary" || !strings.Contains(string(d.Entries[0].Body), "caf\xe9 \xff") {
			t.Errorf("PostgreSQL import: summary %q, first body %q", d.Session.Summary, d.Entries[0].Body)
		}
	}
	// The import analyzed the tables it filled (RefreshStatistics): the
	// planner counts the rows.
	raw, err := sql.Open("pgx", pg)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var counted float64
	if err := raw.QueryRow(`SELECT reltuples FROM pg_class WHERE oid = 'entries'::regclass`).Scan(&counted); err != nil || int(counted) != rb.Entries {
		t.Errorf("PostgreSQL's planner counts %v entries after the import, %v; want the %d imported", counted, err, rb.Entries)
	}
}

// TestCopySkipsWhatTheTargetRefuses: a session the target cannot take (a
// body damaged by hand in the source file, no longer JSON) is skipped and
// reported, and the copy goes on with the rest (exit 1). On main the copy
// stopped at it.
func TestCopySkipsWhatTheTargetRefuses(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			src := tempDB(t)
			seed(t, src)
			rawExec(t, src, `UPDATE entries SET body = 'not json' WHERE session_id = 'notes' AND seq = 1`)
			dst := tempDB(t)
			if kind == "postgres" {
				dst = pgURL(t)
			}
			var tot copyTotals
			sessionctl(t, "", "copy", "--from", src, "--to", dst, "--json").mustFail(t, exitError, "could not be written").decode(t, &tot)
			if tot.Copied != 2 || len(tot.Skipped) != 1 || tot.Skipped[0].ID != "notes" || !strings.Contains(tot.Skipped[0].Reason, "not valid JSON") {
				t.Errorf("copy: %+v; want 2 copied, notes skipped as invalid", tot)
			}
			got := dumps(t, dst)
			if _, ok := got["notes"]; ok || len(got) != 2 {
				t.Errorf("target holds %d sessions (notes: %v), want chat and empty", len(got), ok)
			}
		})
	}
}
