package jsonlimport

import (
	"strings"
	"testing"
)

// TestCopilotRuns: an assistant message's blocks are cut where one
// assistant.message could not hold them in Copilot CLI's order (thinking,
// text, calls), and nowhere else.
func TestCopilotRuns(t *testing.T) {
	for _, c := range []struct {
		blocks string // t thinking, x text, c call, i image (not carried)
		want   string
	}{
		{"txcc", "txcc"},
		{"xc", "xc"},
		{"cx", "c|x"},
		{"xcxc", "xc|xc"},
		{"txtx", "tx|tx"},
		{"xx", "x|x"},
		{"tt", "t|t"},
		{"ccc", "ccc"},
		{"i", ""},
		{"xix", "x|x"},
	} {
		var blocks []xBlock
		for _, r := range c.blocks {
			blocks = append(blocks, xBlock{Type: map[rune]string{'t': xThinking, 'x': xText, 'c': xCall, 'i': xImage}[r]})
		}
		var parts []string
		for _, run := range copilotRuns(blocks) {
			var b strings.Builder
			for _, x := range run {
				b.WriteByte(map[string]byte{xThinking: 't', xText: 'x', xCall: 'c'}[x.Type])
			}
			parts = append(parts, b.String())
		}
		if got := strings.Join(parts, "|"); got != c.want {
			t.Errorf("%s: runs %q, want %q", c.blocks, got, c.want)
		}
	}
}
