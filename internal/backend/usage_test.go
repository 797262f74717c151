package backend

import (
	"testing"
	"time"
)

// TestParseTime: the fast path reads exactly what time.Parse reads in
// TimeLayout, and other RFC 3339 forms still parse.
func TestParseTime(t *testing.T) {
	for _, s := range []string{
		"2026-03-08T04:59:59.123456789Z", "0001-01-01T00:00:00.000000000Z", "2024-02-29T23:59:59.999999999Z",
		"2026-02-30T00:00:00.000000000Z", "2026-13-01T00:00:00.000000000Z", "2026-03-08T24:00:00.000000000Z",
		"2026-03-08T04:59:59Z", "2026-03-08T04:59:59.5+05:30", "2026-03-08 04:59:59.000000000Z", "", "garbage",
	} {
		want, err := time.Parse(TimeLayout, s)
		if err != nil {
			want, _ = time.Parse(time.RFC3339Nano, s)
		}
		if got := ParseTime(s); !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzParseTime: what the fast path accepts, time.Parse reads the same
// (what it declines, ParseTime hands to time.Parse).
func FuzzParseTime(f *testing.F) {
	f.Add("2026-03-08T04:59:59.123456789Z")
	f.Add("2026-02-30T00:00:00.000000000Z")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseLayout(s)
		want, err := time.Parse(TimeLayout, s)
		if err == nil && !ParseTime(s).Equal(want) {
			t.Fatalf("ParseTime(%q) = %v, time.Parse %v", s, ParseTime(s), want)
		}
		if ok && (err != nil || !got.Equal(want)) {
			t.Fatalf("parseLayout(%q) = %v %v; time.Parse = %v %v", s, got, ok, want, err)
		}
	})
}
