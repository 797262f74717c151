package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

var validCases = []string{
	``, ` `, `{}`, `[]`, ` { } `, `[ ]`, `{"a":1}`, `{"a":1,}`, `{,}`, `[1,]`, `[,1]`, `{"a"}`, `{"a":}`, `{a:1}`,
	`{"a":1 "b":2}`, `[1 2]`, `"x"`, `"x`, `"\u00e9\ud800\n\t\"\\\/\b\f\r"`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"\x01\"", "\"\x7f\xff\"",
	`0`, `-0`, `01`, `[1e308,2]`, `[1e309]`, `-1E+400`, `1e-400`, `{"a":[0.5e-3,` + strings.Repeat("9", 400) + `]}`, `-`, `1.`, `.5`, `1.5e`, `1.5e+`, `1.5e+3`, `1E-07`, `-12.34E5`, `1e400`, `+1`, `0x10`, `Infinity`, `NaN`,
	`true`, `false`, `null`, `tru`, `nul`, `truee`, `true false`, `[true,false,null]`, `{"a":[{"b":{"c":[]}}]}`, `}`, `]`, `[}`, `{]`,
	`[[]`, `[]]`, `{"a":{"b":1}}}`, "\ufeff{}", "{}\x00", ` "a" `, `"a" "b"`, `{"a":1}{}`,
	strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
	strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth),
	strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1),
}

func TestValid(t *testing.T) {
	for _, c := range validCases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%.60q) = %v, json.Valid says %v", c, got, want)
		}
	}
}

func decodes(b []byte) bool {
	var v any
	return json.Unmarshal(b, &v) == nil
}

func TestDecodable(t *testing.T) {
	for _, c := range validCases {
		if got, want := Decodable([]byte(c)), decodes([]byte(c)); got != want {
			t.Errorf("Decodable(%.60q) = %v, json.Unmarshal into an any succeeds: %v", c, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		if len(c) < 200 {
			f.Add([]byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
		if got, want := Decodable(b), decodes(b); got != want {
			t.Fatalf("Decodable(%q) = %v, json.Unmarshal into an any succeeds: %v", b, got, want)
		}
	})
}
