package cursor_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/watch"
)

// TestCursorStoreWrittenLive: a watcher following Cursor's globalStorage
// while Cursor writes it as it does (each bubble's row, then the
// composer's headers naming it; an assistant bubble first written
// half-way and listed in generatingBubbleIds, then finished; a new
// composer appearing) ends with what one import of the final store
// gives.
func TestCursorStoreWrittenLive(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "globalStorage")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "state.vscdb")
	stateAt(t, live, 12)
	final := openRaw(t, urpg)
	value := func(key string) string {
		t.Helper()
		var v string
		if err := final.QueryRow(`SELECT value FROM cursorDiskKV WHERE key = ?`, key).Scan(&v); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return v
	}
	w, err := sql.Open("sqlite", "file:"+live+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	defer w.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	grown := openStore(t)
	done := make(chan error, 1)
	go func() {
		done <- watch.Run(ctx, grown, watch.Options{Paths: []string{dir}, TornAfter: 200 * time.Millisecond})
	}()
	time.Sleep(100 * time.Millisecond)
	hs := headers(t, urpg)[bigComposer]
	ckey := "composerData:" + bigComposer
	for k := 12; k < len(hs); k++ {
		bkey := "bubbleId:" + bigComposer + ":" + hs[k]
		headers := `json((SELECT json_group_array(json(h.value)) FROM json_each(?, '$.fullConversationHeadersOnly') h WHERE h.key <= ?))`
		if k%2 == 1 {
			// An assistant bubble: streamed, then finished.
			exec(`INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, json_set(?, '$.text', substr(json_extract(?, '$.text'), 1, 10)))`, bkey, value(bkey), value(bkey))
			exec(`UPDATE cursorDiskKV SET value = json_set(value, '$.fullConversationHeadersOnly', `+headers+`, '$.generatingBubbleIds', json_array(?), '$.lastUpdatedAt', ?) WHERE key = ?`,
				value(ckey), k, hs[k], time.Now().UnixMilli(), ckey)
			time.Sleep(5 * time.Millisecond)
		}
		exec(`INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, ?)`, bkey, value(bkey))
		exec(`UPDATE cursorDiskKV SET value = json_set(value, '$.fullConversationHeadersOnly', `+headers+`, '$.generatingBubbleIds', json('[]'), '$.lastUpdatedAt', ?) WHERE key = ?`,
			value(ckey), k, time.Now().UnixMilli(), ckey)
		time.Sleep(5 * time.Millisecond)
	}
	// A composer appears: its bubbles, then its composerData.
	for _, b := range headers(t, urpg)[smallComposer] {
		bkey := "bubbleId:" + smallComposer + ":" + b
		exec(`INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, ?)`, bkey, value(bkey))
	}
	exec(`INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, ?)`, "composerData:"+smallComposer, value("composerData:"+smallComposer))
	// The final store, as Cursor leaves it.
	exec(`UPDATE cursorDiskKV SET value = ? WHERE key = ?`, value(ckey), ckey)
	w.Close()

	once := openStore(t)
	if _, err := jsonlimport.Import(context.Background(), once, []string{urpg}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	want := snapshotOf(t, once)
	wantLog := jsonltest.GrowthSnapshot(t, once, time.Time{})
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, gotLog := snapshotOf(t, grown), jsonltest.GrowthSnapshot(t, grown, time.Time{})
		d := cmp.Diff(want, got) + cmp.Diff(wantLog, gotLog)
		if d == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watched store differs from one import (-once +watched):\n%s", d)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
}
