package goose_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/goose"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// TestGooseDamagedStores: a store cut short, one overwritten with
// garbage after its header, one whose -wal is garbage, and a database of
// another schema named sessions.db: each is a problem (or, for the -wal,
// read as the main file holds it), never a panic, and the import goes on
// with the other paths.
func TestGooseDamagedStores(t *testing.T) {
	ctx := context.Background()
	from := filepath.Join(corpus, "constructed-v13", "sessions", goose.DBFile)
	good := filepath.Join(corpus, "constructed-v5", "sessions")
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(dir string){
		"truncated": func(dir string) { write(t, filepath.Join(dir, goose.DBFile), b[:len(b)/3]) },
		"garbage": func(dir string) {
			bad := append([]byte(nil), b...)
			for i := 4096; i < len(bad); i++ {
				bad[i] = byte(i * 7)
			}
			write(t, filepath.Join(dir, goose.DBFile), bad)
		},
		"garbage wal": func(dir string) {
			write(t, filepath.Join(dir, goose.DBFile), b)
			write(t, filepath.Join(dir, goose.DBFile+"-wal"), []byte(strings.Repeat("not a log ", 500)))
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sessions")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			mk(dir)
			s := jsonltest.OpenStore(t)
			rep, err := jsonlimport.Import(ctx, s, []string{dir, good}, jsonlimport.Options{})
			if err != nil {
				t.Fatal(err)
			}
			v5 := 0
			list, _, _ := s.List(ctx, sessiondbListAll)
			for _, sess := range list {
				if strings.HasPrefix(sess.ID, "20260201_") {
					v5++
				}
			}
			if v5 != 1 {
				t.Errorf("the good store beside it: %d sessions imported", v5)
			}
			t.Logf("%d sessions, %d entries, problems %v", rep.Sessions, rep.Entries, rep.Problems)
			if name != "garbage wal" && len(rep.Problems) == 0 {
				t.Errorf("no problem reported for a %s store", name)
			}
		})
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
