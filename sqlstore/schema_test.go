package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
)

// damageSchema rewrites the stored CREATE text of one object, the way a
// flipped byte in sqlite_schema would, and checkpoints the change into the
// main file.
func damageSchema(t *testing.T, path, name, from, to string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	err = db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = ? AND instr(sql, ?) > 0`, name, from).Scan(&n)
	db.Close()
	if err != nil || n != 1 {
		t.Fatalf("%s holds %q %d times, %v; the test would damage nothing", name, from, n, err)
	}
	rawExec(t, path,
		`PRAGMA writable_schema = ON`,
		`UPDATE sqlite_schema SET sql = replace(sql, '`+from+`', '`+to+`') WHERE name = '`+name+`'`,
		`PRAGMA writable_schema = OFF`,
		`PRAGMA wal_checkpoint(TRUNCATE)`)
}

// TestOpenRefusesDamagedSchema: SQLite does not checksum the schema, so a
// damaged byte in it can rename a column and leave a file that opens but
// fails every query with "no such column". Open must refuse such a file
// with ErrCorrupt, naming the object, and leave it untouched.
func TestOpenRefusesDamagedSchema(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"compactions", "created_at", "created_ax"}, // a renamed column
		{"entries", "session_id", "session_ie"},     // the main table
		{"transcript", "e.seq >=", "e.seq >"},       // a view
		{"entries_unindex", "old.text", "new.text"}, // a trigger
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "damaged.db")
			s, err := Open(path, nil) // not MustOpenStoreAt: its cleanup would report the damage
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Create(context.Background(), sessiondb.Session{ID: "keep"}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			damageSchema(t, path, tc.name, tc.from, tc.to)
			before := fileHash(t, path)
			_, err = Open(path, nil)
			if !errors.Is(err, sessiondb.ErrCorrupt) || !strings.Contains(err.Error(), tc.name) {
				t.Fatalf("Open = %v, want ErrCorrupt naming %s", err, tc.name)
			}
			if fileHash(t, path) != before {
				t.Fatal("Open modified a database it refused")
			}
		})
	}
}

// TestOpenAllowsUserSchemaObjects: the schema is a public interface, and
// a user may add an index or a view of their own with sqlite3; Open must
// not take that for damage.
func TestOpenAllowsUserSchemaObjects(t *testing.T) {
	path := filepath.Join(t.TempDir(), "extended.db")
	s := MustOpenStoreAt(t, path, nil)
	s.Close()
	rawExec(t, path,
		`CREATE INDEX my_entries_by_role ON entries(role)`,
		`CREATE VIEW my_titles AS SELECT id, title FROM sessions`,
		`ANALYZE`)
	s, err := Open(path, nil)
	if err != nil {
		t.Fatalf("Open of a database with user-added objects: %v", err)
	}
	s.Close()
}

// TestOpenRefusesDamagedVersionTable: goose trusts its own table, and a
// damaged row there used to surface as a scan error from inside goose.
func TestOpenRefusesDamagedVersionTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "damaged.db")
	s := MustOpenStoreAt(t, path, nil)
	s.Close()
	rawExec(t, path, `UPDATE goose_db_version SET version_id = 'x' WHERE version_id = 2`)
	_, err := Open(path, nil)
	if !errors.Is(err, sessiondb.ErrCorrupt) || !strings.Contains(err.Error(), "goose_db_version") {
		t.Fatalf("Open = %v, want ErrCorrupt naming goose_db_version", err)
	}
}

// TestOpenRefusesVersionThatLies: a version table that lost its newest row
// makes the file claim an older version than its objects; the migration
// that would create them again must not be reported as a plain SQL error.
func TestOpenRefusesVersionThatLies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lying.db")
	s := MustOpenStoreAt(t, path, nil)
	s.Close()
	rawExec(t, path, `DELETE FROM goose_db_version WHERE version_id = (SELECT max(version_id) FROM goose_db_version)`)
	_, err := Open(path, &Options{NoBackup: true})
	if !errors.Is(err, sessiondb.ErrCorrupt) {
		t.Fatalf("Open = %v, want ErrCorrupt", err)
	}
}

// TestOpenAcceptsOtherFTS5ShadowText: the tables FTS5 creates for its
// index are worded by the SQLite that created the database, and FTS5 has
// changed that wording between releases. Open must not refuse a database
// because an older SQLite wrote them differently. From schema version 11
// the index is in its own file; a database at version 10 (opened with
// NoMigrate) still has FTS5 tables that the schema check compares, and a
// damaged shadow table's column names are still refused.
func TestOpenAcceptsOtherFTS5ShadowText(t *testing.T) {
	ctx := context.Background()
	path, db := openAtVersion(t, 10)
	// The session and its entry are written in SQL, as a version-10
	// store wrote them: this binary's stores write the columns of the
	// latest schema (sessions.project).
	for _, q := range []string{
		`INSERT INTO sessions (id, created_at, updated_at, sequence, last_seq, message_count, entry_count)
			VALUES ('s', '2026-01-01T00:00:00.000000000Z', '2026-01-01T00:00:00.000000000Z', 1, 1, 1, 1)`,
		`INSERT INTO entries (id, session_id, seq, kind, role, body, created_at)
			VALUES (1, 's', 1, 'message', 'user', '{"role":"user","content":"the lighthouse keeper"}', '2026-01-01T00:00:00.000000000Z')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	// Open, not MustOpenStoreAt: the file is damaged on purpose at the
	// end, and that helper's cleanup checks its integrity.
	damageSchema(t, path, "entries_fts_config", "v)", "v /* an older SQLite */)")
	s, err := Open(path, &Options{NoMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, "lighthouse", sessiondb.SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search = %+v, %v; want one hit", hits, err)
	}
	s.Close()
	damageSchema(t, path, "entries_fts_data", "block", "blokk")
	if _, err := Open(path, &Options{NoMigrate: true}); !errors.Is(err, sessiondb.ErrCorrupt) || !strings.Contains(err.Error(), "entries_fts_data") {
		t.Fatalf("Open with a renamed shadow table column = %v, want ErrCorrupt naming entries_fts_data", err)
	}
}

// TestOpenRefusesPlantedTrigger (issue 13 item 10): a trigger planted on
// one of sessiondb's tables would run inside every write (here rewriting
// each imported body); Open refuses to write through it and CheckSchema
// (doctor) reports it. A trigger on a user's own table stays allowed.
func TestOpenRefusesPlantedTrigger(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "planted.db")
	s := MustOpenStoreAt(t, path, nil)
	s.Close()
	rawExec(t, path,
		`CREATE TABLE my_notes (body TEXT)`,
		`CREATE TRIGGER my_notes_audit AFTER INSERT ON my_notes BEGIN SELECT 1; END`)
	s, err := Open(path, nil)
	if err != nil {
		t.Fatalf("Open with a trigger on a user table: %v", err)
	}
	s.Close()

	rawExec(t, path, `CREATE TRIGGER rewrite_bodies AFTER INSERT ON entries BEGIN
		UPDATE entries SET body = '{"role":"user","content":"rewritten"}' WHERE rowid = new.rowid; END`,
		`PRAGMA wal_checkpoint(TRUNCATE)`)
	before := fileHash(t, path)
	for _, opts := range []*Options{nil, {ReadOnly: true}} {
		_, err = Open(path, opts)
		if !errors.Is(err, sessiondb.ErrCorrupt) || !strings.Contains(err.Error(), "rewrite_bodies") {
			t.Fatalf("Open(%+v) with a planted trigger = %v, want ErrCorrupt naming it", opts, err)
		}
	}
	if fileHash(t, path) != before {
		t.Error("Open modified a database it refused")
	}
	d, err := Open(path, &Options{NoSchemaCheck: true, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.CheckSchema(ctx); !errors.Is(err, sessiondb.ErrCorrupt) || !strings.Contains(err.Error(), "rewrite_bodies") {
		t.Errorf("CheckSchema = %v, want ErrCorrupt naming the trigger", err)
	}
}

// TestSessionColumnsOrder checks that the session select list gives the
// columns in the order engine.SessionRow.Fields scans them (by position),
// and that an append, which reads the row back from its RETURNING list,
// returns the session as Get reads it, every field set.
func TestSessionColumnsOrder(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t, nil)
	err := s.write(ctx, func(tx *sqlx.Tx) error { return engine.CheckSessionColumns(ctx, tx, sessionColumns) })
	if err != nil {
		t.Fatal(err)
	}
	created, err := s.Create(ctx, sessiondb.Session{ID: "full", Title: "a title", Summary: "a summary",
		Scope: []byte(`{"repo":"x"}`), Attrs: []byte(`{"model":"m"}`), Version: 3, Aliases: []string{"b-alias", "a-alias"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork(ctx, "full", 0, "fork"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"full", "fork"} {
		got, err := s.Append(ctx, id, sessiondb.Message(`{"role":"user","content":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("append returned\n%+v\nGet reads\n%+v", got, want)
		}
	}
	if created.Title != "a title" {
		t.Fatalf("created %+v", created)
	}
}
