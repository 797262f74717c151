package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// BenchmarkCommitBulk appends 2,000 messages of ~1 KB in one Commit: the
// import path. It reports MB/s of bodies written.
func BenchmarkCommitBulk(b *testing.B) {
	ctx := context.Background()
	s, err := Open(filepath.Join(b.TempDir(), "bulk.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = 2000
	entries := make([]sessiondb.Entry, n)
	size := 0
	for i := range entries {
		text := fmt.Sprintf("message %d: %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 36))
		entries[i] = sessiondb.Message(fmt.Sprintf(`{"role":"user","content":%q}`, text))
		size += len(entries[i].Body)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Commit(ctx, fmt.Sprint("s", i), sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
			b.Fatal(err)
		}
	}
}
