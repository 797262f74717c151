package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepriceRefusesAbsurdPrices (issue 36 item 4): a price file saying
// 1e300 $/token used to be accepted, the costs became +Inf (SQLite) and
// were committed, and stats, usage, MCP and the viewer then failed while
// doctor said ok. A rate above $1,000 per token is refused with a clear
// error that changes nothing, as is a key given twice in an entry.
func TestRepriceRefusesAbsurdPrices(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		seedUsage(t, db)
		before := fmt.Sprint(ledger(t, db))
		dir := t.TempDir()
		for name, body := range map[string]string{
			"absurd.json":    `{"claude-opus-5": {"input_cost_per_token": 1e300, "output_cost_per_token": 4e-06}}`,
			"above.json":     `{"claude-opus-5": {"input_cost_per_token": 5e-06, "output_cost_per_token": 1000.01}}`,
			"twice.json":     `{"claude-opus-5": {"input_cost_per_token": 5e-06, "output_cost_per_token": 4e-06, "input_cost_per_token": 5e-03}}`,
			"tier-huge.json": `{"claude-opus-5": {"input_cost_per_token": 5e-06, "input_cost_per_token_above_200k_tokens": 1e20}}`,
		} {
			file := filepath.Join(dir, name)
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"reprice", "--prices", file}, {"reprice", "--dry-run", "--prices", file}, {"usage", "--prices", file}} {
				r := sessionctl(t, db, args...).mustFail(t, exitError, `entry "claude-opus-5"`)
				if !strings.Contains(r.stderr, "above the limit of $1000 per token") && !strings.Contains(r.stderr, "appears twice") {
					t.Errorf("%s %v: %s", name, args, r.stderr)
				}
			}
		}
		if after := fmt.Sprint(ledger(t, db)); after != before {
			t.Errorf("a refused reprice changed the ledger:\n%s\n%s", before, after)
		}
	})
}

// TestReadsSurviveAbsurdStoredCosts (issue 36 item 4): costs written before
// prices were bounded (or by hand) — +Inf, NaN, and finite ones whose sum
// overflows — no longer break stats, usage (text and JSON), list, the
// viewer's pages and API: totals count such a cost as $0
// (sessiondb.MaxCost). doctor reports the rows, and reprice with sane
// prices repairs the estimated ones.
func TestReadsSurviveAbsurdStoredCosts(t *testing.T) {
	forBackends(t, func(t *testing.T, db string) {
		seedUsage(t, db)
		var raw *sql.DB
		var err error
		var damage []string
		if strings.HasPrefix(db, "postgres") {
			raw, err = sql.Open("pgx", db)
			damage = []string{`'Infinity'`, `'NaN'`, `1.7e308`, `1.7e308`}
		} else {
			raw, err = sql.Open("sqlite", db)
			damage = []string{`9e999`, `1.7e308`, `1.7e308`, `-1e300`}
		}
		if err != nil {
			t.Fatal(err)
		}
		// Estimated rows of claude-opus-5 (reprice can repair them).
		for i, v := range damage {
			if _, err := raw.Exec(fmt.Sprintf(`UPDATE usage SET cost = %s WHERE id = (SELECT id FROM usage WHERE cost_estimated AND model = 'claude-opus-5' ORDER BY id LIMIT 1 OFFSET %d)`, v, i)); err != nil {
				t.Fatal(err)
			}
		}
		raw.Close()

		for _, args := range [][]string{{"stats"}, {"stats", "--json"}, {"usage"}, {"usage", "--json"}, {"usage", "model", "--json"}, {"usage", "session", "--breakdown"}, {"list", "--json"}, {"list"}, {"show", "ny"}} {
			r := sessionctl(t, db, args...).mustSucceed(t)
			if strings.Contains(r.stdout, "Inf") || strings.Contains(r.stdout, "NaN") || strings.Contains(r.stdout, "e+30") {
				t.Errorf("%v shows an absurd figure:\n%s", args, r.stdout)
			}
		}
		var usage struct {
			Totals struct {
				TotalCost float64 `json:"totalCost"`
			} `json:"totals"`
		}
		if err := json.Unmarshal([]byte(sessionctl(t, db, "usage", "--json").stdout), &usage); err != nil {
			t.Fatal(err)
		}
		if usage.Totals.TotalCost <= 0 || usage.Totals.TotalCost > 100 {
			t.Errorf("usage total cost %v, want the sane rows' sum", usage.Totals.TotalCost)
		}

		base := startServe(t, db)
		for _, path := range []string{"/", "/usage", "/api/usage", "/api/usage?by=model", "/api/sessions", "/s/ny"} {
			code, body := httpGet(t, base+path)
			if code != 200 {
				t.Errorf("GET %s: %d %.300s", path, code, body)
			}
		}

		r := sessionctl(t, db, "doctor")
		if !strings.Contains(r.stdout, "usage costs") || !strings.Contains(r.stdout, "4 usage rows hold a cost") {
			t.Errorf("doctor does not report the absurd costs (exit %d):\n%s", r.code, r.stdout)
		}
		sessionctl(t, db, "reprice").mustSucceed(t)
		if r := sessionctl(t, db, "doctor"); strings.Contains(r.stdout, "usage rows hold a cost") {
			t.Errorf("after reprice, doctor still reports absurd costs:\n%s", r.stdout)
		}
	})
}
