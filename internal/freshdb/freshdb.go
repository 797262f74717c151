// Package freshdb gives tests a new, empty database file for the cost of
// copying one.
//
// Creating a sessiondb database runs every migration, each in its own
// transaction with its own fsync, and creates the search index file: about
// 40 ms on the 2-core CI machine, and a package's tests create hundreds
// (the cross-format export test alone imports each export into a new
// store). A Template creates one database per test process with the
// caller's own create function (the real Open, so the file is exactly what
// a first open builds), closes it, keeps the bytes of every file it left
// (the database and its search index, which name each other), and writes
// them under each test's TempDir. The copy is what a second open of the
// same file sees; tests of what a first open does (permissions, migration,
// removal after a failed first open) open a path of their own instead.
package freshdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Template is a database created once and copied for every test that asks.
// The zero value is not usable; call New.
type Template struct {
	create func(path string) error

	once  sync.Once
	files map[string][]byte // suffix after the database's name -> content
	err   error
}

// New returns a Template whose database create makes: create must create
// the database at path and close it (leaving every file it wrote beside
// path, named path plus a suffix).
func New(create func(path string) error) *Template {
	return &Template{create: create}
}

// Path writes a copy of the template's files into a new directory under
// tb.TempDir and returns the database's path there (named name). The
// first call creates the template; an error creating it fails tb.
func (t *Template) Path(tb testing.TB, name string) string {
	tb.Helper()
	t.once.Do(t.build)
	if t.err != nil {
		tb.Fatalf("freshdb: create the template database: %v", t.err)
	}
	path := filepath.Join(tb.TempDir(), name)
	for suffix, content := range t.files {
		// 0600, as sqlstore creates its files.
		if err := os.WriteFile(path+suffix, content, 0o600); err != nil {
			tb.Fatalf("freshdb: %v", err)
		}
	}
	return path
}

func (t *Template) build() {
	dir, err := os.MkdirTemp("", "freshdb-")
	if err != nil {
		t.err = err
		return
	}
	defer os.RemoveAll(dir)
	const base = "template.db"
	if err := t.create(filepath.Join(dir, base)); err != nil {
		t.err = err
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.err = err
		return
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), base) {
			t.err = fmt.Errorf("create left %s, not named after the database", e.Name())
			return
		}
		if !e.Type().IsRegular() {
			t.err = fmt.Errorf("create left %s, not a regular file", e.Name())
			return
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.err = err
			return
		}
		files[strings.TrimPrefix(e.Name(), base)] = b
	}
	if _, ok := files[""]; !ok {
		t.err = fmt.Errorf("create left no file at its path")
		return
	}
	t.files = files
}
