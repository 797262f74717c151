package viewer

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/pgtest"
	"github.com/sessiondb/sessiondb/pgstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// clipKey is a GitHub token the detector finds (github-pat), planted so
// that its first 20 bytes lie before the maxBodyRead cut.
const clipKey = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3x9Z"

func clipBody(i, size int) string {
	head := fmt.Sprintf(`{"role":"tool","tool_call_id":"c%d","content":"`, i)
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(strings.Repeat("x", maxBodyRead-20-len(head)-len(" token=")))
	b.WriteString(" token=" + clipKey + " ")
	b.WriteString(strings.Repeat("y", size-b.Len()-2))
	b.WriteString(`"}`)
	return b.String()
}

// TestClippedPage: a transcript page of a session whose bodies are
// larger than maxBodyRead reads their prefix only and shows it clipped,
// with the body's full size; on both backends. (The page shows 64 KiB of
// the prefix, so the key never reaches it; that the store masks it up to
// the cut, scanned or not, is mcpserver's TestClippedBodies.)
func TestClippedPage(t *testing.T) {
	const size = maxBodyRead + 8<<10
	opens := map[string]func(t *testing.T) sessiondb.Store{
		"sqlite": func(t *testing.T) sessiondb.Store {
			st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), &sqlstore.Options{IndexDelay: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
		"postgres": func(t *testing.T) sessiondb.Store {
			st, err := pgstore.Open(context.Background(), pgtest.URL(t, "viewer_clip_"), &pgstore.Options{NoSecretScan: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			st := opens[name](t)
			ctx := context.Background()
			entries := []sessiondb.Entry{sessiondb.Message(`{"role":"user","content":"run it"}`), sessiondb.Message(clipBody(1, size))}
			if _, err := st.Commit(ctx, "scanned", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
				t.Fatal(err)
			}
			k := st.(sessiondb.SecretKeeper)
			for more := true; more; {
				var err error
				if more, err = k.ScanSecrets(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := st.Commit(ctx, "unscanned", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
				t.Fatal(err)
			}
			srv := server(t, st, Options{}).URL
			for _, sid := range []string{"scanned", "unscanned"} {
				page := mustPage(t, srv, "/s/"+sid)
				mustNotContain(t, sid, page, clipKey[:8])
				mustContain(t, sid, page, "run it", fmt.Sprintf("clipped at 64 KiB of a %d-byte body", size))
				if len(page) > 256<<10 {
					t.Errorf("%s: page of %d bytes", sid, len(page))
				}
			}
		})
	}
}
