package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// seedRich adds to db a session "rich" with everything a copy must keep:
// pruned rows (a gap in the seqs), superseded rows, compactions with a
// summary, state, interrupt, usage, an agent checkpoint, an alias, an
// import record, and a fork "rich-fork" of it.
func seedRich(t testing.TB, db string) {
	t.Helper()
	ctx := context.Background()
	withStore(t, db, func(st *sqlstore.Store) {
		must := func(_ sessiondb.Session, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		var entries []sessiondb.Entry
		for i := 1; i <= 6; i++ {
			entries = append(entries, sessiondb.Entry{Body: json.RawMessage(fmt.Sprintf(`{"role":"user", "content":"turn %d"}`, i)), CreatedAt: t0.Add(time.Duration(i) * time.Second)})
		}
		must(st.Commit(ctx, "rich", sessiondb.Commit{
			Create: &sessiondb.Session{Title: "Rich", Aliases: []string{"rich-alias"}, Attrs: json.RawMessage(`{"model":"m"}`), CreatedAt: t0},
			Append: entries,
			Usage:  []sessiondb.Usage{{Seq: 2, Provider: "p", Model: "m", InputTokens: 11, OutputTokens: 3, CacheWriteTokens: 5, Cost: 0.125, CreatedAt: t0}},
			Source: &sessiondb.SourceFile{Path: "/src/rich.jsonl", Format: "zot", Size: 99, ModTime: t0, SHA256: "ab", Offset: 99, ImportedAt: t0},
			Now:    t0.Add(time.Minute),
		}))
		must(st.Compact(ctx, "rich", sessiondb.Compaction{KeepFromSeq: 4, Summary: []sessiondb.Entry{sessiondb.Message(`{"role":"system","content":"turns 1-3 in short"}`)}, TokensBefore: 90, TokensAfter: 30, Details: json.RawMessage(`{"why":"test"}`), CreatedAt: t0.Add(2 * time.Minute)}))
		if _, err := st.Prune(ctx, "rich"); err != nil {
			t.Fatal(err)
		}
		must(st.Truncate(ctx, "rich", 2))
		must(st.SaveState(ctx, "rich", json.RawMessage(`{"step": 6}`)))
		must(st.SaveInterrupt(ctx, "rich", json.RawMessage(`{"pending":["call_7"]}`)))
		if _, err := st.SaveCheckpoint(ctx, sessiondb.Checkpoint{ID: "cp-rich", SessionID: "rich", Label: "before tool", Metadata: json.RawMessage(`{"k":1}`)}); err != nil {
			t.Fatal(err)
		}
		must(st.Fork(ctx, "rich", 0, "rich-fork"))
		must(st.Append(ctx, "rich-fork", sessiondb.Message(`{"role":"user","content":"fork turn"}`)))
	})
}

// dumps reads every session of loc (file or URL) as Copier dumps, by ID.
func dumps(t testing.TB, loc string) map[string]sessiondb.SessionDump {
	t.Helper()
	ctx := context.Background()
	st, err := openBackend(ctx, loc, modeRead, openOptions{})
	if err != nil {
		t.Fatalf("open %s: %v", loc, err)
	}
	defer st.Close()
	out := map[string]sessiondb.SessionDump{}
	infos, _, err := st.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		d, err := st.(sessiondb.Copier).DumpSession(ctx, info.ID)
		if err != nil {
			t.Fatalf("dump %s: %v", info.ID, err)
		}
		out[info.ID] = d
	}
	return out
}

// sameDumps compares everything but the store-assigned compaction IDs.
// JSON documents are compared as bytes (bytes.Equal), not byte by byte
// through cmp's reflection, which took seconds for the samples' entries;
// two empty ones are left to EquateEmpty, as before.
func sameDumps(t testing.TB, want, got map[string]sessiondb.SessionDump) {
	t.Helper()
	rawEqual := cmp.FilterValues(func(a, b json.RawMessage) bool { return len(a) > 0 || len(b) > 0 }, cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }))
	opts := cmp.Options{cmpopts.IgnoreFields(sessiondb.Compaction{}, "ID"), cmpopts.IgnoreFields(sessiondb.Checkpoint{}, "CompactionID"), cmpopts.EquateEmpty(), rawEqual}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("sessions differ (-source +copy):\n%s", diff)
	}
}

// sameOutputs compares what the read commands print for every session.
func sameOutputs(t *testing.T, a, b string) {
	t.Helper()
	if x, y := sessionctl(t, a, "list", "--json", "--limit", "10000").mustSucceed(t).stdout, sessionctl(t, b, "list", "--json", "--limit", "10000").mustSucceed(t).stdout; x != y {
		t.Errorf("list --json differs:\n%s\n%s", x, y)
	}
	var infos []struct {
		ID           string `json:"id"`
		SourceFormat string `json:"source_format"`
	}
	sessionctl(t, a, "list", "--json", "--limit", "10000").decode(t, &infos)
	if len(infos) == 0 {
		t.Fatal("no sessions listed")
	}
	// Every session's data is compared by sameDumps; the rendering is
	// compared on every native session (the seeded ones, with forks,
	// checkpoints and compactions) and two sessions of each imported
	// format, which keeps this test to seconds under -race.
	perFormat := map[string]int{}
	for _, s := range infos {
		if s.SourceFormat != "" {
			if perFormat[s.SourceFormat] == 2 {
				continue
			}
			perFormat[s.SourceFormat]++
		}
		for _, args := range [][]string{{"show", "--json", "--", s.ID}, {"checkpoint", "list", "--json", "--", s.ID}} {
			x := sessionctl(t, a, args...).mustSucceed(t).stdout
			y := sessionctl(t, b, args...).mustSucceed(t).stdout
			if x != y {
				t.Errorf("%v differs:\n%s\n%s", args, x, y)
			}
		}
	}
	var sa, sb map[string]any
	sessionctl(t, a, "stats", "--json").mustSucceed(t).decode(t, &sa)
	sessionctl(t, b, "stats", "--json").mustSucceed(t).decode(t, &sb)
	for _, k := range []string{"sessions", "messages", "entries", "bytes", "compactions", "checkpoints", "usage", "formats"} {
		// Sums of float costs may differ in the last bit: each server
		// adds the (identical) rows in its own order.
		if !cmp.Equal(sa[k], sb[k], cmpopts.EquateApprox(0, 1e-9)) {
			t.Errorf("stats %s: %v vs %v", k, sa[k], sb[k])
		}
	}
}

// copyTotalsOf runs copy --json and returns its totals.
func copyRun(t *testing.T, from, to string) copyTotals {
	t.Helper()
	var tot copyTotals
	sessionctl(t, "", "copy", "--from", from, "--to", to, "--json").mustSucceed(t).decode(t, &tot)
	return tot
}

// sourceWithSamples is a SQLite database with the seeded sessions, the rich
// one and its fork, and every sample archive of testdata imported.
func sourceWithSamples(t *testing.T) string {
	t.Helper()
	db := tempDB(t)
	seed(t, db)
	seedRich(t, db)
	samples := filepath.Join(testdata, "samples")
	if _, err := os.Stat(samples); err == nil {
		r := sessionctl(t, db, "import", samples)
		if r.code != 0 && r.code != exitProblems {
			t.Fatalf("import samples: exit %d: %s", r.code, r.stderr)
		}
	}
	return db
}

func TestCopyRoundTripSQLitePostgresSQLite(t *testing.T) {
	longtest.Skip(t, "copies every sample session to PostgreSQL and back")
	src := sourceWithSamples(t)
	pg := pgURL(t)
	back := tempDB(t)

	want := dumps(t, src)
	tot := copyRun(t, src, pg)
	if tot.Copied != int64(len(want)) || tot.Sessions != int64(len(want)) {
		t.Fatalf("copy to PostgreSQL: %+v; want all %d sessions copied", tot, len(want))
	}
	sameDumps(t, want, dumps(t, pg))
	sameOutputs(t, src, pg)

	tot = copyRun(t, pg, back)
	if tot.Copied != int64(len(want)) {
		t.Fatalf("copy back: %+v", tot)
	}
	sameDumps(t, want, dumps(t, back))
	sameOutputs(t, src, back)
	t.Logf("round trip of %d sessions, %d entries, %d usage rows, %d checkpoints, %d compactions: identical",
		tot.Copied, tot.Entries, tot.UsageRows, tot.Checkpoints, tot.Compactions)

	// A rerun copies nothing; a session changed since copies only it.
	if tot := copyRun(t, src, pg); tot.Copied != 0 || tot.Unchanged != int64(len(want)) {
		t.Errorf("rerun: %+v; want nothing copied", tot)
	}
	withStore(t, src, func(st *sqlstore.Store) {
		if _, err := st.Append(context.Background(), "rich", sessiondb.Message(`{"role":"user","content":"later"}`)); err != nil {
			t.Fatal(err)
		}
	})
	if tot := copyRun(t, src, pg); tot.Copied != 1 || tot.Entries == 0 {
		t.Errorf("copy after one append: %+v; want exactly one session copied", tot)
	}
	sameDumps(t, dumps(t, src), dumps(t, pg))

	// The copy kept the source's compaction IDs in PostgreSQL; a new
	// compaction there must not collide with them.
	sessionctl(t, pg, "truncate", "rich-fork", "--keep", "1").mustSucceed(t)
	sessionctl(t, pg, "truncate", "rich", "--keep", "1").mustSucceed(t)
}

func TestCopySQLiteToSQLite(t *testing.T) {
	src := sourceWithSamples(t)
	dst := tempDB(t)
	copyRun(t, src, dst)
	sameDumps(t, dumps(t, src), dumps(t, dst))
	sameOutputs(t, src, dst)
}

func TestCopyLeavesDivergedSessions(t *testing.T) {
	src := tempDB(t)
	seed(t, src)
	dst := tempDB(t)
	copyRun(t, src, dst)
	withStore(t, dst, func(st *sqlstore.Store) {
		if _, err := st.Append(context.Background(), "chat", sessiondb.Message(`{"role":"user","content":"only in the copy"}`)); err != nil {
			t.Fatal(err)
		}
	})
	before := dumps(t, dst)
	sessionctl(t, "", "copy", "--from", src, "--to", dst).mustFail(t, exitError, "left alone")
	sameDumps(t, before, dumps(t, dst))
}

func TestCopyUsage(t *testing.T) {
	db := tempDB(t)
	sessionctl(t, "", "copy", "--from", db).mustFail(t, exitUsage, "--from and --to")
	sessionctl(t, "", "copy", "--from", db, "--to", db).mustFail(t, exitUsage, "same database")
	missing := filepath.Join(t.TempDir(), "missing.db")
	sessionctl(t, "", "copy", "--from", missing, "--to", db).mustFail(t, exitError, "does not exist")
	if _, err := os.Stat(missing); err == nil {
		t.Error("copy created the missing source")
	}
}

func TestPostgresCommands(t *testing.T) {
	src := tempDB(t)
	seed(t, src)
	pg := pgURL(t)
	copyRun(t, src, pg)

	if got := sessionctl(t, pg, "search", "Canberra", "--json").mustSucceed(t).stdout; !strings.Contains(got, "chat") {
		t.Errorf("search on PostgreSQL: %s", got)
	}
	sessionctl(t, pg, "doctor").mustSucceed(t)
	if out := sessionctl(t, pg, "vacuum").mustSucceed(t).stdout; !strings.Contains(out, "autovacuum") {
		t.Errorf("vacuum on PostgreSQL: %q", out)
	}
	sessionctl(t, pg, "reindex").mustSucceed(t)
	sessionctl(t, pg, "rename", "notes", "Renamed").mustSucceed(t)
	if out := sessionctl(t, pg, "sql", "SELECT title FROM sessions WHERE id = 'notes'", "--csv").mustSucceed(t).stdout; !strings.Contains(out, "Renamed") {
		t.Errorf("sql after rename: %q", out)
	}
	// READ ONLY transaction: the server refuses what the client-side check
	// lets through.
	sessionctl(t, pg, "sql", "SELECT nextval('entries_id_seq')").mustFail(t, exitError, "read-only")
	sessionctl(t, pg, "sql", "--timeout", "200ms", "SELECT pg_sleep(5)").mustFail(t, exitError, "--timeout")
	sessionctl(t, pg, "delete", "empty", "--yes").mustSucceed(t)
	sessionctl(t, pg, "show", "empty").mustFail(t, exitError, "no session")

	// $SESSIONDB_URL names the database when neither --db nor
	// $SESSIONDB_PATH does.
	t.Setenv("SESSIONDB_PATH", "")
	t.Setenv("SESSIONDB_URL", pg)
	if out := sessionctl(t, "", "list", "--json").mustSucceed(t).stdout; !strings.Contains(out, "Renamed") {
		t.Errorf("list with $SESSIONDB_URL: %s", out)
	}
}
