package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/migrations"
	"github.com/sessiondb/sessiondb/storetest"
)

// keptCountsVersion is the migration that added sessions.message_count and
// sessions.entry_count.
const keptCountsVersion = 8

// TestMigrationKeptCounts fills a database through the store (random
// writes of every kind: mixed kinds, compactions with mixed summaries,
// truncations, prunes, forks, restores, copies), takes its schema back to
// the version before the kept counts (the columns dropped, the rows
// untouched), then opens it: the migration must back it up and fill the
// counts with what the store had kept, equal to a recount, and
// session_stats must read them.
func TestMigrationKeptCounts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "counts.db")
	s, err := Open(path, &Options{Durability: DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	storetest.WriteCountsFixture(t, s, 26, 150)
	kept := storetest.CheckKeptCounts(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := migrations.NewProvider(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := int64(0)
	for _, src := range p.ListSources() {
		if src.Version < keptCountsVersion {
			before = src.Version
		}
	}
	if _, err := p.DownTo(ctx, before); err != nil {
		t.Fatalf("down to %d: %v", before, err)
	}
	var cols int
	if err := db.QueryRow(`SELECT count(*) FROM pragma_table_info('sessions') WHERE name IN ('message_count', 'entry_count')`).Scan(&cols); err != nil || cols != 0 {
		t.Fatalf("after down to %d: %d count columns, %v", before, cols, err)
	}
	db.Close()

	s = MustOpenStoreAt(t, path, nil)
	if backups, _ := filepath.Glob(path + ".bak-v*"); len(backups) != 1 {
		t.Errorf("backups before migrating: %v, want one", backups)
	}
	after := storetest.CheckKeptCounts(t, s)
	if len(after) != len(kept) {
		t.Fatalf("%d sessions after migrating, %d before", len(after), len(kept))
	}
	var differ, messages int64 // sessions whose transcript holds entries that are not messages; messages in all
	for id, k := range kept {
		a := after[id]
		if a.MessageCount != k.MessageCount || a.EntryCount != k.EntryCount {
			t.Errorf("%s: migrated counts %d/%d, kept before %d/%d", id, a.MessageCount, a.EntryCount, k.MessageCount, k.EntryCount)
		}
		if tr, err := s.Load(ctx, id, sessiondb.LoadOptions{}); err == nil && int64(len(tr)) != a.MessageCount {
			differ++
		}
		messages += a.MessageCount
	}
	if differ == 0 || messages == 0 {
		t.Errorf("the fixture has %d messages and no session whose transcript length differs from its message count (%d): it tests too little", messages, differ)
	}
	rows, err := s.Query(ctx, `SELECT id, message_count, entry_count FROM session_stats`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id string
		var m, e int64
		if err := rows.Scan(&id, &m, &e); err != nil {
			t.Fatal(err)
		}
		if a := after[id]; m != a.MessageCount || e != a.EntryCount {
			t.Errorf("session_stats says %s has %d messages, %d entries; Get %d, %d", id, m, e, a.MessageCount, a.EntryCount)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != len(after) {
		t.Errorf("session_stats: %d rows, %v; want %d", n, err, len(after))
	}
}
