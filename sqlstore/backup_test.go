package sqlstore

import (
	"context"
	"os"
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
