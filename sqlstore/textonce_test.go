package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/engine"
)

var contentSeeds = []string{
	`{"role":"user","content":"plain"}`,
	`{"content":"line\nbreak \"q\" \\ \/ \t"}`,
	`{"content":"\u00e9"}`,
	`{"content":"lone \ud800"}`,
	`{"content":"a","content":"b"}`,
	`{"con\u0074ent":"x"}`,
	`{"a":{"content":"nested"},"content":"top"}`,
	`{"a":["content","x"],"content":"top"}`,
	`{"content":["text"]}`,
	`{"content":5}`,
	`{"content":null}`,
	`{"content":""}`,
	`"content"`,
	`["content","x"]`,
	`  {"content" : "spaced" }  `,
	"{\"content\":\"bad \xff utf8\"}",
}

// TestContentText checks contentText against SQLite's own json_extract on
// fixed bodies (FuzzContentText does it on generated ones).
func TestContentText(t *testing.T) {
	db := sqliteMem(t)
	want := map[string]bool{ // bodies contentText must be sure of
		`{"role":"user","content":"plain"}`:          true,
		`{"content":"line\nbreak \"q\" \\ \/ \t"}`:   true,
		`{"a":{"content":"nested"},"content":"top"}`: true,
		`{"a":["content","x"],"content":"top"}`:      true,
		`{"content":""}`:                             true,
		`  {"content" : "spaced" }  `:                true,
	}
	for _, body := range contentSeeds {
		_, ok := contentText([]byte(body))
		if ok != want[body] {
			t.Errorf("contentText(%s): ok %v, want %v", body, ok, want[body])
		}
		checkContentText(t, db, []byte(body))
	}
}

// FuzzContentText checks that whenever contentText is sure of a body's
// content, SQLite's json_extract(body, '$.content') agrees byte for byte:
// a stored entry's text column (generated from it) is then exact.
func FuzzContentText(f *testing.F) {
	for _, s := range contentSeeds {
		f.Add([]byte(s))
	}
	db := sqliteMem(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		checkContentText(t, db, body)
	})
}

func checkContentText(t *testing.T, db *sql.DB, body []byte) {
	t.Helper()
	s, ok := contentText(body)
	if !ok {
		return
	}
	if !json.Valid(body) {
		t.Fatalf("contentText(%q) sure of an invalid body", body)
	}
	var got sql.NullString
	if err := db.QueryRow(`SELECT json_extract(?, '$.content')`, string(body)).Scan(&got); err != nil {
		t.Fatalf("json_extract(%q): %v (contentText was sure: %q)", body, err, s)
	}
	if !got.Valid || got.String != s {
		t.Fatalf("body %q: contentText %q, SQLite json_extract %q (valid %v)", body, s, got.String, got.Valid)
	}
}

// sqliteMem opens an in-memory SQLite database for expression checks.
func sqliteMem(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	return db
}

// FuzzUnquote checks unquote against json.Unmarshal on every string
// literal contentText would hand it (valid JSON from quote to quote, valid
// UTF-8, no \u).
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `""`, `"\\"`, `"é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		if !json.Valid(raw) || json.Unmarshal(raw, &want) != nil || !utf8.Valid(raw) ||
			bytes.Contains(raw, []byte(`\u`)) || raw[0] != '"' || raw[len(raw)-1] != '"' {
			return // not a literal as contentText passes it (quote to quote)
		}
		got, ok := unquote(raw)
		if !ok || got != want {
			t.Fatalf("unquote(%q) = %q, %v; json.Unmarshal %q", raw, got, ok, want)
		}
	})
}

// TestTextDecidedBeforeWrite checks that the text column holds what the
// extractor gives for the body on every write path, now that the text
// and whether it is stored are decided before the write transaction
// (engine.DescribeAll): the append fast path, the general commit path,
// CommitMany (large enough to describe on several goroutines), SaveFull's
// history, each with the default extractor and another one.
func TestTextDecidedBeforeWrite(t *testing.T) {
	ctx := context.Background()
	bodies := []string{
		`{"role":"user","content":"plain walrus"}`,
		`{"role":"user","content":"line\nbreak \"quoted\" \\ \/ \t é walrus"}`,
		`{"role":"user","content":"escaped \u00e9 walrus"}`,
		`{"role":"user","content":"  padded walrus  "}`,
		`{"role":"assistant","content":[{"type":"text","text":"part walrus"}]}`,
		`{"role":"user","content":"x","title":"walrus title"}`,
		`"just a walrus string"`,
	}
	entries := func() []sessiondb.Entry {
		out := make([]sessiondb.Entry, len(bodies))
		for i, b := range bodies {
			out[i] = sessiondb.Entry{Body: []byte(b)}
		}
		return out
	}
	upper := func(kind string, body json.RawMessage) (string, string) {
		role, text := sessiondb.DefaultExtractor(kind, body)
		return role, strings.ToUpper(text)
	}
	for _, ex := range []struct {
		name string
		fn   sessiondb.Extractor
	}{{"default", sessiondb.DefaultExtractor}, {"upper", upper}} {
		t.Run(ex.name, func(t *testing.T) {
			s := MustOpenStore(t, &Options{IndexDelay: -1, Extractor: ex.fn})
			if _, err := s.Create(ctx, sessiondb.Session{ID: "append"}); err != nil {
				t.Fatal(err)
			}
			for _, e := range entries() {
				if _, err := s.Append(ctx, "append", e); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Commit(ctx, "general", sessiondb.Commit{
				CreateIfMissing: &sessiondb.Session{Title: "t"}, Append: entries()}); err != nil {
				t.Fatal(err)
			}
			var many []sessiondb.SessionCommit
			for i := 0; i*len(bodies) < 2*engine.DescribeParallelMin; i++ {
				many = append(many, sessiondb.SessionCommit{ID: fmt.Sprintf("many%03d", i),
					Commit: sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries()}})
			}
			if _, err := s.CommitMany(ctx, many); err != nil {
				t.Fatal(err)
			}
			if _, err := s.SaveFull(ctx, sessiondb.Session{ID: "saved"}, entries(), nil); err != nil {
				t.Fatal(err)
			}
			rows, err := s.writer.QueryContext(ctx, `SELECT session_id, seq, body, text, text_stored IS NOT NULL FROM entries ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n := 0
			for ; rows.Next(); n++ {
				var id, body, text string
				var seq int64
				var stored bool
				if err := rows.Scan(&id, &seq, &body, &text, &stored); err != nil {
					t.Fatal(err)
				}
				_, want := ex.fn("message", []byte(body))
				if text != want {
					t.Errorf("%s/%d %s: text %q, want %q", id, seq, body, text, want)
				}
				content, derivable := contentText([]byte(body))
				if wantStored := !derivable || content != want; stored != wantStored {
					t.Errorf("%s/%d %s: text stored %v, want %v", id, seq, body, stored, wantStored)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if want := (3 + len(many)) * len(bodies); n != want {
				t.Fatalf("%d entries, want %d", n, want)
			}
		})
	}
}

// TestExtractorPanic checks that a panicking extractor, now run before
// the write transaction, still fails the write with an error and changes
// nothing, on every path (one goroutine or several).
func TestExtractorPanic(t *testing.T) {
	ctx := context.Background()
	boom := func(kind string, body json.RawMessage) (string, string) {
		if bytes.Contains(body, []byte("boom")) {
			panic("extractor boom")
		}
		return sessiondb.DefaultExtractor(kind, body)
	}
	s := MustOpenStore(t, &Options{IndexDelay: -1, Extractor: boom})
	if _, err := s.Create(ctx, sessiondb.Session{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	bad := sessiondb.Entry{Body: []byte(`{"role":"user","content":"boom"}`)}
	ok := sessiondb.Entry{Body: []byte(`{"role":"user","content":"fine"}`)}
	if _, err := s.Append(ctx, "a", ok, bad); err == nil || !strings.Contains(err.Error(), "extractor boom") {
		t.Fatalf("append: %v, want the panic as an error", err)
	}
	var many []sessiondb.SessionCommit
	for i := range 2 * engine.DescribeParallelMin {
		e := ok
		if i == engine.DescribeParallelMin {
			e = bad
		}
		many = append(many, sessiondb.SessionCommit{ID: fmt.Sprintf("m%03d", i),
			Commit: sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{e}}})
	}
	if _, err := s.CommitMany(ctx, many); err == nil || !strings.Contains(err.Error(), "extractor boom") {
		t.Fatalf("commit many: %v, want the panic as an error", err)
	}
	var n int
	if err := s.writer.GetContext(ctx, &n, `SELECT (SELECT count(*) FROM entries) + (SELECT count(*) FROM sessions)`); err != nil || n != 1 {
		t.Fatalf("%d rows after the failed writes (want only session a), %v", n, err)
	}
}
