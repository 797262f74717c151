package jsonlimport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
)

// conflictOnce is a store whose first write fails with a sequence
// conflict, as when another importer recorded the file meanwhile.
type conflictOnce struct {
	sessiondb.Store
	failed bool
}

func (s *conflictOnce) Commit(ctx context.Context, id string, c sessiondb.Commit) (sessiondb.Session, error) {
	if !s.failed {
		s.failed = true
		return sessiondb.Session{}, &sessiondb.ConflictError{SessionID: id}
	}
	return s.Store.Commit(ctx, id, c)
}

func (s *conflictOnce) CommitMany(ctx context.Context, cs []sessiondb.SessionCommit) ([]sessiondb.Session, error) {
	if !s.failed {
		s.failed = true
		return nil, &sessiondb.ConflictError{SessionID: cs[0].ID}
	}
	return s.Store.CommitMany(ctx, cs)
}

// TestImportRetryReportsProblemsOnce: a unit prepared again after a
// conflict reports its problems once, not once per attempt.
func TestImportRetryReportsProblemsOnce(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile("../testdata/pi/sessions/linear.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	path := filepath.Join(t.TempDir(), "linear.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, err := Import(ctx, s, []string{path}, Options{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.SourceFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rec.State = []byte(`"not the importer's state"`) // unreadable: a problem each prepare
	if _, err := s.Commit(ctx, rec.SessionID, sessiondb.Commit{Source: &rec}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := &conflictOnce{Store: s}
	rep, err := Import(ctx, cs, []string{path}, Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !cs.failed {
		t.Fatal("the import wrote nothing")
	}
	n := 0
	for _, p := range rep.Problems {
		if strings.Contains(p.Reason, "previous import state unreadable") {
			n++
		}
	}
	if n != 1 || rep.Sessions != 1 {
		t.Errorf("report after a retried write: %d sessions, problems %+v; want 1 session and the unreadable state reported once", rep.Sessions, rep.Problems)
	}
}
