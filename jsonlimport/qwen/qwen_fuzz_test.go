package qwen_test

import (
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/qwen"
)

// FuzzQwenLine fuzzes one line of a Qwen Code chat between a prompt and an
// answer (jsonltest.CheckWildLine).
func FuzzQwenLine(f *testing.F) {
	jsonltest.WildFuzzSeeds(f, []string{qwenTestdata},
		`{"uuid":"a","parentUuid":"a","sessionId":"fz","type":"system","subtype":"chat_compression","systemPayload":{"compressedHistory":[1,{"role":"model"},"x"]}}`,
		`{"uuid":"z","parentUuid":"missing","sessionId":"fz","type":"user","message":{"role":"user","parts":"text"}}`,
		`{"uuid":"u1","parentUuid":null,"sessionId":"fz","type":"assistant","message":{"role":"model","parts":[{"functionCall":{"args":1}}]},"usageMetadata":{"promptTokenCount":-5}}`,
		`{"uuid":"t","sessionId":"fz","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","input_token_count":"x"}}}`,
		`{"uuid":"t2","sessionId":"\u0001","type":"system","subtype":"custom_title","systemPayload":{"customTitle":7}}`,
		`{"uuid":"s","sessionId":"fz","type":"user","agentId":"\u0000\u0000","message":{"role":"user","parts":[]}}`,
	)
	const head = `{"uuid":"u1","parentUuid":null,"sessionId":"fz","timestamp":"2026-01-10T09:00:00.000Z","type":"user","cwd":"/w","version":"0.15.10","message":{"role":"user","parts":[{"text":"start"}]}}`
	const tail = `{"uuid":"a9","parentUuid":"u1","sessionId":"fz","timestamp":"2026-01-10T09:00:09.000Z","type":"assistant","cwd":"/w","version":"0.15.10","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"text":"end"}]},"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2,"totalTokenCount":12}}`
	f.Fuzz(func(t *testing.T, line []byte) {
		jsonltest.CheckWildLine(t, qwen.Format{}, "fz.jsonl", head, string(line), tail)
	})
}
