package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/sessiondb/sessiondb"
)

// Backup copies the database with VACUUM INTO next to it, named for the
// schema version it holds (<db>.bak-v<version>-<UTC time>), and returns
// the backup's path. sessionctl takes one before rolling migrations back.
// A backup holds every session as it was, deleted and pruned text
// included, until it is removed.
func (s *Store) Backup(ctx context.Context) (string, error) {
	if s.closed.Load() {
		return "", sessiondb.ErrClosed
	}
	version, err := s.schemaVersion(ctx)
	if err != nil {
		return "", err
	}
	return s.backup(ctx, version)
}

// backup copies the database with VACUUM INTO next to it, named for the
// version it holds: <db>.bak-v<version>-<UTC time>. The file is created
// empty with mode 0600 before SQLite writes into it (VACUUM INTO accepts an
// empty file), so that the copy is never readable by others, not even
// while it is being written.
func (s *Store) backup(ctx context.Context, version int64) (string, error) {
	dst := fmt.Sprintf("%s.bak-v%d-%s", s.path, version, time.Now().UTC().Format("20060102T150405.000000000"))
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("back up %s: %w", s.path, translateOSError(err))
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("back up %s: %w", s.path, err)
	}
	if _, err := s.writer.ExecContext(ctx, `VACUUM INTO ?`, dst); err != nil {
		if rerr := os.Remove(dst); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
		return "", fmt.Errorf("back up %s: %w", s.path, translate(err))
	}
	if err := newIndexToken(ctx, dst); err != nil {
		return "", fmt.Errorf("back up %s: %w", s.path, err)
	}
	return dst, nil
}

// newIndexToken gives the database at path (a backup just written) an
// index token of its own (search_index.index_file, schema version 11 on):
// put back in the place of the database it was taken from, it is then not
// taken for the database the index file beside it was built for, which may
// have deleted rows the backup holds.
func newIndexToken(ctx context.Context, path string) error {
	u := url.URL{Scheme: "file", OmitHost: true, Path: absPath(path)}
	db, err := sqlx.Open("sqlite", u.String())
	if err != nil {
		return err
	}
	defer db.Close()
	var has int
	if err := db.GetContext(ctx, &has, `SELECT count(*) FROM pragma_table_info('search_index') WHERE name = 'index_file'`); err != nil {
		return translate(err)
	}
	if has == 0 {
		return nil // an older schema: its index is in the file itself
	}
	_, err = db.ExecContext(ctx, `UPDATE search_index SET index_file = lower(hex(randomblob(16)))`)
	return translate(err)
}

// Backups returns the paths of the database's backups (<db>.bak-v*), oldest
// first (by the time in their names).
func (s *Store) Backups() ([]string, error) {
	paths, err := filepath.Glob(globEscape(s.path) + ".bak-v*")
	if err != nil {
		return nil, err
	}
	stamp := func(p string) string { return p[strings.LastIndexByte(p, '-')+1:] }
	sort.Slice(paths, func(i, j int) bool { return stamp(paths[i]) < stamp(paths[j]) })
	return paths, nil
}

// RemoveBackups removes all but the newest keep backups of the database and
// returns the paths removed. A backup holds every session as it was when it
// was taken, deleted and pruned text included: removing old ones is how
// that text leaves the disk.
func (s *Store) RemoveBackups(keep int) ([]string, error) {
	if keep < 0 {
		return nil, fmt.Errorf("remove backups: %w: keep %d is negative", sessiondb.ErrInvalid, keep)
	}
	paths, err := s.Backups()
	if err != nil || len(paths) <= keep {
		return nil, err
	}
	var removed []string
	for _, p := range paths[:len(paths)-keep] {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove backup: %w", err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}

// globEscape escapes the glob metacharacters of a literal path.
func globEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch r {
		case '*', '?', '[', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
