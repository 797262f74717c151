package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	pgmigrations "github.com/sessiondb/sessiondb/migrations/postgres"
)

func TestOpenRefusesNonURL(t *testing.T) {
	for _, u := range []string{"", "sessions.db", "file:x.db", "mysql://x"} {
		if _, err := Open(t.Context(), u, nil); !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want ErrInvalid", u, err)
		}
	}
}

func TestMigrationsUpDownUp(t *testing.T) {
	u := newSchema(t)
	s := mustOpenURL(t, u, &Options{NoMigrate: true})
	ctx := t.Context()
	p, err := s.Provider(ctx)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := pgmigrations.Latest()
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"up", "down", "up"} {
		switch step {
		case "up":
			_, err = p.Up(ctx)
		case "down":
			_, err = p.DownTo(ctx, 0)
		}
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		v, err := s.SchemaVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := latest
		if step == "down" {
			want = 0
		}
		if v != want {
			t.Fatalf("after %s: version %d, want %d", step, v, want)
		}
	}
	// The migrated schema works.
	if _, err := s.Append(ctx, "x", sessiondb.Message(`{}`)); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Fatalf("append to a missing session = %v", err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	u := newSchema(t)
	s := mustOpenURL(t, u, nil)
	if _, err := s.Create(t.Context(), sessiondb.Session{ID: "kept"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, true)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), u, nil); !errors.Is(err, sessiondb.ErrSchemaTooNew) {
		t.Fatalf("Open of a newer schema = %v, want ErrSchemaTooNew", err)
	}
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM goose_db_version WHERE version_id = 9999`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the refused schema was changed: %d rows of version 9999, %v", n, err)
	}
	if _, err := s.Get(t.Context(), "kept"); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentOpenMigratesOnce opens one new schema from several pools
// at once: the advisory lock lets one migrate, the others find nothing
// pending, and every migration is recorded once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	u := newSchema(t)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), u, nil)
			if err == nil {
				_, err = s.Create(context.Background(), sessiondb.Session{})
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var dups int
	if err := db.QueryRow(`SELECT count(*) FROM (SELECT version_id FROM goose_db_version
		GROUP BY version_id HAVING count(*) > 1) d`).Scan(&dups); err != nil {
		t.Fatal(err)
	}
	if dups != 0 {
		t.Fatalf("%d migrations recorded more than once", dups)
	}
	var sessions int
	if err := db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&sessions); err != nil || sessions != n {
		t.Fatalf("%d sessions (%v), want %d", sessions, err, n)
	}
}

// TestNULInExtractedText: a body whose text decodes to U+0000 is stored
// byte for byte and found by search; the extracted text holds U+FFFD.
func TestNULInExtractedText(t *testing.T) {
	s := MustOpenStore(t, nil)
	ctx := t.Context()
	body := `{"role":"us\u0000er","content":"before\u0000after words"}`
	if _, err := s.Commit(ctx, "nul", sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{sessiondb.Message(body)}}); err != nil {
		t.Fatal(err)
	}
	es, err := s.Entries(ctx, "nul", 0, 0)
	if err != nil || len(es) != 1 || string(es[0].Body) != body {
		t.Fatalf("entries %v %v", es, err)
	}
	hits, err := s.Search(ctx, "after words", sessiondb.SearchOptions{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("search: %v %v", hits, err)
	}
	var text string
	if err := s.DB().QueryRow(`SELECT text FROM entries`).Scan(&text); err != nil || text != "before\uFFFDafter words" {
		t.Fatalf("extracted text %q %v", text, err)
	}
}

// TestOpenUnreachableFailsSoon: a server that does not answer makes Open
// fail with ErrBusy after its short wait (openWait, 1 s here instead of
// 10 s), not after RetryTimeout. Not parallel: it sets openWait, which
// every Open reads.
func TestOpenUnreachableFailsSoon(t *testing.T) {
	defer func(w time.Duration) { openWait = w }(openWait)
	openWait = time.Second
	// A bound that fails the test in 20 s, not at the test binary's
	// timeout, if Open waited out RetryTimeout.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	start := time.Now()
	_, err := Open(ctx, "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable", &Options{RetryTimeout: time.Hour})
	took := time.Since(start)
	if !errors.Is(err, sessiondb.ErrBusy) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open of an unreachable server = %v, want ErrBusy or a deadline", err)
	}
	// At least openWait (it retried, as for a server that is starting),
	// and nowhere near RetryTimeout.
	if took < openWait || took > 10*time.Second {
		t.Fatalf("Open of an unreachable server gave up after %v, want about %v", took, openWait)
	}
}
