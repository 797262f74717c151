// Package jsonltest holds the helpers that the tests of package jsonlimport
// and of its format packages share.
package jsonltest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/freshstore"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// OpenStore opens a new file-backed SQLite store under tb.TempDir (a copy
// of one created once, internal/freshstore) and closes it when the test
// ends.
func OpenStore(tb testing.TB) *sqlstore.Store {
	tb.Helper()
	return freshstore.Open(tb, nil)
}

// Bodies returns the bodies of es, in order.
func Bodies(es []sessiondb.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, string(e.Body))
	}
	return out
}

// CopyDir copies the regular files of src into a fresh temp dir
// (writable), so that tests may modify them.
func CopyDir(tb testing.TB, src string) string {
	tb.Helper()
	dst := tb.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dst
}

// Lines returns the non-empty lines of a .jsonl (without "\n"), as
// picoclaw counts them.
func Lines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// HasProblem reports whether ps holds a problem of a path ending in
// pathSuffix, at line (any line when line < 0), whose reason contains
// substr.
func HasProblem(ps []jsonl.Problem, pathSuffix string, line int, substr string) bool {
	for _, p := range ps {
		if strings.HasSuffix(p.Path, pathSuffix) && (line < 0 || p.Line == line) && strings.Contains(p.Reason, substr) {
			return true
		}
	}
	return false
}

// Append appends data to the file at path and moves its mtime two seconds
// ahead, so that an importer sees it changed even on a coarse clock.
func Append(t testing.TB, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Make sure the mtime differs even on coarse clocks.
	future := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
}

// Sequences maps every session ID to its Sequence and LastSeq.
func Sequences(t testing.TB, s sessiondb.Store) map[string][2]int64 {
	t.Helper()
	out := map[string][2]int64{}
	cursor := ""
	for {
		page, next, err := s.List(context.Background(), sessiondb.ListOptions{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, si := range page {
			out[si.ID] = [2]int64{si.Sequence, si.LastSeq}
		}
		if next == "" {
			return out
		}
		cursor = next
	}
}

// SetMeta edits the JSON object in the file at path (picoclaw's
// .meta.json) with edit, rewrites it indented and moves its mtime three
// seconds ahead.
func SetMeta(t testing.TB, path string, edit func(map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(3 * time.Second)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
}

// CopyFile copies file from to to, making to's directory.
func CopyFile(t testing.TB, from, to string) {
	t.Helper()
	raw, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
