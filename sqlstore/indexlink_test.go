package sqlstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// TestIndexPathLinkRefused (issue 36 item 4): a <db>-search that is a
// symbolic link, to an empty file (whose target sessiondb rewrote) or to
// nothing (whose target it created), is refused with ErrInvalid; the
// target is left as it was, and the first Open that failed leaves no
// database behind (it left an empty one that later commands called
// corrupt). Once the link is gone the database opens.
func TestIndexPathLinkRefused(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{empty, filepath.Join(dir, "nowhere")} {
		db := filepath.Join(dir, "sessions-"+filepath.Base(target)+".db")
		if err := os.Symlink(target, IndexPath(db)); err != nil {
			t.Fatal(err)
		}
		s, err := Open(db, nil)
		if err == nil {
			s.Close()
			t.Fatalf("link to %s: Open succeeded", target)
		}
		if !errors.Is(err, sessiondb.ErrInvalid) {
			t.Errorf("link to %s: %v, want ErrInvalid", target, err)
		}
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if _, err := os.Lstat(db + suffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("link to %s: %s left behind (%v)", target, db+suffix, err)
			}
		}
		if fi, err := os.Stat(target); target == empty && (err != nil || fi.Size() != 0) {
			t.Errorf("the link's target was changed: %v, %v", fi, err)
		} else if target != empty && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the dangling link's target was created (%v)", err)
		}
		if err := os.Remove(IndexPath(db)); err != nil {
			t.Fatal(err)
		}
		s = MustOpenStoreAt(t, db, nil)
		if _, err := s.Create(t.Context(), sessiondb.Session{ID: "s"}); err != nil {
			t.Errorf("after the link was removed: %v", err)
		}
	}
}
