package main

import (
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWriteCommandsRefuseForeignSQLite (issue 23 item 9): every command
// that writes refuses someone else's SQLite file, as the read commands
// already do, and leaves it byte for byte as it was: no sessiondb schema
// installed, no switch to WAL, no side files.
func TestWriteCommandsRefuseForeignSQLite(t *testing.T) {
	foreign := filepath.Join(t.TempDir(), "app.sqlite")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	sum := func() ([32]byte, time.Time) {
		b, err := os.ReadFile(foreign)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(foreign)
		return sha256.Sum256(b), fi.ModTime()
	}
	h0, m0 := sum()

	archive := t.TempDir()
	picoArchive(t, archive, "agent:main:cli:direct:a", "hello")
	src := tempDB(t)
	sessionctl(t, src, "import", archive).mustSucceed(t)

	for _, args := range [][]string{
		{"--db", foreign, "import", archive},
		{"copy", "--from", src, "--to", foreign},
		{"--db", foreign, "rename", "x", "y"},
		{"--db", foreign, "delete", "--yes", "x"},
		{"--db", foreign, "truncate", "x", "--keep", "1"},
		{"--db", foreign, "prune", "--all", "--yes"},
		{"--db", foreign, "vacuum"},
		{"--db", foreign, "reindex"},
		{"--db", foreign, "migrate", "up"},
		{"--db", foreign, "fork", "x"},
		{"--db", foreign, "compact", "x", "--summarizer", "offline"},
	} {
		r := sessionctl(t, "", args...)
		r.mustFail(t, exitError, "not a sessiondb database")
	}
	if h, m := sum(); h != h0 || !m.Equal(m0) {
		t.Errorf("a write command changed a foreign SQLite file")
	}
	if side, _ := filepath.Glob(foreign + "?*"); len(side) != 0 {
		t.Errorf("write commands created %v beside a foreign SQLite file", side)
	}
}
