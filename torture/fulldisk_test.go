package torture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestFullDiskRlimit runs a writer whose file-size limit makes a commit
// fail mid-transaction. The write must fail with ErrFull, reads must keep
// working, nothing of the failed commit may be visible, every earlier
// commit must survive, and writing must work again once the limit is
// lifted (in the same process, or after a restart without the limit).
func TestFullDiskRlimit(t *testing.T) {
	// Several limits, so that the failing write(2) lands at different
	// points of a commit (its first frames, its middle, its commit frame).
	for _, tc := range []struct {
		mode  string
		extra int64
	}{{"raise", 300 << 10}, {"exit", 97 << 10}, {"exit", 150 << 10}, {"exit", 211 << 10}, {"exit", 333 << 10}} {
		mode := tc.mode
		t.Run(fmt.Sprintf("%s-%dk", mode, tc.extra>>10), func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "full.db")
			ctx := context.Background()
			store, err := sqlstore.Open(db, nil)
			if err != nil {
				t.Fatal(err)
			}
			base := bigEntries("base", 8, 4<<10)
			if _, err := store.SaveFull(ctx, sessiondb.Session{ID: "base"}, base, json.RawMessage(`{"base":true}`)); err != nil {
				t.Fatal(err)
			}
			if err := store.Close(); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(db)
			if err != nil {
				t.Fatal(err)
			}
			// The WAL starts empty after the clean close: room for a few
			// 64 KiB commits, then a write fails in the middle of one.
			limit := fi.Size() + tc.extra
			steps, stderr, err := runChild(t, "fullwriter", []string{envDB + "=" + db, fmt.Sprintf("%s=%d", envFSize, limit), envMode + "=" + mode}, nil)
			if err != nil {
				t.Fatalf("writer process: %v\n%s", err, stderr)
			}
			if s := find(steps, "setup"); len(s) > 0 {
				t.Skipf("cannot lower RLIMIT_FSIZE here: %s", s[0].Skip)
			}
			if s := one(t, steps, "open", stderr); !s.OK {
				t.Fatalf("open under the limit: %s", s.Err)
			}
			acks := find(steps, "ack")
			fail := one(t, steps, "write-fails", stderr)
			if fail.OK {
				t.Fatalf("no write failed: %s", fail.Err)
			}
			if len(acks) == 0 {
				t.Fatalf("the first write already failed (limit too low?): %s", fail.Err)
			}
			if !strings.Contains(fail.Sentinel, "ErrFull") {
				t.Errorf("a write beyond RLIMIT_FSIZE failed with %q (matches %q), want an error matching sessiondb.ErrFull", fail.Err, fail.Sentinel)
			}
			appended := one(t, steps, "append-while-full", stderr)
			if !appended.OK && !strings.Contains(appended.Sentinel, "ErrFull") {
				t.Errorf("append while full failed with %q (matches %q), want ErrFull", appended.Err, appended.Sentinel)
			}
			if s := one(t, steps, "read-while-full", stderr); !s.OK {
				t.Errorf("read while full: %s", s.Err)
			}
			if mode == "raise" {
				if s := one(t, steps, "write-after-raise", stderr); !s.OK {
					t.Errorf("write after raising the limit: %s (%s)", s.Err, s.Sentinel)
				}
			}
			t.Logf("%d commits acknowledged, then: %s", len(acks), fail.Err)

			// Parent: no limit. Everything acknowledged is there, intact;
			// the failed commit left nothing; writing works.
			store, err = sqlstore.Open(db, nil)
			if err != nil {
				t.Fatalf("reopen after the full disk: %v", err)
			}
			defer store.Close()
			mustIntegrity(t, store)
			expectSession(t, store, "base", base)
			for i, a := range acks {
				want := bigEntries(a.Sid, 4, 16<<10)
				if i == 0 && appended.OK { // the small append fitted
					want = append(want, bigEntries(a.Sid+"x", 1, 16<<10)...)
				}
				expectSession(t, store, a.Sid, want)
			}
			if _, err := store.Get(ctx, fail.Sid); !errors.Is(err, sessiondb.ErrNotFound) {
				t.Errorf("the failed commit of %s is visible (Get: %v)", fail.Sid, err)
			}
			if mode == "raise" {
				expectSession(t, store, "after-raise", bigEntries("after-raise", 4, 16<<10))
			}
			if _, err := store.SaveFull(ctx, sessiondb.Session{ID: "parent-after"}, bigEntries("parent-after", 4, 16<<10), nil); err != nil {
				t.Fatalf("write after the full disk: %v", err)
			}
			expectSession(t, store, "parent-after", bigEntries("parent-after", 4, 16<<10))
		})
	}
}

// mustIntegrity runs PRAGMA integrity_check and foreign_key_check.
func mustIntegrity(t *testing.T, store *sqlstore.Store) {
	t.Helper()
	if got := integrity(store); got != "ok" {
		t.Fatalf("integrity_check: %s", got)
	}
	rows, err := store.Query(context.Background(), "PRAGMA foreign_key_check")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Fatal("foreign_key_check reports violations")
	}
}

func expectSession(t *testing.T, store *sqlstore.Store, sid string, want []sessiondb.Entry) {
	t.Helper()
	got, err := store.Load(context.Background(), sid, sessiondb.LoadOptions{})
	if err != nil {
		t.Errorf("acknowledged session %s: %v", sid, err)
		return
	}
	if len(got) != len(want) {
		t.Errorf("session %s has %d entries, want %d", sid, len(got), len(want))
		return
	}
	for i := range got {
		if !bytes.Equal(got[i].Body, want[i].Body) {
			t.Errorf("session %s entry %d differs", sid, i+1)
			return
		}
	}
}
