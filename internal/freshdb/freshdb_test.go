package freshdb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopiesAreTheTemplatesFiles checks that create runs once, that every
// file it left is copied under the new name, and that copies do not share
// anything: a write to one is not in the next.
func TestCopiesAreTheTemplatesFiles(t *testing.T) {
	calls := 0
	tmpl := New(func(path string) error {
		calls++
		if err := os.WriteFile(path, []byte("main"), 0o644); err != nil {
			return err
		}
		return os.WriteFile(path+"-search", []byte("index"), 0o644)
	})
	a := tmpl.Path(t, "a.db")
	if err := os.WriteFile(a, []byte("changed"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := tmpl.Path(t, "b.db")
	if calls != 1 {
		t.Errorf("create ran %d times, want 1", calls)
	}
	if filepath.Dir(a) == filepath.Dir(b) {
		t.Errorf("two copies in one directory %s", filepath.Dir(a))
	}
	for file, want := range map[string]string{b: "main", b + "-search": "index", a + "-search": "index"} {
		got, err := os.ReadFile(file)
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", file, got, err, want)
		}
		if fi, err := os.Stat(file); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", file, fi.Mode().Perm())
		}
	}
}

// TestBuildRefusesStrayFiles checks that a create leaving a file not named
// after the database, or none at its path, is an error rather than a copy
// missing part of what a store needs.
func TestBuildRefusesStrayFiles(t *testing.T) {
	for name, create := range map[string]func(string) error{
		"stray file": func(path string) error {
			os.WriteFile(path, nil, 0o600)
			return os.WriteFile(filepath.Join(filepath.Dir(path), "other"), nil, 0o600)
		},
		"no database": func(path string) error { return os.WriteFile(path+"-search", nil, 0o600) },
	} {
		tmpl := New(create)
		tmpl.build()
		if tmpl.err == nil || !strings.Contains(tmpl.err.Error(), "create left") {
			t.Errorf("%s: build error %v, want one naming what create left", name, tmpl.err)
		}
	}
}
