package torture

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestCheckerCatchesTampering proves the checker is not vacuous: after a
// short crash workload, each sub-test damages a copy of the database the
// way a storage bug would (a lost append, a torn commit, a rewritten body,
// a stale state, a lost session, a phantom write, a partial import) and
// expects the checker to say so.
func TestCheckerCatchesTampering(t *testing.T) {
	t.Parallel()
	w := runWorkload(t, seed(), 3*time.Second, 2, 3, false)
	// Make sure there is an imported session to damage, whatever the
	// workload happened to do (the checker needs no oracle record for it).
	sample, err := filepath.Abs(filepath.Join("..", "testdata", "picoclaw"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlstore.Open(w.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := jsonlimport.Import(context.Background(), store, []string{filepath.Join(sample, sampleBase+".jsonl")}, jsonlimport.Options{Jobs: 1}); err != nil || rep.Sessions != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		// tamper damages the database; it returns false when the workload
		// produced nothing to damage that way.
		tamper func(db *sql.DB, o *oracle) (bool, error)
		want   string
	}{
		{"lost append", func(db *sql.DB, _ *oracle) (bool, error) {
			return exec1(db, `DELETE FROM entries WHERE rowid = (SELECT max(rowid) FROM entries WHERE session_id LIKE 'u-%')`)
		}, "log entries, LastSeq"},
		{"torn commit", func(db *sql.DB, _ *oracle) (bool, error) {
			var sid string
			var seq int64
			err := db.QueryRow(`SELECT e.session_id, e.seq FROM entries e JOIN sessions s ON s.id = e.session_id
				WHERE e.session_id LIKE 'u-%' AND e.seq = s.last_seq AND json_extract(e.body, '$.tt.n') >= 2
				AND json_extract(e.body, '$.tt.k') = json_extract(e.body, '$.tt.n') AND json_extract(e.body, '$.tt.sid') = e.session_id ORDER BY e.rowid DESC LIMIT 1`).Scan(&sid, &seq)
			if err == sql.ErrNoRows {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			if _, err := db.Exec(`DELETE FROM entries WHERE session_id = ? AND seq = ?`, sid, seq); err != nil {
				return false, err
			}
			_, err = db.Exec(`UPDATE sessions SET last_seq = last_seq - 1 WHERE id = ?`, sid)
			return true, err
		}, "visible in part"},
		{"rewritten body", func(db *sql.DB, _ *oracle) (bool, error) {
			return exec1(db, `UPDATE entries SET body = replace(body, 'torture', 'tortura') WHERE rowid = (SELECT min(rowid) FROM entries WHERE session_id LIKE 'p-%' OR session_id LIKE 'u-%')`)
		}, "differs from what was written"},
		{"stale paired state", func(db *sql.DB, _ *oracle) (bool, error) {
			// Only a different body damages anything: with one paired
			// session (a short workload on a loaded machine), or two with
			// equal states, the update would change nothing the checker
			// could notice, and the case has nothing to damage.
			return exec1(db, `UPDATE states SET body = (SELECT body FROM states WHERE session_id LIKE 'p-%' ORDER BY session_id LIMIT 1)
				WHERE session_id = (SELECT session_id FROM states WHERE session_id LIKE 'p-%' ORDER BY session_id DESC LIMIT 1)
				AND body <> (SELECT body FROM states WHERE session_id LIKE 'p-%' ORDER BY session_id LIMIT 1)`)
		}, "state"},
		{"lost session", func(db *sql.DB, o *oracle) (bool, error) {
			// A session no delete was ever attempted on, with an
			// acknowledged write.
			var ids []string
			for sid, ops := range o.bySid {
				acked, deleted := false, false
				for _, op := range ops {
					deleted = deleted || (op.r.Kind == opDelete && op.st != "fail")
					acked = acked || (op.st == "ack" && op.r.Kind != opFork && op.r.Sid == sid)
				}
				if acked && !deleted {
					ids = append(ids, sid)
				}
			}
			sort.Strings(ids)
			for _, sid := range ids {
				if ok, err := exec1(db, `DELETE FROM sessions WHERE id = ?`, sid); ok || err != nil {
					return ok, err
				}
			}
			return false, nil
		}, "is gone"},
		{"phantom write", func(db *sql.DB, _ *oracle) (bool, error) {
			var sid string
			if err := db.QueryRow(`SELECT id FROM sessions WHERE id LIKE 'u-%' LIMIT 1`).Scan(&sid); err != nil {
				return false, err
			}
			// An id above the rows and the search cursor, as sqlstore
			// gives one (a trigger refuses any other).
			_, err := db.Exec(`INSERT INTO entries (id, session_id, seq, kind, role, text_stored, body, created_at)
				SELECT max(coalesce((SELECT max(id) FROM entries), 0),
					(SELECT indexed_through FROM search_index WHERE source = 'entries')) + 1,
					id, last_seq + 1, 'message', 'user', '', ?, created_at FROM sessions WHERE id = ?`,
				string(makeBody("w9.9.g9.9", sid, 1, 1, false)), sid)
			if err != nil {
				return false, err
			}
			_, err = db.Exec(`UPDATE sessions SET last_seq = last_seq + 1 WHERE id = ?`, sid)
			return true, err
		}, "phantom"},
		{"partial import", func(db *sql.DB, _ *oracle) (bool, error) {
			return exec1(db, `DELETE FROM entries WHERE rowid = (SELECT max(e.rowid) FROM entries e JOIN sessions s ON s.id = e.session_id WHERE s.source_format IS NOT NULL)`)
		}, "imported session"},
		{"half a commit", func(db *sql.DB, _ *oracle) (bool, error) {
			// Keep a commit's state but drop the entries it appended.
			var sid, op string
			err := db.QueryRow(`SELECT s.session_id, json_extract(s.body, '$.tt.op') FROM states s
				WHERE s.session_id LIKE 'p-%' AND json_extract(s.body, '$.tt.sid') = s.session_id
				AND EXISTS (SELECT 1 FROM entries e WHERE e.session_id = s.session_id
					AND json_extract(e.body, '$.tt.op') = json_extract(s.body, '$.tt.op'))
				ORDER BY s.session_id LIMIT 1`).Scan(&sid, &op)
			if err == sql.ErrNoRows {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			return exec1(db, `DELETE FROM entries WHERE rowid = (SELECT max(rowid) FROM entries WHERE session_id = ? AND json_extract(body, '$.tt.op') = ?)`, sid, op)
		}, "half a commit"},
		{"lost interrupt or state write", func(db *sql.DB, _ *oracle) (bool, error) {
			ok, err := exec1(db, `DELETE FROM interrupts WHERE session_id LIKE 'u-%'`)
			if err != nil || !ok {
				return ok, err
			}
			return exec1(db, `DELETE FROM states WHERE session_id LIKE 'u-%'`)
		}, "write was lost"},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "copy.db")
			copyFile(t, w.db, db)
			if _, err := os.Stat(w.db + "-wal"); err == nil {
				copyFile(t, w.db+"-wal", db+"-wal")
			}
			raw, err := sql.Open("sqlite", "file:"+db+"?_pragma=foreign_keys(1)")
			if err != nil {
				t.Fatal(err)
			}
			o, err := loadOracle(w.dir, w.deaths)
			if err != nil {
				t.Fatal(err)
			}
			ok, err := tc.tamper(raw, o)
			raw.Close()
			if err != nil {
				t.Fatalf("tamper: %v", err)
			}
			// The stale-state tamper needs two paired sessions with
			// different states, which a 3-second workload on a loaded
			// machine does not always produce: then it is skipped.
			if !ok && tc.name == "stale paired state" {
				t.Skipf("the workload (seed %d) left no two paired sessions with different states", seed())
			}
			if !ok {
				t.Fatalf("the workload (seed %d) left nothing to tamper with for %q", seed(), tc.name)
			}
			_, errs := checkDatabase(db, w.dir, w.deaths, w.ref)
			if len(errs) == 0 {
				t.Fatalf("the checker did not notice %q", tc.name)
			}
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Fatalf("the checker noticed %q but not as expected (%q):\n%s", tc.name, tc.want, strings.Join(errs, "\n"))
			}
			t.Logf("caught: %s", errs[0])
		})
	}
}

// exec1 runs a statement and reports whether it changed a row.
func exec1(db *sql.DB, q string, args ...any) (bool, error) {
	res, err := db.Exec(q, args...)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
