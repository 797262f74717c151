package copilot_test

import (
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/copilot"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// FuzzCopilotLine fuzzes one line of an events.jsonl between a
// session.start with a prompt and an answer, seeded with every line the
// real Copilot CLI wrote (testdata/copilot) and shapes of the schema the
// run did not produce (jsonltest.CheckWildLine: the reader never fails,
// consumes the file, returns valid entries, compactions and usage, and
// resumes after the line as a whole read does).
func FuzzCopilotLine(f *testing.F) {
	jsonltest.WildFuzzSeeds(f, []string{testdata},
		`{"type":"session.compaction_complete","data":{"success":true,"summaryContent":"s"},"id":"c","timestamp":"2026-01-10T09:00:05Z"}`,
		`{"type":"session.compaction_start","data":{},"id":"c0","timestamp":"x"}`,
		`{"type":"session.shutdown","data":{"modelMetrics":{"m":{"usage":{"inputTokens":-5,"outputTokens":"x"}}}},"id":"s"}`,
		`{"type":"session.shutdown","data":{"modelMetrics":{"m":{"usage":{"inputTokens":5,"cacheReadTokens":9}}}},"id":"s"}`,
		`{"type":"session.usage_record","data":{"usage":null},"id":"u"}`,
		`{"type":"session.start","data":{"sessionId":"\u0000bad"},"id":"s2","timestamp":"2026-01-10T09:00:00Z"}`,
		`{"type":"assistant.message","data":{"toolRequests":[1,{"toolCallId":7}],"parentToolCallId":"p"},"id":"a"}`,
		`{"type":"tool.execution_complete","data":{"toolCallId":"c","success":false,"error":{"message":"boom"}},"id":"t"}`,
		`{"type":"","data":null}`,
	)
	const head = `{"type":"session.start","data":{"sessionId":"fz-1","version":1,"producer":"copilot-agent","copilotVersion":"1.0.102","startTime":"2026-01-10T09:00:00.000Z","selectedModel":"gpt-4.1","context":{"cwd":"/p"}},"id":"e0","timestamp":"2026-01-10T09:00:00.000Z","parentId":null}
{"type":"user.message","data":{"content":"start"},"id":"e1","timestamp":"2026-01-10T09:00:01.000Z","parentId":"e0"}`
	const tail = `{"type":"assistant.message","data":{"messageId":"m","content":"end","toolRequests":[],"model":"gpt-4.1"},"id":"e9","timestamp":"2026-01-10T09:00:09.000Z","parentId":"e1"}`
	f.Fuzz(func(t *testing.T, line []byte) {
		jsonltest.CheckWildLine(t, copilot.Format{}, "events.jsonl", head, string(line), tail)
	})
}
