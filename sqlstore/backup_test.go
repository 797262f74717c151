package sqlstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestBackupPrivate (issue 13 item 13): Backup writes a 0600 copy holding
// the sessions. The file is created 0600 before VACUUM INTO writes into it
// (see backup), so it is never readable by others while being copied.
func TestBackupPrivate(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t, nil)
	if _, err := s.Create(ctx, sessiondb.Session{ID: "keep"}); err != nil {
		t.Fatal(err)
	}
	bak, err := s.Backup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(bak)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup %s: %v, %v; want mode 0600", bak, fi.Mode().Perm(), err)
	}
	b, err := Open(bak, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Get(ctx, "keep"); err != nil {
		t.Errorf("backup lacks the session: %v", err)
	}
}

// TestSecureDelete (issue 13 item 16): with SecureDelete, the text of a
// deleted session's state is gone from the file once the WAL is
// checkpointed; without it, it is still there (which is why the option
// exists).
func TestSecureDelete(t *testing.T) {
	ctx := context.Background()
	const marker = "TOPSECRET-4f1c9a-MARKER"
	for _, secure := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "s.db")
		s, err := Open(path, &Options{SecureDelete: secure})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(ctx, "gone", sessiondb.Commit{Create: &sessiondb.Session{}, State: []byte(`{"note":"` + strings.Repeat(marker, 20) + `"}`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.writer.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "gone"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.writer.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if found := bytes.Contains(b, []byte(marker)); found == secure {
			t.Errorf("SecureDelete=%v: deleted text still in the file: %v", secure, found)
		}
	}
}

// TestRemoveBackups (item 16): RemoveBackups keeps the newest N backups,
// and Open with KeepBackups applies it after a migration backup.
func TestRemoveBackups(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t, nil)
	var made []string
	for range 3 {
		p, err := s.Backup(ctx)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, p)
	}
	if got, _ := s.Backups(); len(got) != 3 || got[0] != made[0] || got[2] != made[2] {
		t.Fatalf("Backups = %v, want %v oldest first", got, made)
	}
	removed, err := s.RemoveBackups(1)
	if err != nil || len(removed) != 2 || removed[0] != made[0] || removed[1] != made[1] {
		t.Fatalf("RemoveBackups(1) = %v, %v", removed, err)
	}
	if got, _ := s.Backups(); len(got) != 1 || got[0] != made[2] {
		t.Errorf("left %v, want the newest %s", got, made[2])
	}
	if _, err := s.RemoveBackups(-1); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Errorf("RemoveBackups(-1) = %v", err)
	}
}
