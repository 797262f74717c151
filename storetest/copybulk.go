package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
)

// bulkDump is a dump made by hand (not read from a store) with more rows
// of each kind than one multi-row INSERT of PutSession takes (512): 1,100
// entries of every kind with gaps in their seqs, odd bytes in bodies,
// kinds and roles; a compaction with 520 summary messages; 530 usage
// rows, some with call IDs; a checkpoint on the compaction; state,
// interrupt and an import record.
func bulkDump(id string) sessiondb.SessionDump {
	kinds := []string{"message", "label", "custom", "label\xff", "message"}
	d := sessiondb.SessionDump{Session: sessiondb.Session{ID: id, Title: "bulk " + hostileTexts[0], Summary: hostileTexts[1],
		Attrs: hostileDoc("cwd"), Scope: raw(`{"user":"u"}`), Version: 2, Sequence: 9, Aliases: []string{id + "-alias"},
		SourceFormat: "picoclaw", SourcePath: "/archive/" + id + "\xe9.jsonl", Project: "/srv/bulk",
		CreatedAt: base, UpdatedAt: base.Add(time.Hour)}}
	seq := int64(4)
	for i := range 1100 {
		seq += 1 + int64(i%3) // gaps: a pruned or truncated log keeps its seqs
		h := hostileTexts[i%len(hostileTexts)]
		body := fmt.Sprintf(`{"role":"user","content":"bulkword%d %s"}`, i, stringJSONBytes(h))
		d.Entries = append(d.Entries, sessiondb.Entry{Seq: seq, Kind: kinds[i%len(kinds)], Role: []string{"user", "assistant", "r\x00le"}[i%3],
			Body: raw(body), CreatedAt: base.Add(time.Duration(i) * time.Millisecond)})
	}
	d.Session.LastSeq = seq + 2
	c := sessiondb.Compaction{ID: 1, AtSeq: 100, KeepFromSeq: 50, TokensBefore: 1000, TokensAfter: 10, Details: hostileDoc("details"), CreatedAt: base.Add(time.Minute)}
	for i := range 520 {
		c.Summary = append(c.Summary, sessiondb.Entry{Kind: "message", Role: "system", Summary: true,
			Body: raw(fmt.Sprintf(`{"role":"system","content":"summaryword%d"}`, i)), CreatedAt: base.Add(time.Duration(i) * time.Second)})
	}
	d.Compactions = []sessiondb.Compaction{c}
	for i := range 530 {
		u := sessiondb.Usage{Seq: d.Entries[i].Seq, Provider: "p" + hostileTexts[i%2], Model: fmt.Sprintf("m%d", i%4), InputTokens: int64(i),
			OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4, CacheWrite1hTokens: 1, ReasoningTokens: 5, Cost: float64(i) / 8,
			CostEstimated: i%5 == 0, CreatedAt: base.Add(time.Duration(i) * time.Second)}
		if i%2 == 0 {
			u.CallID = fmt.Sprintf("call-%d", i)
		}
		if i%7 == 0 {
			u.Seq = 0
		}
		d.Usage = append(d.Usage, u)
	}
	d.Checkpoints = []sessiondb.Checkpoint{{ID: id + "-cp", SessionID: id, Label: hostileTexts[2], AtSeq: 60, CompactionID: 1,
		State: hostileDoc("cpstate"), Metadata: raw(`{"k":1}`), CreatedAt: base.Add(2 * time.Minute)}}
	d.State, d.StateUpdatedAt = hostileDoc("state"), base.Add(3*time.Minute)
	d.Interrupt, d.InterruptUpdatedAt = raw(`{"pending":["tool-1"]}`), base.Add(4*time.Minute)
	d.Sources = []sessiondb.SourceFile{{SessionID: id, Machine: "m1", Path: d.Session.SourcePath, Format: "picoclaw", Size: 10,
		ModTime: base, SHA256: "ab", Offset: 10, State: hostileDoc("resume"), ImportedAt: base}}
	return d
}

// testCopyBulk: PutSession writes every row of a dump larger than one
// multi-row INSERT exactly (DumpSession gives the dump back, search finds
// the last entries, the usage ledger sums every row), and a write that
// fails after its entries went in leaves nothing of the session, or the
// session it was to replace as it was.
func testCopyBulk(t *testing.T, s sessiondb.Store) {
	c := copierOf(t, s)
	ctx := bg(t)
	want := bulkDump("bulk")
	if _, err := c.PutSession(ctx, want, sessiondb.Expect(0)); err != nil {
		t.Fatalf("PutSession: %v", err)
	}
	back := mustDump(t, c, "bulk")
	opts := cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(sessiondb.Session{}, "MessageCount", "EntryCount")}
	if diff := cmp.Diff(want, back, opts); diff != "" {
		t.Errorf("dump after PutSession differs (-put +dump):\n%s", diff)
	}
	// Search finds entries and summary messages of every chunk.
	for _, q := range []struct {
		word string
		seq  int64
	}{{"bulkword0", want.Entries[0].Seq}, {"bulkword700", want.Entries[700].Seq}, {"bulkword1099", want.Entries[1099].Seq}} {
		hits, err := s.Search(ctx, q.word, sessiondb.SearchOptions{SessionID: "bulk"})
		if err != nil || len(hits) != 1 || hits[0].Seq != q.seq || hits[0].Summary {
			t.Errorf("Search(%s) = %+v, %v; want one hit at seq %d", q.word, hits, err, q.seq)
		}
	}
	if hits, err := s.Search(ctx, "summaryword519", sessiondb.SearchOptions{SessionID: "bulk"}); err != nil || len(hits) != 1 || !hits[0].Summary {
		t.Errorf("Search(summaryword519) = %+v, %v; want one summary hit", hits, err)
	}
	var total sessiondb.UsageTotals
	for _, u := range want.Usage {
		total.Calls++
		total.InputTokens += u.InputTokens
		total.ReasoningTokens += u.ReasoningTokens
	}
	rows, err := s.UsageReport(ctx, sessiondb.UsageQuery{SessionID: "bulk"})
	if err != nil || len(rows) != 1 || rows[0].Calls != total.Calls || rows[0].InputTokens != total.InputTokens ||
		rows[0].ReasoningTokens != total.ReasoningTokens {
		t.Errorf("UsageReport = %+v, %v; want %d calls, %d input, %d reasoning tokens", rows, err, total.Calls, total.InputTokens, total.ReasoningTokens)
	}

	// A usage row beyond LastSeq is refused after the entries and summary
	// messages were written: nothing of the new session stays.
	bad := bulkDump("bulk-bad")
	bad.Usage[len(bad.Usage)-1].Seq = bad.Session.LastSeq + 1
	if _, err := c.PutSession(ctx, bad, sessiondb.Expect(0)); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Fatalf("PutSession with a usage row beyond LastSeq: %v, want ErrInvalid", err)
	}
	if _, err := c.DumpSession(ctx, "bulk-bad"); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("DumpSession after a failed PutSession: %v, want ErrNotFound", err)
	}
	if hits, err := s.Search(ctx, "bulkword1099", sessiondb.SearchOptions{}); err != nil || len(hits) != 1 || hits[0].SessionID != "bulk" {
		t.Errorf("Search after a failed PutSession = %+v, %v; want the one hit of bulk", hits, err)
	}
	// The same failure replacing bulk leaves bulk as it was.
	bad = bulkDump("bulk")
	bad.Entries = bad.Entries[:600]
	bad.Usage = bad.Usage[:530]
	bad.Usage[529].Seq = bad.Session.LastSeq + 1
	if _, err := c.PutSession(ctx, bad, nil); !errors.Is(err, sessiondb.ErrInvalid) {
		t.Fatalf("PutSession replacing with a usage row beyond LastSeq: %v, want ErrInvalid", err)
	}
	if diff := cmp.Diff(back, mustDump(t, c, "bulk"), opts); diff != "" {
		t.Errorf("a failed replace changed the session (-before +after):\n%s", diff)
	}
}
