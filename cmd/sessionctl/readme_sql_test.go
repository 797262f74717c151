package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeSQLExamples returns the queries of the `sessionctl sql "…"`
// commands in the README's section "Asking questions with SQL", read from
// the file so that the test and the README cannot drift apart.
func readmeSQLExamples(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	start := strings.Index(text, "## Asking questions with SQL")
	if start < 0 {
		t.Fatal(`README.md has no section "Asking questions with SQL"`)
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var queries []string
	for _, m := range regexp.MustCompile(`(?s)sessionctl sql "([^"]*)"`).FindAllStringSubmatch(section, -1) {
		queries = append(queries, m[1])
	}
	if len(queries) < 3 {
		t.Fatalf("found %d SQL examples in the README, want at least 3", len(queries))
	}
	return queries
}

// TestReadmeSQLExamples runs every SQL example of the README through
// `sessionctl sql` on SQLite and on PostgreSQL, unchanged: the README
// promises that every command behaves the same on both. On main two of
// the three failed on PostgreSQL ("function round(double precision,
// integer) does not exist").
func TestReadmeSQLExamples(t *testing.T) {
	queries := readmeSQLExamples(t)
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			db := tempDB(t)
			seed(t, db)
			seedRich(t, db)
			if kind == "postgres" {
				pg := pgURL(t)
				copyRun(t, db, pg)
				db = pg
			}
			for i, q := range queries {
				for _, format := range []string{"", "--json", "--csv"} {
					args := []string{"sql"}
					if format != "" {
						args = append(args, format)
					}
					r := sessionctl(t, db, append(args, q)...)
					if r.code != 0 {
						t.Errorf("README example %d (%s) on %s: exit %d: %s\n%s", i+1, format, kind, r.code, r.stderr, q)
						continue
					}
					if strings.Contains(q, "cost") && !strings.Contains(r.stdout, "0.") && format == "--csv" {
						t.Errorf("README example %d on %s printed no cost:\n%s", i+1, kind, r.stdout)
					}
				}
			}
		})
	}
}
