package migrations

import (
	"context"
	"database/sql"
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
		"view transcript", "view session_stats", "view usage_daily", "table entries_fts", "trigger entries_fts_insert"} {
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
