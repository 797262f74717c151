package secrets

import (
	"strings"
	"testing"
)

// TestFindJSONPrefix: a JSON body cut at every byte is read as far as it
// goes (the string the cut leaves open decoded up to the cut, an escape
// it splits left out): spans stay inside the prefix, and once the prefix
// holds the whole secret it is found where FindJSON finds it in the whole
// body — after an escaped newline too, which a plain-text scan glues to
// an "n".
func TestFindJSONPrefix(t *testing.T) {
	key := "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3x9Z"
	body := []byte(`{"role":"tool","content":"done\n` + key + `\n\u00e9 more \"text\" after"}`)
	d := Default()
	whole := d.FindJSON(body)
	if len(whole) != 1 {
		t.Fatalf("FindJSON: %v", whole)
	}
	end := whole[0].End
	for n := 0; n <= len(body); n++ {
		spans := d.FindJSONPrefix(body[:n])
		for _, s := range spans {
			if s.Start < 0 || s.End > n || s.Start >= s.End {
				t.Fatalf("cut %d: span %+v outside the prefix", n, s)
			}
		}
		if n >= end && (len(spans) != 1 || spans[0] != whole[0]) {
			t.Fatalf("cut %d (secret ends at %d): %v, want %v", n, end, spans, whole)
		}
		if n >= end && !strings.Contains(string(Redact(body[:n], spans)), Placeholder(whole[0].Rule)) {
			t.Fatalf("cut %d: not redacted", n)
		}
	}
}

// FuzzFindJSONPrefix: no prefix of any text makes FindJSONPrefix panic
// or return a span outside it.
func FuzzFindJSONPrefix(f *testing.F) {
	f.Add([]byte(`{"a":"x\u00`), 9)
	f.Add([]byte(`{"a":"token=ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3x9Z\`), 40)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > len(b) {
			n = len(b)
		}
		for _, s := range Default().FindJSONPrefix(b[:n]) {
			if s.Start < 0 || s.End > n || s.Start > s.End {
				t.Fatalf("span %+v outside a %d-byte prefix", s, n)
			}
		}
	})
}
