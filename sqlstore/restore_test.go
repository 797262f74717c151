package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb"
)

func msg(i int) sessiondb.Entry {
	return sessiondb.Message(fmt.Sprintf(`{"role":"user","content":"turn %d"}`, i))
}

func TestCheckpointRetention(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ retention, saves, want int }{{0, 25, 20}, {3, 10, 3}, {-1, 25, 25}} {
		s, err := Open(filepath.Join(t.TempDir(), "r.db"), &Options{CheckpointRetention: tc.retention, Durability: DurabilityNormal})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Create(ctx, sessiondb.Session{ID: "a"}); err != nil {
			t.Fatal(err)
		}
		for i := range tc.saves {
			if _, err := s.Append(ctx, "a", msg(i)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.SaveCheckpoint(ctx, sessiondb.Checkpoint{ID: fmt.Sprintf("cp%03d", i), SessionID: "a"}); err != nil {
				t.Fatal(err)
			}
		}
		list, err := s.ListCheckpoints(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != tc.want {
			t.Fatalf("retention %d: %d checkpoints kept, want %d", tc.retention, len(list), tc.want)
		}
		if newest := fmt.Sprintf("cp%03d", tc.saves-1); list[0].ID != newest {
			t.Fatalf("retention %d: newest is %s, want %s", tc.retention, list[0].ID, newest)
		}
		s.Close()
	}
}
