package sqlstore

import (
	"context"
	"os"
	"testing"

	"github.com/sessiondb/sessiondb"
)

func TestZZScratchWAL(t *testing.T) {
	ctx := context.Background()
	p := t.TempDir() + "/x.db"
	s, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Create(ctx, sessiondb.Session{ID: "a"})
	for i := 0; i < 500; i++ {
		s.Append(ctx, "a", sessiondb.Entry{Body: benchBody(1024, "x")})
	}
	s.CatchUpIndex(ctx)
	fi, _ := os.Stat(p + "-wal")
	t.Logf("before close wal %v", fi.Size())
	s.Close()
	fi, err = os.Stat(p + "-wal")
	if err == nil {
		t.Logf("after close wal %v", fi.Size())
	} else {
		t.Logf("after close: %v", err)
	}
}
