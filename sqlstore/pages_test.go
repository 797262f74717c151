package sqlstore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// walFrames is what the WAL holds after some commits: every frame's page
// number, in order, and the page size.
type walFrames struct {
	pages    []uint32
	pageSize int
}

// truncateWAL checkpoints the database at path and empties its WAL, so that
// the WAL then holds exactly the frames of the commits that follow.
func truncateWAL(tb testing.TB, db *sql.DB) {
	tb.Helper()
	var busy, logFrames, done int
	if err := db.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		tb.Fatal(err)
	}
	if busy != 0 {
		tb.Fatalf("wal_checkpoint(TRUNCATE) was blocked (busy=%d)", busy)
	}
}

// readWAL parses the WAL file of the database at path (see
// https://sqlite.org/fileformat2.html#walformat): a 32-byte header, then
// frames of a 24-byte header (page number first) and one page.
func readWAL(tb testing.TB, path string) walFrames {
	tb.Helper()
	b, err := os.ReadFile(path + "-wal")
	if err != nil {
		tb.Fatal(err)
	}
	if len(b) < 32 {
		return walFrames{}
	}
	w := walFrames{pageSize: int(binary.BigEndian.Uint32(b[8:12]))}
	for off := 32; off+24+w.pageSize <= len(b); off += 24 + w.pageSize {
		w.pages = append(w.pages, binary.BigEndian.Uint32(b[off:off+4]))
	}
	return w
}

// pageOwners names the b-tree (table or index) every page of the database
// belongs to, from the dbstat virtual table.
func pageOwners(tb testing.TB, db *sql.DB) map[uint32]string {
	tb.Helper()
	rows, err := db.Query("SELECT name, pageno FROM dbstat")
	if err != nil {
		tb.Fatalf("dbstat: %v", err)
	}
	defer rows.Close()
	out := map[uint32]string{}
	for rows.Next() {
		var name string
		var pg uint32
		if err := rows.Scan(&name, &pg); err != nil {
			tb.Fatal(err)
		}
		out[pg] = name
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// appendPages appends n entries of bodySize bytes, one commit each, to a
// session that already holds warm entries, and returns the frames the
// appends wrote to the WAL and which b-tree each page belongs to, summed
// over the appends.
func appendPages(tb testing.TB, opts Options, bodySize, warm, n int) (frames walFrames, byOwner map[string]int) {
	tb.Helper()
	ctx := context.Background()
	opts.IndexDelay = -1 // the background indexer's own commits are not an append's
	s := MustOpenStore(tb, &opts)
	// A new database holds about ten free pages, left by the FTS5 tables
	// that migration 4 created and migration 11 moved to the index file.
	// While an append takes its new leaf from the free list, that costs
	// one more entries page per new leaf (measured: 63 writes of entries
	// in 50 appends, 57 without free pages); they are used up within the
	// first seventy appends. The count is of the steady state.
	if err := s.Vacuum(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Create(ctx, sessiondb.Session{ID: "pages"}); err != nil {
		tb.Fatal(err)
	}
	// A second session, so that the session row is not alone on its page.
	if _, err := s.Create(ctx, sessiondb.Session{ID: "other"}); err != nil {
		tb.Fatal(err)
	}
	for i := range warm {
		if _, err := s.Append(ctx, "pages", sessiondb.Entry{Body: benchBody(bodySize, fmt.Sprint("warm", i))}); err != nil {
			tb.Fatal(err)
		}
	}
	db, err := sql.Open("sqlite", s.Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	truncateWAL(tb, db)
	for i := range n {
		if _, err := s.Append(ctx, "pages", sessiondb.Entry{Body: benchBody(bodySize, fmt.Sprint("append", i))}); err != nil {
			tb.Fatal(err)
		}
	}
	frames = readWAL(tb, s.Path())
	owners := pageOwners(tb, db)
	byOwner = map[string]int{}
	for _, pg := range frames.pages {
		name := owners[pg]
		if name == "" {
			name = fmt.Sprintf("page %d (free or new)", pg)
		}
		byOwner[name]++
	}
	return frames, byOwner
}

// TestAppendPages counts the b-tree pages one durable append of a 1 KB
// message writes to the WAL (every page a commit changes is one WAL frame
// of the page size): the entry's row, the entries (session_id, seq) index,
// the session row (its counters) and its updated_at index. It fails when
// an append writes more pages than those, which is the write amplification
// issue 26 removed (sqlite_sequence of AUTOINCREMENT was a fifth page).
func TestAppendPages(t *testing.T) {
	const n = 50
	frames, byOwner := appendPages(t, Options{}, 1024, 20, n)
	perAppend := float64(len(frames.pages)) / n
	t.Logf("%d appends of 1 KB: %d WAL frames of %d bytes, %.2f per append, %.0f bytes of WAL per append; by b-tree: %s",
		n, len(frames.pages), frames.pageSize, perAppend, perAppend*float64(24+frames.pageSize), owners(byOwner))
	// Four pages per append: the entries leaf, the (session_id, seq)
	// index leaf, the sessions leaf and the sessions_by_updated leaf; and
	// when the entries leaf is full, a new leaf, its parent and page 1
	// (the file grew). A row of a 1 KB message holds its body only (its
	// text is the body's content: see entryText), seven to an 8 KB page.
	allowed := map[string]int{"entries": n + n/4, "sqlite_autoindex_entries_1": n, "sessions": n,
		"sessions_by_updated": n, "sqlite_schema": n / 4}
	for name, k := range byOwner {
		if k > allowed[name] {
			t.Errorf("%d appends wrote %s %d times (want at most %d)", n, name, k, allowed[name])
		}
	}
	if perAppend > 4.5 {
		t.Errorf("an append writes %.2f pages (want at most 4.5): %s", perAppend, owners(byOwner))
	}
	if byOwner["sqlite_sequence"] > 0 {
		t.Errorf("appends wrote sqlite_sequence %d times: an entry id must not need a counter row", byOwner["sqlite_sequence"])
	}
}

// BenchmarkAppendPages reports the WAL frames and bytes one durable append
// writes, at 1 KB and 10 KB messages.
func BenchmarkAppendPages(b *testing.B) {
	for _, size := range []int{1024, 10240} {
		b.Run(fmt.Sprintf("%dKB", size/1024), func(b *testing.B) {
			const n = 100
			var frames walFrames
			var byOwner map[string]int
			for b.Loop() {
				frames, byOwner = appendPages(b, Options{}, size, 20, n)
			}
			b.ReportMetric(float64(len(frames.pages))/n, "frames/append")
			b.ReportMetric(float64(len(frames.pages)*(24+frames.pageSize))/n, "walB/append")
			b.Logf("page size %d: %s", frames.pageSize, owners(byOwner))
		})
	}
}

// owners formats per-b-tree frame counts, largest first.
func owners(m map[string]int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// TestEntryIDsStayAboveCursor deletes the highest, indexed entries and
// writes again through every path that inserts entries (append, fork,
// copy): no new row may take an id at or below the search cursor (the
// indexer would never index it), and search finds every new row. A row
// inserted without an id by another writer is refused when SQLite's own
// choice would fall at or below the cursor.
func TestEntryIDsStayAboveCursor(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t, &Options{IndexDelay: -1})
	if _, err := s.Create(ctx, sessiondb.Session{ID: "keep"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "keep", sessiondb.Entry{Body: []byte(`{"role":"user","content":"kept row"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, sessiondb.Session{ID: "gone"}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := s.Append(ctx, "gone", sessiondb.Entry{Body: []byte(fmt.Sprintf(`{"role":"user","content":"gone %d"}`, i))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CatchUpIndex(ctx); err != nil {
		t.Fatal(err)
	}
	dump, err := s.DumpSession(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	var cursor, maxID int64
	if err := s.writer.GetContext(ctx, &cursor, `SELECT indexed_through FROM search_index WHERE source = 'entries'`); err != nil {
		t.Fatal(err)
	}
	if err := s.writer.GetContext(ctx, &maxID, `SELECT max(id) FROM entries`); err != nil {
		t.Fatal(err)
	}
	if cursor != 4 || maxID != 1 {
		t.Fatalf("after deleting the top rows: cursor %d, max id %d (want 4, 1)", cursor, maxID)
	}

	// Another writer's insert without an id would take 2: refused.
	_, err = s.writer.ExecContext(ctx, `INSERT INTO entries (session_id, seq, kind, text_stored, body, created_at)
		VALUES ('keep', 99, 'message', '', '{}', 'x')`)
	if err == nil || !strings.Contains(err.Error(), "indexed_through") {
		t.Fatalf("insert below the cursor: %v, want the trigger's refusal", err)
	}

	if _, err := s.Append(ctx, "keep", sessiondb.Entry{Body: []byte(`{"role":"user","content":"walrus appended"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork(ctx, "keep", 0, "forked"); err != nil {
		t.Fatal(err)
	}
	dump.Session.ID = "copied"
	for i := range dump.Entries {
		dump.Entries[i].Body = []byte(fmt.Sprintf(`{"role":"user","content":"walrus copied %d"}`, i))
	}
	if _, err := s.PutSession(ctx, dump, nil); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := s.writer.SelectContext(ctx, &ids, `SELECT id FROM entries WHERE id > 1 ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 6 || ids[0] <= cursor {
		t.Fatalf("new entry ids %v: want 6 ids, all above the cursor %d", ids, cursor)
	}
	hits, err := s.Search(ctx, "walrus", sessiondb.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 {
		t.Fatalf("search before indexing found %d rows, want 5 (append, fork, 3 copied)", len(hits))
	}
	if err := s.CatchUpIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if hits, err = s.Search(ctx, "walrus", sessiondb.SearchOptions{}); err != nil || len(hits) != 5 {
		t.Fatalf("search after indexing found %d rows (%v), want 5", len(hits), err)
	}
}

// TestTextStoredOnce checks that an entry whose extracted text is its
// body's content string stores no second copy, that one whose text
// differs (trimmed, escaped, several parts, another extractor) stores it,
// and that the text column and the transcript view show the extracted
// text for both.
func TestTextStoredOnce(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t, &Options{IndexDelay: -1})
	if _, err := s.Create(ctx, sessiondb.Session{ID: "t"}); err != nil {
		t.Fatal(err)
	}
	bodies := []struct {
		body   string
		stored bool // a second copy of the text is expected
	}{
		{`{"role":"user","content":"plain walrus"}`, false},
		{`{"role":"user","content":"line\nbreak \"quoted\" é walrus"}`, false},
		{`{"role":"user","content":"escaped \u00e9 walrus"}`, true}, // stored: \u escapes are not compared
		{`{"role":"user","content":"  padded walrus  "}`, true},
		{`{"role":"assistant","content":[{"type":"text","text":"part walrus"}]}`, true},
		{`{"role":"user","content":"lone \ud800 surrogate walrus"}`, true},
		{`{"role":"user","content":"x","title":"walrus title"}`, true},
		{`"just a walrus string"`, true},
	}
	for _, b := range bodies {
		if _, err := s.Append(ctx, "t", sessiondb.Entry{Body: []byte(b.body)}); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.writer.QueryContext(ctx, `SELECT e.seq, e.body, e.text_stored IS NOT NULL, e.text, tr.text
		FROM entries e JOIN transcript tr ON tr.session_id = e.session_id AND tr.seq = e.seq ORDER BY e.seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var seq int64
		var body, text, viewText string
		var stored bool
		if err := rows.Scan(&seq, &body, &stored, &text, &viewText); err != nil {
			t.Fatal(err)
		}
		_, want := sessiondb.DefaultExtractor("message", []byte(body))
		if text != want || viewText != want {
			t.Errorf("entry %d %s: text %q, transcript %q, want %q", seq, body, text, viewText, want)
		}
		if stored != bodies[i].stored {
			t.Errorf("entry %d %s: text stored separately %v, want %v", seq, body, stored, bodies[i].stored)
		}
	}
	if err := rows.Err(); err != nil || i != len(bodies) {
		t.Fatalf("%d rows, %v", i, err)
	}
	for _, indexed := range []bool{false, true} {
		hits, err := s.Search(ctx, "walrus", sessiondb.SearchOptions{})
		if err != nil || len(hits) != len(bodies) {
			t.Fatalf("search (indexed %v) found %d of %d rows: %v", indexed, len(hits), len(bodies), err)
		}
		if err := s.CatchUpIndex(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// Re-extracting with another extractor stores every text that is no
	// longer the content; back with the default, only those that differ.
	upper := func(kind string, body json.RawMessage) (string, string) {
		role, text := sessiondb.DefaultExtractor(kind, body)
		return role, strings.ToUpper(text)
	}
	path := s.Path()
	for _, ex := range []struct {
		name   string
		fn     sessiondb.Extractor
		stored int
	}{{"upper", upper, len(bodies)}, {"default", sessiondb.DefaultExtractor, 6}} {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = MustOpenStoreAt(t, path, &Options{IndexDelay: -1, Extractor: ex.fn})
		if err := s.Reindex(ctx, true); err != nil {
			t.Fatal(err)
		}
		var stored int
		if err := s.writer.GetContext(ctx, &stored, `SELECT count(*) FROM entries WHERE text_stored IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
		if stored != ex.stored {
			t.Errorf("%s extractor: %d texts stored separately, want %d", ex.name, stored, ex.stored)
		}
		var got []string
		if err := s.writer.SelectContext(ctx, &got, `SELECT text FROM transcript WHERE session_id = 't' ORDER BY seq`); err != nil {
			t.Fatal(err)
		}
		for i, b := range bodies {
			if _, want := ex.fn("message", []byte(b.body)); got[i] != want {
				t.Errorf("%s extractor, entry %d: text %q, want %q", ex.name, i+1, got[i], want)
			}
		}
		if hits, err := s.Search(ctx, "WALRUS", sessiondb.SearchOptions{}); err != nil || len(hits) != len(bodies) {
			t.Errorf("%s extractor: search found %d of %d rows: %v", ex.name, len(hits), len(bodies), err)
		}
	}
}
