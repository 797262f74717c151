package crush_test

import (
	"context"
	"database/sql"
	"encoding/json"
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
	"github.com/sessiondb/sessiondb/jsonlimport/crush"
	"github.com/sessiondb/sessiondb/jsonlimport/foreigndb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/opencodego"
)

var corpus = filepath.Join("..", "..", "testdata", "corpus")

// manifest is testdata/gen/sqlitecorpus/manifest.json.
type manifest struct {
	Stores []struct {
		Format      string  `json:"format"`
		Repository  string  `json:"repository"`
		File        string  `json:"file"`
		Sessions    int     `json:"sessions"`
		Messages    int     `json:"messages"`
		ToolCalls   int     `json:"tool_calls"`
		ToolResults int     `json:"tool_results"`
		Cost        float64 `json:"cost"`
		OnlyInWAL   int     `json:"messages_only_in_wal"`
	} `json:"stores"`
}

func readManifest(t *testing.T) manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "gen", "sqlitecorpus", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// storeCosts reads each session's cost and tokens from a store (a copy).
func storeCosts(t *testing.T, db string) map[string]sessiondb.UsageTotals {
	t.Helper()
	snap, err := foreigndb.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	rows, err := snap.DB().Query(`SELECT id, cost, prompt_tokens, completion_tokens FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]sessiondb.UsageTotals{}
	for rows.Next() {
		var id string
		var u sessiondb.UsageTotals
		if err := rows.Scan(&id, &u.Cost, &u.InputTokens, &u.OutputTokens); err != nil {
			t.Fatal(err)
		}
		out[id] = u
	}
	return out
}

// TestCrushCorpus imports every real store of the corpus (crush and the
// Go opencode, their -wal holding commits the main files lack): no
// problem, every session of every store, every message, every tool call
// paired with its result as the stores hold them, and each session's
// cost and tokens as the program recorded them.
func TestCrushCorpus(t *testing.T) {
	m := readManifest(t)
	ctx := context.Background()
	for _, format := range []string{crush.Name, opencodego.Name} {
		t.Run(format, func(t *testing.T) {
			s := jsonltest.OpenStore(t)
			dir := filepath.Join(corpus, format)
			before := listing(t, dir)
			rep, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range rep.Problems {
				t.Errorf("problem: %v", p)
			}
			if d := cmp.Diff(before, listing(t, dir)); d != "" {
				t.Errorf("the import changed the corpus folder:\n%s", d)
			}
			wantSessions, wantMessages, wantCalls, wantResults, stores, wal := 0, 0, 0, 0, 0, 0
			for _, st := range m.Stores {
				if st.Format != format {
					continue
				}
				stores++
				wantSessions += st.Sessions
				wantMessages += st.Messages
				wantCalls += st.ToolCalls
				wantResults += st.ToolResults
				if st.OnlyInWAL > 0 {
					wal++
				}
				costs := storeCosts(t, filepath.Join("..", "..", st.File))
				for id, want := range costs {
					got, err := s.UsageTotals(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					if got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens || math.Abs(got.Cost-want.Cost) > 1e-9 {
						t.Errorf("%s %s: usage %+v, the store records %+v", st.Repository, id, got, want)
					}
				}
			}
			if stores < 5 || wal < 4 {
				t.Fatalf("corpus of %s: %d stores, %d with commits only in their -wal", format, stores, wal)
			}
			if rep.Sessions != wantSessions || rep.Entries != wantMessages {
				t.Errorf("imported %d sessions, %d entries; the stores hold %d sessions, %d messages", rep.Sessions, rep.Entries, wantSessions, wantMessages)
			}
			list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			calls, results, paired := 0, 0, 0
			for _, sess := range list {
				if sess.SourceFormat != format {
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
					msg := jsonlimport.Understand(format, e)
					for _, c := range msg.Calls {
						calls++
						open[c.ID] = true
					}
					for _, r := range msg.Results {
						results++
						if open[r.CallID] {
							paired++
							delete(open, r.CallID)
						}
					}
				}
			}
			t.Logf("%s: %d stores (%d with commits only in the -wal), %d sessions, %d entries, %d/%d tool calls with results", format, stores, wal, rep.Sessions, rep.Entries, paired, calls)
			if calls != wantCalls || results != wantResults || paired != min(calls, results) {
				t.Errorf("%d calls, %d results, %d paired; the stores hold %d calls and %d results", calls, results, paired, wantCalls, wantResults)
			}
			again, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if again.Entries != 0 || again.Sessions != 0 || len(again.Problems) != 0 {
				t.Errorf("second import: %d sessions, %d entries, problems %v", again.Sessions, again.Entries, again.Problems)
			}
		})
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
			out[p] = fi.ModTime().String() + " " + string(rune(len(b))) + " " + jsonl.FileSafe(string(b[:min(len(b), 64)]), 200)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// growthState writes into live a copy of the store at from whose
// sessions hold only their first cut messages each.
func growthState(t *testing.T, from, live string, cut int) {
	t.Helper()
	os.RemoveAll(live)
	name := filepath.Base(from)
	for _, suffix := range []string{"", "-wal"} {
		if _, err := os.Stat(from + suffix); err == nil {
			jsonltest.CopyFile(t, from+suffix, filepath.Join(live, name+suffix))
		}
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(live, name))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM messages WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY session_id ORDER BY created_at, rowid) AS n FROM messages) WHERE n > ?)`, cut); err != nil {
		t.Fatal(err)
	}
}

// TestCrushGrowth: a store imported at every stage of its sessions'
// growth (each session cut after its first k messages, k growing) ends
// as one import of its final state: the same entries, compactions and
// usage.
func TestCrushGrowth(t *testing.T) {
	checkGrowth(t, 7, filepath.Join(corpus, "crush", "gleicon+mcpfier", ".crush", "crush.db"),
		filepath.Join(corpus, "opencode-go", "navicore+flag-rs", ".opencode", "opencode.db"))
}

// TestCrushGrowthCorpus is TestCrushGrowth on every store of the corpus,
// at 40 lengths spread over its longest session.
func TestCrushGrowthCorpus(t *testing.T) {
	longtest.Skip(t, "imports every store of the corpus at every length of its sessions (about a minute)")
	m := readManifest(t)
	var stores []string
	for _, st := range m.Stores {
		if st.Sessions > 0 {
			stores = append(stores, filepath.Join("..", "..", st.File))
		}
	}
	checkGrowth(t, 0, stores...)
}

func checkGrowth(t *testing.T, step int, stores ...string) {
	t.Helper()
	for _, from := range stores {
		longest := 0
		snap, err := foreigndb.Open(context.Background(), from)
		if err != nil {
			t.Fatal(err)
		}
		if err := snap.DB().QueryRow(`SELECT ifnull(max(n), 0) FROM (SELECT count(*) AS n FROM messages GROUP BY session_id)`).Scan(&longest); err != nil {
			t.Fatal(err)
		}
		snap.Close()
		every := step
		if every <= 0 {
			every = max(1, longest/40)
		}
		since := time.Now()
		ctx := context.Background()
		live := filepath.Join(t.TempDir(), "project", filepath.Base(filepath.Dir(from)))
		grown := jsonltest.OpenStore(t)
		for cut := 1; cut < longest; cut += every {
			growthState(t, from, live, cut)
			rep, err := jsonlimport.Import(ctx, grown, []string{live}, jsonlimport.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range rep.Problems {
				t.Errorf("cut %d: problem %v", cut, p)
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
			t.Errorf("%s: grown differs from one import (-once +grown):\n%s", from, d)
		}
	}
}

// TestCrushUnfinishedMessage: the session's last assistant message
// without a finish part is held back while it is recent (the program is
// streaming it), and imported as abandoned once it is old.
func TestCrushUnfinishedMessage(t *testing.T) {
	from := filepath.Join(corpus, "crush", "gleicon+mcpfier", ".crush", "crush.db")
	live := filepath.Join(t.TempDir(), ".crush")
	growthState(t, from, live, 1<<30)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(live, "crush.db"))
	if err != nil {
		t.Fatal(err)
	}
	var sid string
	if err := db.QueryRow(`SELECT session_id FROM messages ORDER BY created_at DESC LIMIT 1`).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	nowSec := time.Now().Unix()
	if _, err := db.Exec(`INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES ('streaming', ?, 'assistant', '[{"type":"text","data":{"text":"half"}}]', 'm', ?, ?)`, sid, nowSec, nowSec); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, []string{live}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	held := false
	for _, p := range rep.Problems {
		held = held || strings.HasPrefix(p.Reason, jsonl.UnfinishedMarker)
	}
	if !held {
		t.Fatalf("the streaming message was not held back: %v", rep.Problems)
	}
	crush.InFlightFor = 0
	defer func() { crush.InFlightFor = 10 * time.Minute }()
	rep, err = jsonlimport.Import(context.Background(), s, []string{live}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 || rep.Entries != 1 {
		t.Fatalf("once old: %d entries, problems %v", rep.Entries, rep.Problems)
	}
}
