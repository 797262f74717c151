package goose_test

import (
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
	"github.com/sessiondb/sessiondb/jsonlimport/goose"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// stores are the corpus's goose databases.
func stores(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(corpus, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && filepath.Base(p) == goose.DBFile {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// oracle is what a store holds, by SQLite's own reading of its rows
// (json_valid, json_each over content_json), independent of the reader.
type oracle struct {
	sessions, messages, calls, results int
	usage                              map[string]sessiondb.UsageTotals
}

func readOracle(t *testing.T, path string) oracle {
	t.Helper()
	snap, err := foreigndb.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	db := snap.DB()
	var o oracle
	q := func(dst *int, query string) {
		if err := db.QueryRow(query).Scan(dst); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	q(&o.sessions, `SELECT count(*) FROM sessions`)
	good := `FROM messages m WHERE m.role IN ('user', 'assistant') AND json_valid(m.content_json) AND json_type(m.content_json) = 'array'`
	q(&o.messages, `SELECT count(*) `+good)
	q(&o.calls, `SELECT count(*) FROM messages m, json_each(m.content_json) j WHERE m.role IN ('user', 'assistant') AND json_valid(m.content_json)
		AND json_extract(j.value, '$.type') IN ('toolRequest', 'frontendToolRequest')`)
	q(&o.results, `SELECT count(*) FROM messages m, json_each(m.content_json) j WHERE m.role IN ('user', 'assistant') AND json_valid(m.content_json)
		AND json_extract(j.value, '$.type') = 'toolResponse'`)
	o.usage = map[string]sessiondb.UsageTotals{}
	cols := map[string]bool{}
	rows, err := db.Query(`SELECT name FROM pragma_table_info('sessions')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		rows.Scan(&c)
		cols[c] = true
	}
	rows.Close()
	cost := "0"
	if cols["accumulated_cost"] {
		cost = "ifnull(accumulated_cost, 0)"
	}
	rows, err = db.Query(`SELECT id, ifnull(accumulated_input_tokens, 0), ifnull(accumulated_output_tokens, 0), ` + cost + ` FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var u sessiondb.UsageTotals
		if err := rows.Scan(&id, &u.InputTokens, &u.OutputTokens, &u.Cost); err != nil {
			t.Fatal(err)
		}
		o.usage[id] = u
	}
	rows.Close()
	return o
}

// TestGooseCorpus imports every store and legacy file of the corpus: every
// session and readable message, every tool call paired with its result,
// each session's tokens and cost as goose recorded them (a store's
// accumulated counts, which its usage ledger sums to where it has one),
// the corpus folder unchanged, and a second import a no-op.
func TestGooseCorpus(t *testing.T) {
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	before := listing(t, corpus)
	rep, err := jsonlimport.Import(ctx, s, []string{corpus}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, listing(t, corpus)); d != "" {
		t.Errorf("the import changed the corpus folder:\n%s", d)
	}
	want := oracle{usage: map[string]sessiondb.UsageTotals{}}
	for _, st := range stores(t) {
		o := readOracle(t, st)
		want.sessions += o.sessions
		want.messages += o.messages
		want.calls += o.calls
		want.results += o.results
		for id, u := range o.usage {
			want.usage[id] = u
		}
	}
	// The legacy files: 3 sessions; 10 messages, one line torn, one
	// unreadable; 2 calls, 2 results.
	want.sessions += 3
	want.messages += 10
	want.calls += 2
	want.results += 2
	if rep.Sessions != want.sessions || rep.Entries != want.messages {
		t.Errorf("imported %d sessions, %d entries; the corpus holds %d sessions, %d messages", rep.Sessions, rep.Entries, want.sessions, want.messages)
	}
	for id, u := range want.usage {
		got, err := s.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.InputTokens != u.InputTokens || got.OutputTokens != u.OutputTokens || math.Abs(got.Cost-u.Cost) > 1e-9 {
			t.Errorf("%s: usage %+v, the store records %+v", id, got, u)
		}
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	calls, results, paired := 0, 0, 0
	for _, sess := range list {
		if sess.SourceFormat != goose.Name {
			t.Errorf("session %s: format %q", sess.ID, sess.SourceFormat)
		}
		if sess.Title == "" {
			t.Errorf("session %s has no title", sess.ID)
		}
		log, err := jsonl.ImportedLog(ctx, s, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		open := map[string]bool{}
		for _, e := range log {
			m := jsonlimport.Understand(goose.Name, e)
			for _, c := range m.Calls {
				calls++
				open[c.ID] = true
			}
			for _, r := range m.Results {
				results++
				if open[r.CallID] {
					paired++
					delete(open, r.CallID)
				}
			}
		}
	}
	t.Logf("%d stores, %d sessions, %d entries, %d/%d tool calls with results", len(stores(t)), rep.Sessions, rep.Entries, paired, calls)
	if calls != want.calls || results != want.results || paired != calls || paired != results {
		t.Errorf("%d calls, %d results, %d paired; the corpus holds %d calls and %d results", calls, results, paired, want.calls, want.results)
	}
	again, err := jsonlimport.Import(ctx, s, []string{corpus}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Entries != 0 || again.Sessions != 0 {
		t.Errorf("second import: %d sessions, %d entries", again.Sessions, again.Entries)
	}
}

// TestGooseWALOnly: the constructed v13 store's -wal holds a message and
// a usage update its main file does not; the import reads them (from a
// copy), and the main file alone lacks them.
func TestGooseWALOnly(t *testing.T) {
	ctx := context.Background()
	from := filepath.Join(corpus, "constructed-v13", "sessions", goose.DBFile)
	for _, withWAL := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "sessions")
		jsonltest.CopyFile(t, from, filepath.Join(dir, goose.DBFile))
		if withWAL {
			jsonltest.CopyFile(t, from+"-wal", filepath.Join(dir, goose.DBFile+"-wal"))
		}
		s := jsonltest.OpenStore(t)
		if _, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{}); err != nil {
			t.Fatal(err)
		}
		full, err := s.LoadFull(ctx, "20260301_3", sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		last := full.Transcript[len(full.Transcript)-1]
		has := strings.Contains(string(last.Body), "nightly build failed")
		u, _ := s.UsageTotals(ctx, "20260301_3")
		if has != withWAL || (u.InputTokens == 1200) != withWAL {
			t.Errorf("with the -wal %v: last message %s, usage %+v", withWAL, last.Body, u)
		}
	}
}

// growthState writes into dir a copy of the store at from whose sessions
// hold only their first cut messages each (in goose's order).
func growthState(t *testing.T, from, dir string, cut int) {
	t.Helper()
	os.RemoveAll(dir)
	for _, suffix := range []string{"", "-wal"} {
		if _, err := os.Stat(from + suffix); err == nil {
			jsonltest.CopyFile(t, from+suffix, filepath.Join(dir, goose.DBFile+suffix))
		}
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, goose.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM messages WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY session_id ORDER BY timestamp, id) AS n FROM messages) WHERE n > ?)`, cut); err != nil {
		t.Fatal(err)
	}
}

// TestGooseGrowth: a store imported after every message goose adds ends
// as one import of its final state: the same entries, compactions and
// usage. The quick run grows one store (longtest.Sample).
func TestGooseGrowth(t *testing.T) {
	ctx := context.Background()
	// The quick run grows one store (the v13 one holds every case: a
	// compaction, damage, commits only in the -wal), the long run all.
	for _, name := range longtest.Sample([]string{"constructed-v13", "constructed-v5", "constructed-ledger"}, 1) {
		from := filepath.Join(corpus, name, "sessions", goose.DBFile)
		since := time.Now()
		live := filepath.Join(t.TempDir(), "sessions")
		grown := jsonltest.OpenStore(t)
		for cut := 1; cut < 8; cut++ {
			growthState(t, from, live, cut)
			if _, err := jsonlimport.Import(ctx, grown, []string{live}, jsonlimport.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		growthState(t, from, live, 1<<30)
		if _, err := jsonlimport.Import(ctx, grown, []string{live}, jsonlimport.Options{}); err != nil {
			t.Fatal(err)
		}
		once := jsonltest.OpenStore(t)
		if _, err := jsonlimport.Import(ctx, once, []string{live}, jsonlimport.Options{}); err != nil {
			t.Fatal(err)
		}
		want, got := jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, grown, since)
		if len(want) == 0 {
			t.Fatal("nothing imported")
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: grown differs from one import (-once +grown):\n%s", name, d)
		}
	}
}

// listing is the names, sizes, times and contents of a folder's files.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[p] = fi.ModTime().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGooseCompactedLater: a session imported before goose compacted it
// (its first messages still shown to the model) and again after (those
// messages hidden, the summary added) ends as one import of the
// compacted state: the same transcript, compactions and usage; its log
// also keeps the three rows goose rewrote as they were.
func TestGooseCompactedLater(t *testing.T) {
	ctx := context.Background()
	from := filepath.Join(corpus, "constructed-v13", "sessions", goose.DBFile)
	live := filepath.Join(t.TempDir(), "sessions")
	since := time.Now()
	grown := jsonltest.OpenStore(t)
	growthState(t, from, live, 3)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(live, goose.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE messages SET metadata_json = '{"userVisible":true,"agentVisible":true}' WHERE session_id = '20260301_2'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := jsonlimport.Import(ctx, grown, []string{live}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	growthState(t, from, live, 1<<30)
	rep, err := jsonlimport.Import(ctx, grown, []string{live}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	once := jsonltest.OpenStore(t)
	if _, err := jsonlimport.Import(ctx, once, []string{live}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	want, got := jsonltest.GrowthSnapshot(t, once, since)["20260301_2"], jsonltest.GrowthSnapshot(t, grown, since)["20260301_2"]
	// goose rewrote the first three messages (their metadata): the log
	// keeps them as first imported, before the rows as they are now (a
	// transcript replaced keeps its old rows), and nothing else differs.
	if len(got.Log) != len(want.Log)+3 {
		t.Fatalf("log of %d entries after the compaction, want %d + the 3 rewritten", len(got.Log), len(want.Log))
	}
	for i, e := range got.Log[:3] {
		if !strings.Contains(e.Body, `"agentVisible":true`) || e.Body == want.Log[i].Body {
			t.Errorf("log entry %d: %s, want the row as it was before the compaction", i+1, e.Body)
		}
	}
	got.Log = got.Log[3:]
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("compacted after an import differs from one import (-once +grown):\n%s\nnotes %v", d, rep.Notes)
	}
}
