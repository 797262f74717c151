package opencode_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/wildtest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/opencode"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// The fixtures were written by opencode itself (testdata/gen/opencode):
// store/ is the opencode.db and opencode.db-wal that opencode 1.18.33 left
// after five sessions against a scripted local model (the -wal still holds
// most of the commits), export/ what `opencode export` printed for each,
// legacy/storage/ the JSON tree opencode 1.1.65 wrote for three sessions.
var (
	testdata  = filepath.Join("..", "..", "testdata", "opencode")
	storeDir  = filepath.Join(testdata, "store")
	exportDir = filepath.Join(testdata, "export")
	legacyDir = filepath.Join(testdata, "legacy")
)

// The sessions of the store fixture.
const (
	sesTools   = "ses_db4bdffc1ffeoXu5fqm66Azq2r" // parallel tools, an error, reasoning; then a task sub-agent
	sesSub     = "ses_db4bc72d9ffe6Xt6zGDHJlGf55" // the sub-agent
	sesFail    = "ses_db4bc0e7cffed33d9sImRE6eOe" // the model call failed (HTTP 400)
	sesCompact = "ses_db4bb7ff8ffetLXeAn2soIfXS6" // tools, a compaction, a question after it
	sesCut     = "ses_db4ba0020ffe04780O3HwPLPvA" // opencode killed while the model streamed
)

var update = flag.Bool("update", false, "rewrite testdata/opencode/expected")

// label names a transcript entry: its role, then each part.
func label(e sessiondb.Entry) string {
	var m struct {
		Info struct {
			Role string `json:"role"`
		} `json:"info"`
		Parts []struct {
			Type   string `json:"type"`
			Text   string `json:"text"`
			Tool   string `json:"tool"`
			CallID string `json:"callID"`
			State  struct {
				Status string `json:"status"`
			} `json:"state"`
		} `json:"parts"`
	}
	if err := json.Unmarshal(e.Body, &m); err != nil {
		return "unreadable: " + err.Error()
	}
	var parts []string
	for _, p := range m.Parts {
		switch p.Type {
		case "text", "reasoning":
			parts = append(parts, p.Type+" "+p.Text)
		case "tool":
			parts = append(parts, fmt.Sprintf("tool %s %s %s", p.Tool, p.CallID, p.State.Status))
		default:
			parts = append(parts, p.Type)
		}
	}
	l := m.Info.Role + ": " + strings.Join(parts, " | ")
	if e.Summary {
		l = "(summary) " + l
	}
	return l
}

// importPaths imports paths into a new store.
func importPaths(t *testing.T, paths ...string) (*sqlstore.Store, jsonlimport.Report) {
	t.Helper()
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, paths, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, rep
}

// TestOpencodeStoreGolden imports the store fixture and compares every
// session with testdata/opencode/expected/store (checked by hand against
// what opencode itself wrote and exported).
func TestOpencodeStoreGolden(t *testing.T) {
	got := wildtest.Snapshot(t, opencode.Name, storeDir, label)
	checkGoldens(t, filepath.Join(testdata, "expected", "store"), got, 5)
}

// TestOpencodeLegacyGolden does the same for opencode 1.1.65's storage/
// tree.
func TestOpencodeLegacyGolden(t *testing.T) {
	got := wildtest.Snapshot(t, opencode.Name, legacyDir, label)
	checkGoldens(t, filepath.Join(testdata, "expected", "legacy"), got, 3)
}

// checkGoldens is wildtest.CheckGoldens with this package's -update.
func checkGoldens(t *testing.T, dir string, got map[string]wildtest.Golden, want int) {
	t.Helper()
	if len(got) != want {
		t.Fatalf("imported %d sessions, want %d: %v", len(got), want, keys(got))
	}
	for rel, g := range got {
		name := strings.NewReplacer("/", "__", "#", "__").Replace(strings.TrimSuffix(rel, ".json")) + ".json"
		path := filepath.Join(dir, name)
		b, _ := json.MarshalIndent(g, "", "  ")
		b = append(b, '\n')
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run with -update)", rel, err)
		}
		if d := cmp.Diff(string(want), string(b)); d != "" {
			t.Errorf("%s (-want +got):\n%s", rel, d)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// transcript returns the labels of session id's transcript (Kind message).
func transcript(t *testing.T, s sessiondb.Store, id string) []string {
	t.Helper()
	tr, err := s.Load(context.Background(), id, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range tr {
		out = append(out, label(e))
	}
	return out
}

// TestOpencodeUnfinishedReportedAgain: a second import of the store,
// nothing changed, reports the session whose turn never ended again (it
// is still not imported), as an unchanged file's torn last line is.
func TestOpencodeUnfinishedReportedAgain(t *testing.T) {
	s, rep := importPaths(t, filepath.Join(storeDir, "opencode.db"))
	for i := range 2 {
		if !jsonltest.HasProblem(rep.Problems, "#"+sesCut, 0, jsonl.UnfinishedMarker+": the last turn is not finished") {
			t.Fatalf("import %d: problems %v; want the unfinished turn's", i+1, rep.Problems)
		}
		var err error
		rep, err = jsonlimport.Import(context.Background(), s, []string{filepath.Join(storeDir, "opencode.db")}, jsonlimport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Unchanged == 0 {
			t.Fatalf("import %d again: %+v; want the store's sessions unchanged", i+2, rep)
		}
	}
}

// TestOpencodeTranscripts states by hand what opencode resumes for each
// session of the store fixture: every prompt, tool call with its result
// and answer in order; after the compaction, the compaction's request,
// its summary and what follows (MessageV2.filterCompacted); the failed
// call is kept in the log but not sent back; the session opencode was
// killed in holds nothing (its turn never ended), and that is a problem.
func TestOpencodeTranscripts(t *testing.T) {
	s, rep := importPaths(t, filepath.Join(storeDir, "opencode.db"))
	if len(rep.Problems) != 1 || !jsonltest.HasProblem(rep.Problems, "#"+sesCut, 0, jsonl.UnfinishedMarker+": the last turn is not finished") {
		t.Errorf("problems: %v; want the unfinished turn's only", rep.Problems)
	}
	want := map[string][]string{
		sesTools: {
			`user: text "please use tools now"`,
			"assistant: step-start | reasoning I should run two tools in parallel. | text Running two tools. | tool bash call_a1 completed | tool read call_b2 error | step-finish",
			"assistant: step-start | text All tools finished. Résumé: done ✓ | step-finish",
			`user: text "now delegate this please"`,
			"assistant: step-start | text Delegating. | tool task call_task1 completed | step-finish",
			"assistant: step-start | text All tools finished. Résumé: done ✓ | step-finish",
		},
		sesSub: {
			"user: text Say hello from the sub-agent",
			"assistant: step-start | text Plain answer to: Say hello from the sub-agent | step-finish",
		},
		sesFail: {`user: text "fail please"`},
		sesCompact: {
			"user: compaction",
			"assistant: step-start | text Summary: we ran tools and delegated a sub job. | step-finish",
			`user: text "a question after the compaction"`,
			`assistant: step-start | text Plain answer to: "a question after the compaction" | step-finish`,
		},
	}
	for id, w := range want {
		if d := cmp.Diff(w, transcript(t, s, id)); d != "" {
			t.Errorf("%s (-want +got):\n%s", id, d)
		}
	}
	if cut, err := s.Get(context.Background(), sesCut); err != nil || cut.LastSeq != 0 {
		t.Errorf("the session whose turn never ended: %+v, %v; want it without entries", cut, err)
	}
	fail, err := s.Entries(context.Background(), sesFail, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fail) != 2 || fail[1].Kind != opencode.KindUnsent {
		t.Errorf("failed session's log: %d entries, last of kind %q; want the failed call kept as %q", len(fail), fail[len(fail)-1].Kind, opencode.KindUnsent)
	}
	sub, err := s.Get(context.Background(), sesSub)
	if err != nil {
		t.Fatal(err)
	}
	if sub.ParentID != sesTools || !jsonlimport.SubAgent(sub) {
		t.Errorf("sub-agent: parent %q, SubAgent %v; want %s, true", sub.ParentID, jsonlimport.SubAgent(sub), sesTools)
	}
	var attrs map[string]any
	_ = json.Unmarshal(sub.Attrs, &attrs)
	if attrs["cwd"] != "/tmp/oc-scratch/proj4" || attrs["agent"] != "general" || attrs["opencode_version"] != "1.18.33" {
		t.Errorf("attrs %v", attrs)
	}
}

// opencodeTotals reads opencode's own totals of every session in the
// fixture's database (its session table's cost and tokens columns, which
// opencode keeps as the sums over its assistant messages).
func opencodeTotals(t *testing.T, db string) map[string]sessiondb.UsageTotals {
	t.Helper()
	snap, err := foreigndb.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	rows, err := snap.DB().Query(`SELECT id, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write FROM session`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]sessiondb.UsageTotals{}
	for rows.Next() {
		var id string
		var u sessiondb.UsageTotals
		if err := rows.Scan(&id, &u.Cost, &u.InputTokens, &u.OutputTokens, &u.ReasoningTokens, &u.CacheReadTokens, &u.CacheWriteTokens); err != nil {
			t.Fatal(err)
		}
		out[id] = u
	}
	return out
}

// TestOpencodeUsageEqualsOpencodes: every imported session's usage totals
// are opencode's own (tokens and cost as opencode recorded them, the cost
// kept as recorded, never estimated).
func TestOpencodeUsageEqualsOpencodes(t *testing.T) {
	db := filepath.Join(storeDir, "opencode.db")
	s, _ := importPaths(t, db)
	ctx := context.Background()
	want := opencodeTotals(t, db)
	checked := 0
	for id, w := range want {
		if _, err := s.Get(ctx, id); errors.Is(err, sessiondb.ErrNotFound) {
			if w.InputTokens+w.OutputTokens != 0 || w.Cost != 0 {
				t.Errorf("%s not imported but opencode counts usage for it: %+v", id, w)
			}
			continue
		}
		got, err := s.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got.Calls = 0
		if math.Abs(got.Cost-w.Cost) < 1e-12 {
			got.Cost = w.Cost
		}
		if got != w {
			t.Errorf("%s: usage %+v, opencode's %+v", id, got, w)
		}
		checked++
	}
	if checked != 5 {
		t.Errorf("checked %d sessions, want 5", checked)
	}
	rows, err := s.Query(ctx, `SELECT count(*) FROM usage WHERE cost_estimated`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int
	for rows.Next() {
		rows.Scan(&n)
	}
	if n != 0 {
		t.Errorf("%d usage rows marked estimated: opencode's costs are recorded costs", n)
	}
}

// TestOpencodeExportIsOpencodes: each session imported from the database,
// exported as opencode, is byte for byte what `opencode export` printed.
func TestOpencodeExportIsOpencodes(t *testing.T) {
	s, _ := importPaths(t, filepath.Join(storeDir, "opencode.db"))
	out := t.TempDir()
	ids := []string{sesTools, sesSub, sesFail, sesCompact}
	files, err := jsonlimport.ExportWith(context.Background(), s, ids, opencode.Name, out, jsonlimport.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(ids) {
		t.Fatalf("exported %v", files)
	}
	for _, id := range ids {
		got, err := os.ReadFile(filepath.Join(out, id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(exportDir, id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: our export differs from opencode's:\n%s", id, cmp.Diff(string(want), string(got)))
		}
	}
}

// TestOpencodeExportFilesReadAsTheStore: importing the `opencode export`
// files gives each session the log that importing the database gives it,
// but for the turn that never ended, which an export (written whole)
// holds and the database (still being written, for all we know) holds
// back.
func TestOpencodeExportFilesReadAsTheStore(t *testing.T) {
	ctx := context.Background()
	fromDB, _ := importPaths(t, filepath.Join(storeDir, "opencode.db"))
	fromExport, rep := importPaths(t, exportDir)
	if len(rep.Problems) != 0 {
		t.Errorf("problems: %v", rep.Problems)
	}
	// An export is written whole: the turn opencode was killed in is read
	// as the file has it (the database holds it back).
	if cut, err := fromExport.Entries(ctx, sesCut, 1, 0); err != nil || len(cut) != 2 {
		t.Errorf("the killed session's export: %d entries, %v; want 2", len(cut), err)
	}
	for _, id := range []string{sesTools, sesSub, sesFail, sesCompact} {
		a, err := fromDB.Entries(ctx, id, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := fromExport.Entries(ctx, id, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(jsonltest.Bodies(a), jsonltest.Bodies(b)); d != "" {
			t.Errorf("%s (-database +export):\n%s", id, d)
		}
		ua, _ := fromDB.UsageTotals(ctx, id)
		ub, _ := fromExport.UsageTotals(ctx, id)
		if ua != ub {
			t.Errorf("%s usage: database %+v, export %+v", id, ua, ub)
		}
	}
}

// listing describes every file under dir: size, time and content hash.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, _ := d.Info()
		b, _ := os.ReadFile(p)
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = fmt.Sprintf("%d %s %s", fi.Size(), fi.ModTime().Format(time.RFC3339Nano), hex.EncodeToString(sum[:8]))
		return nil
	})
	return out
}

// TestOpencodeImportLeavesTheStoreAlone: importing the database (twice),
// detecting it and importing it again after its log grew create no file
// beside it and change none.
func TestOpencodeImportLeavesTheStoreAlone(t *testing.T) {
	dir := jsonltest.CopyDir(t, storeDir)
	before := listing(t, dir)
	if len(before) != 2 {
		t.Fatalf("fixture copy: %v", before)
	}
	s := jsonltest.OpenStore(t)
	ctx := context.Background()
	for range 2 {
		if _, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := jsonlimport.Detect(ctx, []string{dir}, ""); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, listing(t, dir)); d != "" {
		t.Errorf("the store's folder changed (-before +after):\n%s", d)
	}
}

// TestOpencodeDetect counts a store's sessions, not its files.
func TestOpencodeDetect(t *testing.T) {
	det, problems, err := jsonlimport.Detect(context.Background(), []string{storeDir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(det) != 1 || det[0].Format != opencode.Name || det[0].Sessions != 5 || det[0].Files != 2 || len(problems) != 0 {
		t.Errorf("detect: %+v, problems %v; want 5 opencode sessions in 2 files", det, problems)
	}
}

// writable returns a copy of the store fixture that a test may change,
// and opens it (as opencode would: WAL mode).
func writable(t *testing.T) (string, *sql.DB) {
	t.Helper()
	return writableFrom(t, storeDir)
}

// writableFrom is writable for the store in dir.
func writableFrom(t *testing.T, from string) (string, *sql.DB) {
	t.Helper()
	dir := jsonltest.CopyDir(t, from)
	path := filepath.Join(dir, "opencode.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return path, db
}

func exec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestOpencodeDamage: a message whose data is not JSON and a part whose
// data is not are problems naming them, and the rest of the session and
// the other sessions are imported; a file named opencode.db that is not a
// database is a problem, not a panic; neither stops the import.
func TestOpencodeDamage(t *testing.T) {
	path, db := writable(t)
	exec(t, db, `UPDATE message SET data = '{"role":"user", broken' WHERE id = (SELECT id FROM message WHERE session_id = ? ORDER BY time_created, id LIMIT 1 OFFSET 3)`, sesTools)
	exec(t, db, `UPDATE part SET data = 'null' WHERE id = (SELECT id FROM part WHERE session_id = ? ORDER BY id LIMIT 1 OFFSET 2)`, sesCompact)
	junk := filepath.Join(t.TempDir(), "opencode.db")
	if err := os.WriteFile(junk, []byte("not a database at all, but named like one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, rep := importPaths(t, path, junk)
	ctx := context.Background()
	if !jsonltest.HasProblem(rep.Problems, "#"+sesTools, 0, "its data is not a JSON object") {
		t.Errorf("no problem for the broken message: %v", rep.Problems)
	}
	if !jsonltest.HasProblem(rep.Problems, "#"+sesCompact, 0, "its data is not a JSON object") {
		t.Errorf("no problem for the broken part: %v", rep.Problems)
	}
	if !jsonltest.HasProblem(rep.Problems, junk, 0, "not a readable SQLite database") {
		t.Errorf("no problem for the junk database: %v", rep.Problems)
	}
	if got := transcript(t, s, sesTools); len(got) != 5 {
		t.Errorf("session with a broken message: %d messages, want the other 5: %v", len(got), got)
	}
	for _, id := range []string{sesSub, sesFail, sesCompact} {
		if _, err := s.Get(ctx, id); err != nil {
			t.Errorf("%s not imported: %v", id, err)
		}
	}
}

// TestOpencodeUnfinishedTurnIsImportedWhenItEnds: the turn opencode was
// killed in is held back; once the message is complete (opencode resumed
// and finished it) the session is imported.
func TestOpencodeUnfinishedTurnIsImportedWhenItEnds(t *testing.T) {
	path, db := writable(t)
	s := jsonltest.OpenStore(t)
	ctx := context.Background()
	if _, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	if cut, err := s.Get(ctx, sesCut); err != nil || cut.LastSeq != 0 {
		t.Fatalf("unfinished session: %+v, %v; want it without entries", cut, err)
	}
	exec(t, db, `UPDATE message SET data = json_set(data, '$.time.completed', 1796559500000, '$.finish', 'stop') WHERE session_id = ? AND json_extract(data, '$.role') = 'assistant'`, sesCut)
	rep, err := jsonlimport.Import(ctx, s, []string{path}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 1 || rep.Unchanged != 4 {
		t.Errorf("second import: %d sessions, %d unchanged; want 1 and 4", rep.Sessions, rep.Unchanged)
	}
	if got := transcript(t, s, sesCut); len(got) != 2 {
		t.Errorf("finished session: %v", got)
	}
}

// fixtureMessage is one message of the store fixture, in opencode's
// order across sessions.
type fixtureMessage struct {
	id, session, role string
	created           int64
}

func fixtureMessages(t *testing.T, db *sql.DB) []fixtureMessage {
	t.Helper()
	rows, err := db.Query(`SELECT id, session_id, json_extract(data, '$.role'), time_created FROM message ORDER BY time_created, id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []fixtureMessage
	for rows.Next() {
		var m fixtureMessage
		if err := rows.Scan(&m.id, &m.session, &m.role, &m.created); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// growthState writes into dir the store as opencode had it when it had
// written the first cut messages of the fixture (their sessions; the
// others not yet made), and, with running, while the last of them (an
// assistant message) was still being written: not completed, without its
// step-finish part.
func growthState(t *testing.T, from, dir string, msgs []fixtureMessage, cut int, running bool) {
	t.Helper()
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path, db := writableFrom(t, from)
	last := msgs[cut-1]
	for _, m := range msgs[cut:] {
		exec(t, db, `DELETE FROM part WHERE message_id = ?`, m.id)
		exec(t, db, `DELETE FROM message WHERE id = ?`, m.id)
	}
	exec(t, db, `DELETE FROM session WHERE time_created > ? AND NOT EXISTS (SELECT 1 FROM message m WHERE m.session_id = session.id)`, last.created)
	if running {
		exec(t, db, `UPDATE message SET data = json_remove(data, '$.time.completed', '$.finish') WHERE id = ?`, last.id)
		exec(t, db, `DELETE FROM part WHERE message_id = ? AND json_extract(data, '$.type') = 'step-finish'`, last.id)
	}
	db.Close()
	jsonltest.CopyFile(t, path, filepath.Join(dir, "opencode.db"))
}

// TestOpencodeGrowth: a store imported at every step opencode wrote (each
// message added, each assistant message first while it was still being
// written) into one database ends equal to one import of the final
// store: log, transcript, metadata and usage (jsonltest.GrowthSnapshot).
func TestOpencodeGrowth(t *testing.T) {
	// Every step in the long run; every fifth message in the quick loop
	// (the held-back running turns and the compaction still among them).
	step := 5
	if longtest.Enabled() {
		step = 1
	}
	if n := checkGrowth(t, storeDir, step); n != 5 {
		t.Errorf("one import: %d sessions, want 5", n)
	}
}

// checkGrowth imports the store in dir at every step-th message (0: a
// step that visits about two states; every one in the long run) into one database, then whole, and
// compares that with one import of the store; it returns the number of
// sessions.
func checkGrowth(t *testing.T, from string, step int) int {
	t.Helper()
	since := time.Now()
	_, db := writableFrom(t, from)
	msgs := fixtureMessages(t, db)
	db.Close()
	if len(msgs) == 0 {
		t.Fatalf("%s has no message", from)
	}
	if step <= 0 {
		step = max(1, len(msgs)/2)
		if longtest.Enabled() {
			step = 1
		}
	}
	live := filepath.Join(t.TempDir(), "data")
	grown := jsonltest.OpenStore(t)
	ctx := context.Background()
	for cut := 1; cut <= len(msgs); cut += step {
		for _, running := range []bool{true, false} {
			if running && msgs[cut-1].role != "assistant" {
				continue
			}
			growthState(t, from, live, msgs, cut, running)
			rep, err := jsonlimport.Import(ctx, grown, []string{live}, jsonlimport.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range rep.Problems {
				if !strings.Contains(p.Reason, jsonl.UnfinishedMarker) {
					t.Errorf("cut %d (running %v): problem %v", cut, running, p)
				}
			}
		}
	}
	// The final state: the store itself, copied into the same place.
	os.RemoveAll(live)
	for _, suffix := range []string{"", "-wal"} {
		if _, err := os.Stat(filepath.Join(from, "opencode.db"+suffix)); err == nil {
			jsonltest.CopyFile(t, filepath.Join(from, "opencode.db"+suffix), filepath.Join(live, "opencode.db"+suffix))
		}
	}
	if _, err := jsonlimport.Import(ctx, grown, []string{live}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	once := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(ctx, once, []string{live}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	want, got := jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: grown store differs from one import of the final store (-once +grown):\n%s", from, d)
	}
	return len(want)
}
