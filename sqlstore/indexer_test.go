package sqlstore

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/storetest"
)

// word returns a token that occurs in no other test entry.
func word(i int) string { return fmt.Sprintf("zq%05dxv", i) }

// searchSeqs returns the hits of query as "session/seq" strings.
func searchSeqs(t *testing.T, s *Store, query string) []string {
	t.Helper()
	hits, err := s.Search(context.Background(), query, sessiondb.SearchOptions{Limit: 100})
	if err != nil {
		t.Fatalf("Search(%q): %v", query, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s/%d/%.6f", h.SessionID, h.Seq, h.Score))
	}
	return out
}

// TestSearchSeesUnindexedRows: with the background indexer off, committed
// rows stay after the cursor, and Search finds and ranks them exactly as it
// does once they are indexed.
func TestSearchSeesUnindexedRows(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t, &Options{IndexDelay: -1})
	var entries []sessiondb.Entry
	for i := range 30 {
		entries = append(entries, say("user", fmt.Sprintf("%s shared marker %s", word(i), strings.Repeat("marker ", i%4))))
	}
	if _, err := s.Commit(ctx, "u", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(ctx, "u", sessiondb.Compaction{KeepFromSeq: 25,
		Summary: []sessiondb.Entry{say("system", "summary mentions marker twice: marker")}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.IndexStatus(ctx)
	if err != nil || st.Unindexed != 31 {
		t.Fatalf("IndexStatus = %+v, %v; want 31 unindexed rows (30 entries, 1 summary)", st, err)
	}
	before := searchSeqs(t, s, "marker")
	if len(before) != 31 {
		t.Fatalf("unindexed search found %d hits, want 31: %v", len(before), before)
	}
	for i := range 30 {
		if got := searchSeqs(t, s, word(i)); len(got) != 1 || !strings.HasPrefix(got[0], fmt.Sprintf("u/%d/", i+1)) {
			t.Fatalf("Search(%s) before indexing = %v", word(i), got)
		}
	}
	if err := s.CatchUpIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if st, err := s.IndexStatus(ctx); err != nil || st != (IndexStatus{}) {
		t.Fatalf("IndexStatus after CatchUpIndex = %+v, %v; want zero", st, err)
	}
	if after := searchSeqs(t, s, "marker"); !slices.Equal(after, before) {
		t.Fatalf("ranking changed with indexing:\nbefore %v\nafter  %v", before, after)
	}
	// The index alone (no tail) answers now: check it through SQL.
	var n int
	if err := s.reader.Get(&n, `SELECT count(*) FROM entries_fts WHERE entries_fts MATCH '"zq0" AND "q00"'`); err != nil || n != 30 {
		t.Fatalf("index holds %d rows for the common trigrams, %v; want 30", n, err)
	}
}

// TestIndexForgetsDeletedRows: pruned and deleted rows leave the results at
// once and the index when the indexer purges them; ids are never reused.
func TestIndexForgetsDeletedRows(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t, &Options{IndexDelay: -1})
	var entries []sessiondb.Entry
	for i := range 20 {
		entries = append(entries, say("user", word(i)+" pruneme"))
	}
	if _, err := s.Commit(ctx, "p", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
		t.Fatal(err)
	}
	if err := s.CatchUpIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Truncate(ctx, "p", 5); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Prune(ctx, "p"); err != nil || n != 15 {
		t.Fatalf("Prune = %d, %v; want 15", n, err)
	}
	if st, _ := s.IndexStatus(ctx); st.PendingDeletes != 15 {
		t.Fatalf("PendingDeletes = %d, want 15", st.PendingDeletes)
	}
	if got := searchSeqs(t, s, "pruneme"); len(got) != 5 {
		t.Fatalf("after prune: %v, want the 5 kept entries", got)
	}
	if err := s.CatchUpIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.IndexStatus(ctx); st != (IndexStatus{}) {
		t.Fatalf("IndexStatus after purge = %+v", st)
	}
	var n int
	if err := s.reader.Get(&n, `SELECT count(*) FROM entries_fts WHERE entries_fts MATCH '"pru" AND "eme"'`); err != nil || n != 5 {
		t.Fatalf("index holds %d rows for pruneme, %v; want 5", n, err)
	}
	// A new row after deleting the highest one gets a new id, so the
	// index can never attribute a purged row's trigrams to it.
	if err := s.Delete(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "q", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{say("user", "fresh")}}); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := s.reader.Get(&id, `SELECT id FROM entries WHERE session_id = 'q'`); err != nil || id <= 20 {
		t.Fatalf("new entry id = %d, %v; want > 20", id, err)
	}
	if got := searchSeqs(t, s, "pruneme"); len(got) != 0 {
		t.Fatalf("deleted session still found: %v", got)
	}
}

// TestSearchSeesOtherProcessWrites: a child process commits entries and is
// killed with SIGKILL before it indexes any of them (its indexer is off).
// Every entry it acknowledged is found by a search in this process, and
// once this process catches the index up, by the index.
func TestSearchSeesOtherProcessWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ryw.db")
	s := MustOpenStoreAt(t, path, &Options{IndexDelay: -1})
	if _, err := s.Create(ctx, sessiondb.Session{ID: "other"}); err != nil {
		t.Fatal(err)
	}
	cmd := procChild(t, "searchwriter", path, 0)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []int
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(acked) < 40 {
		i, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "acked "))
		if err != nil {
			t.Fatalf("child said %q", sc.Text())
		}
		acked = append(acked, i)
		// Read-your-writes across processes: found at once.
		if got := searchSeqs(t, s, word(i)); len(got) != 1 {
			t.Fatalf("entry %d acknowledged by the child: Search = %v", i, got)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if len(acked) < 40 {
		t.Fatalf("child acknowledged only %d entries", len(acked))
	}
	if st, _ := s.IndexStatus(ctx); st.Unindexed < int64(len(acked)) {
		t.Fatalf("Unindexed = %d after the child's %d commits, want at least that", st.Unindexed, len(acked))
	}
	if err := s.CatchUpIndex(ctx); err != nil {
		t.Fatal(err)
	}
	for _, i := range acked {
		if got := searchSeqs(t, s, word(i)); len(got) != 1 {
			t.Fatalf("entry %d after catching up: Search = %v", i, got)
		}
	}
}

// childSearchWriter appends one entry per commit with the indexer off and
// reports each acknowledged one, until it is killed.
func childSearchWriter() error {
	s, err := Open(os.Getenv(procDBEnv), &Options{IndexDelay: -1})
	if err != nil {
		return err
	}
	for i := 0; ; i++ {
		if _, err := s.Append(context.Background(), "other", say("user", word(i)+" from the child")); err != nil {
			return err
		}
		fmt.Printf("acked %d\n", i)
	}
}

// TestScanModeIsLiteral: a short term is matched literally, LIKE's
// wildcards included, and case-insensitively beyond ASCII.
func TestScanModeIsLiteral(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t, nil)
	texts := []string{`up 5% today`, `up 5x today`, `a_b`, `axb`, `back\slash`, `ÉT été`}
	var entries []sessiondb.Entry
	for _, x := range texts {
		entries = append(entries, say("user", x))
	}
	if _, err := s.Commit(ctx, "lit", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int64{`5%`: 1, `a_`: 3, `\s`: 5, `éT`: 6} {
		hits, err := s.Search(ctx, q, sessiondb.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].Seq != want {
			t.Errorf("Search(%q) = %v, want only seq %d", q, hits, want)
		}
	}
}

// TestUnscannedRedaction: with the indexer off (and so the secret scan),
// the redacted view still hands out no secret (storetest).
func TestUnscannedRedaction(t *testing.T) {
	storetest.UnscannedRedaction(t, MustOpenStore(t, &Options{IndexDelay: -1}))
}

// TestSecretScanNewRuleSet: sessions scanned by another rule set (a
// newer binary's) count as unscanned, are redacted by scanning on read,
// and are scanned again from the start, their old spans replaced.
func TestSecretScanNewRuleSet(t *testing.T) {
	ctx := t.Context()
	s := MustOpenStore(t, &Options{IndexDelay: -1})
	body := []byte(`{"role":"tool","content":"DATABASE_URL=postgres://app:pw-Xk29fLq7Zt3Rv8@db/prod"}`)
	if _, err := s.Commit(ctx, "a", sessiondb.Commit{Create: &sessiondb.Session{},
		Append: []sessiondb.Entry{{Body: body}, {Body: body}}}); err != nil {
		t.Fatal(err)
	}
	scan := func() {
		t.Helper()
		for {
			more, err := s.ScanSecrets(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !more {
				return
			}
		}
	}
	scan()
	if err := s.write(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE secret_scans SET rules = 'an older set'`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SecretStatus(ctx); err != nil || n != 2 {
		t.Fatalf("SecretStatus %d, %v: want both entries unscanned", n, err)
	}
	es, err := s.Redacted().Entries(ctx, "a", 0, 0)
	if err != nil || len(es) != 2 || strings.Contains(string(es[0].Body), "pw-Xk29") || strings.Contains(string(es[1].Body), "pw-Xk29") {
		t.Fatalf("redacted read under an older scan: %v, %v", es, err)
	}
	scan()
	found, err := s.Secrets(ctx, sessiondb.SecretQuery{})
	if err != nil || len(found) != 1 || found[0].Count != 2 || found[0].Rule != "url-password" {
		t.Fatalf("after the rescan: %+v, %v", found, err)
	}
	var spans int
	if err := s.read(ctx, func(tx *sqlx.Tx) error { return tx.GetContext(ctx, &spans, `SELECT count(*) FROM secret_spans`) }); err != nil || spans != 2 {
		t.Fatalf("%d spans after the rescan (%v), want 2", spans, err)
	}
}

// TestIndexBatchesBoundedByBytes: an indexing step takes the rows after
// the cursor up to the one whose text reaches indexBatchBytes (at least
// one row, however large), for entries with their text stored and with
// it read from the body, and for summary messages; every row is indexed
// in the end.
func TestIndexBatchesBoundedByBytes(t *testing.T) {
	ctx := context.Background()
	defer func(b int64) { indexBatchBytes = b }(indexBatchBytes)
	indexBatchBytes = 10_000
	s := MustOpenStore(t, &Options{IndexDelay: -1})
	// 1 KB rows: a plain body (text read from $.content) and a rich one
	// (text_stored); one row larger than the bound.
	var entries []sessiondb.Entry
	for i := range 40 {
		text := fmt.Sprintf("batchword%02d ", i) + strings.Repeat("x", 1000)
		if i == 25 {
			text += strings.Repeat("y", 30_000)
		}
		if i%2 == 0 {
			entries = append(entries, say("user", text))
		} else {
			body, _ := json.Marshal(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}})
			entries = append(entries, sessiondb.Message(string(body)))
		}
	}
	if _, err := s.Commit(ctx, "b", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for {
		before, err := s.IndexStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		more, err := s.indexStep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after, err := s.IndexStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, int(before.Unindexed-after.Unindexed))
		if !more {
			break
		}
		if len(sizes) > 40 {
			t.Fatalf("no end to the steps: %v", sizes)
		}
	}
	// The first step only moves the reservation over the new rows (see
	// "Search" in doc.go). Then 10,000 bytes: ten rows of ~1,020 bytes
	// reach it (the tenth passes it); row 25 (31 KB) ends its batch.
	want := []int{0, 10, 10, 6, 10, 4}
	if !slices.Equal(sizes, want) {
		t.Fatalf("rows indexed per step %v, want %v", sizes, want)
	}
	for _, i := range []int{0, 25, 39} {
		if got := searchSeqs(t, s, fmt.Sprintf("batchword%02d", i)); len(got) != 1 {
			t.Fatalf("batchword%02d: %v, want one hit", i, got)
		}
	}
}

// TestIndexHashSize: a new index file and one made before indexHashBytes
// (FTS5's default hash size) both get indexHashBytes when a writable
// Store opens them.
func TestIndexHashSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	hashSizes := func(s *Store) []int {
		var out []int
		for _, src := range ftsSources {
			var v int
			if err := s.reader.Get(&v, `SELECT v FROM search.`+src.fts+`_config WHERE k = 'hashsize'`); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := hashSizes(s); !slices.Equal(got, []int{indexHashBytes, indexHashBytes}) {
		t.Fatalf("new index file: hashsize %v, want %d", got, indexHashBytes)
	}
	// An older index file: no hashsize row (FTS5's default).
	for _, src := range ftsSources {
		if _, err := s.indexer.Exec(`DELETE FROM search.` + src.fts + `_config WHERE k = 'hashsize'`); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := hashSizes(s); !slices.Equal(got, []int{indexHashBytes, indexHashBytes}) {
		t.Fatalf("older index file reopened: hashsize %v, want %d", got, indexHashBytes)
	}
}
