package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/sqlstore"
)

// appendShape writes the lines of one agent's session file.
type appendShape struct {
	name string
	// path is the file, under root.
	path string
	// line returns the i-th line (0-based), with its newline.
	line func(i int) string
}

var appendShapes = []appendShape{
	{
		name: "picoclaw",
		path: "big.jsonl",
		line: func(i int) string {
			return fmt.Sprintf(`{"role":"user","content":"%d %s"}`+"\n", i, strings.Repeat("x", 1000))
		},
	},
	{
		name: "claude-code",
		path: "projects/-home-dev-proj/5c2d8e41-0000-4000-8000-0000000000aa.jsonl",
		line: func(i int) string {
			parent := "null"
			if i > 0 {
				parent = fmt.Sprintf(`"u-%08d"`, i-1)
			}
			ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
			text := strings.Repeat("lorem ipsum ", 70)
			if i%2 == 0 {
				return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":"%d %s"},"uuid":"u-%08d","timestamp":"%s","sessionId":"5c2d8e41-0000-4000-8000-0000000000aa","cwd":"/home/dev/proj","version":"2.0.0"}`+"\n", parent, i, text, i, ts)
			}
			return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":"assistant","message":{"id":"msg_%08d","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"%d %s"}],"usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":1000}},"requestId":"req_%08d","uuid":"u-%08d","timestamp":"%s","sessionId":"5c2d8e41-0000-4000-8000-0000000000aa","cwd":"/home/dev/proj","version":"2.0.0"}`+"\n", parent, i, i, text, i, i, ts)
		},
	},
	{
		name: "codex",
		path: "sessions/2026/01/01/rollout-2026-01-01T00-00-00-019f26cb-0000-7000-8000-0000000000aa.jsonl",
		line: func(i int) string {
			ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
			if i == 0 {
				return fmt.Sprintf(`{"timestamp":"%s","type":"session_meta","payload":{"id":"019f26cb-0000-7000-8000-0000000000aa","timestamp":"%s","cwd":"/home/dev/proj","originator":"codex_cli_rs","cli_version":"0.50.0"}}`+"\n", ts, ts)
			}
			role, kind := "user", "input_text"
			if i%2 == 0 {
				role, kind = "assistant", "output_text"
			}
			return fmt.Sprintf(`{"timestamp":"%s","type":"response_item","payload":{"type":"message","role":"%s","content":[{"type":"%s","text":"%d %s"}]}}`+"\n", ts, role, kind, i, strings.Repeat("lorem ipsum ", 75))
		},
	},
}

// BenchmarkAppendOneLine: one line (about 1 KB) appended to a picoclaw
// session, a Claude Code transcript and a Codex rollout of 1, 16 and 64
// MiB, until the store
// has recorded it (DurabilityNormal). The cost of an append should not
// depend on the size of the file (see jsonlimport.Follow).
//
//	go test -run '^$' -bench AppendOneLine -benchtime 20x ./watch/
func BenchmarkAppendOneLine(b *testing.B) {
	for _, sh := range appendShapes {
		for _, mib := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("%s/%dMiB", sh.name, mib), func(b *testing.B) {
				root := b.TempDir()
				f := filepath.Join(root, sh.path)
				if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
					b.Fatal(err)
				}
				var sb strings.Builder
				n := 0
				for sb.Len() < mib<<20 {
					sb.WriteString(sh.line(n))
					n++
				}
				if err := os.WriteFile(f, []byte(sb.String()), 0o644); err != nil {
					b.Fatal(err)
				}
				st, err := sqlstore.Open(filepath.Join(b.TempDir(), "sessions.db"), &sqlstore.Options{Durability: sqlstore.DurabilityNormal})
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				benchWatch(b, st, Options{Paths: []string{root}, Settle: time.Millisecond}, nil)
				ctx := context.Background()
				// The full-text index trails the import of the file: let it
				// catch up, so that the appends do not wait for it.
				if err := st.CatchUpIndex(ctx); err != nil {
					b.Fatal(err)
				}
				// One append before the measure: the first import of a file in
				// a run may verify and read it whole.
				appendAndWait := func() time.Duration {
					fh, err := os.OpenFile(f, os.O_WRONLY|os.O_APPEND, 0)
					if err != nil {
						b.Fatal(err)
					}
					t0 := time.Now()
					_, _ = fh.WriteString(sh.line(n))
					n++
					fi, err := fh.Stat()
					fh.Close()
					if err != nil {
						b.Fatal(err)
					}
					for {
						sf, err := st.SourceFile(ctx, f)
						if err == nil && sf.Offset == fi.Size() {
							break
						}
						time.Sleep(500 * time.Microsecond)
					}
					return time.Since(t0)
				}
				first := appendAndWait()
				b.ResetTimer()
				var total time.Duration
				for range b.N {
					total += appendAndWait()
				}
				b.ReportMetric(float64(first.Microseconds())/1000, "ms/first-append")
				b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/append")
			})
		}
	}
}
