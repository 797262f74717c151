package sqlstore

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// TestSchemaReadableByOlderSQLite: the schema is a public interface, read
// with whatever sqlite3 a system has, and an SQLite that cannot parse one
// object of a schema refuses every query on the file. The system's
// sqlite3 (Debian 12's is 3.40.1, older than the SQLite built into
// sessiondb; CI installs it) reads every table and view of a database at
// the latest version and writes through every trigger: usage rows
// inserted, updated and deleted by it leave usage_quarters equal to the
// ledger (the report read from the rollup is the report of a scan), and
// the file still opens as undamaged. Version 17's triggers, with a table
// alias SQLite 3.40 does not parse, fail it.
func TestSchemaReadableByOlderSQLite(t *testing.T) {
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("sqlite3 is not installed (CI installs Debian's): ", err)
		}
		t.Skip("no sqlite3 on this machine")
	}
	version, _ := exec.Command(bin, "--version").Output()
	t.Logf("%s %s", bin, bytes.TrimSpace(version))

	path := filepath.Join(t.TempDir(), "sessions.db")
	s := MustOpenStoreAt(t, path, nil)
	ctx := t.Context()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var c sessiondb.Commit
	c.Create = &sessiondb.Session{Title: "read me"}
	for i := range 12 {
		c.Append = append(c.Append, sessiondb.Message(`{"role":"user","content":"turn `+string(rune('a'+i))+`"}`))
		c.Usage = append(c.Usage, sessiondb.Usage{Seq: int64(i + 1), Provider: "p", Model: []string{"m1", "m2"}[i%2],
			InputTokens: int64(10 + i), OutputTokens: 3, Cost: 0.1 * float64(i+1), CreatedAt: day.Add(time.Duration(i) * 7 * time.Minute)})
	}
	if _, err := s.Commit(ctx, "old-reader", c); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Every table and view, then a write through each trigger of usage
	// (insert, update of summed columns, delete: a group's last call and
	// one that is not) and of entries (the insert guard, the unindex mark).
	script := `.bail on
PRAGMA quick_check;
SELECT 'object', s.type, s.name, count(*) FROM sqlite_schema s JOIN pragma_table_info(s.name) c WHERE s.type IN ('table', 'view') AND s.name NOT LIKE 'sqlite_%' GROUP BY s.name ORDER BY s.name;
SELECT 'transcript', count(*) FROM transcript;
BEGIN;
INSERT INTO usage (session_id, seq, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost, cost_estimated, created_at)
VALUES ('old-reader', 12, 'p', 'm3', 7, 1, 0, 0, 0, 0.25, 0, '2026-03-01T02:05:00Z');
UPDATE usage SET cost = cost + 1, input_tokens = input_tokens + 100 WHERE model = 'm1' AND seq <= 3;
DELETE FROM usage WHERE model = 'm2' AND seq = 12;
DELETE FROM usage WHERE model = 'm1' AND seq = 5;
INSERT INTO entries (id, session_id, seq, kind, role, text_stored, body, created_at)
VALUES ((SELECT max(id) FROM entries) + 1, 'old-reader', 13, 'message', 'user', NULL, '{"role":"user","content":"written by sqlite3"}', '2026-03-01T03:00:00Z');
COMMIT;
SELECT 'groups', count(*), sum(calls) FROM usage_quarters;
`
	cmd := exec.Command(bin, path)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s could not read or write the database: %v\n%s", bytes.TrimSpace(version), err, out)
	}
	if !bytes.Contains(out, []byte("ok\n")) || !bytes.Contains(out, []byte("object|table|usage_quarters|15")) ||
		!bytes.Contains(out, []byte("transcript|12")) {
		t.Fatalf("sqlite3's output lacks the quick check, a table or the transcript:\n%s", out)
	}

	s = MustOpenStoreAt(t, path, nil) // the schema is still the one the migrations wrote
	q := sessiondb.UsageQuery{ByQuarterHour: true, ByModel: true}
	rollup, err := s.UsageReport(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	q.Prices = func(string) (sessiondb.Price, bool) { return sessiondb.Price{}, false } // forces the scan of the ledger
	scan, err := s.UsageReport(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var calls int64
	for _, r := range scan {
		calls += r.Calls
	}
	if calls != 11 {
		t.Fatalf("the ledger holds %d calls after sqlite3's writes, want 11 (12 + 1 - 2)", calls)
	}
	if len(rollup) != len(scan) {
		t.Fatalf("usage_quarters has %d groups after sqlite3's writes, the ledger %d:\n%+v\n%+v", len(rollup), len(scan), rollup, scan)
	}
	for i := range scan {
		g, w := rollup[i], scan[i]
		if !g.Start.Equal(w.Start) || g.Model != w.Model || g.Calls != w.Calls || g.InputTokens != w.InputTokens ||
			math.Float64bits(g.Cost) != math.Float64bits(w.Cost) {
			t.Errorf("group %d: usage_quarters %+v, the ledger %+v", i, g, w)
		}
	}
	got, err := s.Load(ctx, "old-reader", sessiondb.LoadOptions{})
	if err != nil || len(got) != 13 {
		t.Fatalf("after sqlite3's insert: %d entries, %v; want 13", len(got), err)
	}
	var text string
	if err := s.writer.QueryRowContext(ctx, `SELECT text FROM entries WHERE session_id = 'old-reader' AND seq = 13`).Scan(&text); err != nil || text != "written by sqlite3" {
		t.Fatalf("the text of the entry sqlite3 wrote = %q, %v; want it derived from its body", text, err)
	}
}
