package pi_test

import (
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/pi"
)

// FuzzPiLine fuzzes one line of a pi session file.
func FuzzPiLine(f *testing.F) {
	jsonltest.WildFuzzSeeds(f, []string{piTestdata},
		`{"type":"compaction","id":"c","parentId":"a","firstKeptEntryId":"zz","summary":"s","tokensBefore":"x"}`,
		`{"type":"message","id":"a","parentId":"a","message":{"role":"user","content":"cycle"}}`,
		`{"type":"label","id":"l","parentId":"a","targetId":"a"}`,
		`{"type":"session","id":"second","cwd":"/x"}`,
		`{"type":"branch_summary","id":"b","parentId":null,"summary":0}`,
		"\x00\x00{\"type\":\"session_info\",\"id\":\"i\",\"parentId\":\"a\",\"name\":\"n\"}",
	)
	const head = `{"type":"session","version":3,"id":"fz","timestamp":"2026-01-10T09:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-10T09:00:01.000Z","message":{"role":"user","content":"start","timestamp":1}}`
	const tail = `{"type":"message","id":"z","parentId":"a","timestamp":"2026-01-10T09:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"end"}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"total":0.1}},"timestamp":9}}`
	f.Fuzz(func(t *testing.T, line []byte) {
		jsonltest.CheckWildLine(t, pi.Format{}, "fz.jsonl", head, string(line), tail)
	})
}
