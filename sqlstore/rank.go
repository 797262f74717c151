package sqlstore

import (
	"database/sql/driver"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

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
//
// A search calls it once per candidate (1,000 per block of a common
// word), so it takes its arguments as the driver's zero-copy views
// (VolatileArgs: the text is read in place, never kept) and folds a
// query's terms once, not at every call (parseQuery). Before, the
// driver copied every text into a new []byte, rankFunc copied it again
// into a string, and every call split and folded the terms.
func init() {
	sqlite.MustRegisterFunction("sessiondb_rank", &sqlite.FunctionImpl{
		NArgs:         3,
		Deterministic: true,
		VolatileArgs:  true,
		Scalar:        rankFunc,
	})
}

// BM25 constants: k1 saturates repeated terms, b weighs text length against
// avgTextBytes (a typical extracted message).
const (
	bm25K1       = 1.2
	bm25B        = 0.75
	avgTextBytes = 600
)

// rankFunc is sessiondb_rank. Its arguments are views into SQLite's
// memory, valid during the call only: nothing here may keep them
// (parseQuery keeps copies).
func rankFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	var text string
	switch v := args[0].(type) {
	case string:
		text = v
	case []byte: // the text CAST AS BLOB: a string argument ends at its first NUL
		text = unsafe.String(unsafe.SliceData(v), len(v))
	}
	terms, _ := args[1].(string)
	phrase, _ := args[2].(string)
	return parseQuery(&lastRankQuery, terms, phrase).rank(text), nil
}

// rankQuery is a query as rank reads it: its terms and its phrase,
// folded.
type rankQuery struct {
	terms, phrase string   // sessiondb_rank's arguments (copies)
	folded        []string // the terms, folded
	foldedPhrase  string
}

// lastRankQuery is the query rankFunc parsed last: every call of one
// search passes the same terms and phrase.
var lastRankQuery atomic.Pointer[rankQuery]

// parseQuery returns terms (joined by U+001F) and phrase parsed and
// folded, from last when they are the last ones, else stored there. It
// keeps copies only: the functions' arguments are views it must not keep.
func parseQuery(last *atomic.Pointer[rankQuery], terms, phrase string) *rankQuery {
	if q := last.Load(); q != nil && q.terms == terms && q.phrase == phrase {
		return q
	}
	q := &rankQuery{terms: strings.Clone(terms), phrase: strings.Clone(phrase)}
	q.folded = strings.Split(engine.Fold(q.terms), "\x1f")
	q.foldedPhrase = engine.Fold(q.phrase)
	last.Store(q)
	return q
}

// rank scores text for q's terms; see the comment at the top of this
// file.
func (q *rankQuery) rank(text string) float64 {
	if text == "" {
		return 0
	}
	folded := text
	if !folds(text) {
		buf := foldBufs.Get().(*[]byte)
		defer foldBufs.Put(buf)
		*buf = engine.AppendFold((*buf)[:0], text)
		folded = unsafe.String(unsafe.SliceData(*buf), len(*buf))
	}
	norm := bm25K1 * (1 - bm25B + bm25B*float64(len(text))/avgTextBytes)
	score := 0.0
	for _, t := range q.folded {
		tf := float64(strings.Count(folded, t))
		if tf == 0 {
			return 0
		}
		score += tf * (bm25K1 + 1) / (tf + norm)
	}
	if strings.Contains(folded, q.foldedPhrase) {
		score += engine.ExactBonus
	}
	return score
}

// folds reports whether s is its own fold: ASCII without upper case.
func folds(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// foldBufs holds the buffers rank folds a text into (a search ranks up
// to 1,000 texts per block, on any connection).
var foldBufs = sync.Pool{New: func() any { return new([]byte) }}
