package sqlstore

import (
	"database/sql/driver"
	"encoding/binary"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"

	"modernc.org/sqlite"

	"github.com/sessiondb/sessiondb/internal/engine"
)

// The search's check of a candidate, registered beside sessiondb_rank:
//
//	sessiondb_holds(text, terms)
//
// is 1 when every term (joined by U+001F, as for sessiondb_rank) occurs in
// text as search reads it (engine.Fold, both sides), else 0: exactly
// sessiondb_rank(text, terms, …) > 0, without the counting (and, for a
// text in ASCII, without the folding rune by rune) that the rank needs.
// text is best passed CAST AS BLOB, as to sessiondb_rank.
//
// It replaced SQLite's LIKE as the check of every row a search reads,
// where a rare word of common trigrams reads tens of thousands of long
// texts that lack it: LIKE, C translated to Go, walks a text at about
// 150 MB/s and was 55 % of such a search's CPU (BENCHMARKS.md, "candidates
// checked in Go"). See holds for how a text is searched.
func init() {
	sqlite.MustRegisterFunction("sessiondb_holds", &sqlite.FunctionImpl{
		NArgs:         2,
		Deterministic: true,
		VolatileArgs:  true,
		Scalar:        holdsFunc,
	})
}

// holdsFunc is sessiondb_holds. Its arguments are views into SQLite's
// memory, valid during the call only (see rankFunc).
func holdsFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	var text string
	switch v := args[0].(type) {
	case string:
		text = v
	case []byte:
		text = unsafe.String(unsafe.SliceData(v), len(v))
	}
	terms, _ := args[1].(string)
	if parseQuery(&lastHoldsQuery, terms, "").holds(text) {
		return int64(1), nil
	}
	return int64(0), nil
}

// lastHoldsQuery is the query holdsFunc parsed last (a search calls
// sessiondb_holds and sessiondb_rank in turn: each keeps its own).
var lastHoldsQuery atomic.Pointer[rankQuery]

// holds reports whether text holds every one of q's terms as rank reads
// them: rank(text) > 0. The text is first lowered in its ASCII letters
// only (lowerASCII, eight bytes at a time), which is its fold when it is
// all ASCII; there an ASCII term is looked for with strings.Index. A term
// outside ASCII, or one not found in a text outside ASCII (İ and the
// Kelvin sign fold to ASCII letters), is looked for in the text folded
// whole, as by sessiondb_rank.
func (q *rankQuery) holds(text string) bool {
	if text == "" {
		return false
	}
	buf := foldBufs.Get().(*[]byte)
	defer foldBufs.Put(buf)
	var ascii bool
	*buf, ascii = lowerASCII((*buf)[:0], text)
	lowered := unsafe.String(unsafe.SliceData(*buf), len(*buf))
	folded := "" // text folded whole, once, if a term needs it
	for _, t := range q.folded {
		if strings.Contains(lowered, t) {
			continue // an ASCII term, or one outside ASCII the text holds as written lowered
		}
		if ascii {
			return false // lowered is the fold: the search was exact
		}
		if folded == "" {
			folded = engine.Fold(text)
		}
		if !strings.Contains(folded, t) {
			return false
		}
	}
	return true
}

// lowerASCII appends text with its ASCII upper-case letters lowered to
// dst, eight bytes at a time, and reports whether text is all ASCII.
func lowerASCII(dst []byte, text string) ([]byte, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	dst = slices.Grow(dst, len(text))
	var high uint64
	i := 0
	for ; i+8 <= len(text); i += 8 {
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(text[i:]), 8))
		high |= w
		b := w &^ highs                        // each byte's low seven bits: no carry below
		geA := (b + (0x80-'A')*ones) & highs   // bytes >= 'A'
		gtZ := (b + (0x80-'Z'-1)*ones) & highs // bytes > 'Z'
		upper := geA &^ gtZ &^ w               // high bit set for 'A'..'Z' only (not for bytes >= 0x80)
		dst = binary.LittleEndian.AppendUint64(dst, w|upper>>2)
	}
	for ; i < len(text); i++ {
		c := text[i]
		high |= uint64(c)
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst, high&highs == 0
}
