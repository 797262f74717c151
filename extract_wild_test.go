package sessiondb

import (
	"strings"
	"testing"
)

// TestDefaultExtractorLineBodies: whole JSONL lines of Claude Code, Codex
// and pi, as the importers keep them, yield their message text.
func TestDefaultExtractorLineBodies(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"claude-code", `{"parentUuid":null,"type":"user","message":{"role":"user","content":"Add a retry to the uploader."},"uuid":"u1"}`, "Add a retry to the uploader."},
		{"codex", `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Jitter added."}]}}`, "Jitter added."},
		{"pi", `{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"ok all good"}]}}`, "ok all good"},
	} {
		_, text := DefaultExtractor("message", []byte(tc.body))
		if !strings.Contains(text, tc.want) {
			t.Errorf("%s: text %q lacks %q", tc.name, text, tc.want)
		}
	}
}
