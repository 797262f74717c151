package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWriteJSONStringIsMarshal: the streaming encoder of sql --json writes
// what json.Marshal writes, for random texts rich in what JSON escapes
// (control characters, quotes, HTML characters, invalid UTF-8, U+2028)
// and for blobs.
func TestWriteJSONStringIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"\x00", "\x01", "\b", "\f", "\n", "\r", "\t", "\x1f", "\x7f", `"`, `\`, "<", ">", "&", "\u2028", "\u2029",
		"\xff", "\xe6\x97", "é", "日本", "🚀", "a", " ", "/"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(10) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		for _, v := range []any{b.String(), []byte(b.String())} {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			w := bufio.NewWriter(&got)
			if err := writeJSONValue(w, v); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			if got.String() != string(want) {
				t.Fatalf("writeJSONValue(%q) = %s, json.Marshal = %s", v, got.String(), want)
			}
		}
	}
}
