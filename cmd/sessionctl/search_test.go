package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/sqlstore"
)

func TestSearch(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	var hits []hitJSON
	sessionctl(t, db, "search", "Canberra", "--json").mustSucceed(t).decode(t, &hits)
	if len(hits) != 2 {
		t.Fatalf("search Canberra: %+v", hits)
	}
	seqs := map[int64]bool{}
	for _, h := range hits {
		if h.SessionID != "chat" || h.SessionTitle != "Capital question" || !strings.Contains(h.Snippet, "**Canberra**") {
			t.Errorf("hit %+v", h)
		}
		seqs[h.Seq] = true
	}
	if !seqs[3] || !seqs[4] {
		t.Errorf("hits at %v, want seq 3 and 4", seqs)
	}

	hits = nil
	sessionctl(t, db, "search", "Canberra", "--role", "tool", "--json").mustSucceed(t).decode(t, &hits)
	if len(hits) != 1 || hits[0].Seq != 3 {
		t.Errorf("--role tool: %+v", hits)
	}
	hits = nil
	sessionctl(t, db, "search", "Canberra", "--session", "notes", "--json").mustSucceed(t).decode(t, &hits)
	if hits == nil || len(hits) != 0 {
		t.Errorf("--session notes: %+v", hits)
	}

	// Piped: the snippet as plain text, no markers, no escapes.
	r := sessionctl(t, db, "search", "shipped").mustSucceed(t)
	if !strings.Contains(r.stdout, "SESSION") || !strings.Contains(r.stdout, "notes ") || !strings.Contains(r.stdout, "v1.2 shipped") ||
		strings.Contains(r.stdout, "**") || strings.Contains(r.stdout, "\x1b") {
		t.Errorf("search table:\n%s", r.stdout)
	}
	// On a terminal: the match in bold.
	if out := runAt(t, db, 100, "search", "shipped"); !strings.Contains(out, "v1.2 "+boldOn+"shipped"+boldOff) {
		t.Errorf("search on a terminal:\n%q", out)
	}
	r = sessionctl(t, db, "search", "zebra").mustSucceed(t)
	if r.stdout != "no matches for \"zebra\"\n" {
		t.Errorf("no match: %q", r.stdout)
	}
	// Query syntax in user input is just text.
	sessionctl(t, db, "search", `"unbalanced AND (`, "--json").mustSucceed(t)
	sessionctl(t, db, "search", "Canberra", "--session", "nope").mustFail(t, exitError, `no session "nope"`)
	sessionctl(t, db, "search", "x", "--limit", "100000").mustFail(t, exitUsage, "--limit must be at most")
}

// TestReindexRepairsSearch: a damaged index config makes search fail with
// a corrupt-database error; reindex rebuilds the index from the log.
func TestReindexRepairsSearch(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	sessionctl(t, db, "reindex", "--catch-up").mustSucceed(t) // search reads the index
	rawExec(t, sqlstore.IndexPath(db), `UPDATE entries_fts_config SET v = 0 WHERE k = 'version'`)
	sessionctl(t, db, "search", "Canberra").mustFail(t, exitError, "corrupt")
	var checks []checkResult
	sessionctl(t, db, "doctor", "--json").mustFail(t, exitError, "check(s) failed").decode(t, &checks)
	for _, c := range checks {
		if c.Check == "integrity" && (c.Status != checkFail || !strings.Contains(c.Detail, "sessionctl reindex")) {
			t.Errorf("doctor integrity: %+v, want a fail that says to run sessionctl reindex", c)
		}
	}

	r := sessionctl(t, db, "reindex").mustSucceed(t)
	if !strings.Contains(r.stdout, "rebuilt the search index of "+db+"; after: 0 rows not indexed, 0 deleted rows not purged\n") {
		t.Errorf("reindex: %q", r.stdout)
	}
	var hits []hitJSON
	sessionctl(t, db, "search", "Canberra", "--json").mustSucceed(t).decode(t, &hits)
	if len(hits) != 2 {
		t.Errorf("search after reindex: %+v", hits)
	}
	sessionctl(t, db, "reindex", "--reextract").mustSucceed(t)
	hits = nil
	sessionctl(t, db, "search", "Canberra", "--role", "tool", "--json").mustSucceed(t).decode(t, &hits)
	if len(hits) != 1 || hits[0].Seq != 3 {
		t.Errorf("--role tool after reindex --reextract: %+v", hits)
	}
	sessionctl(t, db, "doctor").mustSucceed(t)
}

// TestIndexLagReported: stats, doctor and reindex --catch-up report how far
// the search index lags behind the log, and --catch-up closes the gap.
func TestIndexLagReported(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	// Rows a crashed writer committed but never indexed: move the cursor
	// back, as if the index had never seen them.
	rawExec(t, sqlstore.IndexPath(db), `UPDATE indexed SET through = 0`)
	rawExec(t, sqlstore.IndexPath(db), `INSERT INTO entries_fts (entries_fts) VALUES ('delete-all')`)
	var st statsReport
	sessionctl(t, db, "stats", "--json").mustSucceed(t).decode(t, &st)
	if st.Unindexed != st.Entries || st.Entries == 0 {
		t.Fatalf("stats: %d unindexed of %d entries, want all", st.Unindexed, st.Entries)
	}
	var hits []hitJSON
	sessionctl(t, db, "search", "Canberra", "--json").mustSucceed(t).decode(t, &hits)
	if len(hits) != 2 {
		t.Errorf("search of unindexed rows: %+v, want 2 hits", hits)
	}
	var checks []checkResult
	sessionctl(t, db, "doctor", "--json").mustSucceed(t).decode(t, &checks)
	found := false
	for _, c := range checks {
		if c.Check == "search index" {
			found = true
			if !strings.Contains(c.Detail, fmt.Sprintf("%d rows not indexed yet", st.Entries)) {
				t.Errorf("doctor search index: %+v", c)
			}
		}
	}
	if !found {
		t.Error("doctor has no search index check")
	}
	r := sessionctl(t, db, "reindex", "--catch-up").mustSucceed(t)
	if !strings.Contains(r.stdout, fmt.Sprintf("before: %d rows not indexed", st.Entries)) ||
		!strings.Contains(r.stdout, "caught up the search index of "+db+"; after: 0 rows not indexed") {
		t.Errorf("reindex --catch-up: %q", r.stdout)
	}
	hits = nil
	sessionctl(t, db, "search", "Canberra", "--json").mustSucceed(t).decode(t, &hits)
	if len(hits) != 2 {
		t.Errorf("search after catching up: %+v, want 2 hits", hits)
	}
}
