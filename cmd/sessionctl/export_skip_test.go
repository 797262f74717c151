package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// TestExportAllGoesOnPastAnUnwritableSession: export --all to zot or
// swink reports a session the format cannot hold (a message without a
// role) and writes every other one (exit 1). On main it aborted at that
// session and wrote nothing. Exporting that session by name still fails
// whole.
func TestExportAllGoesOnPastAnUnwritableSession(t *testing.T) {
	db := tempDB(t)
	seed(t, db)
	withStore(t, db, func(st *sqlstore.Store) {
		if _, err := st.Commit(context.Background(), "roleless", sessiondb.Commit{
			Create: &sessiondb.Session{CreatedAt: t0},
			Append: []sessiondb.Entry{{Body: json.RawMessage(`{"content":"no role"}`), CreatedAt: t0}},
		}); err != nil {
			t.Fatal(err)
		}
	})
	// What each format cannot hold: zot a message without a role, swink an
	// interrupt that is not its InterruptState.
	for format, bad := range map[string]string{"zot": "roleless", "swink": "chat"} {
		t.Run(format, func(t *testing.T) {
			out := t.TempDir()
			r := sessionctl(t, db, "export", "--all", "--format", format, "--out", out, "--json").mustFail(t, exitError, "could not be exported")
			if !strings.Contains(r.stderr, "1 session(s)") || !strings.Contains(r.stderr, bad+" (") {
				t.Errorf("the error does not name %s alone:\n%s", bad, r.stderr)
			}
			var written []string
			r.decode(t, &written)
			if len(written) < 2 {
				t.Fatalf("wrote %v; want every other session", written)
			}
			for _, f := range written {
				if strings.Contains(filepath.Base(f), bad) {
					t.Errorf("wrote %s, for the session reported as left out", f)
				}
				if _, err := os.Stat(f); err != nil {
					t.Error(err)
				}
			}
			sessionctl(t, db, "export", bad, "--format", format, "--out", t.TempDir()).mustFail(t, exitError, bad)
		})
	}
}
