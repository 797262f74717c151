package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/sessiondb/sessiondb/migrations"
)

func TestMigrate(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	latest, err := migrations.Latest()
	if err != nil {
		t.Fatal(err)
	}
	var st migrateStatusJSON
	sessionctl(t, db, "migrate", "status", "--json").mustSucceed(t).decode(t, &st)
	files, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if st.Current != latest || st.Latest != latest || len(st.Migrations) != len(files) {
		t.Fatalf("status: %+v", st)
	}
	for _, m := range st.Migrations {
		if m.State != "applied" || m.AppliedAt == "" {
			t.Errorf("migration %+v", m)
		}
	}
	r := sessionctl(t, db, "migrate", "up").mustSucceed(t)
	if !strings.Contains(r.stdout, "nothing to do") {
		t.Errorf("up at latest: %q", r.stdout)
	}

	// Rolling back drops data: --yes is required off a terminal.
	sessionctl(t, db, "migrate", "down-to", "0").mustFail(t, exitUsage, "pass --yes")
	r = sessionctl(t, db, "migrate", "down-to", "0", "--yes").mustSucceed(t)
	if !strings.Contains(r.stdout, "rolled back 00001_initial.sql") || !strings.HasSuffix(r.stdout, "is at version 0\n") {
		t.Errorf("down-to 0: %q", r.stdout)
	}
	st = migrateStatusJSON{}
	sessionctl(t, db, "migrate", "status", "--json").mustSucceed(t).decode(t, &st)
	if st.Current != 0 || st.Migrations[0].State != "pending" {
		t.Errorf("status after down-to 0: %+v", st)
	}
	r = sessionctl(t, db, "migrate", "status").mustSucceed(t)
	if !strings.Contains(r.stdout, "schema version 0, latest") || !strings.Contains(r.stdout, "pending") {
		t.Errorf("status table:\n%s", r.stdout)
	}
	// doctor reports the pending migrations and fails.
	r = sessionctl(t, db, "doctor").mustFail(t, exitError, "check(s) failed")
	if !strings.Contains(r.stdout, "run 'sessionctl migrate up'") {
		t.Errorf("doctor on version 0:\n%s", r.stdout)
	}

	r = sessionctl(t, db, "migrate", "up").mustSucceed(t)
	if !strings.Contains(r.stdout, "from version 0 to ") {
		t.Errorf("up: %q", r.stdout)
	}
	r = sessionctl(t, db, "migrate", "down-to", strconv.FormatInt(latest+1, 10), "--yes").mustSucceed(t)
	if !strings.Contains(r.stdout, "nothing to roll back") {
		t.Errorf("down-to above current: %q", r.stdout)
	}
	sessionctl(t, db, "doctor").mustSucceed(t)
	if got := sessionIDs(t, db); got != "" {
		t.Errorf("sessions survived a rollback to 0: %s", got)
	}
}

func TestDoctor(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	var checks []checkResult
	sessionctl(t, db, "doctor", "--json").mustSucceed(t).decode(t, &checks)
	names := map[string]string{}
	for _, c := range checks {
		names[c.Check] = c.Status
	}
	for _, want := range []string{"schema version", "schema objects", "journal mode", "integrity", "foreign keys", "orphan rows", "log positions", "wal size"} {
		if names[want] != checkOK {
			t.Errorf("check %q: %q, want ok (%+v)", want, names[want], checks)
		}
	}
	r := sessionctl(t, db, "doctor").mustSucceed(t)
	if !strings.Contains(r.stdout, "integrity       ok") {
		t.Errorf("doctor table:\n%s", r.stdout)
	}

	// Damage the database behind the store's back: an entry of a session
	// that does not exist, and an entry beyond its session's last_seq.
	rawExec(t, db,
		"PRAGMA foreign_keys = OFF",
		"INSERT INTO entries (session_id, seq, kind, body, created_at) VALUES ('ghost', 1, 'message', '{}', '2026-01-01T00:00:00Z')",
		"INSERT INTO entries (session_id, seq, kind, body, created_at) VALUES ('notes', 99, 'message', '{}', '2026-01-01T00:00:00Z')")

	r = sessionctl(t, db, "doctor", "--json").mustFail(t, exitError, "3 check(s) failed")
	checks = nil
	r.decode(t, &checks)
	for _, c := range checks {
		switch c.Check {
		case "foreign keys":
			if c.Status != checkFail || !strings.Contains(c.Detail, "1 row(s)") {
				t.Errorf("foreign keys: %+v", c)
			}
		case "orphan rows":
			// The foreign-key check already counts the ghost entry; the
			// orphan check names the table.
			if c.Status != checkFail || !strings.Contains(c.Detail, "1 entries") {
				t.Errorf("orphan rows: %+v", c)
			}
		case "log positions":
			if c.Status != checkFail || !strings.Contains(c.Detail, "1 entries beyond last_seq") {
				t.Errorf("log positions: %+v", c)
			}
		}
	}
}

// TestDoctorReportsDamagedSchema: a schema whose text was damaged makes
// every other command refuse the file; doctor must still open it and say
// which object is damaged.
func TestDoctorReportsDamagedSchema(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	rawExec(t, db,
		"PRAGMA writable_schema = ON",
		"UPDATE sqlite_schema SET sql = replace(sql, 'created_at', 'created_ax') WHERE name = 'compactions'",
		"PRAGMA writable_schema = OFF")

	sessionctl(t, db, "list").mustFail(t, exitError, "table compactions differs")
	var checks []checkResult
	sessionctl(t, db, "doctor", "--json").mustFail(t, exitError, "check(s) failed").decode(t, &checks)
	found := false
	for _, c := range checks {
		if c.Check == "schema objects" {
			found = true
			if c.Status != checkFail || !strings.Contains(c.Detail, "table compactions") {
				t.Errorf("schema objects: %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("doctor has no schema objects check: %+v", checks)
	}
}

// TestMigrateDownToBacksUp (issue 13 item 7): rolling back takes a private
// backup first that still holds the sessions the rollback drops.
func TestMigrateDownToBacksUp(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	r := sessionctl(t, db, "migrate", "down-to", "0", "--yes").mustSucceed(t)
	baks, _ := filepath.Glob(db + ".bak-v*")
	if len(baks) != 1 || !strings.Contains(r.stdout, "backed up "+db+" to "+baks[0]) {
		t.Fatalf("backups %v; stdout %q", baks, r.stdout)
	}
	fi, err := os.Stat(baks[0])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup %s: mode %v, %v; want 0600", baks[0], fi.Mode().Perm(), err)
	}
	var got []map[string]any
	sessionctl(t, baks[0], "list", "--json").mustSucceed(t).decode(t, &got)
	if len(got) == 0 {
		t.Errorf("the backup holds no sessions")
	}
	// --no-backup skips it.
	db2 := tempDB(t)
	seed(t, db2)
	sessionctl(t, db2, "migrate", "down-to", "0", "--yes", "--no-backup").mustSucceed(t)
	if baks, _ := filepath.Glob(db2 + ".bak-v*"); len(baks) != 0 {
		t.Errorf("--no-backup took %v", baks)
	}
}
