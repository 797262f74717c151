package jsonnest

import (
	"strings"
	"testing"
)

func TestExceeds(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int
		want  bool
	}{
		{`{}`, 1, false},
		{`{"a":[1]}`, 1, true},
		{`{"a":[1]}`, 2, false},
		{`["[[[[", "\"[[["]`, 1, false},
		{strings.Repeat("[", 11), 10, true},
		{strings.Repeat("[]", 50), 1, false},
		{`"\\"[[`, 1, true},
	} {
		if got := Exceeds([]byte(c.in), c.limit); got != c.want {
			t.Errorf("Exceeds(%q, %d) = %v, want %v", c.in, c.limit, got, c.want)
		}
	}
}
