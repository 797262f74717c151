package sqlstore

import (
	"context"
	"database/sql"
	"maps"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb/migrations"
	"github.com/sessiondb/sessiondb/storetest"
)

// seedsVersion is the migration that added sessions.preview (issue 44).
const seedsVersion = 14

// TestMigrationPreview fills a database through the store (the kept
// counts' fixture: random writes of every kind, compactions, truncations,
// prunes, forks, restores, copies), checks the previews the writes kept
// against the transcripts, takes the schema back to version 13 (the
// column dropped) and opens it again: the migration's backfill must give
// every session the preview its writes had kept.
func TestMigrationPreview(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "preview.db")
	s, err := Open(path, &Options{Durability: DurabilityNormal})
	if err != nil {
		t.Fatal(err)
	}
	storetest.WriteCountsFixture(t, s, 44, 30)
	kept := storetest.CheckPreviews(t, s)
	nonEmpty := 0
	for _, p := range kept {
		if p != "" {
			nonEmpty++
		}
	}
	if nonEmpty == 0 || nonEmpty == len(kept) {
		t.Errorf("%d of %d sessions have a preview: the fixture tests too little", nonEmpty, len(kept))
	}
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
	if _, err := p.DownTo(ctx, seedsVersion-1); err != nil {
		t.Fatalf("down to %d: %v", seedsVersion-1, err)
	}
	var cols int
	if err := db.QueryRow(`SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'preview'`).Scan(&cols); err != nil || cols != 0 {
		t.Fatalf("after down to %d: %d preview columns, %v", seedsVersion-1, cols, err)
	}
	db.Close()

	s = MustOpenStoreAt(t, path, nil)
	if after := storetest.CheckPreviews(t, s); !maps.Equal(after, kept) {
		t.Errorf("previews after the migration differ from the ones the writes kept:\n got %v\nwant %v", after, kept)
	}
}
