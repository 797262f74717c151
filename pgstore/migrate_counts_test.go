package pgstore

import (
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/storetest"
)

// keptCountsVersion is the migration that added sessions.message_count and
// sessions.entry_count.
const keptCountsVersion = 6

// TestMigrationKeptCounts fills a schema through the store (random writes
// of every kind: mixed kinds, compactions with mixed summaries,
// truncations, prunes, forks, restores, copies), takes it back to the
// version before the kept counts (the columns dropped, the rows
// untouched), then opens it again: the migration must fill the counts with
// what the store had kept, equal to a recount, and session_stats must read
// them.
func TestMigrationKeptCounts(t *testing.T) {
	u := newSchema(t)
	ctx := t.Context()
	s, err := Open(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 60 operations meet every kind the fixture writes (prune is the
	// last to appear, after 40); each is followed by a recount of every
	// session, so 150 cost 4-7 s on two shared cores.
	storetest.WriteCountsFixture(t, s, 26, longtest.Size(60, 150))
	kept := storetest.CheckKeptCounts(t, s)
	p, err := s.Provider(ctx)
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
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'sessions' AND column_name IN ('message_count', 'entry_count')`).Scan(&cols); err != nil || cols != 0 {
		t.Fatalf("after down to %d: %d count columns, %v", before, cols, err)
	}
	s.Close()

	s = mustOpenURL(t, u, nil)
	after := storetest.CheckKeptCounts(t, s)
	if len(after) != len(kept) {
		t.Fatalf("%d sessions after migrating, %d before", len(after), len(kept))
	}
	var differ int
	for id, k := range kept {
		a := after[id]
		if a.MessageCount != k.MessageCount || a.EntryCount != k.EntryCount {
			t.Errorf("%s: migrated counts %d/%d, kept before %d/%d", id, a.MessageCount, a.EntryCount, k.MessageCount, k.EntryCount)
		}
		if tr, err := s.Load(ctx, id, sessiondb.LoadOptions{}); err == nil && int64(len(tr)) != a.MessageCount {
			differ++
		}
	}
	if differ == 0 {
		t.Error("no session's transcript length differs from its message count: the fixture tests too little")
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
