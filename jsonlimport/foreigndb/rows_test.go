package foreigndb

import (
	"math"
	"testing"
	"time"
)

// TestRowConversions: a column reads in the type the reader asks for,
// whatever type the other program's schema (or its driver) gave it, and a
// value that cannot be that type reads as its zero.
func TestRowConversions(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 5, time.FixedZone("x", 3600))
	r := Row{
		"i": int64(42), "f": 2.5, "s": " 17 ", "b": []byte("3.25"), "t": true,
		"nan": math.NaN(), "huge": 1e300, "null": nil, "word": "abc", "at": at,
	}
	ints := map[string]int64{"i": 42, "f": 2, "s": 17, "t": 1, "nan": 0, "huge": 0, "null": 0, "word": 0, "missing": 0}
	for col, want := range ints {
		if got := r.Int(col); got != want {
			t.Errorf("Int(%q) = %d, want %d", col, got, want)
		}
	}
	floats := map[string]float64{"i": 42, "f": 2.5, "s": 17, "b": 3.25, "null": 0, "word": 0}
	for col, want := range floats {
		if got := r.Float(col); got != want {
			t.Errorf("Float(%q) = %v, want %v", col, got, want)
		}
	}
	strs := map[string]string{"i": "42", "f": "2.5", "b": "3.25", "t": "true", "null": "", "at": "2026-03-01T09:00:00.000000005Z"}
	for col, want := range strs {
		if got := r.Str(col); got != want {
			t.Errorf("Str(%q) = %q, want %q", col, got, want)
		}
	}
	if !r.Has("i") || r.Has("null") || r.Has("missing") {
		t.Errorf("Has: i %v, null %v, missing %v", r.Has("i"), r.Has("null"), r.Has("missing"))
	}
}
