package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestImportScanFinishes: the import's scanner, on a store without a
// background scanner (IndexDelay < 0), scans every session committed while
// it runs, the last ones committed just before finish included, so that
// nothing is left unscanned and every planted key is listed.
func TestImportScanFinishes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := sqlstore.Open(path, &sqlstore.Options{IndexDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scan := startImportScan(ctx, st)
	if scan == nil {
		t.Fatal("sqlstore keeps a secret scan: want a scanner")
	}
	// 700 sessions (the scanner's steps take 256 at most), committed in
	// bursts with pauses longer than the scanner's idle wait between them,
	// so that it catches up, sleeps and wakes again; the last burst
	// right before finish.
	var planted []string
	for i := range 700 {
		id := fmt.Sprintf("s%04d", i)
		text := fmt.Sprintf("turn %d of the import", i)
		if i%97 == 3 || i == 699 {
			text = "export AWS_ACCESS_KEY_ID=" + plantedKeyID
			planted = append(planted, id)
		}
		body, _ := json.Marshal(map[string]string{"role": "user", "content": text})
		if _, err := st.Commit(ctx, id, sessiondb.Commit{
			Create: &sessiondb.Session{},
			Append: []sessiondb.Entry{{Body: body}},
		}); err != nil {
			t.Fatal(err)
		}
		if i%250 == 249 {
			time.Sleep(2 * importScanIdle)
		}
	}
	if err := scan.finish(); err != nil {
		t.Fatalf("finish: %v", err)
	}
	if n, err := st.SecretStatus(ctx); err != nil || n != 0 {
		t.Fatalf("after finish: %d entries not scanned (%v), want 0", n, err)
	}
	got := recordedSecretSessions(t, path)
	if !slices.Equal(got, planted) {
		t.Fatalf("sessions with a recorded secret: %v, want %v", got, planted)
	}
}

// TestImportScanStops: stop ends the scanner without waiting for a
// finish, and a scanner whose context ends reports it.
func TestImportScanStops(t *testing.T) {
	st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), &sqlstore.Options{IndexDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scan := startImportScan(context.Background(), st)
	done := make(chan struct{})
	go func() { scan.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stop did not return")
	}

	ctx, cancel := context.WithCancel(context.Background())
	scan = startImportScan(ctx, st)
	cancel()
	if err := scan.finish(); err == nil {
		t.Fatal("finish after the context ended: no error")
	}
}

// TestImportEndsScanned: `sessionctl import` returns with every imported
// entry scanned for secrets and the planted keys recorded, not left to a
// later writer.
func TestImportEndsScanned(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	var planted []string
	for i := range 600 {
		key := fmt.Sprintf("s%04d", i)
		text := fmt.Sprintf("message %d", i)
		if i%150 == 7 {
			text = "AWS_ACCESS_KEY_ID=" + plantedKeyID
			planted = append(planted, key)
		}
		files[key+".jsonl"] = `{"role":"user","content":` + jsonString(text) + "}\n"
		files[key+".meta.json"] = picoMetaJSON(key)
	}
	writeFiles(t, dir, files)
	db := tempDB(t)
	sessionctl(t, db, "import", "--format", "picoclaw", dir).mustSucceed(t)

	st, err := sqlstore.Open(db, &sqlstore.Options{IndexDelay: -1}) // no scanner of its own
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.SecretStatus(context.Background()); err != nil || n != 0 {
		t.Fatalf("after import: %d entries not scanned (%v), want 0", n, err)
	}
	if got := recordedSecretSessions(t, db); !slices.Equal(got, planted) {
		t.Fatalf("sessions with a recorded secret: %v, want %v", got, planted)
	}
}

// recordedSecretSessions lists the sessions with a secret the scan
// recorded, read straight from its table (Secrets would scan what is
// missing itself).
func recordedSecretSessions(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT DISTINCT e.session_id FROM secret_spans p
		JOIN entries e ON e.id = p.entry_id ORDER BY e.session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}
