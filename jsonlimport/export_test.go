package jsonlimport

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// mkSession creates session id with one user message (and an interrupt
// when interrupt is non-empty).
func mkSession(t *testing.T, s sessiondb.Store, id, interrupt string) {
	t.Helper()
	c := sessiondb.Commit{Create: &sessiondb.Session{}, Append: []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"hello"}`)}}
	if interrupt != "" {
		c.Interrupt = []byte(interrupt)
	}
	if _, err := s.Commit(context.Background(), id, c); err != nil {
		t.Fatalf("create %q: %v", id, err)
	}
}

// treeOf lists every path under root (relative, sorted), with "/" after
// directories.
func treeOf(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestExportDotIDsStayInsideDir (issue 13 item 1): sessions whose IDs are
// ".." and "." are exported inside --out, never into its parent, in every
// format that accepts them, and importing the export gives the IDs back.
func TestExportDotIDsStayInsideDir(t *testing.T) {
	ctx := context.Background()
	for _, format := range []string{FormatPicoclaw, FormatZot} {
		t.Run(format, func(t *testing.T) {
			s := openStore(t)
			mkSession(t, s, "..", "")
			mkSession(t, s, ".", "")
			root := t.TempDir()
			out := filepath.Join(root, "backups", format)
			files, err := Export(ctx, s, []string{"..", "."}, format, out)
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			for _, f := range files {
				rel, err := filepath.Rel(out, f)
				if err != nil || strings.HasPrefix(rel, "..") && (rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))) {
					t.Errorf("file %s is outside %s", f, out)
				}
			}
			for _, p := range treeOf(t, root) {
				if p != "backups/" && !strings.HasPrefix(p, filepath.Join("backups", format)) {
					t.Errorf("export wrote %s outside --out", p)
				}
			}
			back := openStore(t)
			if _, err := Import(ctx, back, []string{out}, Options{Format: format}); err != nil {
				t.Fatalf("re-import: %v", err)
			}
			for _, id := range []string{"..", "."} {
				if _, err := back.Get(ctx, id); err != nil {
					t.Errorf("re-imported session %q: %v", id, err)
				}
			}
		})
	}
}

// TestExportCollisionWritesNothing (item 5): IDs that map to one file name
// (picoclaw's sanitizeKey, or a difference in case only) are refused before
// anything is written.
func TestExportCollisionWritesNothing(t *testing.T) {
	ctx := context.Background()
	for _, pair := range [][]string{{"a/b", "a_b"}, {"a:b", `a\b`}, {"Case", "case"}} {
		s := openStore(t)
		mkSession(t, s, "first", "")
		for _, id := range pair {
			mkSession(t, s, id, "")
		}
		out := t.TempDir()
		files, err := Export(ctx, s, []string{"first", pair[0], pair[1]}, FormatPicoclaw, out)
		if !errors.Is(err, sessiondb.ErrExists) {
			t.Fatalf("export %q: %v, want ErrExists", pair, err)
		}
		if len(files) != 0 {
			t.Errorf("export %q reported files %v", pair, files)
		}
		if got := treeOf(t, out); len(got) != 0 {
			t.Errorf("export %q wrote %v before refusing", pair, got)
		}
	}
}

// TestExportRefusesOverwrite (item 5): an existing file is not replaced
// without Force, and nothing else is written; with Force it is replaced.
func TestExportRefusesOverwrite(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	mkSession(t, s, "one", "")
	mkSession(t, s, "two", "")
	out := t.TempDir()
	victim := filepath.Join(out, "two.jsonl")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Export(ctx, s, []string{"one", "two"}, FormatPicoclaw, out)
	if !errors.Is(err, sessiondb.ErrExists) {
		t.Fatalf("export over an existing file: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("existing file replaced: %q", b)
	}
	if got := treeOf(t, out); len(got) != 1 {
		t.Errorf("export wrote %v before refusing", got)
	}
	files, err := ExportWith(ctx, s, []string{"one", "two"}, FormatPicoclaw, out, ExportOptions{Force: true})
	if err != nil || len(files) != 4 {
		t.Fatalf("forced export: %v %v", files, err)
	}
	if b, _ := os.ReadFile(victim); string(b) == "precious\n" {
		t.Errorf("forced export did not replace the file")
	}
}

// TestExportPrivateModes (item 8): exported files are 0600 and the
// directories the export creates 0700, whatever the umask allows.
func TestExportPrivateModes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	mkSession(t, s, "s1", "")
	for _, format := range []string{FormatPicoclaw, FormatZot, FormatSwink} {
		out := filepath.Join(t.TempDir(), "new")
		if _, err := Export(ctx, s, []string{"s1"}, format, out); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			want := fs.FileMode(0o600)
			if d.IsDir() {
				want = 0o700
			}
			if fi.Mode().Perm() != want {
				t.Errorf("%s: %s has mode %v, want %v", format, p, fi.Mode().Perm(), want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestExportDoesNotFollowSymlinks (item 8): a symbolic link in DIR where the
// export needs a directory is refused, and nothing is written through it.
func TestExportDoesNotFollowSymlinks(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	mkSession(t, s, "s1", "")
	out, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(out, "sessions")); err != nil {
		t.Skip(err)
	}
	for _, format := range []string{FormatZot, FormatSwink} {
		if _, err := Export(ctx, s, []string{"s1"}, format, out); err == nil {
			t.Errorf("%s: export through a symlinked sessions directory succeeded", format)
		}
		if got := treeOf(t, elsewhere); len(got) != 0 {
			t.Errorf("%s: export wrote %v through the symlink", format, got)
		}
	}
}

// TestSwinkExportLongIDWritesNothing (item 14): an ID whose session file fits
// a file name but whose interrupt file does not is refused before the
// session file is written.
func TestSwinkExportLongIDWritesNothing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	id := strings.Repeat("x", 245)
	mkSession(t, s, id, `{"interrupted_at":1,"pending_tool_calls":[],"context_snapshot":[],"system_prompt":"","model":{"provider":"p","model_id":"m","thinking_level":"medium","thinking_budgets":null}}`)
	out := t.TempDir()
	files, err := Export(ctx, s, []string{id}, FormatSwink, out)
	if !errors.Is(err, sessiondb.ErrInvalid) || !strings.Contains(err.Error(), "file-name limit") {
		t.Fatalf("export: %v %v, want ErrInvalid for the file-name limit", files, err)
	}
	if got := treeOf(t, out); len(got) != 0 {
		t.Errorf("partial export left %v", got)
	}
}
