package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

var usageUpdate = flag.Bool("usage.update", false, "rewrite the golden files in testdata/usage")

// forBackends runs fn on a new SQLite file and on a new PostgreSQL
// database (skipped without a server, see pgURL).
func forBackends(t *testing.T, fn func(t *testing.T, db string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, tempDB(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, pgURL(t))
	})
}

// withBackend opens db (a file or a postgres:// URL) with the backend
// sessionctl would use and runs fn on it.
func withBackend(t testing.TB, db string, fn func(st sessiondb.Store)) {
	t.Helper()
	st, err := openBackend(context.Background(), db, modeCreate, openOptions{})
	if err != nil {
		t.Fatalf("open %s: %v", db, err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Errorf("close %s: %v", db, err)
		}
	}()
	fn(st)
}

// fixtureRow is one usage row of the usage fixture.
type fixtureRow struct {
	at      string // RFC 3339, UTC
	session string
	model   string
	input   int64 // a distinct power of two: sums name their rows
	cost    float64
	// recorded: the cost came from the tool (not estimated).
	recorded bool
}

// usageFixture: calls around the local midnights of New York's DST
// changes (a 23-hour and a 25-hour day), of Kolkata (+05:30) and of
// Kathmandu (+05:45), and across a month end.
var usageFixture = []fixtureRow{
	{at: "2026-03-08T04:59:59Z", session: "ny", model: "claude-opus-5", input: 1},                               // NY Mar 7 23:59:59 EST
	{at: "2026-03-08T05:00:00Z", session: "ny", model: "claude-opus-5", input: 2},                               // NY Mar 8 00:00 EST
	{at: "2026-03-08T06:59:59Z", session: "ny", model: "gpt-5.3-codex", input: 4},                               // NY Mar 8 01:59:59 EST
	{at: "2026-03-08T07:00:00Z", session: "ny", model: "gpt-5.3-codex", input: 8},                               // NY Mar 8 03:00 EDT
	{at: "2026-03-09T03:59:59Z", session: "ny", model: "claude-opus-5", input: 16},                              // NY Mar 8 23:59:59 EDT
	{at: "2026-03-09T04:00:00Z", session: "ny", model: "claude-opus-5", input: 32},                              // NY Mar 9 00:00 EDT
	{at: "2026-03-10T18:14:59Z", session: "in", model: "claude-sonnet-4-6", input: 64},                          // Kathmandu Mar 10 23:59:59
	{at: "2026-03-10T18:15:00Z", session: "in", model: "claude-sonnet-4-6", input: 128},                         // Kathmandu Mar 11 00:00
	{at: "2026-03-10T18:29:59Z", session: "in", model: "claude-opus-5", input: 256},                             // Kolkata Mar 10 23:59:59
	{at: "2026-03-10T18:30:00Z", session: "in", model: "claude-opus-5", input: 512},                             // Kolkata Mar 11 00:00
	{at: "2026-04-30T23:30:00Z", session: "in", model: "claude-opus-5", input: 1024},                            // UTC Apr 30, Kathmandu May 1
	{at: "2026-11-01T05:30:00Z", session: "pi", model: "claude-opus-5", input: 2048, cost: 1.5, recorded: true}, // NY Nov 1 01:30 EDT
	{at: "2026-11-01T06:30:00Z", session: "pi", model: "claude-opus-5", input: 4096},                            // NY Nov 1 01:30 EST
	{at: "2026-11-02T04:59:59Z", session: "pi", model: "gpt-5.3-codex", input: 8192},                            // NY Nov 1 23:59:59 EST
	{at: "2026-11-02T05:00:00Z", session: "pi", model: "gpt-5.3-codex", input: 16384},                           // NY Nov 2 00:00 EST
}

func (r fixtureRow) usage(t testing.TB) sessiondb.Usage {
	at, err := time.Parse(time.RFC3339, r.at)
	if err != nil {
		t.Fatal(err)
	}
	u := sessiondb.Usage{Provider: "p", Model: r.model, InputTokens: r.input, OutputTokens: 3 * r.input,
		CacheReadTokens: 10 * r.input, CacheWriteTokens: r.input, CreatedAt: at, Cost: r.cost}
	if !r.recorded {
		p, ok := jsonlimport.PriceOf(r.model)
		if !ok {
			t.Fatalf("fixture model %s has no price", r.model)
		}
		u.Cost, u.CostEstimated = p.Estimate(u), true
	}
	return u
}

// seedUsage writes usageFixture into db.
func seedUsage(t testing.TB, db string) {
	t.Helper()
	titles := map[string]string{"ny": "New York", "in": "India and Nepal", "pi": "recorded costs"}
	withBackend(t, db, func(st sessiondb.Store) {
		for _, id := range []string{"ny", "in", "pi"} {
			var rows []sessiondb.Usage
			for _, r := range usageFixture {
				if r.session == id {
					rows = append(rows, r.usage(t))
				}
			}
			if _, err := st.Commit(context.Background(), id, sessiondb.Commit{
				Create: &sessiondb.Session{Title: titles[id], CreatedAt: t0}, Usage: rows, Now: t0}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// expectedDays is the oracle of the daily report: every fixture row on
// its own day in loc (time.Time.In, row by row), within [since, until]
// (dates in loc; "" for open).
func expectedDays(t testing.TB, loc *time.Location, since, until string) map[string]usageNumbers {
	out := map[string]usageNumbers{}
	for _, r := range usageFixture {
		u := r.usage(t)
		day := u.CreatedAt.In(loc).Format(time.DateOnly)
		if (since != "" && day < since) || (until != "" && day > until) {
			continue
		}
		n := out[day]
		n.add(sessiondb.UsageRow{UsageTotals: sessiondb.UsageTotals{Calls: 1, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens, Cost: u.Cost}})
		out[day] = n
	}
	return out
}

func sameNumbers(a, b usageNumbers) bool {
	c := a
	c.TotalCost = b.TotalCost
	return c == b && math.Abs(a.TotalCost-b.TotalCost) <= 1e-12*math.Max(1, math.Abs(b.TotalCost))
}

// TestUsageTimeZones: the daily report, in UTC, New York (both DST
// changes), Kolkata (+05:30) and Kathmandu (+05:45), puts every call on
// its local day, with --since/--until at the edges, on both backends.
func TestUsageTimeZones(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		seedUsage(t, db)
		for _, tc := range []struct {
			zone, since, until string
			spot               map[string]int64 // day -> input tokens, checked by hand
		}{
			{zone: "UTC", spot: map[string]int64{"2026-03-08": 1 | 2 | 4 | 8, "2026-03-09": 16 | 32, "2026-03-10": 64 | 128 | 256 | 512}},
			{zone: "America/New_York", spot: map[string]int64{"2026-03-07": 1, "2026-03-08": 2 | 4 | 8 | 16, "2026-03-09": 32,
				"2026-11-01": 2048 | 4096 | 8192, "2026-11-02": 16384}},
			{zone: "Asia/Kolkata", spot: map[string]int64{"2026-03-10": 64 | 128 | 256, "2026-03-11": 512, "2026-05-01": 1024}},
			{zone: "Asia/Kathmandu", spot: map[string]int64{"2026-03-10": 64, "2026-03-11": 128 | 256 | 512}},
			// Edges: --since and --until are local dates, both inclusive.
			{zone: "Asia/Kathmandu", since: "2026-03-11", until: "2026-03-11", spot: map[string]int64{"2026-03-11": 128 | 256 | 512}},
			{zone: "Asia/Kolkata", since: "2026-03-10", until: "2026-03-10", spot: map[string]int64{"2026-03-10": 64 | 128 | 256}},
			{zone: "America/New_York", since: "20260308", until: "20260308", spot: map[string]int64{"2026-03-08": 2 | 4 | 8 | 16}},
			{zone: "America/New_York", since: "2026-11-01", spot: map[string]int64{"2026-11-01": 2048 | 4096 | 8192, "2026-11-02": 16384}},
			{zone: "America/New_York", until: "2026-03-07", spot: map[string]int64{"2026-03-07": 1}},
		} {
			loc, err := time.LoadLocation(tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"usage", "daily", "--json", "--tz", tc.zone}
			if tc.since != "" {
				args = append(args, "--since", tc.since)
			}
			if tc.until != "" {
				args = append(args, "--until", tc.until)
			}
			var rep usageReport
			sessionctl(t, db, args...).mustSucceed(t).decode(t, &rep)
			since, _ := parseUsageDate("", tc.since)
			until, _ := parseUsageDate("", tc.until)
			var sinceDay, untilDay string
			if !since.IsZero() {
				sinceDay = since.Format(time.DateOnly)
			}
			if !until.IsZero() {
				untilDay = until.Format(time.DateOnly)
			}
			want := expectedDays(t, loc, sinceDay, untilDay)
			if rep.Daily == nil || len(*rep.Daily) != len(want) || rep.TimeZone != tc.zone {
				t.Fatalf("%v: report %+v; want %d days in %s", args, rep, len(want), tc.zone)
			}
			var total usageNumbers
			for _, d := range *rep.Daily {
				if !sameNumbers(d.usageNumbers, want[d.Date]) {
					t.Errorf("%v: %s = %+v, want %+v", args, d.Date, d.usageNumbers, want[d.Date])
				}
				var sum usageNumbers
				for _, m := range d.ModelBreakdowns {
					sum.add(sessiondb.UsageRow{UsageTotals: sessiondb.UsageTotals{Calls: m.Calls, InputTokens: m.InputTokens, OutputTokens: m.OutputTokens,
						CacheReadTokens: m.CacheReadTokens, CacheWriteTokens: m.CacheCreationTokens, ReasoningTokens: m.ReasoningTokens, Cost: m.Cost}})
				}
				if !sameNumbers(sum, d.usageNumbers) || len(d.ModelsUsed) != len(d.ModelBreakdowns) {
					t.Errorf("%v: %s: breakdowns %+v do not add up to %+v", args, d.Date, d.ModelBreakdowns, d.usageNumbers)
				}
				total.add(sessiondb.UsageRow{UsageTotals: sessiondb.UsageTotals{Calls: d.Calls, InputTokens: d.InputTokens, OutputTokens: d.OutputTokens,
					CacheReadTokens: d.CacheReadTokens, CacheWriteTokens: d.CacheCreationTokens, Cost: d.TotalCost}})
			}
			if !sameNumbers(total, rep.Totals) {
				t.Errorf("%v: totals %+v, days add up to %+v", args, rep.Totals, total)
			}
			for day, in := range tc.spot {
				if want[day].InputTokens != in {
					t.Fatalf("test oracle disagrees with the hand count for %s %s: %d, want %d", tc.zone, day, want[day].InputTokens, in)
				}
			}
		}
	})
}

// TestUsageMatchesUsageDaily: with --tz UTC, the daily report's figures
// are usage_daily's sums, for archives of every format.
func TestUsageMatchesUsageDaily(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		paths := []string{
			filepath.Join("..", "..", "testdata", "zot", "zot_home"),
			filepath.Join("..", "..", "testdata", "swink", "sessions"),
			filepath.Join("..", "..", "testdata", "claudecode", "projects"),
			filepath.Join("..", "..", "testdata", "codex", "codex-home"),
			filepath.Join("..", "..", "testdata", "pi", "sessions"),
			filepath.Join("..", "..", "testdata", "picoclaw"),
		}
		r := sessionctl(t, db, append([]string{"import", "--json"}, paths...)...)
		if r.code != exitOK && r.code != exitProblems {
			t.Fatalf("import: exit %d: %s", r.code, r.stderr)
		}
		seedUsage(t, db)
		var days []struct {
			Day    string  `json:"day"`
			Calls  int64   `json:"calls"`
			Input  int64   `json:"input"`
			Output int64   `json:"output"`
			Read   int64   `json:"read"`
			Write  int64   `json:"write"`
			Reason int64   `json:"reason"`
			Cost   float64 `json:"cost"`
		}
		sessionctl(t, db, "sql", "--json", `SELECT day, CAST(sum(calls) AS BIGINT) AS calls, CAST(sum(input_tokens) AS BIGINT) AS input,
			CAST(sum(output_tokens) AS BIGINT) AS output, CAST(sum(cache_read_tokens) AS BIGINT) AS read,
			CAST(sum(cache_write_tokens) AS BIGINT) AS write, CAST(sum(reasoning_tokens) AS BIGINT) AS reason, sum(cost) AS cost
			FROM usage_daily GROUP BY day ORDER BY day`).mustSucceed(t).decode(t, &days)
		var rep usageReport
		sessionctl(t, db, "usage", "--tz", "UTC", "--json").mustSucceed(t).decode(t, &rep)
		if len(days) < 6 || rep.Daily == nil || len(*rep.Daily) != len(days) {
			t.Fatalf("usage_daily has %d days, the report %v", len(days), rep.Daily)
		}
		for i, d := range *rep.Daily {
			w := days[i]
			if d.Date != w.Day || d.Calls != w.Calls || d.InputTokens != w.Input || d.OutputTokens != w.Output ||
				d.CacheReadTokens != w.Read || d.CacheCreationTokens != w.Write || d.ReasoningTokens != w.Reason ||
				math.Abs(d.TotalCost-w.Cost) > 1e-9*math.Max(1, w.Cost) {
				t.Errorf("day %s: report %+v, usage_daily %+v", d.Date, d.usageNumbers, w)
			}
		}
	})
}

// TestUsageViews: monthly, session and model views, the --breakdown
// table, and JSON golden files (testdata/usage, -usage.update rewrites
// them); both backends give the same bytes.
func TestUsageViews(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		seedUsage(t, db)
		for _, tc := range []struct {
			golden string
			args   []string
		}{
			{"daily-kathmandu.json", []string{"usage", "daily", "--tz", "Asia/Kathmandu", "--json"}},
			{"monthly-kathmandu.json", []string{"usage", "monthly", "--tz", "Asia/Kathmandu", "--json"}},
			{"session-march.json", []string{"usage", "session", "--tz", "UTC", "--since", "2026-03-01", "--until", "2026-03-31", "--json"}},
			{"model.json", []string{"usage", "model", "--tz", "America/New_York", "--json"}},
		} {
			out := sessionctl(t, db, tc.args...).mustSucceed(t).stdout
			path := filepath.Join("..", "..", "testdata", "usage", tc.golden)
			if *usageUpdate && strings.HasSuffix(t.Name(), "sqlite") {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/sessionctl -run TestUsageViews -usage.update)", err)
			}
			if out != string(want) {
				t.Errorf("%v differs from %s:\n%s", tc.args, path, out)
			}
		}
		// Months follow the zone: the call of 2026-04-30T23:30Z is May's
		// in Kathmandu and April's in UTC.
		var utc usageReport
		sessionctl(t, db, "usage", "monthly", "--tz", "UTC", "--json").mustSucceed(t).decode(t, &utc)
		if utc.Monthly == nil || len(*utc.Monthly) != 3 || (*utc.Monthly)[1].Month != "2026-04" || (*utc.Monthly)[1].InputTokens != 1024 {
			t.Errorf("UTC months = %+v", utc.Monthly)
		}
		// Tables: one row per group, and per model with --breakdown.
		plain := sessionctl(t, db, "usage", "--tz", "America/New_York").mustSucceed(t).stdout
		broken := sessionctl(t, db, "usage", "--tz", "America/New_York", "--breakdown").mustSucceed(t).stdout
		if !strings.Contains(plain, "usage by day, time zone America/New_York") || !strings.Contains(plain, "2026-03-08  claude-opus-5, gpt-5.3-codex") ||
			strings.Contains(plain, "└") || !strings.Contains(plain, "\nTOTAL ") {
			t.Errorf("daily table:\n%s", plain)
		}
		if got := strings.Count(broken, "└ "); got != 10 {
			t.Errorf("--breakdown table has %d model rows, want 10:\n%s", got, broken)
		}
		sess := sessionctl(t, db, "usage", "session", "--tz", "UTC").mustSucceed(t).stdout
		if !strings.Contains(sess, "India and Nepal") || strings.Index(sess, "New York") > strings.Index(sess, "recorded costs") {
			t.Errorf("session table (by last activity):\n%s", sess)
		}
		models := sessionctl(t, db, "usage", "model", "--tz", "UTC").mustSucceed(t).stdout
		if !strings.Contains(models, "claude-sonnet-4-6") || !strings.Contains(models, "24,588") {
			t.Errorf("model table:\n%s", models)
		}
		empty := sessionctl(t, db, "usage", "--since", "2030-01-01", "--tz", "UTC").mustSucceed(t).stdout
		if !strings.Contains(empty, "no usage recorded") {
			t.Errorf("empty range:\n%s", empty)
		}
		var none usageReport
		sessionctl(t, db, "usage", "session", "--since", "2030-01-01", "--tz", "UTC", "--json").mustSucceed(t).decode(t, &none)
		if none.Sessions == nil || len(*none.Sessions) != 0 || none.Totals.Calls != 0 {
			t.Errorf("empty range JSON = %+v; want an empty sessions list", none)
		}
	})
}

// TestUsageBadInput: bad zones, dates and views are usage errors (exit
// 2), one line each; a bad price file fails naming the file and the entry.
func TestUsageBadInput(t *testing.T) {
	db := tempDB(t)
	seedUsage(t, db)
	sessionctl(t, db, "usage", "--tz", "Mars/Olympus").mustFail(t, exitUsage, `unknown time zone "Mars/Olympus"`)
	sessionctl(t, db, "usage", "--since", "2026-02-30").mustFail(t, exitUsage, `--since "2026-02-30" is not a date`)
	sessionctl(t, db, "usage", "--until", "yesterday").mustFail(t, exitUsage, `--until "yesterday" is not a date`)
	sessionctl(t, db, "usage", "--since", "2026-03-02", "--until", "2026-03-01").mustFail(t, exitUsage, "before --since")
	sessionctl(t, db, "usage", "weekly").mustFail(t, exitUsage, `unknown usage view "weekly"`)
	sessionctl(t, db, "usage", "daily", "monthly").mustFail(t, exitUsage, "")
	bad := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(bad, []byte(`{"claude-opus-5": {"input_cost_per_token": "cheap"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"usage"}, {"reprice"}, {"import", t.TempDir()}} {
		sessionctl(t, db, append(cmd, "--prices", bad)...).mustFail(t, exitError, bad+`: invalid input: entry "claude-opus-5": input_cost_per_token: "cheap" is not a number`)
	}
}

// TestDayStart: for every day of 2026 in zones with DST changes at 2am
// and at midnight, half- and three-quarter-hour offsets and a 30-minute
// DST shift, dayStart is the first instant of the local day.
func TestDayStart(t *testing.T) {
	for _, zone := range []string{"UTC", "America/New_York", "America/Santiago", "America/Havana", "Asia/Beirut",
		"Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for d := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() == 2026; d = d.AddDate(0, 0, 1) {
			s := dayStart(d, loc)
			if got, want := s.In(loc).Format(time.DateOnly), d.Format(time.DateOnly); got != want {
				t.Errorf("%s: dayStart(%s) = %v, local day %s", zone, want, s, got)
			}
			if got, want := s.Add(-time.Nanosecond).In(loc).Format(time.DateOnly), d.AddDate(0, 0, -1).Format(time.DateOnly); got != want {
				t.Errorf("%s: the instant before dayStart(%s) = %v is on %s, want %s", zone, d.Format(time.DateOnly), s, got, want)
			}
		}
	}
}

// TestUsagePrices: usage --prices reports estimated costs at the file's
// prices and recorded ones as stored, without writing; $SESSIONDB_PRICES
// works the same.
func TestUsagePrices(t *testing.T) {
	db := tempDB(t)
	seedUsage(t, db)
	file := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(file, []byte(`{"claude-opus-5": {"input_cost_per_token": 1e-06, "output_cost_per_token": 1e-06,
		"cache_read_input_token_cost": 0, "cache_creation_input_token_cost": 0}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, r := range usageFixture {
		u := r.usage(t)
		if r.model == "claude-opus-5" && !r.recorded {
			u.Cost = float64(u.InputTokens+u.OutputTokens) / 1e6
		}
		want += u.Cost
	}
	var rep usageReport
	sessionctl(t, db, "usage", "--tz", "UTC", "--prices", file, "--json").mustSucceed(t).decode(t, &rep)
	if math.Abs(rep.Totals.TotalCost-want) > 1e-12 || !strings.Contains(rep.Prices, file) {
		t.Errorf("cost with --prices = %v (prices %q), want %v", rep.Totals.TotalCost, rep.Prices, want)
	}
	t.Setenv("SESSIONDB_PRICES", file)
	var env usageReport
	sessionctl(t, db, "usage", "model", "--tz", "UTC", "--json").mustSucceed(t).decode(t, &env)
	if math.Abs(env.Totals.TotalCost-want) > 1e-12 {
		t.Errorf("cost with $SESSIONDB_PRICES = %v, want %v", env.Totals.TotalCost, want)
	}
	t.Setenv("SESSIONDB_PRICES", "")
	var stored usageReport
	sessionctl(t, db, "usage", "--tz", "UTC", "--json").mustSucceed(t).decode(t, &stored)
	if stored.Prices != "stored" || math.Abs(stored.Totals.TotalCost-want) < 1e-9 {
		t.Errorf("the report with --prices changed the stored costs: %+v", stored.Totals)
	}
}

// TestReprice: reprice recomputes estimated costs with the file's prices,
// never a recorded cost, reports per model and unpriced models; --dry-run
// writes nothing; a second run changes nothing. Both backends.
func TestReprice(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		seedUsage(t, db)
		withBackend(t, db, func(st sessiondb.Store) {
			if _, err := st.Commit(context.Background(), "pi", sessiondb.Commit{Usage: []sessiondb.Usage{
				{Model: "brand-new-model", InputTokens: 5, CostEstimated: true, CreatedAt: t0},
				{Model: "brand-new-model", InputTokens: 7, Cost: 0.125, CreatedAt: t0},
			}}); err != nil {
				t.Fatal(err)
			}
		})
		before := ledger(t, db)
		file := filepath.Join(t.TempDir(), "prices.json")
		if err := os.WriteFile(file, []byte(`{"anthropic/claude-opus-5": {"input_cost_per_token": 2e-06, "output_cost_per_token": 4e-06}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		var dry repriceReport
		sessionctl(t, db, "reprice", "--prices", file, "--dry-run", "--json").mustSucceed(t).decode(t, &dry)
		if after := ledger(t, db); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("--dry-run changed the ledger")
		}
		var rep repriceReport
		sessionctl(t, db, "reprice", "--prices", file, "--json").mustSucceed(t).decode(t, &rep)
		after := ledger(t, db)
		opus := jsonlimport.Price{Input: 2, Output: 4, CacheRead: 0.2, CacheWrite: 2.5}
		changed := map[string]int64{}
		for i, u := range after {
			b := before[i]
			w := b
			if b.CostEstimated && b.Model == "claude-opus-5" {
				w.Cost = opus.Estimate(b)
			}
			if u != w {
				t.Errorf("row %d: %+v\nwant %+v", i, u, w)
			}
			if u.Cost != b.Cost {
				changed[u.Model]++
			}
			if !b.CostEstimated && u.Cost != b.Cost {
				t.Errorf("reprice changed a recorded cost: %+v -> %+v", b, u)
			}
		}
		if changed["claude-opus-5"] != 8 || len(changed) != 1 {
			t.Errorf("changed rows by model %v; want 8 rows of claude-opus-5 only", changed)
		}
		if rep.Changed != 8 || rep.DryRun || len(rep.Unpriced) != 1 || rep.Unpriced[0] != "brand-new-model" || !strings.Contains(rep.Prices, file) {
			t.Errorf("report %+v", rep)
		}
		dry.DryRun = false
		if fmt.Sprint(dry) != fmt.Sprint(rep) {
			t.Errorf("dry run said %+v, reprice did %+v", dry, rep)
		}
		for _, m := range rep.Models {
			if m.Model == "claude-opus-5" && (m.Rows != 8 || m.Changed != 8 || m.CostAfter >= m.CostBefore) {
				t.Errorf("claude-opus-5: %+v", m)
			}
		}
		var again repriceReport
		sessionctl(t, db, "reprice", "--prices", file, "--json").mustSucceed(t).decode(t, &again)
		if again.Changed != 0 {
			t.Errorf("second reprice changed %d rows", again.Changed)
		}
		// Back to the built-in prices: the fixture's own costs again.
		table := sessionctl(t, db, "reprice").mustSucceed(t).stdout
		if !strings.Contains(table, "repriced 8 of ") || !strings.Contains(table, `unpriced: model "brand-new-model"`) {
			t.Errorf("reprice table:\n%s", table)
		}
		if restored := ledger(t, db); fmt.Sprint(restored) != fmt.Sprint(before) {
			t.Errorf("reprice with the built-in table did not restore the built-in estimates:\n%v\n%v", restored, before)
		}
	})
}

// ledger returns every usage row of db, by session and insertion.
func ledger(t testing.TB, db string) []sessiondb.Usage {
	t.Helper()
	var out []sessiondb.Usage
	withBackend(t, db, func(st sessiondb.Store) {
		c := st.(sessiondb.Copier)
		ids := []string{"in", "ny", "pi"}
		sort.Strings(ids)
		for _, id := range ids {
			d, err := c.DumpSession(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, d.Usage...)
		}
	})
	return out
}

// TestImportPrices: import --prices FILE estimates with the file; without
// the flag, $SESSIONDB_PRICES does; a model no table prices is noted once.
func TestImportPrices(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(sid, msg, model string) string {
		return `{"type":"assistant","sessionId":"` + sid + `","uuid":"a-` + msg + `","parentUuid":null,"requestId":"r-` + msg +
			`","timestamp":"2026-02-01T10:00:01.000Z","message":{"id":"` + msg + `","role":"assistant","model":"` + model +
			`","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":1000000,"output_tokens":0}}}`
	}
	for i, sid := range []string{"c0570000-0000-4000-8000-000000000011", "c0570000-0000-4000-8000-000000000012"} {
		body := line(sid, fmt.Sprint("m", i), "claude-opus-5") + "\n" + line(sid, fmt.Sprint("n", i), "mystery-1") + "\n"
		if err := os.WriteFile(filepath.Join(proj, sid+".jsonl"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(file, []byte(`{"claude-opus-5": {"input_cost_per_token": 1e-06, "output_cost_per_token": 1e-06}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cost := func(db string) float64 {
		var rep usageReport
		sessionctl(t, db, "usage", "model", "--tz", "UTC", "--json").mustSucceed(t).decode(t, &rep)
		return rep.Totals.TotalCost
	}
	db := tempDB(t)
	var rep importReport
	sessionctl(t, db, "import", "--json", "--prices", file, dir).mustSucceed(t).decode(t, &rep)
	var noted int
	for _, n := range rep.Notes {
		if strings.Contains(n.Reason, `"mystery-1" has no price`) {
			noted++
		}
	}
	if noted != 1 {
		t.Errorf("unpriced model noted %d times, want once: %+v", noted, rep.Notes)
	}
	if got := cost(db); math.Abs(got-2*1.0) > 1e-12 {
		t.Errorf("cost with --prices = %v, want 2 (two calls of 1M input tokens at $1/M)", got)
	}
	t.Setenv("SESSIONDB_PRICES", file)
	db2 := tempDB(t)
	sessionctl(t, db2, "import", dir).mustSucceed(t)
	if got := cost(db2); math.Abs(got-2*1.0) > 1e-12 {
		t.Errorf("cost with $SESSIONDB_PRICES = %v, want 2", got)
	}
	t.Setenv("SESSIONDB_PRICES", "")
	db3 := tempDB(t)
	sessionctl(t, db3, "import", dir).mustSucceed(t)
	if got := cost(db3); math.Abs(got-2*5.0) > 1e-12 {
		t.Errorf("cost with the built-in prices = %v, want 10 (Opus 5 at $5/M)", got)
	}
}

// TestUsageUnpriced imports a Claude Code session whose calls were made
// with a model nobody prices and with "claude-opus-4.8" (a dotted spelling
// of a priced model): `usage` says "unpriced" for the first, never $0.00,
// prices the second, and its JSON counts unpricedCalls (issue 38).
func TestUsageUnpriced(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "projects", "-home-u-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(n int, model, msg string) string {
		return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":"assistant","sessionId":"0d000000-0000-4000-8000-000000000001","uuid":"0d000000-0000-4000-8000-00000000000%d","timestamp":"2026-03-0%dT10:00:00.000Z","message":{"id":%q,"role":"assistant","model":%q,"content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":1000,"output_tokens":100}}}`,
			map[bool]string{true: "null", false: fmt.Sprintf(`"0d000000-0000-4000-8000-00000000000%d"`, n-1)}[n == 1], n, n, msg, model)
	}
	file := filepath.Join(dir, "0d000000-0000-4000-8000-000000000001.jsonl")
	data := `{"parentUuid":null,"type":"user","sessionId":"0d000000-0000-4000-8000-000000000001","uuid":"0d000000-0000-4000-8000-000000000000","timestamp":"2026-03-01T09:00:00.000Z","message":{"role":"user","content":"hi"}}` + "\n" +
		line(1, "brand-new-model-x", "m1") + "\n" + line(2, "claude-opus-4.8", "m2") + "\n"
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	db := tempDB(t)
	sessionctl(t, db, "import", file).mustSucceed(t)
	table := sessionctl(t, db, "usage", "daily", "--tz", "UTC", "--breakdown").mustSucceed(t).stdout
	for _, want := range []string{"2026-03-01", "unpriced", "└ brand-new-model-x", "+ unpriced"} {
		if !strings.Contains(table, want) {
			t.Errorf("usage table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "$0.00") {
		t.Errorf("usage table shows $0.00:\n%s", table)
	}
	var rep usageReport
	sessionctl(t, db, "usage", "model", "--tz", "UTC", "--json").mustSucceed(t).decode(t, &rep)
	if rep.Totals.UnpricedCalls != 1 || rep.Models == nil {
		t.Fatalf("totals %+v", rep.Totals)
	}
	for _, m := range *rep.Models {
		switch m.ModelName {
		case "brand-new-model-x":
			if m.UnpricedCalls != 1 || m.TotalCost != 0 {
				t.Errorf("%+v", m)
			}
		case "claude-opus-4.8":
			if want := (1000*5 + 100*25) / 1e6; m.UnpricedCalls != 0 || m.TotalCost != want {
				t.Errorf("%+v, want cost %v at claude-opus-4-8's price", m, want)
			}
		}
	}
}
