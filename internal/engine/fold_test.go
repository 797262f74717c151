package engine

import (
	"reflect"
	"slices"
	"testing"
	"unicode"
)

// TestLowerInverseIsEveryRune: lowerInverse walks only unicode.CaseRanges;
// it must equal the map built from every rune there is.
func TestLowerInverseIsEveryRune(t *testing.T) {
	want := map[rune][]rune{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if l := unicode.ToLower(r); l != r {
			want[l] = append(want[l], r)
		}
	}
	if got := lowerInverse(); !reflect.DeepEqual(got, want) {
		t.Fatalf("lowerInverse has %d lowered runes, every rune's walk %d", len(got), len(want))
	}
	// The classes search relies on (see FoldClass's doc).
	for _, c := range []struct {
		r    rune
		want []rune
	}{{'a', []rune{'a', 'A'}}, {'K', []rune{'k', 'K', '\u212a'}}, {'i', []rune{'i', 'I', '\u0130'}}, {'7', []rune{'7'}}} {
		if got := FoldClass(c.r); !slices.Equal(got, c.want) {
			t.Errorf("FoldClass(%q) = %q, want %q", c.r, got, c.want)
		}
	}
}
