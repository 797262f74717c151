package backend

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodeText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{`back\slash`, `back\slash`},
		{"", ""},
		{"日本語 🚀", "日本語 🚀"},
		{"a\x00b", TextMarker + `a\000b`},
		{"caf\xe9", TextMarker + `caf\351`},
		{"\xff\\", TextMarker + `\377\\`},
		{"\uFFFF", TextMarker + "\uFFFF"},
		{"\uFFFF\\000", TextMarker + "\uFFFF\\\\000"},
		{"surrogate \xed\xa0\x80", TextMarker + `surrogate \355\240\200`},
		{"x\uFFFF", "x\uFFFF"},
	} {
		got := EncodeText(tc.in)
		if got != tc.want {
			t.Errorf("EncodeText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.IndexByte(got, 0) >= 0 || !utf8.ValidString(got) {
			t.Errorf("EncodeText(%q) = %q: PostgreSQL cannot hold it", tc.in, got)
		}
		if back := DecodeText(got); back != tc.in {
			t.Errorf("DecodeText(%q) = %q, want %q", got, back, tc.in)
		}
	}
	// Values written by hand that are not EncodeText's come back as stored.
	for _, s := range []string{TextMarker + `\x41`, TextMarker + `\8`, TextMarker + `trailing \`, TextMarker + `\47`} {
		if got := DecodeText(s); got != s {
			t.Errorf("DecodeText(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestEncodeTextRandom: random byte strings (biased towards NUL, high
// bytes, backslashes and the marker) round-trip and encode to text
// PostgreSQL can hold.
func TestEncodeTextRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"\x00", "\\", "\xff", "\xc3", "\xe9", "a", "é", "\uFFFF", "0", "7", " "}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		enc := EncodeText(s)
		if strings.IndexByte(enc, 0) >= 0 || !utf8.ValidString(enc) {
			t.Fatalf("EncodeText(%q) = %q: not storable", s, enc)
		}
		if DecodeText(enc) != s {
			t.Fatalf("round trip of %q: %q -> %q", s, enc, DecodeText(enc))
		}
	}
}

func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"ok":           "ok",
		"a\x00b":       "a\uFFFDb",
		"caf\xe9":      "caf\uFFFD",
		"\uFFFFtitle":  "\uFFFDtitle",
		"mid\uFFFFdle": "mid\uFFFFdle",
	} {
		if got := CleanText(in); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDecodeText: DecodeText never panics, and whatever EncodeText makes
// of any input decodes back to it.
func FuzzDecodeText(f *testing.F) {
	for _, s := range []string{"", "a\x00b", TextMarker + `\000`, TextMarker + `\\`, TextMarker + `\3`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = DecodeText(s)
		enc := EncodeText(s)
		if strings.IndexByte(enc, 0) >= 0 || !utf8.ValidString(enc) {
			t.Fatalf("EncodeText(%q) = %q: not storable", s, enc)
		}
		if got := DecodeText(enc); got != s {
			t.Fatalf("DecodeText(EncodeText(%q)) = %q", s, got)
		}
	})
}
