package claudecode

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// fixtureSnapshots parses the Claude Code fixtures and returns each
// parse state's snapshot, gob-encoded.
func fixtureSnapshots(tb testing.TB) [][]byte {
	tb.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "claudecode", "projects", "*", "*.jsonl"))
	if len(paths) == 0 {
		tb.Fatal("no fixture")
	}
	var out [][]byte
	for _, path := range paths {
		var cache jsonl.Cache
		parsed, err := Format{}.Parse(context.Background(), jsonl.Unit{Format: Name, Path: path, Extra: ccToolFiles(path)}, jsonl.Resume{Cache: &cache})
		if err != nil {
			continue
		}
		var rs ccResumeState
		if err := json.Unmarshal(parsed.ResumeState, &rs); err != nil || rs.Token == "" {
			tb.Fatalf("%s: no token in %s", path, parsed.ResumeState)
		}
		p := ccTake(&cache, rs.Token)
		s, ok := p.snapshot()
		if !ok {
			continue
		}
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(s); err != nil {
			tb.Fatal(err)
		}
		out = append(out, b.Bytes())
	}
	return out
}

// TestSnapshotFiles: a state is saved under its token, read back once
// (then removed), and a directory keeps at most ccSavedMax states, the
// newest; a name that is not a token names no file.
func TestSnapshotFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join("..", "..", "testdata", "claudecode", "projects", "-home-dev-proj", "5c2d8e41-0000-4000-8000-000000000002.jsonl")
	var cache jsonl.Cache
	parsed, err := Format{}.Parse(context.Background(), jsonl.Unit{Format: Name, Path: path}, jsonl.Resume{Cache: &cache})
	if err != nil {
		t.Fatal(err)
	}
	var rs ccResumeState
	if err := json.Unmarshal(parsed.ResumeState, &rs); err != nil {
		t.Fatal(err)
	}
	cache.Dir = dir
	if err := cache.Close(); err != nil {
		t.Fatal(err)
	}
	p := loadSnapshot(dir, rs.Token)
	if p == nil {
		t.Fatal("the saved state was not read back")
	}
	if p.Path != path || p.Offset != parsed.Offset || len(p.entries) != len(parsed.Entries) {
		t.Errorf("read back: %s at %d with %d entries, want %s at %d with %d", p.Path, p.Offset, len(p.entries), path, parsed.Offset, len(parsed.Entries))
	}
	if loadSnapshot(dir, rs.Token) != nil {
		t.Error("a state was read back twice")
	}
	if loadSnapshot(dir, "../"+rs.Token) != nil || validToken("../x") {
		t.Error("a name that is not a token was used")
	}

	for i := range ccSavedMax + 5 {
		tok := filepath.Base(ccSnapPath(dir, rs.Token))
		name := filepath.Join(dir, tok[:len(tok)-len(".gob")-2]+string(rune('a'+i%6))+string(rune('a'+i/6))+".gob")
		if err := os.WriteFile(name, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Duration(100-i) * time.Minute)
		os.Chtimes(name, old, old)
	}
	os.WriteFile(filepath.Join(dir, ".tmp-123"), nil, 0o600)
	if err := pruneSnapshots(dir, ccSavedMax); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	tmp, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	if len(left) != ccSavedMax || len(tmp) != 0 {
		t.Errorf("after pruning: %d states and %d temporary files, want %d and 0", len(left), len(tmp), ccSavedMax)
	}
}

// FuzzSnapshotRestore: any bytes in a state file are either refused or
// give a parser whose snapshot can be taken again; nothing panics.
func FuzzSnapshotRestore(f *testing.F) {
	for _, b := range fixtureSnapshots(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s ccSnap
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&s) != nil {
			return
		}
		p, err := s.restore()
		if err != nil {
			return
		}
		p.snapshot()
	})
}
