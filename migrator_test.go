package sessiondb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/freshstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// rename returns a migrator that rewrites "old" keys to "new" keys.
func rename(from int, old, new string) sessiondb.Migrator {
	return sessiondb.Migrator{From: from, Migrate: func(_ sessiondb.Session, tr []sessiondb.Entry) ([]sessiondb.Entry, error) {
		for i := range tr {
			tr[i].Body = bytes.ReplaceAll(tr[i].Body, []byte(`"`+old+`"`), []byte(`"`+new+`"`))
		}
		return tr, nil
	}}
}

func openStore(t *testing.T) *sqlstore.Store {
	t.Helper()
	return freshstore.Open(t, nil)
}

func TestMigrationChain(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	r, err := sessiondb.NewMigrations(rename(0, "text", "content"), rename(1, "who", "role"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Target() != 2 {
		t.Fatalf("Target = %d, want 2", r.Target())
	}
	if _, err := st.Create(ctx, sessiondb.Session{ID: "v0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, "v0", sessiondb.Message(`{"who":"user","text":"hi"}`), sessiondb.Message(`{"who":"assistant","text":"yo"}`)); err != nil {
		t.Fatal(err)
	}

	f, res, err := sessiondb.LoadMigrated(ctx, st, r, "v0")
	if err != nil {
		t.Fatal(err)
	}
	if res.FromVersion != 0 || res.ToVersion != 2 || res.Stored {
		t.Fatalf("LoadMigrated result %+v", res)
	}
	if got := string(f.Transcript[0].Body); got != `{"role":"user","content":"hi"}` {
		t.Fatalf("migrated body %s", got)
	}
	if stored, _ := st.Load(ctx, "v0", sessiondb.LoadOptions{}); string(stored[0].Body) != `{"who":"user","text":"hi"}` {
		t.Fatalf("LoadMigrated changed the store: %s", stored[0].Body)
	}

	res, err = sessiondb.MigrateStored(ctx, st, r, "v0")
	if err != nil || !res.Stored || res.ToVersion != 2 {
		t.Fatalf("MigrateStored = %+v, %v", res, err)
	}
	sess, _ := st.Get(ctx, "v0")
	if sess.Version != 2 {
		t.Fatalf("stored version %d, want 2", sess.Version)
	}
	tr, _ := st.Load(ctx, "v0", sessiondb.LoadOptions{})
	if len(tr) != 2 || string(tr[1].Body) != `{"role":"assistant","content":"yo"}` {
		t.Fatalf("stored transcript after migration: %+v", tr)
	}
	old, _ := st.Entries(ctx, "v0", 1, 2)
	if len(old) != 2 || string(old[0].Body) != `{"who":"user","text":"hi"}` {
		t.Fatalf("old bodies not kept for audit: %+v", old)
	}
	// Idempotent: a second run changes nothing.
	res, err = sessiondb.MigrateStored(ctx, st, r, "v0")
	if err != nil || res.Stored {
		t.Fatalf("second MigrateStored = %+v, %v", res, err)
	}
	if again, _ := st.Get(ctx, "v0"); again.Sequence != sess.Sequence {
		t.Fatalf("second migration bumped the sequence %d -> %d", sess.Sequence, again.Sequence)
	}
}

func TestMigrationRefusals(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	if _, err := sessiondb.NewMigrations(rename(0, "a", "b"), rename(0, "c", "d")); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Fatalf("duplicate From: %v", err)
	}
	gap, err := sessiondb.NewMigrations(rename(0, "a", "b"), rename(2, "c", "d"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version int
		r       *sessiondb.Migrations
	}{{0, gap}, {7, gap}} {
		id := "s" + string(rune('0'+tc.version))
		if _, err := st.Create(ctx, sessiondb.Session{ID: id, Version: tc.version}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Append(ctx, id, sessiondb.Message(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		before, _ := st.Get(ctx, id)
		if _, _, err := sessiondb.LoadMigrated(ctx, st, tc.r, id); !errors.Is(err, sessiondb.ErrVersionUnsupported) {
			t.Errorf("version %d: LoadMigrated = %v, want ErrVersionUnsupported", tc.version, err)
		}
		if _, err := sessiondb.MigrateStored(ctx, st, tc.r, id); !errors.Is(err, sessiondb.ErrVersionUnsupported) {
			t.Errorf("version %d: MigrateStored = %v, want ErrVersionUnsupported", tc.version, err)
		}
		if after, _ := st.Get(ctx, id); after.Sequence != before.Sequence || after.Version != tc.version {
			t.Errorf("version %d: a refused migration changed the session", tc.version)
		}
	}
	// A migrator that produces invalid JSON is refused before anything is written.
	bad, _ := sessiondb.NewMigrations(sessiondb.Migrator{From: 0, Migrate: func(_ sessiondb.Session, tr []sessiondb.Entry) ([]sessiondb.Entry, error) {
		tr[0].Body = json.RawMessage(`{broken`)
		return tr, nil
	}})
	if _, err := sessiondb.MigrateStored(ctx, st, bad, "s0"); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Fatalf("broken migrator: %v, want ErrInvalid", err)
	}
}
