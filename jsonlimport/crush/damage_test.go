package crush_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/crush"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/opencodego"
)

// editable copies a corpus store into a project folder of its own and
// opens the copy for writing.
func editable(t *testing.T, from string) (string, *sql.DB) {
	t.Helper()
	live := filepath.Join(t.TempDir(), "project", filepath.Base(filepath.Dir(from)))
	growthState(t, from, live, 1<<30)
	path := filepath.Join(live, filepath.Base(from))
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return path, db
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
}

// TestCrushSummaryIsACompaction: a session whose summary_message_id
// names one of its messages resumes from that message: a compaction there
// keeping the log from it, and the transcript starts with it.
func TestCrushSummaryIsACompaction(t *testing.T) {
	path, db := editable(t, filepath.Join(corpus, "crush", "gleicon+mcpfier", ".crush", "crush.db"))
	var sid, mid string
	var n int
	if err := db.QueryRow(`SELECT session_id, id, (SELECT count(*) FROM messages x WHERE x.session_id = m.session_id AND (x.created_at < m.created_at OR (x.created_at = m.created_at AND x.rowid < m.rowid)))
		FROM messages m WHERE role = 'assistant' ORDER BY created_at DESC, rowid DESC LIMIT 1 OFFSET 3`).Scan(&sid, &mid, &n); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `UPDATE sessions SET summary_message_id = ? WHERE id = ?`, mid, sid)
	db.Close()
	s := jsonltest.OpenStore(t)
	ctx := context.Background()
	rep, err := jsonlimport.Import(ctx, s, []string{filepath.Dir(path)}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Fatalf("problems: %v", rep.Problems)
	}
	cs, err := s.Compactions(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("%d compactions, want 1", len(cs))
	}
	tr, err := s.Load(ctx, sid, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) == 0 || !strings.Contains(string(tr[0].Body), `"id":"`+mid+`"`) {
		t.Fatalf("the transcript does not start at the summary %s (entry %d): %d entries", mid, n+1, len(tr))
	}
	m := jsonlimport.Understand(crush.Name, tr[0])
	if !m.Context {
		t.Errorf("the summary reads as %+v, want context", m)
	}
}

// TestCrushDamage: a message whose parts are not JSON is left out with a
// problem naming it, the rest imported; a database of other tables is
// refused; an empty crush.db holds no session.
func TestCrushDamage(t *testing.T) {
	path, db := editable(t, filepath.Join(corpus, "opencode-go", "surajssc1232+wut_rust", ".opencode", "opencode.db"))
	var mid string
	var total int
	if err := db.QueryRow(`SELECT id, (SELECT count(*) FROM messages) FROM messages WHERE role = 'tool' LIMIT 1`).Scan(&mid, &total); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `UPDATE messages SET parts = '[{"type":"text","data":' WHERE id = ?`, mid)
	db.Close()
	s := jsonltest.OpenStore(t)
	ctx := context.Background()
	rep, err := jsonlimport.Import(ctx, s, []string{filepath.Dir(path)}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Reason, mid) {
		t.Fatalf("problems %v, want one naming %s", rep.Problems, mid)
	}
	if rep.Entries != total-1 {
		t.Errorf("%d entries imported, want %d", rep.Entries, total-1)
	}

	// Another program's tables under crush's name.
	dir := t.TempDir()
	other, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "crush.db"))
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, other, `CREATE TABLE notes (id TEXT)`)
	other.Close()
	units, _ := crush.Format{}.Claim([]string{filepath.Join(dir, "crush.db")})
	if len(units) != 0 {
		t.Errorf("a database of other tables was claimed: %v", units)
	}
	// An empty crush.db (crush created it, no migration yet).
	empty := filepath.Join(t.TempDir(), "crush.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	units, _ = crush.Format{}.Claim([]string{empty})
	if len(units) != 1 {
		t.Fatalf("an empty crush.db was not claimed")
	}
	list, _, err := crush.Format{}.Sessions(ctx, units[0], nil)
	if err != nil || len(list) != 0 {
		t.Errorf("an empty crush.db: %d sessions, %v", len(list), err)
	}
}

// TestCrushClaimsByName: the Go opencode takes opencode.db of its schema
// and leaves the TypeScript opencode's; crush takes crush.db and another
// .db of its schema; the registry offers them in that order.
func TestCrushClaimsByName(t *testing.T) {
	goDB := filepath.Join(corpus, "opencode-go", "navicore+flag-rs", ".opencode", "opencode.db")
	if u, _ := (opencodego.Format{}).Claim([]string{goDB}); len(u) != 1 || len(u[0].Extra) != 1 {
		t.Errorf("opencode-go claimed %v", u)
	}
	ts := filepath.Join("..", "..", "testdata", "opencode", "store", "opencode.db")
	if u, rest := (opencodego.Format{}).Claim([]string{ts}); len(u) != 0 || len(rest) != 1 {
		t.Errorf("opencode-go took the TypeScript opencode's store: %v", u)
	}
	if u, _ := (crush.Format{}).Claim([]string{ts}); len(u) != 0 {
		t.Errorf("crush took the TypeScript opencode's store: %v", u)
	}
	order := map[string]int{}
	for i, f := range jsonlimport.Formats() {
		order[f.Name()] = i
	}
	if !(order[opencodego.Name] < order[crush.Name] && order[crush.Name] < order[jsonlimport.FormatOpencode]) {
		t.Errorf("registry order %v", order)
	}
	det, _, err := jsonlimport.Detect(context.Background(), []string{filepath.Join(corpus, "opencode-go"), filepath.Join(corpus, "crush")}, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, d := range det {
		got[d.Format] = d.Sessions
	}
	if got[crush.Name] != 19 || got[opencodego.Name] != 20 || len(got) != 2 {
		t.Errorf("detected %v", got)
	}
}

// TestCrushEarlierSummaries: newer crush marks every summary message
// (is_summary_message); each one before the current summary is a
// compaction too, in order, and the transcript starts at the current one.
func TestCrushEarlierSummaries(t *testing.T) {
	path, db := editable(t, filepath.Join(corpus, "crush", "gleicon+mcpfier", ".crush", "crush.db"))
	mustExec(t, db, `ALTER TABLE messages ADD COLUMN is_summary_message INTEGER DEFAULT 0 NOT NULL`)
	var sid string
	if err := db.QueryRow(`SELECT session_id FROM messages GROUP BY session_id ORDER BY count(*) DESC LIMIT 1`).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT id FROM messages WHERE session_id = ? AND role = 'assistant' ORDER BY created_at, rowid`, sid)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) < 8 {
		t.Fatalf("%d assistant messages", len(ids))
	}
	first, current, after := ids[2], ids[5], ids[7]
	mustExec(t, db, `UPDATE messages SET is_summary_message = 1 WHERE id IN (?, ?, ?)`, first, current, after)
	mustExec(t, db, `UPDATE sessions SET summary_message_id = ? WHERE id = ?`, current, sid)
	db.Close()
	s := jsonltest.OpenStore(t)
	ctx := context.Background()
	rep, err := jsonlimport.Import(ctx, s, []string{filepath.Dir(path)}, jsonlimport.Options{})
	if err != nil || len(rep.Problems) != 0 {
		t.Fatalf("%v, problems %v", err, rep.Problems)
	}
	cs, err := s.Compactions(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].KeepFromSeq >= cs[1].KeepFromSeq {
		t.Fatalf("compactions %+v, want two in order (the summary after the current one is none)", cs)
	}
	tr, err := s.Load(ctx, sid, sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tr[0].Body), `"id":"`+current+`"`) {
		t.Errorf("the transcript starts at %.120s, want the current summary %s", tr[0].Body, current)
	}
	if m := jsonlimport.Understand(crush.Name, tr[0]); !m.Context {
		t.Errorf("the current summary reads as %+v, want context", m)
	}
}
