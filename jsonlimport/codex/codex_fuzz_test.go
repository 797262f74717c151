package codex_test

import (
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/codex"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// FuzzCodexLine fuzzes one line of a Codex rollout.
func FuzzCodexLine(f *testing.F) {
	jsonltest.WildFuzzSeeds(f, []string{codexTestdata},
		`{"timestamp":"x","type":"compacted","payload":{"replacement_history":[1,"a",null]}}`,
		`{"timestamp":"2026-01-10T09:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":-9}}}}`,
		`{"timestamp":"2026-01-10T09:00:00Z","type":"session_meta","payload":{"id":"other"}}`,
		`{"type":"session_meta","id":"legacy"}`,
		`{"record_type":"state"}`,
		"{\"timestamp\":\"2026-01-10T09:00:00Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"text\":\"\xff\"}]}}",
	)
	const head = `{"timestamp":"2026-01-10T09:00:00.000Z","type":"session_meta","payload":{"id":"fz","cwd":"/w","model_provider":"openai"}}`
	const tail = `{"timestamp":"2026-01-10T09:00:09.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"end"}]}}`
	f.Fuzz(func(t *testing.T, line []byte) {
		jsonltest.CheckWildLine(t, codex.Format{}, "fz.jsonl", head, string(line), tail)
	})
}
