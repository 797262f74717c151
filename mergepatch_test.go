package sessiondb

import (
	"errors"
	"testing"
)

// TestMergePatch runs the examples of RFC 7386 section 3 and the edge
// cases the store relies on.
func TestMergePatch(t *testing.T) {
	for _, tc := range []struct{ doc, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, ``},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{``, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		// Untouched members keep their bytes (no HTML escaping, no compaction).
		{`{"keep": [1, 2], "html":"<&>"}`, `{"new":true}`, `{"html":"<&>","keep":[1, 2],"new":true}`},
		{`{"a":{"x":1,"y":{"z":2}}}`, `{"a":{"y":{"w":3}}}`, `{"a":{"x":1,"y":{"w":3,"z":2}}}`},
		{`{"a":1}`, `{}`, `{"a":1}`},
	} {
		var doc []byte
		if tc.doc != "" {
			doc = []byte(tc.doc)
		}
		got, err := MergePatch(doc, []byte(tc.patch))
		if err != nil {
			t.Errorf("MergePatch(%s, %s): %v", tc.doc, tc.patch, err)
			continue
		}
		if string(got) != tc.want || (tc.want == "" && got != nil) {
			t.Errorf("MergePatch(%s, %s) = %s, want %s", tc.doc, tc.patch, got, tc.want)
		}
	}
	for _, bad := range [][2]string{{`{"a":1}`, `{"a":`}, {`{"a":`, `{}`}, {`{}`, ``}} {
		if _, err := MergePatch([]byte(bad[0]), []byte(bad[1])); !errors.Is(err, ErrInvalid) {
			t.Errorf("MergePatch(%q, %q) = %v, want ErrInvalid", bad[0], bad[1], err)
		}
	}
}
