package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/internal/pgtest"
	"github.com/sessiondb/sessiondb/pgstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// plantedKey is a GitHub token the detector finds (github-pat).
const plantedKey = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3x9Z"

// keyBefore is how much of plantedKey lies before the cut.
const keyBefore = 20

// largeBody is a tool result of size bytes with plantedKey straddling
// byte maxBodyRead: keyBefore of its bytes before the cut.
func largeBody(i, size int) []byte {
	head := fmt.Sprintf(`{"role":"tool","tool_call_id":"c%d","content":"`, i)
	pre := maxBodyRead - keyBefore - len(head) - len(" token=")
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(strings.Repeat("x", pre))
	b.WriteString(" token=")
	b.WriteString(plantedKey)
	b.WriteString(" ")
	b.WriteString(strings.Repeat("y", size-b.Len()-2))
	b.WriteString(`"}`)
	return []byte(b.String())
}

type clipBackend struct {
	name string
	open func(t *testing.T) sessiondb.Store
}

func clipBackends() []clipBackend {
	return []clipBackend{
		{"sqlite", func(t *testing.T) sessiondb.Store {
			st, err := sqlstore.Open(filepath.Join(t.TempDir(), "s.db"), &sqlstore.Options{IndexDelay: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}},
		{"postgres", func(t *testing.T) sessiondb.Store {
			st, err := pgstore.Open(context.Background(), pgtest.URL(t, "mcp_clip_"), &pgstore.Options{NoSecretScan: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}},
	}
}

// TestClippedBodies: a session of large bodies, each with a key across
// the 1 MiB cut. The store hands back only the prefix with the full size,
// the key masked up to the cut whether the entry was scanned (stored
// span clipped) or not (margin scanned); read_transcript gives each as
// clipped text with bytes the full size.
func TestClippedBodies(t *testing.T) { testClippedBodies(t, maxBodyRead+8<<10, 2) }

// TestClippedBodiesLarge is TestClippedBodies at 4 bodies of 8 MB.
func TestClippedBodiesLarge(t *testing.T) {
	longtest.Skip(t, "writes 4 bodies of 8 MB per backend and case")
	testClippedBodies(t, 8<<20, 4)
}

func testClippedBodies(t *testing.T, size, n int) {
	for _, be := range clipBackends() {
		t.Run(be.name, func(t *testing.T) {
			st := be.open(t)
			ctx := context.Background()
			keeper := st.(sessiondb.SecretKeeper)
			var entries []sessiondb.Entry
			for i := 1; i <= n; i++ {
				entries = append(entries, sessiondb.Message(`{"role":"user","content":"run it"}`), sessiondb.Message(string(largeBody(i, size))))
			}
			if _, err := st.Commit(ctx, "scanned", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
				t.Fatal(err)
			}
			for more := true; more; {
				var err error
				if more, err = keeper.ScanSecrets(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := st.Commit(ctx, "unscanned", sessiondb.Commit{Create: &sessiondb.Session{}, Append: entries}); err != nil {
				t.Fatal(err)
			}
			if left, err := keeper.SecretStatus(ctx); err != nil || left != int64(2*n) {
				t.Fatalf("unscanned entries %d (%v), want %d", left, err, 2*n)
			}
			// The store's own read: the prefix only, byte for byte.
			raw, err := sessiondb.EntriesClipped(ctx, st, "unscanned", 1, 0, maxBodyRead)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range raw {
				if i%2 == 0 {
					continue
				}
				if !e.Clipped || e.Size != size || len(e.Body) != maxBodyRead || !strings.Contains(string(e.Body), plantedKey[:keyBefore]) {
					t.Fatalf("raw seq %d: clipped %v size %d body %d bytes, want a %d-byte prefix of %d", e.Seq, e.Clipped, e.Size, len(e.Body), maxBodyRead, size)
				}
			}
			view := keeper.Redacted()
			for _, sid := range []string{"scanned", "unscanned"} {
				es, err := sessiondb.EntriesClipped(ctx, view, sid, 1, 0, maxBodyRead)
				if err != nil {
					t.Fatal(err)
				}
				if len(es) != 2*n {
					t.Fatalf("%s: %d entries", sid, len(es))
				}
				for _, e := range es {
					if e.Seq%2 == 1 {
						if e.Clipped || e.Size != len(e.Body) || string(e.Body) != `{"role":"user","content":"run it"}` {
							t.Fatalf("%s seq %d: small body changed: %+v", sid, e.Seq, e)
						}
						continue
					}
					body := string(e.Body)
					if !e.Clipped || e.Size != size || len(body) > maxBodyRead+64 {
						t.Fatalf("%s seq %d: clipped %v size %d body %d bytes", sid, e.Seq, e.Clipped, e.Size, len(body))
					}
					if strings.Contains(body, plantedKey[:8]) || !strings.HasSuffix(body, " token=[REDACTED:github-pat]") {
						t.Fatalf("%s seq %d: key not masked to the cut: …%q", sid, e.Seq, body[max(0, len(body)-60):])
					}
				}
			}
			// read_transcript through the server (which reads the
			// Redacted view).
			cs := connect(t, st)
			for _, sid := range []string{"scanned", "unscanned"} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_transcript", Arguments: map[string]any{"session": sid, "max_bytes": 262144}})
				if err != nil || res.IsError {
					t.Fatalf("%v %+v", err, res)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if strings.Contains(text, plantedKey[:8]) {
					t.Fatalf("%s: the answer holds the key", sid)
				}
				var out transcriptOut
				if err := json.Unmarshal([]byte(text), &out); err != nil {
					t.Fatal(err)
				}
				big := 0
				for _, m := range out.Messages {
					if m.Seq%2 == 0 {
						big++
						if !m.Clipped || m.Bytes != size || !strings.HasPrefix(m.Text, `{"role":"tool","tool_call_id":"c`) {
							t.Errorf("%s seq %d: clipped %v bytes %d text %.40q", sid, m.Seq, m.Clipped, m.Bytes, m.Text)
						}
					}
				}
				// Each clipped text takes a quarter of the budget: at most 3
				// fit on one page.
				if big != min(n, 3) || len(text) > 262144 {
					t.Errorf("%s: %d large messages on a page of %d bytes, want %d", sid, big, len(text), min(n, 3))
				}
			}
		})
	}
}
