package crush_test

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

// TestCrushStoreWrittenLive: a watcher following a project while crush
// writes its store as it does (each assistant message created empty,
// its parts streamed in, then finished; tool and user messages written
// whole; the session's tokens and cost updated after each call) ends with
// what one import of the final store gives.
func TestCrushStoreWrittenLive(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	from := filepath.Join(corpus, "crush", "gleicon+mcpfier", ".crush", "crush.db")
	// The final rows, read from a copy.
	final := filepath.Join(t.TempDir(), ".crush")
	growthState(t, from, final, 1<<30)
	src, err := sql.Open("sqlite", "file:"+filepath.Join(final, "crush.db"))
	if err != nil {
		t.Fatal(err)
	}
	type msg struct {
		id, sid, role, parts string
		model, provider      sql.NullString
		created, updated     int64
		finished             sql.NullInt64
	}
	rows, err := src.Query(`SELECT id, session_id, role, parts, model, provider, created_at, updated_at, finished_at FROM messages ORDER BY created_at, rowid`)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []msg
	for rows.Next() {
		var m msg
		if err := rows.Scan(&m.id, &m.sid, &m.role, &m.parts, &m.model, &m.provider, &m.created, &m.updated, &m.finished); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	rows.Close()
	src.Close()

	// The live store: the sessions, no message yet.
	project := filepath.Join(t.TempDir(), "project")
	live := filepath.Join(project, ".crush")
	growthState(t, from, live, 0)
	w, err := sql.Open("sqlite", "file:"+filepath.Join(live, "crush.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(40)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	defer w.Close()
	if _, err := w.Exec(`DROP TRIGGER IF EXISTS update_messages_updated_at`); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	grown := jsonltest.OpenStore(t)
	done := make(chan error, 1)
	go func() {
		done <- watch.Run(ctx, grown, watch.Options{Paths: []string{project}, TornAfter: 200 * time.Millisecond})
	}()
	time.Sleep(100 * time.Millisecond)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range msgs {
		if m.role == "assistant" {
			// While it streams, the program updates the row now.
			exec(`INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at) VALUES (?, ?, ?, '[]', ?, ?, ?, ?)`,
				m.id, m.sid, m.role, m.model, m.provider, m.created, time.Now().Unix())
			time.Sleep(2 * time.Millisecond)
			exec(`UPDATE messages SET parts = json_remove(?, '$[#-1]'), updated_at = ? WHERE id = ?`, m.parts, time.Now().Unix(), m.id)
			time.Sleep(2 * time.Millisecond)
		}
		if m.role == "assistant" {
			exec(`UPDATE messages SET parts = ?, updated_at = ?, finished_at = ? WHERE id = ?`, m.parts, m.updated, m.finished, m.id)
		} else {
			exec(`INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				m.id, m.sid, m.role, m.parts, m.model, m.provider, m.created, m.updated, m.finished)
		}
	}
	// Every message, finished, is imported from the live store before it
	// is replaced by the final one.
	deadline := time.Now().Add(10 * time.Second)
	for n := 0; n != len(msgs); {
		n = 0
		for _, g := range jsonltest.GrowthSnapshot(t, grown, time.Time{}) {
			n += len(g.Log)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher imported %d of the %d messages written", n, len(msgs))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The final store, as the program leaves it (its sessions' rows too).
	w.Close()
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(filepath.Join(live, "crush.db"+suffix))
	}
	jsonltest.CopyFile(t, filepath.Join(final, "crush.db"), filepath.Join(live, "crush.db"))
	once := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(context.Background(), once, []string{project}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	since := time.Time{}
	want := jsonltest.GrowthSnapshot(t, once, since)
	deadline = time.Now().Add(10 * time.Second)
	for {
		got := jsonltest.GrowthSnapshot(t, grown, since)
		d := cmp.Diff(want, got)
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
