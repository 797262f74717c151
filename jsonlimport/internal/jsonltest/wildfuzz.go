package jsonltest

// The fuzzing of one line of a wild file (Claude Code, Codex, pi), which
// the fuzz targets of those formats share.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// WildFuzzSeeds adds every line of the .jsonl fixture files under dirs
// (and the extra strings) to f's corpus.
func WildFuzzSeeds(f *testing.F, dirs []string, extra ...string) {
	LineSeeds(f, dirs, []string{".jsonl"}, 1<<14, extra...)
}

// LineSeeds adds to f's corpus the lines shorter than maxLen of the files
// under dirs whose names end in one of exts, then the extra strings. The
// quick run takes a spread sample of the files' lines (quickLineSeeds; a
// seed costs a parse, a resume and a temporary directory, ~10 ms on the CI
// machine, and pi's fixtures have ~600 lines); the long run and fuzzing
// with SESSIONDB_LONG=1 take every line (internal/longtest).
func LineSeeds(f *testing.F, dirs, exts []string, maxLen int, extra ...string) {
	var lines [][]byte
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !slices.ContainsFunc(exts, func(ext string) bool { return strings.HasSuffix(path, ext) }) {
				return nil
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			for _, line := range bytes.Split(raw, []byte("\n")) {
				if len(line) < maxLen {
					lines = append(lines, line)
				}
			}
			return nil
		})
	}
	for _, line := range longtest.Sample(lines, quickLineSeeds) {
		f.Add(line)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// quickLineSeeds is how many fixture lines a fuzz target's seed corpus
// takes in the quick run.
const quickLineSeeds = 120

// CheckWildLine puts one arbitrary line between head and tail lines of a file of
// format fm and checks the reader's invariants: it never fails or panics,
// consumes the file whole, returns valid entries (the tail line last, byte
// for byte), compaction points inside the log, valid attrs, problems with
// path and line; and resuming after the fuzzed line gives the same entries
// as reading the whole file, or ErrNotIncremental.
func CheckWildLine(t *testing.T, fm jsonl.Format, name, head, line, tail string) {
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	pre := head + "\n" + line + "\n"
	content := pre + tail + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u := jsonl.Unit{Format: fm.Name(), Path: path}
	p, err := fm.Parse(ctx, u, jsonl.Resume{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if p.Offset != int64(len(content)) {
		t.Fatalf("Offset %d, file %d", p.Offset, len(content))
	}
	if err := sessiondb.ValidateID(p.Session.ID); err != nil {
		t.Fatalf("session ID: %v", err)
	}
	if n := len(p.Entries); n == 0 || string(p.Entries[n-1].Body) != tail {
		t.Fatalf("last entry is not the tail line: %d entries", n)
	}
	for _, e := range p.Entries {
		if err := sessiondb.ValidateEntry(e); err != nil {
			t.Fatalf("entry %s: %v", e.Body, err)
		}
	}
	for _, c := range p.Compactions {
		if c.KeepFromSeq < 1 || c.KeepFromSeq > int64(len(p.Entries))+1 {
			t.Fatalf("compaction keeps from %d with %d entries", c.KeepFromSeq, len(p.Entries))
		}
		for _, e := range c.Summary {
			if err := sessiondb.ValidateEntry(e); err != nil {
				t.Fatalf("summary entry %s: %v", e.Body, err)
			}
		}
	}
	for _, us := range p.Usage {
		if us.Seq < 0 || us.Seq > int64(len(p.Entries)) {
			t.Fatalf("usage row at %d with %d entries", us.Seq, len(p.Entries))
		}
	}
	if p.Session.Attrs != nil {
		if err := sessiondb.ValidateJSON("attrs", p.Session.Attrs); err != nil {
			t.Fatal(err)
		}
	}
	for _, pr := range p.Problems {
		if pr.Path != path || pr.Reason == "" || pr.Line < 0 {
			t.Fatalf("problem %+v", pr)
		}
	}

	if err := os.WriteFile(path, []byte(pre), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := fm.Parse(ctx, u, jsonl.Resume{})
	if err != nil {
		t.Fatalf("parse head: %v", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := fm.Parse(ctx, u, jsonl.Resume{Offset: first.Offset, Entries: len(first.Entries), State: first.ResumeState})
	if errors.Is(err, jsonl.ErrNotIncremental) {
		return
	}
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	all := append(append([]sessiondb.Entry{}, first.Entries...), second.Entries...)
	if len(all) != len(p.Entries) {
		t.Fatalf("resumed %d+%d entries, whole %d", len(first.Entries), len(second.Entries), len(p.Entries))
	}
	for i := range all {
		if !bytes.Equal(all[i].Body, p.Entries[i].Body) || all[i].Kind != p.Entries[i].Kind {
			t.Fatalf("entry %d: resumed %s, whole %s", i+1, all[i].Body, p.Entries[i].Body)
		}
	}
	if second.Session.ID != p.Session.ID {
		t.Fatalf("session %q, whole %q", second.Session.ID, p.Session.ID)
	}
	if len(first.Usage)+len(second.Usage) != len(p.Usage) {
		t.Fatalf("usage rows %d+%d, whole %d", len(first.Usage), len(second.Usage), len(p.Usage))
	}
}
