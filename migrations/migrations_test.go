package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	_ "modernc.org/sqlite"
)

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db")+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func objects(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT type || ' ' || name FROM sqlite_schema
		WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE 'goose_%' AND NOT (type = 'table' AND name GLOB '*_fts_*') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestUpDownUp(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p, err := NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := Latest()
	if err != nil {
		t.Fatal(err)
	}
	if src := p.ListSources(); src[len(src)-1].Version != latest {
		t.Fatalf("Latest() = %d, provider's last source is %d", latest, src[len(src)-1].Version)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil || v != latest {
		t.Fatalf("version after up = %d, %v; want %d", v, err, latest)
	}
	up := objects(t, db)
	for _, want := range []string{"table sessions", "table entries", "table compactions", "table summary_messages",
		"table states", "table interrupts", "table checkpoints", "table usage", "table source_files",
		"view transcript", "view session_stats", "view usage_daily", "table search_index", "table search_deleted", "trigger entries_unindex"} {
		if !slices.Contains(up, want) {
			t.Errorf("schema lacks %s; has %q", want, up)
		}
	}
	// Data survives the later migrations, and each step down removes what it added.
	if _, err := db.Exec(`INSERT INTO sessions (id, created_at, updated_at) VALUES ('s', 'x', 'x')`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatalf("down: %v", err)
	}
	if got := objects(t, db); len(got) != 0 {
		t.Fatalf("objects left after migrating down to 0: %q", got)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if got := objects(t, db); !slices.Equal(got, up) {
		t.Fatalf("schema after down+up differs:\n got %q\nwant %q", got, up)
	}
}

func TestEachMigrationDownRestoresPrevious(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p, err := NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	var before [][]string
	for _, src := range p.ListSources() {
		before = append(before, objects(t, db))
		if _, err := p.UpTo(ctx, src.Version); err != nil {
			t.Fatalf("up to %d: %v", src.Version, err)
		}
	}
	srcs := p.ListSources()
	for i := len(srcs) - 1; i >= 0; i-- {
		if _, err := p.Down(ctx); err != nil {
			t.Fatalf("down from %d: %v", srcs[i].Version, err)
		}
		if got := objects(t, db); !slices.Equal(got, before[i]) {
			t.Fatalf("after down from %d:\n got %q\nwant %q", srcs[i].Version, got, before[i])
		}
	}
}

// TestDeferredSearchKeepsRows migrates a version-3 database holding entries
// and a summary message to version 4: the rows keep their ids and bytes,
// the index starts empty with its cursor at 0 (sqlstore catches it up), and
// ids are never reused afterwards (AUTOINCREMENT), which the cursor needs.
func TestDeferredSearchKeepsRows(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p, err := NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 3); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sessions (id, created_at, updated_at) VALUES ('s', 'x', 'x')`,
		`INSERT INTO entries (id, session_id, seq, kind, text, body, created_at) VALUES (7, 's', 1, 'message', 'hello world', '{"a":1}', 'x')`,
		`INSERT INTO compactions (id, session_id, at_seq, keep_from_seq, created_at) VALUES (1, 's', 1, 1, 'x')`,
		`INSERT INTO summary_messages (id, compaction_id, position, kind, text, body, created_at) VALUES (3, 1, 1, 'message', 'sum', '{}', 'x')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := p.UpTo(ctx, 4); err != nil {
		t.Fatal(err)
	}
	var body, text string
	if err := db.QueryRow(`SELECT body, text FROM entries WHERE id = 7`).Scan(&body, &text); err != nil || body != `{"a":1}` || text != "hello world" {
		t.Fatalf("entry 7 after migrating: %q %q %v", body, text, err)
	}
	var through int64
	if err := db.QueryRow(`SELECT indexed_through FROM search_index WHERE source = 'entries'`).Scan(&through); err != nil || through != 0 {
		t.Fatalf("cursor = %d, %v; want 0", through, err)
	}
	// Delete the highest row and insert: the id must not come back.
	if _, err := db.Exec(`DELETE FROM entries WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec(`INSERT INTO entries (session_id, seq, kind, body, created_at) VALUES ('s', 2, 'message', '{}', 'x')`)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := res.LastInsertId(); id <= 7 {
		t.Fatalf("new entry got id %d, a reused one (want > 7)", id)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM summary_messages WHERE id = 3 AND text = 'sum'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("summary message 3 after migrating: %d %v", n, err)
	}
}

// TestSharedAliasesMigration migrates a database written with unique
// aliases, where the importer kept shared aliases in attrs.source_aliases,
// to 00005 and back.
func TestSharedAliasesMigration(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p, err := NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 3); err != nil {
		t.Fatal(err)
	}
	exec := execer(t, db)
	exec(`INSERT INTO sessions (id, attrs, created_at, updated_at) VALUES
		('sk_a', '{"picoclaw":{"file_base":"sk_a"}}', 'x', 'x'),
		('sk_b', '{"picoclaw":{"file_base":"sk_b"},"source_aliases":["agent:main:main","agent:main:tg:1","agent:main:tg:1","sk_b"]}', 'x', 'x'),
		('sk_c', '{"source_aliases":["agent:main:main"]}', 'x', 'x'),
		('sk_d', '{"source_aliases":["agent:main:main","bad` + "\x01" + `"]}', 'x', 'x'),
		('plain', NULL, 'x', 'x')`)
	exec(`INSERT INTO session_aliases (alias, session_id) VALUES
		('agent:main:main', 'sk_a'), ('nick', 'sk_a'), ('agent:main:tg:1', 'sk_b')`)
	if _, err := p.UpTo(ctx, 5); err != nil {
		t.Fatalf("up to 5: %v", err)
	}
	aliases := func() map[string][]string {
		t.Helper()
		rows, err := db.Query(`SELECT session_id, alias FROM session_aliases ORDER BY session_id, id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string][]string{}
		for rows.Next() {
			var id, a string
			if err := rows.Scan(&id, &a); err != nil {
				t.Fatal(err)
			}
			out[id] = append(out[id], a)
		}
		return out
	}
	attrs := func(id string) string {
		t.Helper()
		var a sql.NullString
		if err := db.QueryRow(`SELECT attrs FROM sessions WHERE id = ?`, id).Scan(&a); err != nil {
			t.Fatal(err)
		}
		if !a.Valid {
			return "NULL"
		}
		return a.String
	}
	want := map[string][]string{
		"sk_a": {"agent:main:main", "nick"},
		"sk_b": {"agent:main:main", "agent:main:tg:1"},
		"sk_c": {"agent:main:main"},
	}
	if got := aliases(); !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("aliases after up:\n got %q\nwant %q", got, want)
	}
	for id, w := range map[string]string{
		"sk_a": `{"picoclaw":{"file_base":"sk_a"}}`,
		"sk_b": `{"picoclaw":{"file_base":"sk_b"}}`,
		"sk_c": "NULL",
		// An alias that cannot be registered keeps the list in attrs.
		"sk_d": `{"source_aliases":["agent:main:main","bad` + "\x01" + `"]}`,
	} {
		if got := attrs(id); got != w {
			t.Errorf("attrs of %s after up = %s, want %s", id, got, w)
		}
	}
	// Shared aliases and an alias equal to another session's ID are
	// storable now.
	exec(`INSERT INTO session_aliases (alias, session_id) VALUES ('plain', 'sk_c')`)

	// Down: the first holder (sk_a) keeps each alias; the others record
	// their list in attrs.source_aliases again.
	if _, err := p.DownTo(ctx, 3); err != nil {
		t.Fatalf("down to 3: %v", err)
	}
	want = map[string][]string{"sk_a": {"agent:main:main", "nick"}, "sk_b": {"agent:main:tg:1"}}
	if got := aliases(); !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("aliases after down:\n got %q\nwant %q", got, want)
	}
	for id, w := range map[string]string{
		"sk_a": `{"picoclaw":{"file_base":"sk_a"}}`,
		"sk_b": `{"picoclaw":{"file_base":"sk_b"},"source_aliases":["agent:main:main","agent:main:tg:1"]}`,
		"sk_c": `{"source_aliases":["agent:main:main","plain"]}`,
	} {
		if got := attrs(id); got != w {
			t.Errorf("attrs of %s after down = %s, want %s", id, got, w)
		}
	}
	if _, err := db.Exec(`INSERT INTO session_aliases (alias, session_id) VALUES ('nick', 'sk_b')`); err == nil {
		t.Error("after down, a second holder of an alias was accepted")
	}
}

// TestTextStoredOnceMigration migrates a version-9 database to 10 and back:
// every entry keeps its id, body and text; a text that is its body's
// content string is no longer stored twice; the search cursor stays above
// every id a new row can take, both ways.
func TestTextStoredOnceMigration(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p, err := NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 9); err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		id         int64
		text, body string
		stored     bool
	}{
		{1, "hello", `{"role":"user","content":"hello"}`, false},
		{2, "trimmed", `{"role":"user","content":" trimmed "}`, true},
		{3, "", `{"a":1}`, true},
		{9, "x\ntitle", `{"content":"x","title":"title"}`, true},
	}
	exec := execer(t, db)
	exec(`INSERT INTO sessions (id, created_at, updated_at) VALUES ('s', 'x', 'x')`)
	for i, r := range rows {
		exec(`INSERT INTO entries (id, session_id, seq, kind, text, body, created_at) VALUES (?, 's', ?, 'message', ?, ?, 'x')`,
			r.id, i+1, r.text, r.body)
	}
	// The highest row was indexed and deleted: the cursor is above max(id).
	exec(`UPDATE search_index SET indexed_through = 12 WHERE source = 'entries'`)
	check := func(version int) {
		t.Helper()
		for _, r := range rows {
			var text, body string
			if err := db.QueryRow(`SELECT text, body FROM entries WHERE id = ?`, r.id).Scan(&text, &body); err != nil {
				t.Fatalf("v%d entry %d: %v", version, r.id, err)
			}
			if text != r.text || body != r.body {
				t.Errorf("v%d entry %d: text %q body %s, want %q %s", version, r.id, text, body, r.text, r.body)
			}
		}
	}
	if _, err := p.UpTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	check(10)
	for _, r := range rows {
		var stored bool
		if err := db.QueryRow(`SELECT text_stored IS NOT NULL FROM entries WHERE id = ?`, r.id).Scan(&stored); err != nil || stored != r.stored {
			t.Errorf("v10 entry %d: text stored %v (%v), want %v", r.id, stored, err, r.stored)
		}
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_sequence WHERE name = 'entries'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("v10: %d sqlite_sequence rows for entries (%v), want none", n, err)
	}
	// SQLite's own id would be 10, at or below the cursor: refused.
	if _, err := db.Exec(`INSERT INTO entries (session_id, seq, kind, body, created_at) VALUES ('s', 20, 'message', '{}', 'x')`); err == nil {
		t.Error("v10 took a row id at or below the search cursor")
	}
	if _, err := p.DownTo(ctx, 9); err != nil {
		t.Fatal(err)
	}
	check(9)
	res, err := db.Exec(`INSERT INTO entries (session_id, seq, kind, body, created_at) VALUES ('s', 20, 'message', '{}', 'x')`)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := res.LastInsertId(); id <= 12 {
		t.Errorf("after going back to v9 a new entry got id %d, want above the cursor 12", id)
	}
}

// TestIndexFileMigration: version 11 moves the full-text index out of the
// database (into the index file sqlstore writes). The reservation is kept
// and the database gets a token of its own; going down brings the tables
// back empty with the reservation at 0, which version 10 reads as nothing
// indexed.
func TestIndexFileMigration(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p, err := NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sessions (id, created_at, updated_at) VALUES ('s', 'x', 'x')`,
		`INSERT INTO entries (id, session_id, seq, kind, body, created_at) VALUES (5, 's', 1, 'message', '{"content":"hello"}', 'x')`,
		`INSERT INTO entries_fts (rowid, text) VALUES (5, 'hello')`,
		`UPDATE search_index SET indexed_through = 9 WHERE source = 'entries'`,
		`INSERT INTO search_deleted (source, id) VALUES ('entries', 9)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := p.UpTo(ctx, 11); err != nil {
		t.Fatal(err)
	}
	var fts int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name GLOB '*_fts*'`).Scan(&fts); err != nil || fts != 0 {
		t.Errorf("v11: %d FTS objects left in the database (%v), want 0", fts, err)
	}
	rows, err := db.Query(`SELECT source, indexed_through, index_file FROM search_index ORDER BY source`)
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]bool{}
	for rows.Next() {
		var source, token string
		var through int64
		if err := rows.Scan(&source, &through, &token); err != nil {
			t.Fatal(err)
		}
		if len(token) != 32 || tokens[token] {
			t.Errorf("v11 %s: index_file %q, want 32 hex digits of its own", source, token)
		}
		tokens[token] = true
		if source == "entries" && through != 9 {
			t.Errorf("v11: reservation %d, want 9 (kept)", through)
		}
	}
	rows.Close()
	if _, err := p.DownTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	var through, deleted, indexed int64
	if err := db.QueryRow(`SELECT (SELECT max(indexed_through) FROM search_index), (SELECT count(*) FROM search_deleted),
		(SELECT count(*) FROM entries_fts WHERE entries_fts MATCH '"hel"')`).Scan(&through, &deleted, &indexed); err != nil {
		t.Fatal(err)
	}
	if through != 0 || deleted != 0 || indexed != 0 {
		t.Errorf("v10 after down: reservation %d, %d deleted listed, %d rows indexed; want 0, 0, 0", through, deleted, indexed)
	}
}

// TestDownToTenIsVersionTen: sqlstore compares a database's schema text
// with what the migrations up to its version write, byte for byte, so
// migration 11's Down must leave exactly the text of version 10 (the
// FTS5 tables as migration 4 wrote them, search_index without its token
// column), or a database taken back would be refused as damaged.
func TestDownToTenIsVersionTen(t *testing.T) {
	ctx := context.Background()
	schema := func(down bool) map[string]string {
		db := openDB(t)
		p, err := NewProvider(db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if down {
			if _, err := p.UpTo(ctx, 11); err != nil {
				t.Fatal(err)
			}
			if _, err := p.DownTo(ctx, 10); err != nil {
				t.Fatal(err)
			}
		} else if _, err := p.UpTo(ctx, 10); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT type || ' ' || name, coalesce(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'goose%'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[string]string{}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			m[k] = v
		}
		return m
	}
	up, down := schema(false), schema(true)
	for k, v := range up {
		if down[k] != v {
			t.Errorf("%s after down:\n%s\nwant:\n%s", k, down[k], v)
		}
	}
	for k := range down {
		if _, ok := up[k]; !ok {
			t.Errorf("%s left after down", k)
		}
	}
}

// projectVersion is the migration that adds sessions.project (issue 39).
const projectVersion = 13

// TestProjectMigration: migration 13 adds sessions.project and fills it
// from attrs.cwd where the importer kept the working directory (a
// non-empty string), leaving the rest NULL; its Down leaves the schema
// text of the version before it byte for byte (sqlstore compares it).
// The version before is derived from the sources: other migrations may
// be numbered around this one.
func TestProjectMigration(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p, err := NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	var prev int64
	for _, src := range p.ListSources() {
		if src.Version < projectVersion {
			prev = src.Version
		}
	}
	if _, err := p.UpTo(ctx, prev); err != nil {
		t.Fatal(err)
	}
	schemaText := func() map[string]string {
		rows, err := db.Query(`SELECT type || ' ' || name, coalesce(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'goose%'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[string]string{}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			m[k] = v
		}
		return m
	}
	before := schemaText()
	for id, attrs := range map[string]any{
		"cc":      `{"cwd":"/Users/me/src/OpenCore","version":"2.1.9"}`,
		"empty":   `{"cwd":""}`,
		"number":  `{"cwd":5}`,
		"nested":  `{"x":{"cwd":"/not/top"}}`,
		"none":    nil,
		"notjson": `{"cwd":`,
	} {
		if _, err := db.Exec(`INSERT INTO sessions (id, attrs, created_at, updated_at) VALUES (?, ?, 'x', 'x')`, id, attrs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.UpTo(ctx, projectVersion); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	rows, err := db.Query(`SELECT id, coalesce(project, 'NULL') FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, project string
		if err := rows.Scan(&id, &project); err != nil {
			t.Fatal(err)
		}
		got[id] = project
	}
	rows.Close()
	want := map[string]string{"cc": "/Users/me/src/OpenCore", "empty": "NULL", "number": "NULL", "nested": "NULL", "none": "NULL", "notjson": "NULL"}
	if !maps.Equal(got, want) {
		t.Errorf("projects after the migration: %v, want %v", got, want)
	}
	if _, err := p.DownTo(ctx, prev); err != nil {
		t.Fatal(err)
	}
	after := schemaText()
	if !maps.Equal(before, after) {
		for k, v := range before {
			if after[k] != v {
				t.Errorf("%s after down:\n%s\nwant:\n%s", k, after[k], v)
			}
		}
		t.Fatalf("schema text after down differs from version %d's", prev)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != len(want) {
		t.Errorf("sessions after down: %d, %v", n, err)
	}
}

// TestSourceMachineMigration migrates a version-15 database with import
// records to 16 and back: each record takes its session's machine (""
// when the session has none), the records keep every other column, two
// machines can then record one path, and going back keeps one record per
// path (the latest import's) under version 15's schema text.
func TestSourceMachineMigration(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p, err := NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 15); err != nil {
		t.Fatal(err)
	}
	schema := objects(t, db)
	exec := execer(t, db)
	exec(`INSERT INTO sessions (id, machine, created_at, updated_at) VALUES ('a', 'm-a', 'x', 'x'), ('old', NULL, 'x', 'x')`)
	exec(`INSERT INTO source_files (path, format, session_id, size, mtime, sha256, byte_offset, state, imported_at)
	      VALUES ('/p/a.jsonl', 'picoclaw', 'a', 10, 't', 'ha', 9, '{"k":1}', '2026-01-01'),
	             ('/p/old.jsonl', 'picoclaw', 'old', 5, 't', 'ho', 5, NULL, '2026-01-02')`)
	if _, err := p.UpTo(ctx, 16); err != nil {
		t.Fatal(err)
	}
	records := func() map[string]string {
		t.Helper()
		rows, err := db.Query(`SELECT machine, path, session_id, sha256, byte_offset, coalesce(state, 'NULL') FROM source_files`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[string]string{}
		for rows.Next() {
			var machine, path, id, sha, state string
			var off int64
			if err := rows.Scan(&machine, &path, &id, &sha, &off, &state); err != nil {
				t.Fatal(err)
			}
			m[machine+" "+path] = fmt.Sprintf("%s %s %d %s", id, sha, off, state)
		}
		return m
	}
	want := map[string]string{"m-a /p/a.jsonl": `a ha 9 {"k":1}`, " /p/old.jsonl": "old ho 5 NULL"}
	if got := records(); !maps.Equal(got, want) {
		t.Errorf("records at 16: %v, want %v", got, want)
	}
	exec(`INSERT INTO sessions (id, machine, created_at, updated_at) VALUES ('b', 'm-b', 'x', 'x')`)
	exec(`INSERT INTO source_files (machine, path, format, session_id, size, mtime, sha256, byte_offset, imported_at)
	      VALUES ('m-b', '/p/a.jsonl', 'picoclaw', 'b', 20, 't', 'hb', 20, '2026-01-03')`)
	if _, err := p.DownTo(ctx, 15); err != nil {
		t.Fatal(err)
	}
	if got := objects(t, db); !slices.Equal(got, schema) {
		t.Errorf("schema after down:\n got %q\nwant %q", got, schema)
	}
	var id string
	if err := db.QueryRow(`SELECT session_id FROM source_files WHERE path = '/p/a.jsonl'`).Scan(&id); err != nil || id != "b" {
		t.Errorf("after down, /p/a.jsonl's record is %q (%v), want the latest import's (b)", id, err)
	}
}

// TestUsageQuartersMigration: version 17 fills usage_quarters from the
// ledger it finds, its triggers keep it equal to a fresh aggregation
// through inserts, updates and deletes (a session's cascade too), and its
// Down drops it and its triggers; up again fills it again.
func TestUsageQuartersMigration(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p, err := NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 16); err != nil {
		t.Fatal(err)
	}
	schema := objects(t, db)
	exec := execer(t, db)
	exec(`INSERT INTO sessions (id, created_at, updated_at) VALUES ('a', 'x', 'x'), ('b', 'x', 'x')`)
	const ins = `INSERT INTO usage (session_id, provider, model, input_tokens, output_tokens, cost, cost_estimated, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	exec(ins, "a", "p", "m", 10, 1, 0.1, 0, "2026-01-01T10:14:59.999999999Z")
	exec(ins, "a", "p", "m", 20, 2, 0.2, 0, "2026-01-01T10:15:00.000000000Z")
	exec(ins, "b", "p", "m", 30, 3, 0.3, 0, "2026-01-01T10:29:00.000000000Z")
	exec(ins, "b", "p", "n", 40, 4, 0, 1, "2026-01-01T10:00:00.000000000Z")
	// The rollup as the report's scan groups the ledger.
	const fresh = `SELECT substr(created_at, 1, 13) || ' ' || (CAST(substr(created_at, 15, 2) AS INTEGER) / 15) || ' ' || provider || ' ' || model
		|| ' ' || count(*) || ' ' || sum(input_tokens) || ' ' || sum(output_tokens) || ' ' || sum(cost) || ' '
		|| sum(CASE WHEN cost_estimated AND cost = 0 AND input_tokens + output_tokens + cache_read_tokens + cache_write_tokens > 0 THEN 1 ELSE 0 END)
		|| ' ' || min(created_at) || ' ' || max(created_at)
		FROM usage GROUP BY substr(created_at, 1, 13), CAST(substr(created_at, 15, 2) AS INTEGER) / 15, provider, model ORDER BY 1`
	const rolled = `SELECT hour || ' ' || quarter || ' ' || provider || ' ' || model || ' ' || calls || ' ' || input_tokens || ' '
		|| output_tokens || ' ' || (cost + cost_err) || ' ' || unpriced || ' ' || first_at || ' ' || last_at FROM usage_quarters ORDER BY 1`
	list := func(q string) []string {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	same := func(when string, n int) {
		t.Helper()
		want, got := list(fresh), list(rolled)
		if !slices.Equal(got, want) || len(got) != n {
			t.Errorf("%s: usage_quarters\n %q\nwant %d rows\n %q", when, got, n, want)
		}
	}
	if _, err := p.UpTo(ctx, 17); err != nil {
		t.Fatal(err)
	}
	same("after the backfill", 3)
	exec(ins, "a", "p", "m", 5, 5, 0.5, 0, "2026-01-01T10:20:00.000000000Z")
	exec(`UPDATE usage SET cost = 0.25 WHERE input_tokens = 20`)
	exec(`UPDATE usage SET created_at = '2026-01-01T10:44:00.000000000Z' WHERE input_tokens = 30`)
	same("after an insert and updates", 4)
	exec(`DELETE FROM usage WHERE input_tokens = 20`) // the group's first call
	same("after a delete", 4)
	exec(`DELETE FROM sessions WHERE id = 'b'`) // the cascade
	same("after a session's delete", 2)
	if _, err := p.DownTo(ctx, 16); err != nil {
		t.Fatal(err)
	}
	if got := objects(t, db); !slices.Equal(got, schema) {
		t.Errorf("schema after down:\n got %q\nwant %q", got, schema)
	}
	exec(ins, "a", "q", "m", 1, 1, 1, 0, "2026-01-02T00:00:00.000000000Z")
	if _, err := p.UpTo(ctx, 17); err != nil {
		t.Fatal(err)
	}
	same("after down and up", 3)
}

// execer returns a function that runs one statement on db and fails the
// test on its error.
func execer(t *testing.T, db *sql.DB) func(q string, args ...any) {
	return func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
