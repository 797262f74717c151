package cursor_test

import (
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/sessiondb/sessiondb/internal/freshstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// openStore opens a store for an import; commits are not fsynced
// (DurabilityNormal): what these tests check is what is written, and the
// 26 commits of a corpus store would take seconds of fsync on CI's disk.
func openStore(t *testing.T) *sqlstore.Store {
	t.Helper()
	return freshstore.Open(t, &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
}

// corpus is the reduced real stores (testdata/gen/cursor).
var corpus = filepath.Join("..", "..", "testdata", "corpus", "cursor")

// urpg is the corpus store of the cursorDiskKV era.
var urpg = filepath.Join(corpus, "urpg_app", "state.vscdb")

// copyStore copies a corpus store into a fresh folder and returns its path.
func copyStore(t *testing.T, src string) string {
	t.Helper()
	return copyTo(t, src, filepath.Join(t.TempDir(), "state.vscdb"))
}

// copyCorpus copies the corpus (each store in a folder of its own) and
// returns the copy's folder.
func copyCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ents, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := os.Mkdir(filepath.Join(dir, e.Name()), 0o755); err != nil {
				t.Fatal(err)
			}
			copyTo(t, filepath.Join(corpus, e.Name(), "state.vscdb"), filepath.Join(dir, e.Name(), "state.vscdb"))
		}
	}
	return dir
}

// copyTo copies file src to dst and returns dst.
func copyTo(t *testing.T, src, dst string) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// openRaw opens a store with SQLite itself: the oracle the tests compare
// the reader with (Cursor's keys read by SQLite's JSON functions).
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// exec runs statements on a store (to build a state of it).
func exec(t *testing.T, path string, q string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// headers returns each composer's header bubble ids of a cursorDiskKV
// store, by SQLite's json_each: the order Cursor shows them in.
func headers(t *testing.T, path string) map[string][]string {
	t.Helper()
	rows, err := openRaw(t, path).Query(`SELECT substr(k.key, 14), json_extract(h.value, '$.bubbleId')
		FROM cursorDiskKV k, json_each(k.value, '$.fullConversationHeadersOnly') h
		WHERE k.key LIKE 'composerData:%' AND k.value IS NOT NULL ORDER BY k.key, h.key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var c, b string
		if err := rows.Scan(&c, &b); err != nil {
			t.Fatal(err)
		}
		out[c] = append(out[c], b)
	}
	return out
}

// bubbleIDs reads the bubbleId of each entry body.
func bubbleIDs(t *testing.T, bodies [][]byte) []string {
	t.Helper()
	var out []string
	for _, b := range bodies {
		var m struct {
			ID string `json:"bubbleId"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m.ID)
	}
	return out
}
