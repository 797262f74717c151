package pgstore

import (
	"database/sql"
	"maps"
	"slices"
	"testing"
)

// TestMigrationSharedAliases: migration 00002 keeps the aliases of a
// version-1 schema, folds attrs.source_aliases (written by the importer of
// that schema) back into real aliases, and its Down goes back to one
// holder per alias, keeping the full lists in attrs.source_aliases; Up
// again restores them.
func TestMigrationSharedAliases(t *testing.T) {
	u := newSchema(t)
	s := mustOpenURL(t, u, &Options{NoMigrate: true})
	ctx := t.Context()
	p, err := s.Provider(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 1); err != nil {
		t.Fatal(err)
	}
	db := s.DB()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const ts = "2026-01-01T00:00:00.000000000Z"
	for _, r := range []struct{ id, attrs string }{
		{"sk_a", `{"source_aliases":["agent:main:main","tg:1"],"k":1}`},
		{"sk_b", `{"source_aliases":["agent:main:main","sk_b","x","x"]}`},
		{"sk_c", `{"source_aliases":["ok",""]}`}, // not all valid: left alone
		{"sk_d", `not json`},
	} {
		exec(`INSERT INTO sessions (id, title, summary, attrs, version, sequence, last_seq, created_at, updated_at)
			VALUES ($1, '', '', $2, 0, 1, 0, $3, $3)`, r.id, r.attrs, ts)
	}
	exec(`INSERT INTO session_aliases (alias, session_id) VALUES ('agent:main:main', 'sk_a'), ('c1', 'sk_c')`)

	aliases := func(id string) []string {
		t.Helper()
		var out []string
		rows, err := db.QueryContext(ctx, `SELECT alias FROM session_aliases WHERE session_id = $1 ORDER BY id`, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var a string
			if err := rows.Scan(&a); err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
		return out
	}
	attrs := func(id string) sql.NullString {
		t.Helper()
		var a sql.NullString
		if err := db.QueryRowContext(ctx, `SELECT attrs FROM sessions WHERE id = $1`, id).Scan(&a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	checkUp := func(when string) {
		t.Helper()
		for id, want := range map[string][]string{
			"sk_a": {"agent:main:main", "tg:1"},
			"sk_b": {"agent:main:main", "x"},
			"sk_c": {"c1"},
			"sk_d": nil,
		} {
			if got := aliases(id); !slices.Equal(got, want) {
				t.Errorf("%s: aliases of %s = %q, want %q", when, id, got, want)
			}
		}
		if a := attrs("sk_b"); a.Valid {
			t.Errorf("%s: attrs of sk_b = %q, want NULL (source_aliases folded)", when, a.String)
		}
		if a := attrs("sk_c"); a.String != `{"source_aliases":["ok",""]}` {
			t.Errorf("%s: attrs of sk_c = %q, want unchanged", when, a.String)
		}
		if a := attrs("sk_d"); a.String != `not json` {
			t.Errorf("%s: attrs of sk_d = %q, want unchanged", when, a.String)
		}
	}
	if _, err := p.UpTo(ctx, 2); err != nil {
		t.Fatal(err)
	}
	checkUp("up")
	if a := attrs("sk_a"); a.String != `{"k": 1}` {
		t.Errorf("attrs of sk_a = %q, want source_aliases removed", a.String)
	}
	if id, err := s.Resolve(ctx, "agent:main:main"); err != nil || id != "sk_a" {
		t.Errorf("Resolve(agent:main:main) = %q, %v; want sk_a (first in file-name order)", id, err)
	}

	if _, err := p.DownTo(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := aliases("sk_b"); !slices.Equal(got, []string{"x"}) {
		t.Errorf("down: aliases of sk_b = %q, want [x] (agent:main:main stays with sk_a)", got)
	}
	if got := aliases("sk_a"); !slices.Equal(got, []string{"agent:main:main", "tg:1"}) {
		t.Errorf("down: aliases of sk_a = %q", got)
	}
	if a := attrs("sk_b"); a.String != `{"source_aliases": ["agent:main:main", "x"]}` {
		t.Errorf("down: attrs of sk_b = %q, want the full list kept", a.String)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO session_aliases (alias, session_id) VALUES ('tg:1', 'sk_b')`); err == nil {
		t.Error("down: a second holder of an alias was accepted")
	}
	if _, err := p.UpTo(ctx, 2); err != nil {
		t.Fatal(err)
	}
	checkUp("up again")
	// The store reads the session at the latest version (it needs the
	// columns later migrations add).
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "sk_b"); err != nil {
		t.Fatal(err)
	}
}

// pgProjectVersion is the PostgreSQL migration that adds sessions.project.
const pgProjectVersion = 10

// TestMigrationProject: PostgreSQL migration 10 adds sessions.project and
// fills it from attrs.cwd where that is a non-empty string, one row at a
// time, so that attrs PostgreSQL cannot read as JSON (a \u0000 escape, a
// value the store kept escaped) leave only their own row without a
// project; Down drops the column and keeps the rows.
func TestMigrationProject(t *testing.T) {
	u := newSchema(t)
	s := mustOpenURL(t, u, &Options{NoMigrate: true})
	ctx := t.Context()
	p, err := s.Provider(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var prev int64
	for _, src := range p.ListSources() {
		if src.Version < pgProjectVersion {
			prev = src.Version
		}
	}
	if _, err := p.UpTo(ctx, prev); err != nil {
		t.Fatal(err)
	}
	db := s.DB()
	const ts = "2026-01-01T00:00:00.000000000Z"
	rows := map[string]any{
		"cc":      `{"cwd":"/Users/me/src/OpenCore","version":"2.1.9"}`,
		"nul":     `{"cwd":"/a\u0000b"}`,
		"empty":   `{"cwd":""}`,
		"number":  `{"cwd":5}`,
		"notjson": `{"cwd":`,
		"none":    nil,
	}
	for id, attrs := range rows {
		if _, err := db.ExecContext(ctx, `INSERT INTO sessions (id, title, summary, attrs, version, sequence, last_seq, created_at, updated_at)
			VALUES ($1, '', '', $2, 0, 1, 0, $3, $3)`, id, attrs, ts); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.UpTo(ctx, pgProjectVersion); err != nil {
		t.Fatalf("up to %d: %v", pgProjectVersion, err)
	}
	got := map[string]string{}
	r, err := db.QueryContext(ctx, `SELECT id, coalesce(project, 'NULL') FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var id, project string
		if err := r.Scan(&id, &project); err != nil {
			t.Fatal(err)
		}
		got[id] = project
	}
	r.Close()
	want := map[string]string{"cc": "/Users/me/src/OpenCore", "nul": "NULL", "empty": "NULL", "number": "NULL", "notjson": "NULL", "none": "NULL"}
	if !maps.Equal(got, want) {
		t.Errorf("projects after the migration: %v, want %v", got, want)
	}
	if _, err := p.DownTo(ctx, prev); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != len(rows) {
		t.Errorf("sessions after down: %d, %v", n, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns WHERE table_name = 'sessions' AND column_name = 'project' AND table_schema = current_schema()`).Scan(&n); err != nil || n != 0 {
		t.Errorf("project column after down: %d, %v", n, err)
	}
}

// TestMigrationSourceMachine migrates a version-12 schema with import
// records to 13 and back: each record takes its session's machine (""
// without one), two machines can then record one path, and going back
// keeps the latest import's record of each path.
func TestMigrationSourceMachine(t *testing.T) {
	u := newSchema(t)
	s := mustOpenURL(t, u, &Options{NoMigrate: true})
	ctx := t.Context()
	p, err := s.Provider(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 12); err != nil {
		t.Fatal(err)
	}
	db := s.DB()
	exec := func(q string) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO sessions (id, machine, created_at, updated_at) VALUES ('a', 'm-a', 'x', 'x'), ('old', NULL, 'x', 'x')`)
	exec(`INSERT INTO source_files (path, format, session_id, size, mtime, sha256, byte_offset, imported_at)
	      VALUES ('/p/a.jsonl', 'picoclaw', 'a', 10, 't', 'ha', 9, '2026-01-01'),
	             ('/p/old.jsonl', 'picoclaw', 'old', 5, 't', 'ho', 5, '2026-01-02')`)
	if _, err := p.UpTo(ctx, 13); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT machine, path, session_id FROM source_files`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var m, path, id string
		if err := rows.Scan(&m, &path, &id); err != nil {
			t.Fatal(err)
		}
		got[m+" "+path] = id
	}
	rows.Close()
	if want := map[string]string{"m-a /p/a.jsonl": "a", " /p/old.jsonl": "old"}; !maps.Equal(got, want) {
		t.Errorf("records at 13: %v, want %v", got, want)
	}
	exec(`INSERT INTO sessions (id, machine, created_at, updated_at) VALUES ('b', 'm-b', 'x', 'x')`)
	exec(`INSERT INTO source_files (machine, path, format, session_id, size, mtime, sha256, byte_offset, imported_at)
	      VALUES ('m-b', '/p/a.jsonl', 'picoclaw', 'b', 20, 't', 'hb', 20, '2026-01-03')`)
	if _, err := p.DownTo(ctx, 12); err != nil {
		t.Fatal(err)
	}
	var id string
	if err := db.QueryRowContext(ctx, `SELECT session_id FROM source_files WHERE path = '/p/a.jsonl'`).Scan(&id); err != nil || id != "b" {
		t.Errorf("after down, /p/a.jsonl's record is %q (%v), want the latest import's (b)", id, err)
	}
	if _, err := p.UpTo(ctx, 13); err != nil {
		t.Fatalf("up again: %v", err)
	}
}
