package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb/internal/backend"
)

// TestEntryInsertsOfSpansSessions builds the INSERTs of two commits whose
// rows straddle a chunk: the first statement must hold the first session's
// rows and the start of the second's, each row its own session, seq, row
// id and time, and the second statement the rest.
func TestEntryInsertsOfSpansSessions(t *testing.T) {
	rows := func(n int, tag string) []Row {
		out := make([]Row, n)
		for i := range out {
			out[i] = Row{Kind: "message", Role: "user", Body: []byte(fmt.Sprintf(`{"%s":%d}`, tag, i))}
		}
		return out
	}
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	runs := []EntryRun{
		{ID: "a", LastSeq: 5, Rows: rows(300, "a"), Now: at},
		{ID: "b", LastSeq: 0, Rows: rows(300, "b"), Now: at.Add(time.Hour)},
	}
	ins := EntryInsertsOf(runs, 100, backend.TextStore{})
	if len(ins) != 2 {
		t.Fatalf("%d statements, want 2", len(ins))
	}
	const per = 8 // id, session_id, seq, kind, role, text, body, created_at
	if n := len(ins[0].Args) / per; n != InsertChunk {
		t.Fatalf("first statement: %d rows, want %d", n, InsertChunk)
	}
	if n := len(ins[1].Args) / per; n != 600-InsertChunk {
		t.Fatalf("second statement: %d rows, want %d", n, 600-InsertChunk)
	}
	if got := strings.Count(ins[0].Query, "(?, ?, ?, ?, ?, ?, ?, ?)"); got != InsertChunk {
		t.Fatalf("first statement has %d row placeholders", got)
	}
	var all []any
	for _, in := range ins {
		all = append(all, in.Args...)
	}
	for i := range 600 {
		r := all[i*per : (i+1)*per]
		id, seq, when, body := "a", int64(6+i), at, fmt.Sprintf(`{"a":%d}`, i)
		if i >= 300 {
			id, seq, when, body = "b", int64(i-299), at.Add(time.Hour), fmt.Sprintf(`{"b":%d}`, i-300)
		}
		if r[0] != int64(100+i) || r[1] != id || r[2] != seq || r[6] != body || r[7] != FormatTime(when) {
			t.Fatalf("row %d: %v, want id %d, session %s, seq %d, body %s", i, r, 100+i, id, seq, body)
		}
	}
	if ins[0].First != 6 || ins[1].First != 213 || ins[1].Last != 300 {
		t.Fatalf("ranges %d-%d, %d-%d", ins[0].First, ins[0].Last, ins[1].First, ins[1].Last)
	}
}
