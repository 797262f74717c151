package jsonlimport

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestImportCopiesOfImportedFiles: the same archive imported again from a
// second place (a copy), or from an older backup (each file cut after half
// of its lines), adds nothing: no second session under a derived ID, no
// usage counted twice (ccusage counts an API response once across files).
// A copy whose bytes differ is another session and is imported beside it.
func TestImportCopiesOfImportedFiles(t *testing.T) {
	ctx := context.Background()
	for _, root := range []string{"../testdata/claudecode", "../testdata/codex/codex-home", "../testdata/pi/sessions",
		"../testdata/zot/zot_home", "../testdata/picoclaw", "../testdata/swink"} {
		t.Run(filepath.Base(filepath.Dir(root))+"/"+filepath.Base(root), func(t *testing.T) {
			tmp := t.TempDir()
			a, same, older := filepath.Join(tmp, "a"), filepath.Join(tmp, "same"), filepath.Join(tmp, "older")
			for _, dir := range []string{a, same, older} {
				copyTree(t, root, dir)
				// damaged.jsonl is a damaged copy of linear.jsonl, which
				// the archive's import puts beside it under a derived ID:
				// a copy is compared with the session of its ID only.
				if err := os.RemoveAll(filepath.Join(dir, "damaged.jsonl")); err != nil {
					t.Fatal(err)
				}
			}
			halveJSONL(t, older)
			s := openStore(t)
			since := time.Now().Add(-time.Second)
			first, err := Import(ctx, s, []string{a}, Options{Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			if first.Sessions == 0 {
				t.Fatal("nothing imported from the original")
			}
			want := jsonltest.GrowthSnapshot(t, s, since)
			for _, dir := range []string{same, older} {
				rep, err := Import(ctx, s, []string{dir}, Options{Jobs: 1})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Sessions != 0 {
					t.Errorf("%s: %d sessions imported, want 0 (problems %v)", filepath.Base(dir), rep.Sessions, rep.Problems)
				}
				copies := 0
				for _, n := range rep.Notes {
					if strings.Contains(n.Reason, "a copy of "+a) {
						copies++
					}
				}
				if dir == same && copies != first.Sessions {
					t.Errorf("same: %d copy notes, want %d", copies, first.Sessions)
				}
			}
			if diff := cmp.Diff(want, jsonltest.GrowthSnapshot(t, s, since)); diff != "" {
				t.Errorf("the store changed when copies were imported (-before +after):\n%s", diff)
			}
		})
	}
	t.Run("different bytes", func(t *testing.T) {
		tmp := t.TempDir()
		a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
		copyTree(t, "../testdata/pi/sessions", a)
		copyTree(t, "../testdata/pi/sessions", b)
		path := filepath.Join(b, "linear.jsonl")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		edited := bytes.Replace(data, []byte("Add a retry to the uploader."), []byte("Add two retries to the uploader."), 1)
		if bytes.Equal(edited, data) {
			t.Fatal("nothing edited")
		}
		if err := os.WriteFile(path, edited, 0o644); err != nil {
			t.Fatal(err)
		}
		s := openStore(t)
		if _, err := Import(ctx, s, []string{a}, Options{Jobs: 1}); err != nil {
			t.Fatal(err)
		}
		rep, err := Import(ctx, s, []string{b}, Options{Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Sessions != 1 {
			t.Errorf("%d sessions imported from the copy, want the 1 edited file beside its original (problems %v)", rep.Sessions, rep.Problems)
		}
	})
}

// halveJSONL cuts every .jsonl file under dir after the first half of its
// lines: what a backup taken earlier holds.
func halveJSONL(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		return os.WriteFile(path, bytes.Join(lines[:(len(lines)+1)/2], nil), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportContinuesFromAnotherPath: a file that continues what was
// imported from another file of its session (a backup imported before the
// live archive; an archive moved, then grown) is appended to that session,
// which then reads as one import of the whole file: no second session, no
// log read twice, no usage counted twice.
func TestImportContinuesFromAnotherPath(t *testing.T) {
	ctx := context.Background()
	for r, root := range []string{"../testdata/claudecode", "../testdata/codex/codex-home", "../testdata/pi/sessions",
		"../testdata/zot/zot_home", "../testdata/picoclaw", "../testdata/swink"} {
		for m, moved := range []bool{false, true} {
			// The quick run takes one case per format, alternating, so that
			// both cases and every format still run (internal/longtest).
			if !longtest.Every(r+m, 2) {
				continue
			}
			name := filepath.Base(filepath.Dir(root)) + "/" + filepath.Base(root)
			if moved {
				name += "/moved"
			}
			t.Run(name, func(t *testing.T) {
				tmp := t.TempDir()
				full, older := filepath.Join(tmp, "full"), filepath.Join(tmp, "older")
				for _, dir := range []string{full, older} {
					copyTree(t, root, dir)
					if err := os.RemoveAll(filepath.Join(dir, "damaged.jsonl")); err != nil { // see TestImportCopiesOfImportedFiles
						t.Fatal(err)
					}
				}
				halveJSONL(t, older)
				since := time.Now().Add(-time.Second)
				once := openStore(t)
				if _, err := Import(ctx, once, []string{full}, Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
				s := openStore(t)
				if _, err := Import(ctx, s, []string{older}, Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
				if moved {
					if err := os.RemoveAll(older); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := Import(ctx, s, []string{full}, Options{Jobs: 1}); err != nil {
					t.Fatal(err)
				}
				want, got := jsonltest.GrowthSnapshot(t, once, since), jsonltest.GrowthSnapshot(t, s, since)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("the backup, then the whole archive, differs from the whole archive alone (-once +after backup):\n%s", diff)
				}
			})
		}
	}
}
