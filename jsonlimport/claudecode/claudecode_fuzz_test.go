package claudecode_test

import (
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/claudecode"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// FuzzClaudeCodeLine fuzzes one line of a Claude Code transcript.
func FuzzClaudeCodeLine(f *testing.F) {
	jsonltest.WildFuzzSeeds(f, []string{ccTestdata},
		`{"type":"user","uuid":"a","parentUuid":"a","message":{"role":"user","content":"cycle"}}`,
		`{"type":"assistant","uuid":"h","parentUuid":"u1","message":{"id":"m","model":"<synthetic>","usage":{}}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"compactMetadata":{"preTokens":"x"}}`,
		"\x00\x00{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"u1\"}",
		`{"type":"user","message":null,"uuid":"n"}`,
		`{"type":"assistant","uuid":"u9","parentUuid":"u1","requestId":"r","message":{"id":"m1","role":"assistant","usage":{"input_tokens":-1}}}`,
		// Shapes of the real corpus: a further block of the tail's
		// response, a result line hanging off its own tool_use line, a
		// response without requestId, a progress line embedding a
		// sub-agent message, newer line types, a workflow agent's line.
		`{"parentUuid":"u2","sessionId":"fz","type":"assistant","requestId":"r9","message":{"id":"m9","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t9","name":"Read","input":{}}],"usage":{"input_tokens":1,"output_tokens":40}},"uuid":"u3","timestamp":"2026-01-10T09:00:06.000Z"}`,
		`{"parentUuid":"u1","sessionId":"fz","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"x"}]},"uuid":"u4"}`,
		`{"parentUuid":"u1","sessionId":"fz","type":"assistant","message":{"id":"gw-1","role":"assistant","model":"deepseek-v4-pro","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":9,"output_tokens":9}},"uuid":"u5","timestamp":"2026-01-10T09:00:02.000Z"}`,
		`{"parentUuid":"u1","type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","message":{"id":"m9","usage":{"output_tokens":1}},"timestamp":"2026-01-10T09:00:03.000Z"}},"uuid":"p1","sessionId":"fz"}`,
		`{"type":"ai-title","aiTitle":"t","sessionId":"fz"}`,
		`{"type":"custom-title","customTitle":"c","sessionId":"fz"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-10T09:00:00.000Z","sessionId":"fz"}`,
		`{"type":"file-history-snapshot","messageId":"u1","snapshot":{"messageId":"u1","trackedFileBackups":{},"timestamp":"bad"},"isSnapshotUpdate":false}`,
		`{"parentUuid":null,"isSidechain":true,"agentId":"w1","sessionId":"other","type":"user","message":{"role":"user","content":"wf"},"uuid":"w1","timestamp":"2026-01-10T09:00:00.000Z"}`,
	)
	const head = `{"parentUuid":null,"sessionId":"fz","type":"user","message":{"role":"user","content":"start"},"uuid":"u1","timestamp":"2026-01-10T09:00:00.000Z"}`
	const tail = `{"parentUuid":"u1","sessionId":"fz","type":"assistant","requestId":"r9","message":{"id":"m9","role":"assistant","model":"m","content":[{"type":"text","text":"end"}],"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"u2","timestamp":"2026-01-10T09:00:05.000Z"}`
	f.Fuzz(func(t *testing.T, line []byte) {
		jsonltest.CheckWildLine(t, claudecode.Format{}, "fz.jsonl", head, string(line), tail)
	})
}
