package sqlstore

import (
	"database/sql"
	"encoding/json"
	"testing"
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
