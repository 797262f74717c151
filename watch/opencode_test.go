package watch

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
)

// opencodeRow is one row of the fixture: its table and its columns.
type opencodeRow struct {
	table string
	cols  []string
	vals  []any
}

// opencodeRows reads the rows of table from db, ordered by order.
func opencodeRows(t testing.TB, db *sql.DB, table, order string) []opencodeRow {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM ` + table + ` ORDER BY ` + order)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []opencodeRow
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, opencodeRow{table, cols, vals})
	}
	return out
}

func (r opencodeRow) col(name string) any {
	for i, c := range r.cols {
		if c == name {
			return r.vals[i]
		}
	}
	return nil
}

func (r opencodeRow) insert(db *sql.DB) error {
	q := "INSERT INTO " + r.table + " (" + strings.Join(r.cols, ", ") + ") VALUES (" + strings.TrimSuffix(strings.Repeat("?, ", len(r.cols)), ", ") + ")"
	_, err := db.Exec(q, r.vals...)
	return err
}

// TestOpencodeStoreWrittenLive: a writer writes the sessions of the
// opencode fixture into an opencode.db the way opencode does (WAL mode,
// automatic checkpoints, one message at a time, each assistant message
// first unfinished and completed later) while the watcher follows the
// folder. The store ends as one import of the final database gives it;
// the session whose turn never ended is reported (held back while the
// database was written) and not imported; nothing is created beside the
// database but the writer's own files; the copies the watcher read are
// removed when it stops.
func TestOpencodeStoreWrittenLive(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx := context.Background()
	snap, err := foreigndb.Open(ctx, "../testdata/opencode/store/opencode.db")
	if err != nil {
		t.Fatal(err)
	}
	src := snap.DB()
	sessions := opencodeRows(t, src, "session", "time_created, id")
	messages := opencodeRows(t, src, "message", "time_created, id")
	parts := opencodeRows(t, src, "part", "message_id, id")
	snap.Close()

	root := t.TempDir()
	data := filepath.Join(root, "opencode")
	copyTree(t, "../testdata/opencode/store", data)
	dbPath := filepath.Join(data, "opencode.db")
	w, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(40)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	defer w.Close()
	for _, q := range []string{`DELETE FROM part`, `DELETE FROM message`, `DELETE FROM event`, `DELETE FROM event_sequence`, `DELETE FROM session`} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	st := newStore(t)
	r := startWatch(t, st, Options{Paths: []string{root}, TornAfter: 300 * time.Millisecond})
	t.Cleanup(func() {
		if t.Failed() { // what the watcher did: a lost report or a slow one
			r.mu.Lock()
			defer r.mu.Unlock()
			for _, e := range r.events {
				t.Logf("event %s %s %s: %d problems %v", e.Kind, e.Path, e.Format, len(e.Problems), e.Problems)
			}
		}
	})
	pause := func() { time.Sleep(3 * time.Millisecond) }
	written := map[string]bool{}
	for _, m := range messages {
		sid := m.col("session_id").(string)
		if !written[sid] {
			for _, s := range sessions {
				if s.col("id") == sid {
					if err := s.insert(w); err != nil {
						t.Fatal(err)
					}
				}
			}
			written[sid] = true
		}
		mid := m.col("id").(string)
		var mine []opencodeRow
		for _, p := range parts {
			if p.col("message_id") == mid {
				mine = append(mine, p)
			}
		}
		final := m.col("data").(string)
		assistant := strings.Contains(final, `"role":"assistant"`)
		if assistant {
			// Being written: not completed, parts streaming in.
			if _, err := w.Exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, json_remove(?, '$.time.completed', '$.finish'))`,
				mid, sid, m.col("time_created"), m.col("time_created"), final); err != nil {
				t.Fatal(err)
			}
		} else if err := m.insert(w); err != nil {
			t.Fatal(err)
		}
		for _, p := range mine {
			pause()
			if err := p.insert(w); err != nil {
				t.Fatal(err)
			}
		}
		if assistant && !strings.Contains(sid, "ses_db4ba0020") { // the session opencode was killed in never completes
			pause()
			if _, err := w.Exec(`UPDATE message SET data = ?, time_updated = ? WHERE id = ?`, final, m.col("time_updated"), mid); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]int64{"ses_db4bdffc1ffeoXu5fqm66Azq2r": 6, "ses_db4bc72d9ffe6Xt6zGDHJlGf55": 2, "ses_db4bc0e7cffed33d9sImRE6eOe": 2, "ses_db4bb7ff8ffetLXeAn2soIfXS6": 7}
	waitFor(t, "the opencode sessions", func() bool {
		for id, n := range want {
			s, err := st.Get(ctx, id)
			if err != nil || s.LastSeq != n {
				return false
			}
		}
		return true
	})
	// Reported once the database was quiet for TornAfter: as a torn
	// event, or, when the import that meets it comes later than that (a
	// slow machine), with that import.
	waitFor(t, "the unfinished turn's report", func() bool {
		for _, p := range r.problems() {
			if strings.Contains(p.Path, "ses_db4ba0020") && strings.HasPrefix(p.Reason, jsonlimport.UnfinishedMarker) {
				return true
			}
		}
		return false
	})
	compareViews(t, view(t, st), oneShot(t, root))
	for _, p := range r.problems() {
		if !strings.HasPrefix(p.Reason, jsonlimport.UnfinishedMarker) {
			t.Errorf("problem: %v", p)
		}
	}
	r.stop(t)
	names := []string{}
	ents, _ := os.ReadDir(data)
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "opencode.db opencode.db-shm opencode.db-wal" {
		t.Errorf("the store's folder holds %v: want the writer's three files only", names)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "sessiondb-foreign-*")); len(left) > 0 {
		t.Errorf("copies left after the watcher stopped: %v", left)
	}
}

// TestOpencodeLegacyTreeWrittenLive: opencode 1.1's storage/ tree, whose
// session grows by new message and part files in other folders than the
// session's file, is followed: the session is imported again when they
// appear, and ends as one import of the final tree gives it.
func TestOpencodeLegacyTreeWrittenLive(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "../testdata/opencode/legacy", root)
	storage := filepath.Join(root, "storage")
	const ses = "ses_db4b7f3e0ffeiPtHNujtwCbykY"
	msgs, _ := filepath.Glob(filepath.Join(storage, "message", ses, "*.json"))
	sort.Strings(msgs)
	if len(msgs) < 4 {
		t.Fatalf("fixture: %v", msgs)
	}
	// Hold back the last turn: its user and assistant messages with parts.
	held := map[string][]byte{}
	for _, m := range msgs[len(msgs)-3:] {
		mid := strings.TrimSuffix(filepath.Base(m), ".json")
		files := append([]string{m}, globAll(filepath.Join(storage, "part", mid, "*.json"))...)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			held[f] = b
			os.Remove(f)
		}
		os.Remove(filepath.Join(storage, "part", mid))
	}
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}})
	ctx := context.Background()
	before, err := st.Get(ctx, ses)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(held))
	for f := range held {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, held[f], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the grown legacy session", func() bool {
		s, err := st.Get(ctx, ses)
		return err == nil && s.LastSeq == 6
	})
	if before.LastSeq != 3 {
		t.Errorf("before the last turn: %d entries, want 3", before.LastSeq)
	}
	compareViews(t, view(t, st), oneShot(t, root))
}

func globAll(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	return m
}
