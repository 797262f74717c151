package sqlstore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/internal/engine"
)

// refRank is the ranking rule written plainly (each call splits and
// folds everything, copies nothing from SQLite): sessiondb_rank must
// return what it returns.
func refRank(text, terms, phrase string) float64 {
	if text == "" {
		return 0
	}
	folded := engine.Fold(text)
	norm := bm25K1 * (1 - bm25B + bm25B*float64(len(text))/avgTextBytes)
	score := 0.0
	for _, t := range strings.Split(terms, "\x1f") {
		tf := float64(strings.Count(folded, engine.Fold(t)))
		if tf == 0 {
			return 0
		}
		score += tf * (bm25K1 + 1) / (tf + norm)
	}
	if strings.Contains(folded, engine.Fold(phrase)) {
		score += engine.ExactBonus
	}
	return score
}

// TestRankFuncIsTheRule ranks random texts for random queries in one
// statement, the query changing from row to row (so a cached query that
// outlived its row would be seen), and compares every score with refRank;
// sessiondb_holds, called in turn with it, must say whether the score is
// positive. Texts hold upper case, non-ASCII runes, İ, the Kelvin sign
// (both fold to ASCII) and NUL bytes.
func TestRankFuncIsTheRule(t *testing.T) {
	db := sqliteMem(t)
	if _, err := db.Exec(`CREATE TABLE x (id INTEGER PRIMARY KEY, text TEXT, terms TEXT, phrase TEXT)`); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abAB İiKk\u212A\x00é\uFFFD")
	word := func(n int) string {
		var b strings.Builder
		for range n {
			if r.IntN(50) == 0 {
				b.WriteByte(0xff) // not UTF-8: folds to U+FFFD
			} else {
				b.WriteRune(alphabet[r.IntN(len(alphabet))])
			}
		}
		return b.String()
	}
	type row struct{ text, terms, phrase string }
	var rows []row
	for i := range 2000 {
		var terms []string
		for range 1 + r.IntN(3) {
			terms = append(terms, strings.ReplaceAll(word(1+r.IntN(3)), "\x00", ""))
		}
		if i%7 == 0 { // runs of one query, then another
			terms = []string{"ab"}
		}
		rw := row{word(r.IntN(200)), strings.Join(terms, "\x1f"), strings.Join(terms, " ")}
		if i%2 == 1 { // the phrase of the row before, its own terms
			rw.phrase = rows[i-1].phrase
		}
		rows = append(rows, rw)
		if _, err := db.Exec(`INSERT INTO x VALUES (?, ?, ?, ?)`, i, rw.text, rw.terms, rw.phrase); err != nil {
			t.Fatal(err)
		}
	}
	res, err := db.Query(`SELECT id, sessiondb_rank(CAST(text AS BLOB), terms, phrase),
		sessiondb_holds(CAST(text AS BLOB), terms) FROM x ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	n, positive := 0, 0
	for res.Next() {
		var id int
		var got float64
		var holds bool
		if err := res.Scan(&id, &got, &holds); err != nil {
			t.Fatal(err)
		}
		rw := rows[id]
		if want := refRank(rw.text, rw.terms, rw.phrase); got != want {
			t.Errorf("row %d: rank(%q, %q, %q) = %v, want %v", id, rw.text, rw.terms, rw.phrase, got, want)
		}
		if holds != (got > 0) {
			t.Errorf("row %d: holds(%q, %q) = %v, rank %v", id, rw.text, rw.terms, holds, got)
		}
		if got > 0 {
			positive++
		}
		n++
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(rows) || positive < len(rows)/10 {
		t.Fatalf("%d rows ranked, %d positive: the texts do not exercise the rule", n, positive)
	}
}

// BenchmarkRankFunc ranks 1,000 texts of about 1 KB for a two-word query
// in one statement, what a common word's first block costs in the rank.
func BenchmarkRankFunc(b *testing.B) {
	db := sqliteMem(b)
	if _, err := db.Exec(`CREATE TABLE x (id INTEGER PRIMARY KEY, text TEXT)`); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		text := strings.Repeat(fmt.Sprintf("Retry the uploader %d after the timeout. ", i), 25)
		if _, err := db.Exec(`INSERT INTO x VALUES (?, ?)`, i, text); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		var sum float64
		if err := db.QueryRow(`SELECT sum(sessiondb_rank(CAST(text AS BLOB), 'uploader'||char(31)||'timeout', 'uploader timeout')) FROM x`).Scan(&sum); err != nil || sum <= 0 {
			b.Fatal(sum, err)
		}
	}
}
