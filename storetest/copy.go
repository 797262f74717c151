package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sessiondb/sessiondb"
)

// Copier (DumpSession/PutSession) is optional: stores that do not
// implement it skip these tests.
func copyTests() []testCase {
	return []testCase{
		{name: "RoundTrip", fn: testCopyRoundTrip},
		{name: "ExpectAndReplace", fn: testCopyExpect},
		{name: "BadDump", fn: testCopyBadDump},
		{name: "Bulk", fn: testCopyBulk},
	}
}

func copierOf(t *testing.T, s sessiondb.Store) sessiondb.Copier {
	t.Helper()
	c, ok := s.(sessiondb.Copier)
	if !ok {
		t.Skip("store does not implement sessiondb.Copier")
	}
	return c
}

// richSession builds a session with a gap in its log (pruned rows),
// superseded rows, two compactions (one with summary messages), state,
// interrupt, usage, a checkpoint and an alias.
func richSession(t *testing.T, s sessiondb.Store, id string) {
	t.Helper()
	ctx := bg(t)
	if _, err := s.Commit(ctx, id, sessiondb.Commit{
		Create: &sessiondb.Session{ID: id, Title: "rich", Summary: "sum", Aliases: []string{id + "-alias"},
			Attrs: raw(`{"model":"m1"}`), Scope: raw(`{"user":"u"}`), Version: 3, CreatedAt: base, Project: "/srv/rich"},
		Append: []sessiondb.Entry{
			{Body: raw(msgBody(1)), CreatedAt: base.Add(time.Second)},
			{Kind: "label", Body: raw(`{"label":"x"}`), CreatedAt: base.Add(2 * time.Second)},
			{Body: raw(msgBody(3)), CreatedAt: base.Add(3 * time.Second)},
			{Body: raw(msgBody(4)), CreatedAt: base.Add(4 * time.Second)},
		},
		Usage: []sessiondb.Usage{{Seq: 1, CallID: "msg_1|req_1", Provider: "p", Model: "m1", InputTokens: 10, OutputTokens: 5,
			CacheWriteTokens: 9, CacheWrite1hTokens: 4, Cost: 0.25, CostEstimated: true, CreatedAt: base.Add(time.Second)}},
		Now: base.Add(5 * time.Second),
	}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if _, err := s.Compact(ctx, id, sessiondb.Compaction{KeepFromSeq: 3, Summary: entriesOf(`{"role":"system","content":"summary of 1-2"}`),
		TokensBefore: 100, TokensAfter: 20, Details: raw(`{"by":"test"}`), CreatedAt: base.Add(6 * time.Second)}); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if _, err := s.Prune(ctx, id); err != nil {
		t.Fatalf("Prune: %v", err)
	}
	mustAppend(t, s, id, msgs(5, 6)...)
	if _, err := s.Truncate(ctx, id, 2); err != nil {
		t.Fatalf("Truncate: %v", err)
	}
	mustSaveState(t, s, id, `{"step":6}`)
	if _, err := s.SaveInterrupt(ctx, id, raw(`{"pending":["tool-1"]}`)); err != nil {
		t.Fatalf("SaveInterrupt: %v", err)
	}
	mustSaveCheckpoint(t, s, sessiondb.Checkpoint{ID: id + "-cp", SessionID: id, Label: "l", Metadata: raw(`{"k":1}`), CreatedAt: base.Add(7 * time.Second)})
	if _, err := s.Commit(ctx, id, sessiondb.Commit{Usage: []sessiondb.Usage{{Provider: "p", Model: "m2", InputTokens: 7, CacheReadTokens: 3, ReasoningTokens: 2, Cost: 0.5, CreatedAt: base.Add(8 * time.Second)}}}); err != nil {
		t.Fatalf("Commit usage: %v", err)
	}
}

func mustDump(t *testing.T, c sessiondb.Copier, id string) sessiondb.SessionDump {
	t.Helper()
	d, err := c.DumpSession(bg(t), id)
	if err != nil {
		t.Fatalf("DumpSession(%q): %v", id, err)
	}
	return d
}

// renamed returns d moved to ID id (aliases and checkpoint IDs too, so it
// can live beside the original in one store).
func renamed(d sessiondb.SessionDump, id string) sessiondb.SessionDump {
	old := d.Session.ID
	d.Session.ID = id
	d.Session.Aliases = []string{id + "-alias"}
	cps := make([]sessiondb.Checkpoint, len(d.Checkpoints))
	for i, cp := range d.Checkpoints {
		cp.ID = id + cp.ID[len(old):]
		cp.SessionID = id
		cps[i] = cp
	}
	d.Checkpoints = cps
	return d
}

// ignoreCompactionIDs compares dumps without the store-assigned
// compaction IDs (checkpoints' CompactionID is checked separately).
var ignoreCompactionIDs = cmp.Options{
	cmpopts.IgnoreFields(sessiondb.Compaction{}, "ID"),
	cmpopts.IgnoreFields(sessiondb.Checkpoint{}, "CompactionID"),
	cmpopts.EquateEmpty(),
}

func testCopyRoundTrip(t *testing.T, s sessiondb.Store) {
	c := copierOf(t, s)
	richSession(t, s, "orig")
	d := mustDump(t, c, "orig")
	if got := seqsOf(d.Entries); !cmp.Equal(got, []int64{3, 4, 5, 6}) {
		t.Fatalf("dump entries seqs %v, want [3 4 5 6] (1-2 pruned, superseded 3-4 kept)", got)
	}
	if len(d.Compactions) != 2 || len(d.Usage) != 2 || len(d.Checkpoints) != 1 || d.State == nil || d.Interrupt == nil {
		t.Fatalf("dump misses parts: %d compactions, %d usage, %d checkpoints, state %s, interrupt %s",
			len(d.Compactions), len(d.Usage), len(d.Checkpoints), d.State, d.Interrupt)
	}

	want := renamed(d, "copy")
	got, err := c.PutSession(bg(t), want, sessiondb.Expect(0))
	if err != nil {
		t.Fatalf("PutSession: %v", err)
	}
	if got.Sequence != d.Session.Sequence || got.LastSeq != d.Session.LastSeq || !got.UpdatedAt.Equal(d.Session.UpdatedAt) {
		t.Errorf("PutSession returned sequence %d last seq %d updated %v; want %d %d %v",
			got.Sequence, got.LastSeq, got.UpdatedAt, d.Session.Sequence, d.Session.LastSeq, d.Session.UpdatedAt)
	}
	back := mustDump(t, c, "copy")
	if diff := cmp.Diff(want, back, ignoreCompactionIDs); diff != "" {
		t.Errorf("dump after PutSession differs (-put +dump):\n%s", diff)
	}
	// The checkpoint still names the compaction current at it: the last.
	if cid := back.Checkpoints[0].CompactionID; cid != back.Compactions[len(back.Compactions)-1].ID {
		t.Errorf("checkpoint compaction %d, want the copy's last compaction %d", cid, back.Compactions[len(back.Compactions)-1].ID)
	}

	// What agents see is the same.
	fo, err := s.LoadFull(bg(t), "orig", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fc, err := s.LoadFull(bg(t), "copy", sessiondb.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fo.Transcript, fc.Transcript, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("effective transcript differs (-orig +copy):\n%s", diff)
	}
	if string(fo.State) != string(fc.State) || string(fo.Interrupt) != string(fc.Interrupt) {
		t.Errorf("state/interrupt differ: %s %s vs %s %s", fo.State, fo.Interrupt, fc.State, fc.Interrupt)
	}
	uo, _ := s.UsageTotals(bg(t), "orig")
	uc, _ := s.UsageTotals(bg(t), "copy")
	if uo != uc || uo.Calls != 2 {
		t.Errorf("usage totals %+v vs %+v", uo, uc)
	}
	if id, err := s.Resolve(bg(t), "copy-alias"); err != nil || id != "copy" {
		t.Errorf("Resolve(copy-alias) = %q, %v", id, err)
	}
	if hits, err := s.Search(bg(t), "message 6", sessiondb.SearchOptions{SessionID: "copy"}); err != nil || len(hits) == 0 {
		t.Errorf("Search in the copy: %d hits, %v; want the copied entry found", len(hits), err)
	}
	// A write after the copy continues the log and the revision count.
	after := mustAppend(t, s, "copy", msgs(7, 7)...)
	if after.LastSeq != d.Session.LastSeq+1 || after.Sequence != d.Session.Sequence+1 {
		t.Errorf("append after copy: last seq %d sequence %d; want %d %d", after.LastSeq, after.Sequence, d.Session.LastSeq+1, d.Session.Sequence+1)
	}
}

func testCopyExpect(t *testing.T, s sessiondb.Store) {
	c := copierOf(t, s)
	richSession(t, s, "src")
	d := renamed(mustDump(t, c, "src"), "dst")
	if _, err := c.PutSession(bg(t), d, sessiondb.Expect(0)); err != nil {
		t.Fatalf("PutSession: %v", err)
	}
	if _, err := c.PutSession(bg(t), d, sessiondb.Expect(0)); !errors.Is(err, sessiondb.ErrConflict) {
		t.Fatalf("second PutSession expecting absence: %v, want ErrConflict", err)
	}
	// Replacing with a shorter history leaves exactly the new one.
	mustAppend(t, s, "dst", msgs(20, 22)...)
	cur, _ := s.Get(bg(t), "dst")
	if _, err := c.PutSession(bg(t), d, sessiondb.Expect(cur.Sequence)); err != nil {
		t.Fatalf("PutSession replacing: %v", err)
	}
	if diff := cmp.Diff(d, mustDump(t, c, "dst"), ignoreCompactionIDs); diff != "" {
		t.Errorf("replaced session differs (-put +dump):\n%s", diff)
	}
	// Unconditional put of the same dump is a no-op in effect.
	if _, err := c.PutSession(bg(t), d, nil); err != nil {
		t.Fatalf("PutSession unconditional: %v", err)
	}
	if diff := cmp.Diff(d, mustDump(t, c, "dst"), ignoreCompactionIDs); diff != "" {
		t.Errorf("re-put session differs (-put +dump):\n%s", diff)
	}
	if _, err := c.DumpSession(bg(t), "missing"); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("DumpSession(missing): %v, want ErrNotFound", err)
	}
}

func testCopyBadDump(t *testing.T, s sessiondb.Store) {
	c := copierOf(t, s)
	richSession(t, s, "good")
	d := mustDump(t, c, "good")
	bad := []struct {
		name string
		mod  func(d *sessiondb.SessionDump)
		want error
	}{
		{"entry beyond last seq", func(d *sessiondb.SessionDump) {
			d.Entries = append(d.Entries, sessiondb.Entry{Seq: d.Session.LastSeq + 1, Body: raw(`{}`)})
		}, sessiondb.ErrInvalid},
		{"entries out of order", func(d *sessiondb.SessionDump) {
			d.Entries = []sessiondb.Entry{d.Entries[1], d.Entries[0]}
		}, sessiondb.ErrInvalid},
		{"body not JSON", func(d *sessiondb.SessionDump) {
			d.Entries = []sessiondb.Entry{{Seq: 1, Body: raw(`{`)}}
		}, sessiondb.ErrInvalid},
		{"unknown compaction", func(d *sessiondb.SessionDump) {
			d.Checkpoints = []sessiondb.Checkpoint{{ID: "cpx", CompactionID: -5}}
		}, sessiondb.ErrInvalid},
		{"1-hour cache writes beyond the cache writes", func(d *sessiondb.SessionDump) {
			d.Usage = []sessiondb.Usage{{Model: "m", CacheWriteTokens: 1, CacheWrite1hTokens: 2}}
		}, sessiondb.ErrInvalid},
	}
	for _, b := range bad {
		dd := d
		dd.Entries = append([]sessiondb.Entry(nil), d.Entries...)
		b.mod(&dd)
		if _, err := c.PutSession(bg(t), dd, nil); !errors.Is(err, b.want) {
			t.Errorf("%s: PutSession: %v, want %v", b.name, err, b.want)
		}
	}
	if diff := cmp.Diff(d, mustDump(t, c, "good"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("bad dumps changed the stored session:\n%s", diff)
	}
}
