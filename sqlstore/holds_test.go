package sqlstore

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzHolds checks the candidate check against the ranking rule written
// plainly: holds(text) is refRank(text) > 0 for any text and terms.
func FuzzHolds(f *testing.F) {
	f.Add("Retry the UPLOADER after the timeout", "uploader\x1ftimeout")
	f.Add("\u0130STANBUL", "istanbul")     // İ folds to i
	f.Add("300 \u212Aelvin", "kelvin")     // the Kelvin sign folds to k
	f.Add("toastoasetoase", "toase")       // a match after a false start
	f.Add("TOAS", "toase")                 // shorter than the term
	f.Add("caf\u00c9 CAFÉ", "café\x1fcaf") // a term outside ASCII
	f.Add("a\xffb", "a\ufffdb")            // a byte that is not UTF-8
	f.Add("", "")
	f.Fuzz(func(t *testing.T, text, terms string) {
		q := parseQuery(&lastHoldsQuery, terms, "")
		if got, want := q.holds(text), refRank(text, terms, terms) > 0; got != want {
			t.Fatalf("holds(%q, %q) = %v, the rank says %v", text, terms, got, want)
		}
	})
}

// BenchmarkCandidateCheck is the check of a rare word's candidates: 1,000
// texts of 4 KB (and of 200 bytes) that hold the word's letters in every
// order but never the word (what the worst-case search reads, newest
// first, to the end), by SQLite's LIKE (the check before sessiondb_holds)
// and by sessiondb_holds, beside the cost of reading the rows alone.
func BenchmarkCandidateCheck(b *testing.B) {
	for _, size := range []int{4096, 200} {
		b.Run(fmt.Sprint(size), func(b *testing.B) { benchmarkCandidateCheck(b, size) })
	}
}

func benchmarkCandidateCheck(b *testing.B, size int) {
	db := sqliteMem(b)
	if _, err := db.Exec(`CREATE TABLE x (id INTEGER PRIMARY KEY, text TEXT)`); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		text := strings.Repeat(fmt.Sprintf("The toast sat on Oases at %d; TOASTER ", i), size/40)
		if _, err := db.Exec(`INSERT INTO x VALUES (?, ?)`, i, text); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct{ name, where string }{
		{"read-only", `length(CAST(text AS BLOB)) = 0`}, // the floor: the rows read, nothing checked
		{"LIKE", `text LIKE '%toase%' ESCAPE '\'`},
		{"holds", `sessiondb_holds(CAST(text AS BLOB), 'toase')`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				var n int
				if err := db.QueryRow(`SELECT count(*) FROM x WHERE ` + c.where).Scan(&n); err != nil || n != 0 {
					b.Fatal(n, err)
				}
			}
		})
	}
}
