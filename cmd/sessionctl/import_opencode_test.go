package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// untarCorpus unpacks a corpus home.tar.gz into a new folder and returns
// the path of the opencode.db in it.
func untarCorpus(t *testing.T, tarball string) string {
	t.Helper()
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir, db := t.TempDir(), ""
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || strings.Contains(h.Name, "..") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if filepath.Base(p) == "opencode.db" {
			db = p
		}
	}
	return db
}

// TestImportOpencodeDatabase: `sessionctl import path/to/opencode.db` (once
// skipped as "not a session file", exit 0, nothing imported) imports every
// session of the store opencode wrote in the agents corpus, exits 0, finds
// it unchanged the second time, and exports each session as opencode
// printed it.
func TestImportOpencodeDatabase(t *testing.T) {
	corpus := filepath.Join("..", "..", "testdata", "agents", "opencode")
	src := untarCorpus(t, filepath.Join(corpus, "home.tar.gz"))
	db := filepath.Join(t.TempDir(), "s.db")
	r := sessionctl(t, db, "import", src).mustSucceed(t)
	if !strings.Contains(r.stdout, "2 sessions") || !strings.Contains(r.stdout, "0 problems") {
		t.Fatalf("import: %s", r.stdout)
	}
	r = sessionctl(t, db, "import", src).mustSucceed(t)
	if !strings.Contains(r.stdout, "0 sessions") || !strings.Contains(r.stdout, "2 unchanged") {
		t.Errorf("second import: %s", r.stdout)
	}
	r = sessionctl(t, db, "list").mustSucceed(t)
	if strings.Count(r.stdout, " opencode ") != 2 { // the FORMAT column; the project path holds the word too
		t.Errorf("list:\n%s", r.stdout)
	}
	out := t.TempDir()
	for _, id := range []string{"ses_db4d609d9ffei6zjaIrZe0O5hA", "ses_db4d4f978ffetifRNLSvZZjE72"} {
		sessionctl(t, db, "export", "--format", "opencode", "--out", out, id).mustSucceed(t)
		got, err := os.ReadFile(filepath.Join(out, id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(corpus, "export", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("export %s differs from what opencode printed", id)
		}
	}
}
