package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/freshstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// result is what one sessionctl invocation produced.
type result struct {
	code   int
	stdout string
	stderr string
}

// sessionctl runs the command line in-process on database db ("" for
// none) with an empty, non-terminal stdin.
func sessionctl(t testing.TB, db string, args ...string) result {
	t.Helper()
	return sessionctlIn(t, db, strings.NewReader(""), args...)
}

func sessionctlIn(t testing.TB, db string, stdin io.Reader, args ...string) result {
	t.Helper()
	if db != "" {
		args = append([]string{"--db", db}, args...)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, stdin, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// mustSucceed fails the test unless r exited 0 with nothing on stderr.
func (r result) mustSucceed(t testing.TB) result {
	t.Helper()
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	return r
}

// mustFail checks the exit code and that stderr is exactly one line
// containing want.
func (r result) mustFail(t testing.TB, code int, want string) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	if strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("stderr is not one line: %q", r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q does not contain %q", r.stderr, want)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Errorf("stderr shows a stack: %q", r.stderr)
	}
	return r
}

// decode unmarshals r's stdout into v, failing on anything but JSON.
func (r result) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("stdout is not JSON (%v):\n%s", err, r.stdout)
	}
}

// tempDB returns the path of a new, empty database file in a temp
// directory: a copy of one that sqlstore.Open created once in the test
// process (internal/freshstore), which the commands open as an existing
// database. A test of what happens where there is no database yet takes
// missingDB.
func tempDB(t testing.TB) string {
	t.Helper()
	return freshstore.Path(t, "sessions.db")
}

// missingDB returns a path in a new temp directory where no database
// exists (yet).
func missingDB(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "sessions.db")
}

// withStore opens db with the library, runs fn and closes it, so that a
// test can set up or inspect what the commands cannot.
func withStore(t testing.TB, db string, fn func(st *sqlstore.Store)) {
	t.Helper()
	st, err := sqlstore.Open(db, nil)
	if err != nil {
		t.Fatalf("open %s: %v", db, err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Errorf("close %s: %v", db, err)
		}
	}()
	fn(st)
}

// Bodies of the seeded session "chat". Odd spacing on purpose: show
// --json must return them byte for byte, not re-encoded.
var chatBodies = []string{
	`{"role":"user",  "content":"What is the capital of Australia?"}`,
	`{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"web_search","arguments":"{\"q\":\"capital of Australia\"}"}}]}`,
	`{"role":"tool","content":"Canberra is the capital\nof Australia.","tool_call_id":"call_1"}`,
	`{ "role" : "assistant", "content" : [ {"type":"thinking","thinking":"easy"}, {"type":"text","text":"Canberra."} ] }`,
	`{"role":"user","content":"Thanks!"}`,
}

var t0 = time.Date(2026, 3, 20, 14, 30, 0, 0, time.UTC)

// seed fills db with three sessions:
//
//   - "chat" (alias "aussie", title "Capital question"): chatBodies, a
//     state, an interrupt, two usage rows, updated last;
//   - "notes" (title "Release notes"): two custom entries;
//   - "empty": no entries, updated first.
func seed(t testing.TB, db string) {
	t.Helper()
	ctx := context.Background()
	withStore(t, db, func(st *sqlstore.Store) {
		mustDo := func(_ sessiondb.Session, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		mustDo(st.Create(ctx, sessiondb.Session{ID: "empty", CreatedAt: t0, UpdatedAt: t0}))
		mustDo(st.Create(ctx, sessiondb.Session{ID: "notes", Title: "Release notes", CreatedAt: t0, UpdatedAt: t0.Add(time.Minute)}))
		mustDo(st.Commit(ctx, "notes", sessiondb.Commit{
			Append: []sessiondb.Entry{
				{Kind: sessiondb.KindCustom, Body: json.RawMessage(`{"type":"label","label":"v1.2 shipped"}`), CreatedAt: t0},
				{Kind: "model_change", Body: json.RawMessage(`{"model":"gpt-5"}`), CreatedAt: t0},
			},
			Now: t0.Add(time.Minute),
		}))
		var entries []sessiondb.Entry
		for i, b := range chatBodies {
			entries = append(entries, sessiondb.Entry{Body: json.RawMessage(b), CreatedAt: t0.Add(time.Duration(i) * time.Second)})
		}
		mustDo(st.Commit(ctx, "chat", sessiondb.Commit{
			Create:    &sessiondb.Session{Title: "Capital question", Aliases: []string{"aussie"}, CreatedAt: t0},
			Append:    entries,
			State:     json.RawMessage(`{"step": 2}`),
			Interrupt: json.RawMessage(`{"pending":["call_9"]}`),
			Usage: []sessiondb.Usage{
				{Seq: 2, Provider: "openai", Model: "gpt-5", InputTokens: 100, OutputTokens: 20, Cost: 0.5, CreatedAt: t0},
				{Seq: 4, Provider: "openai", Model: "gpt-5", InputTokens: 150, OutputTokens: 30, CacheReadTokens: 7, Cost: 0.25, CreatedAt: t0},
			},
			Now: t0.Add(time.Hour),
		}))
	})
}

// transcriptBodies returns the bodies of session id's effective transcript.
func transcriptBodies(t testing.TB, db, id string) []string {
	t.Helper()
	var out []string
	withStore(t, db, func(st *sqlstore.Store) {
		entries, err := st.Load(context.Background(), id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			out = append(out, string(e.Body))
		}
	})
	return out
}

// rawExec runs queries, in order, on one plain connection to the database
// file db, behind sessionctl's back: the way damage or a hand edit changes
// a file.
func rawExec(t testing.TB, db string, queries ...string) {
	t.Helper()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1) // PRAGMAs hold for the one connection
	for _, q := range queries {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
