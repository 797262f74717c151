package main

import (
	"strings"
	"testing"
)

// FuzzSQLGuards checks the guards `sessionctl sql` applies to its
// argument before it reaches SQLite: they never panic, a statement
// without any semicolon is never taken for a script, appending a second
// statement to a complete one is always caught, and ATTACH/VACUUM are
// refused however they are spelled or commented.
func FuzzSQLGuards(f *testing.F) {
	for _, q := range []string{
		"SELECT 1", "select * from sessions; delete from sessions", "SELECT ';'", "SELECT 1 -- ;x\n",
		"/* c */ ATTACH 'x' AS y", "pragma user_version = 3", "PRAGMA table_info(sessions)", "SELECT [a;b]",
		"SELECT \"x;\"", "vacuum into '/tmp/x'", "",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		multi := multipleStatements(q)
		if !strings.Contains(q, ";") && multi {
			t.Fatalf("multipleStatements(%q) without a semicolon", q)
		}
		// A plain statement followed by a second one is always a script.
		if !multi && !strings.ContainsAny(q, "'\"`[-/") {
			if !multipleStatements(q + "; DELETE FROM sessions") {
				t.Fatalf("a second statement after %q went unnoticed", q)
			}
		}
		for _, prefix := range []string{"ATTACH ", "  vacuum ", "/* x */ Attach ", "-- c\nVACUUM "} {
			if !refusedStatement(prefix + q) {
				t.Fatalf("refusedStatement(%q) = false", prefix+q)
			}
		}
	})
}
