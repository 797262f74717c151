package jsonl

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestWildLineNestedTooDeep: a complete JSON line nested deeper than
// encoding/json reads is reported as nested too deep, not as a torn or
// corrupt line (issue 23); a line torn inside a deep nesting under the
// limit is still torn, and a deep nesting inside a string is not deep.
func TestWildLineNestedTooDeep(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1) + `}`
	shallowTorn := `{"a":` + strings.Repeat("[", 100)
	inString := `{"a":"` + strings.Repeat("[", maxJSONDepth+5) + `"`
	good := `{"type":"x"}`
	for _, tc := range []struct {
		name, file string
		want       []string // reasons, in order
		objects    int
	}{
		{"deep line", good + "\n" + deep + "\n" + good + "\n", []string{"nested too deep"}, 2},
		{"deep last line", good + "\n" + deep, []string{"nested too deep"}, 1},
		{"torn, not deep", good + "\n" + shallowTorn + "\n", []string{"torn or corrupt"}, 1},
		{"brackets in a string", inString + "\n", []string{"torn or corrupt"}, 0},
	} {
		s := &WildScan{Ctx: context.Background(), Path: "f.jsonl"}
		objects := 0
		if err := s.Run(bytes.NewReader([]byte(tc.file)), 0, func([]byte, int) { objects++ }); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(s.Problems) != len(tc.want) || objects != tc.objects {
			t.Errorf("%s: %d objects, problems %v; want %d objects, %v", tc.name, objects, s.Problems, tc.objects, tc.want)
			continue
		}
		for i, p := range s.Problems {
			if !strings.Contains(p.Reason, tc.want[i]) || (tc.want[i] == "nested too deep" && strings.Contains(p.Reason, "torn")) {
				t.Errorf("%s: problem %q, want it to say %q", tc.name, p.Reason, tc.want[i])
			}
		}
	}
}
