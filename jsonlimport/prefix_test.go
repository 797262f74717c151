package jsonlimport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// prefixLine is a picoclaw-shaped line.
func prefixLine(i int) string {
	return fmt.Sprintf(`{"role":"user","content":"line %d %s"}`+"\n", i, strings.Repeat("x", 100))
}

// TestFollowContinuesPrefixHash: under a Follow, an append continues the
// recorded hash state instead of hashing the prefix again, and the
// recorded SHA256 is still sha256 of the file's first Offset bytes. A
// file replaced, truncated or rewritten near its end is still detected;
// an in-place edit far from the end with size and tail kept escapes the
// cheap check (as documented) and is caught by the next full check.
func TestFollowContinuesPrefixHash(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	var first strings.Builder
	for i := range 100 {
		first.WriteString(prefixLine(i))
	}
	if err := os.WriteFile(path, []byte(first.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	follow := NewFollow()
	imp := func() Report {
		t.Helper()
		rep, err := Import(ctx, st, []string{path}, Options{Jobs: 1, Follow: follow, Format: FormatPicoclaw})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	// recorded returns whether the record's SHA256 is the hash of the
	// first Offset bytes of the file now, and the entries imported.
	recorded := func() bool {
		t.Helper()
		sf, err := st.SourceFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if sf.Offset > int64(len(data)) {
			return false
		}
		sum := sha256.Sum256(data[:sf.Offset])
		return hex.EncodeToString(sum[:]) == sf.SHA256
	}
	entries := func() int {
		t.Helper()
		sf, err := st.SourceFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		sess, err := st.Get(ctx, sf.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := st.Load(ctx, sess.ID, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(tr)
	}
	imp()
	if !recorded() {
		t.Fatal("first import: recorded SHA256 is not the hash of the consumed prefix")
	}
	for i := 100; i < 120; i++ {
		picoAppend(t, path, prefixLine(i))
		if i%3 == 0 {
			picoAppend(t, path, `{"role":"user","content":"torn`) // completed by the next append
			imp()
			picoAppend(t, path, `"}`+"\n")
		}
		imp()
		if !recorded() {
			t.Fatalf("append %d: recorded SHA256 is not sha256 of the first Offset bytes", i)
		}
	}
	s := follow.Stats()
	if s.FullHashes != 0 || s.CheapChecks < 20 {
		t.Fatalf("appends under a Follow: %+v; want every prefix checked cheaply", s)
	}
	n := entries()

	// Replaced by a new file (new inode) with an edit far from the end.
	data, _ := os.ReadFile(path)
	edited := []byte(strings.Replace(string(data), "line 1 ", "LINE 1 ", 1))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	full := follow.Stats().FullHashes
	imp()
	if follow.Stats().FullHashes != full+1 || !recorded() {
		t.Fatalf("a replaced file is not hashed whole (%+v) or not recorded (%v)", follow.Stats(), recorded())
	}
	if got := entries(); got != n {
		t.Fatalf("replaced file: transcript has %d entries, want %d (the file's)", got, n)
	}

	// Truncated, then grown again past the old offset with other bytes.
	data, _ = os.ReadFile(path)
	if err := os.WriteFile(path, append(data[:len(data)/2:len(data)/2], []byte(prefixLine(900)+prefixLine(901))...), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 40 {
		picoAppend(t, path, prefixLine(902))
	}
	imp()
	if !recorded() {
		t.Fatal("a truncated and regrown file is not detected")
	}

	// Rewritten in place near its end (same inode, same size): detected.
	data, _ = os.ReadFile(path)
	i := strings.LastIndex(string(data), "line 902")
	data[i] = 'L'
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	picoAppend(t, path, prefixLine(903))
	imp()
	if !recorded() {
		t.Fatal("an edit in the tail window is not detected")
	}

	// Rewritten in place far from the end, size and tail kept: the cheap
	// check cannot see it (documented); a full check (a new run, Import)
	// does.
	data, _ = os.ReadFile(path)
	i = strings.Index(string(data), "line")
	data[i] = 'L'
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	picoAppend(t, path, prefixLine(904))
	imp()
	if recorded() {
		t.Fatal("the escape the package doc describes did not happen: update the doc")
	}
	follow = NewFollow()
	picoAppend(t, path, prefixLine(905))
	imp()
	if !recorded() {
		t.Fatal("a new Follow's first import does not hash the prefix whole")
	}
}
