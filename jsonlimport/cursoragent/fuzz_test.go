package cursoragent_test

import (
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/cursoragent"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

// FuzzCursorAgentLine fuzzes one line of a transcript between a prompt
// and an answer, seeded with every line of the fixtures and the real
// corpus and with shapes they lack (jsonltest.CheckWildLine: the reader
// never fails or panics, consumes the file, returns valid entries and
// attrs, and resumes after the line as a whole read does; a turn_ended
// line in the middle is consumed once the answer follows it).
func FuzzCursorAgentLine(f *testing.F) {
	jsonltest.WildFuzzSeeds(f, []string{testdata},
		`{"type":"turn_ended","status":"error","error":{"code":7}}`,
		`{"type":"turn_ended"}`,
		`{"role":"user","message":{"content":"<timestamp>Sunday, Aug 16, 2026, 8:43 AM (UTC-99:99)</timestamp>"}}`,
		`{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>2026-13-40T99:00:00Z</timestamp>"},7,null]}}`,
		`{"role":"assistant","message":{"content":[{"type":"tool_use","name":7,"input":"x"},{"type":"tool_result"}]}}`,
		`{"role":"","message":{}}`,
		`{"role":"user","message":null}`,
		`{"type":"status","status":"done"}`,
		`{"role":"user","uuid":"u","message":{"content":"x"}}`,
	)
	const head = `{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Sunday, Aug 16, 2026, 8:43 AM (UTC-7)</timestamp>\n<user_query>\nstart\n</user_query>"}]}}`
	const tail = `{"role":"assistant","message":{"content":[{"type":"text","text":"end"}]}}`
	f.Fuzz(func(t *testing.T, line []byte) {
		jsonltest.CheckWildLine(t, cursoragent.Format{}, "c0ffee00-0000-4000-8000-00000000f022.jsonl", head, string(line), tail)
	})
}
