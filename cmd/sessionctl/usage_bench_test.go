//go:build unix

package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// BenchmarkUsageReport1M runs sessionctl usage and reprice on a ledger of
// 1,000,000 usage rows (1,000 sessions, 10 models, one call every 31 s
// over a year), on SQLite and on PostgreSQL (when a server is available):
//
//	go test ./cmd/sessionctl -run '^$' -bench UsageReport1M -benchtime 5x
//
// Each operation is one whole command, output included (to io.Discard).
// "usage_daily" is the reference: the view's sums per day over the same
// rows, through sessionctl sql.
func BenchmarkUsageReport1M(b *testing.B) {
	const rows, sessions = 1_000_000, 1000
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			var db string
			if backend == "sqlite" {
				db = filepath.Join(b.TempDir(), "usage.db")
			} else {
				db = pgURL(b)
			}
			seedLedger(b, db, rows, sessions)
			dir := b.TempDir()
			cheap, dear := filepath.Join(dir, "cheap.json"), filepath.Join(dir, "dear.json")
			writePrices(b, cheap, 1)
			writePrices(b, dear, 2)
			for _, bc := range []struct {
				name string
				args []string
			}{
				{"usage_daily", []string{"sql", "--json", `SELECT day, sum(calls), sum(input_tokens), sum(output_tokens), sum(cost) FROM usage_daily GROUP BY day`}},
				{"daily_UTC", []string{"usage", "--tz", "UTC", "--json"}},
				{"daily_Kolkata", []string{"usage", "--tz", "Asia/Kolkata", "--json"}},
				{"daily_Kolkata_since_until", []string{"usage", "--tz", "Asia/Kolkata", "--since", "2026-06-01", "--until", "2026-06-30", "--json"}},
				{"monthly_NewYork", []string{"usage", "monthly", "--tz", "America/New_York", "--json"}},
				{"session", []string{"usage", "session", "--tz", "UTC", "--json"}},
				{"model", []string{"usage", "model", "--tz", "UTC", "--json"}},
				{"daily_with_prices", []string{"usage", "--tz", "UTC", "--prices", cheap, "--json"}},
				{"reprice_dry_run", []string{"reprice", "--prices", dear, "--dry-run", "--json"}},
			} {
				b.Run(bc.name, func(b *testing.B) {
					cpu := cpuTime()
					for b.Loop() {
						runQuiet(b, db, bc.args...)
					}
					reportCPU(b, cpu)
				})
			}
			// Every row changes on every run: the prices alternate.
			b.Run("reprice_all_rows", func(b *testing.B) {
				cpu := cpuTime()
				i := 0
				for b.Loop() {
					file := cheap
					if i%2 == 1 {
						file = dear
					}
					i++
					runQuiet(b, db, "reprice", "--prices", file, "--json")
				}
				reportCPU(b, cpu)
			})
		})
	}
}

// cpuTime is the CPU time the process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start: on a machine
// shared with other work, wall time measures the neighbours too. For
// PostgreSQL it is the client's share only (the server's work is in the
// wall time).
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// runQuiet runs sessionctl on db and fails b unless it succeeds.
func runQuiet(b *testing.B, db string, args ...string) {
	var stderr strings.Builder
	if code := run(context.Background(), append([]string{"--db", db}, args...), strings.NewReader(""), io.Discard, &stderr); code != 0 {
		b.Fatalf("%v: exit %d: %s", args, code, stderr.String())
	}
}

// writePrices writes a price file pricing the ledger's models at factor
// times $1/$2/$0.1/$1.25 per million tokens.
func writePrices(b *testing.B, path string, factor float64) {
	var parts []string
	for m := range 10 {
		parts = append(parts, fmt.Sprintf(`"model-%d": {"input_cost_per_token": %g, "output_cost_per_token": %g, "cache_read_input_token_cost": %g, "cache_creation_input_token_cost": %g}`,
			m, factor*1e-6, factor*2e-6, factor*1e-7, factor*1.25e-6))
	}
	if err := os.WriteFile(path, []byte("{"+strings.Join(parts, ",\n")+"}"), 0o644); err != nil {
		b.Fatal(err)
	}
}

// seedLedger creates the sessions with sessionctl's backend, then fills
// the usage table with one INSERT … SELECT behind its back (the Commit path
// would take minutes for a million rows and is not what is measured).
func seedLedger(b *testing.B, db string, rows, sessions int) {
	withBackend(b, db, func(st sessiondb.Store) {
		var commits []sessiondb.SessionCommit
		for i := range sessions {
			commits = append(commits, sessiondb.SessionCommit{ID: fmt.Sprintf("s%04d", i), Commit: sessiondb.Commit{Create: &sessiondb.Session{}}})
			if len(commits) == sessiondb.MaxCommitMany || i == sessions-1 {
				if _, err := st.CommitMany(context.Background(), commits); err != nil {
					b.Fatal(err)
				}
				commits = nil
			}
		}
	})
	// 2026-01-01T00:00:00Z + n*31 s; model-(n%10); session s(n%1000);
	// input n%5000, output n%700, cache read 10x input, cache write n%300;
	// every fourth row a recorded cost, the others estimated.
	var driver, q string
	if isServerURL(db) {
		driver = "pgx"
		q = `INSERT INTO usage (session_id, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost, cost_estimated, created_at)
			SELECT 's' || lpad((n % ` + fmt.Sprint(sessions) + `)::text, 4, '0'), 'p', 'model-' || (n % 10), n % 5000, n % 700, 10 * (n % 5000), n % 300,
			       (n % 5000) * 1e-6, n % 4 <> 0,
			       to_char(to_timestamp(1767225600 + n * 31) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.000000000Z'
			FROM generate_series(0, ` + fmt.Sprint(rows-1) + `) AS n`
	} else {
		driver = "sqlite"
		q = `WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < ` + fmt.Sprint(rows-1) + `)
			INSERT INTO usage (session_id, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost, cost_estimated, created_at)
			SELECT printf('s%04d', n % ` + fmt.Sprint(sessions) + `), 'p', 'model-' || (n % 10), n % 5000, n % 700, 10 * (n % 5000), n % 300,
			       (n % 5000) * 1e-6, n % 4 <> 0,
			       strftime('%Y-%m-%dT%H:%M:%S', 1767225600 + n * 31, 'unixepoch') || '.000000000Z'
			FROM c`
	}
	raw, err := sql.Open(driver, db)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(q); err != nil {
		b.Fatalf("seed: %v", err)
	}
	if driver == "pgx" {
		if _, err := raw.Exec(`ANALYZE usage`); err != nil {
			b.Fatal(err)
		}
	}
}
