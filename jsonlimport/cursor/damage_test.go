package cursor_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/cursor"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// hasReason reports whether a problem's reason holds substr.
func hasReason(ps []jsonl.Problem, substr string) bool {
	for _, p := range ps {
		if strings.Contains(p.Reason, substr) {
			return true
		}
	}
	return false
}

// TestCursorDamage: a bubble that is not JSON, a bubble the headers name
// that is gone, a bubble of an unknown type and a composerData that is
// not JSON are problems naming them; the rest of the store is imported,
// nothing panics, and the store is not touched.
func TestCursorDamage(t *testing.T) {
	ctx := context.Background()
	path := copyStore(t, urpg)
	hs := headers(t, urpg)[smallComposer]
	exec(t, path, `UPDATE cursorDiskKV SET value = '{"type":2,"text":' WHERE key = ?`, "bubbleId:"+smallComposer+":"+hs[1])
	exec(t, path, `DELETE FROM cursorDiskKV WHERE key = ?`, "bubbleId:"+smallComposer+":"+hs[2])
	exec(t, path, `UPDATE cursorDiskKV SET value = json_set(value, '$.type', 7) WHERE key = ?`, "bubbleId:"+smallComposer+":"+hs[4])
	exec(t, path, `UPDATE cursorDiskKV SET value = 'not json' WHERE key = ?`, "composerData:"+helloComposer)
	before := mustRead(t, path)
	s := openStore(t)
	rep, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bubble 2 (" + hs[1] + ") is not a JSON object", "bubble " + hs[2] + " named by the composer's headers is not in the store",
		"bubble " + hs[4] + " has type 7", "composer " + helloComposer + ": its composerData is not a JSON object"} {
		if !hasReason(rep.Problems, want) {
			t.Errorf("no problem %q in %v", want, rep.Problems)
		}
	}
	if rep.Sessions != 2 {
		t.Errorf("%d sessions imported, want the two readable composers", rep.Sessions)
	}
	if got := len(entryBodies(t, s, smallComposer)); got != len(hs)-3 {
		t.Errorf("the damaged composer has %d entries, want %d", got, len(hs)-3)
	}
	if _, err := s.Get(ctx, helloComposer); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("the unreadable composer: %v", err)
	}
	if string(mustRead(t, path)) != string(before) {
		t.Error("the import changed the store")
	}
}

// TestCursorNotAStore: a .vscdb that is not SQLite, or SQLite without
// Cursor's tables, is not claimed (skipped as another file); an empty
// one holds no session.
func TestCursorNotAStore(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "a", "state.vscdb")
	other := filepath.Join(dir, "b", "state.vscdb")
	empty := filepath.Join(dir, "c", "state.vscdb")
	for _, p := range []string{garbage, other, empty} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(garbage, []byte("SQLite format 3\x00 and then nothing"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE kv (key TEXT, value BLOB)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	units, rest := cursor.Format{}.Claim([]string{garbage, other, empty})
	if len(units) != 0 || len(rest) != 3 {
		t.Errorf("claimed %v, left %v", units, rest)
	}
	s := openStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, []string{dir}, jsonlimport.Options{Format: cursor.Name})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 0 {
		t.Errorf("%d sessions", rep.Sessions)
	}
}

// TestCursorInFlight: a bubble the composer lists as generating, updated
// a moment ago, is held back with the bubbles after it (a problem with
// jsonl.UnfinishedMarker, which a watcher holds back); once the composer
// has been quiet for longer than cursor.InFlightFor it is imported as
// Cursor left it, with a note.
func TestCursorInFlight(t *testing.T) {
	ctx := context.Background()
	hs := headers(t, urpg)[smallComposer]
	last := hs[len(hs)-1]
	for _, c := range []struct {
		ago     time.Duration
		entries int
		held    bool
	}{{time.Minute, len(hs) - 1, true}, {time.Hour, len(hs), false}} {
		path := copyStore(t, urpg)
		at := time.Now().Add(-c.ago).UnixMilli()
		exec(t, path, `UPDATE cursorDiskKV SET value = json_set(value, '$.generatingBubbleIds', json_array(?), '$.lastUpdatedAt', ?) WHERE key = ?`,
			last, at, "composerData:"+smallComposer)
		s := openStore(t)
		rep, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := hasReason(rep.Problems, jsonl.UnfinishedMarker); got != c.held {
			t.Errorf("%v ago: held back %v, want %v (%v)", c.ago, got, c.held, rep.Problems)
		}
		if !c.held && !hasReason(rep.Notes, "was left generating") {
			t.Errorf("%v ago: no note in %v", c.ago, rep.Notes)
		}
		if got := len(entryBodies(t, s, smallComposer)); got != c.entries {
			t.Errorf("%v ago: %d entries, want %d", c.ago, got, c.entries)
		}
	}
}
