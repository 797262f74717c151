package sqlstore

import (
	"database/sql/driver"
	"strings"
	"unicode/utf8"

	"modernc.org/sqlite"

	"github.com/sessiondb/sessiondb/internal/engine"
)

// The search ranking function, registered with the driver for every
// connection this process opens. The index finds candidates; this checks
// and scores each one against its text:
//
//	sessiondb_rank(text, terms, phrase)
//
// text is best passed CAST AS BLOB: the driver hands a function a text
// argument up to its first NUL only, and extracted text can hold one.
// terms are the query's terms joined by U+001F (a query cannot contain
// control characters). It returns 0 when some term does not occur in text,
// else a positive score: engine.ExactBonus when the whole query occurs as one
// phrase, plus a BM25-like term-frequency score normalised by text length
// (the index keeps no frequencies, so they are counted here). Matching
// lowers every rune by itself (engine.Fold, the rule of both backends), so
// "MONTRÉAL" finds "Montréal".
//
// It is not part of the schema: sqlite3 users never need it (they can
// MATCH the index and use instr on entries.text).
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("sessiondb_rank", 3, rankFunc)
}

// BM25 constants: k1 saturates repeated terms, b weighs text length against
// avgTextBytes (a typical extracted message).
const (
	bm25K1       = 1.2
	bm25B        = 0.75
	avgTextBytes = 600
)

func rankFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	var text string
	switch v := args[0].(type) {
	case string:
		text = v
	case []byte: // the text CAST AS BLOB: a string argument ends at its first NUL
		text = string(v)
	}
	terms, _ := args[1].(string)
	phrase, _ := args[2].(string)
	return rank(text, strings.Split(terms, "\x1f"), phrase), nil
}

// rank scores text for terms; see the comment at the top of this file.
func rank(text string, terms []string, phrase string) float64 {
	if text == "" {
		return 0
	}
	folded := fold(text)
	norm := bm25K1 * (1 - bm25B + bm25B*float64(len(text))/avgTextBytes)
	score := 0.0
	for _, t := range terms {
		tf := float64(strings.Count(folded, fold(t)))
		if tf == 0 {
			return 0
		}
		score += tf * (bm25K1 + 1) / (tf + norm)
	}
	if strings.Contains(folded, fold(phrase)) {
		score += engine.ExactBonus
	}
	return score
}

// fold is engine.Fold, with a fast path for text that has nothing to
// lower.
func fold(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return engine.Fold(s)
		}
	}
	return s
}
