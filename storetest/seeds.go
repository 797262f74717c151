package storetest

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessiondb/sessiondb"
)

// The seeds in one call per method (issue 44): what the adapters of
// picoclaw, zot and swink-agent-memory over sessiondb no longer work
// around.
func seedTests() []testCase {
	return []testCase{
		{name: "CumulativeUsage", fn: testCumulativeUsage},
		{name: "CumulativeUsageReset", fn: testCumulativeUsageReset},
		{name: "CumulativeUsageInvalid", fn: testCumulativeUsageInvalid},
		{name: "ListPreview", fn: testListPreview},
		{name: "ListPreviewCuts", fn: testListPreviewCuts},
		{name: "ForkWithAtMessage", fn: testForkWithAtMessage},
		{name: "ForkWithCompacted", fn: testForkWithCompacted},
		{name: "ForkWithErrors", fn: testForkWithErrors},
		{name: "PromoteWithMeta", fn: testPromoteWithMeta},
		{name: "OrCreateCommit", fn: testOrCreateCommit},
		{name: "CommitRevise", fn: testCommitRevise},
		{name: "ListOrder", fn: testListByOrder},
		{name: "ListOrderPages", fn: testListByOrderPages},
	}
}

// ---- 1. cumulative usage ----------------------------------------------------

func cum(in, out int64, cost float64) sessiondb.Usage {
	return sessiondb.Usage{Model: "m", InputTokens: in, OutputTokens: out, Cost: cost}
}

func mustTotals(t *testing.T, s sessiondb.Store, id string) sessiondb.UsageTotals {
	t.Helper()
	got, err := s.UsageTotals(bg(t), id)
	if err != nil {
		t.Fatalf("UsageTotals(%q): %v", id, err)
	}
	return got
}

func wantTotals(t *testing.T, got sessiondb.UsageTotals, calls, in, out int64, cost float64, what string) {
	t.Helper()
	if got.Calls != calls || got.InputTokens != in || got.OutputTokens != out || math.Abs(got.Cost-cost) > 1e-9 {
		t.Errorf("%s: totals %d calls, %d in, %d out, $%g; want %d, %d, %d, $%g",
			what, got.Calls, got.InputTokens, got.OutputTokens, got.Cost, calls, in, out, cost)
	}
}

// testCumulativeUsage: running totals (zot's AppendUsage(cum, cum)) reach
// the ledger as deltas: UsageTotals, UsageReport and List with Usage see
// the last total; a repeated total (zot writes one at every flush) adds
// no call and no revision; a session whose ledger already holds calls
// continues from their sum.
func testCumulativeUsage(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustCreate(t, s, "z")
	mustCommit(t, s, "z", sessiondb.Commit{CumulativeUsage: []sessiondb.Usage{cum(100, 10, 0.5)}})
	wantTotals(t, mustTotals(t, s, "z"), 1, 100, 10, 0.5, "first total")
	before := mustGet(t, s, "z")
	same := mustCommit(t, s, "z", sessiondb.Commit{CumulativeUsage: []sessiondb.Usage{cum(100, 10, 0.5)}})
	if same.Sequence != before.Sequence {
		t.Errorf("a repeated total bumped the sequence %d -> %d", before.Sequence, same.Sequence)
	}
	// Two totals in one commit, with a message: both deltas, in order.
	mustCommit(t, s, "z", sessiondb.Commit{Append: msgs(1, 1),
		CumulativeUsage: []sessiondb.Usage{cum(180, 20, 0.75), cum(250, 30, 1.25)}})
	wantTotals(t, mustTotals(t, s, "z"), 3, 250, 30, 1.25, "after three totals")
	ledger := ledgerOf(t, s, "z")
	var ins []int64
	for _, u := range ledger {
		ins = append(ins, u.InputTokens)
	}
	if !slices.Equal(ins, []int64{100, 80, 70}) {
		t.Errorf("ledger input tokens %v, want the deltas [100 80 70]", ins)
	}
	infos, _, err := s.List(ctx, sessiondb.ListOptions{Usage: true})
	if err != nil || len(infos) != 1 || infos[0].Usage == nil {
		t.Fatalf("List with usage = %+v, %v", infos, err)
	}
	wantTotals(t, *infos[0].Usage, 3, 250, 30, 1.25, "List with usage")
	rows, err := s.UsageReport(ctx, sessiondb.UsageQuery{BySession: true})
	if err != nil || len(rows) != 1 || rows[0].InputTokens != 250 {
		t.Errorf("UsageReport by session = %+v, %v; want one row of 250 input tokens", rows, err)
	}

	// A ledger of calls, then a total seeded from it (zot on resume).
	mustCreate(t, s, "seeded")
	mustCommit(t, s, "seeded", sessiondb.Commit{Usage: []sessiondb.Usage{cum(40, 4, 0.2)}})
	mustCommit(t, s, "seeded", sessiondb.Commit{CumulativeUsage: []sessiondb.Usage{cum(100, 10, 0.5)}})
	wantTotals(t, mustTotals(t, s, "seeded"), 2, 100, 10, 0.5, "total seeded from the ledger")
}

// testCumulativeUsageReset: a total below the previous one is a reset
// (the agent's counter started again): it is recorded as it stands and
// the next total is diffed against it; a reset to zero only moves the
// previous total; ReplaceUsage forgets it.
func testCumulativeUsageReset(t *testing.T, s sessiondb.Store) {
	mustCreate(t, s, "r")
	commitCum := func(u sessiondb.Usage) {
		t.Helper()
		mustCommit(t, s, "r", sessiondb.Commit{CumulativeUsage: []sessiondb.Usage{u}})
	}
	commitCum(cum(100, 10, 1))
	commitCum(cum(30, 5, 0.25)) // reset: 30 more since it
	wantTotals(t, mustTotals(t, s, "r"), 2, 130, 15, 1.25, "after the reset")
	commitCum(cum(50, 8, 0.5)) // 20 more than the total after the reset
	wantTotals(t, mustTotals(t, s, "r"), 3, 150, 18, 1.5, "after the reset's next total")
	// Only the cost went down: still a reset.
	commitCum(cum(60, 9, 0.125))
	wantTotals(t, mustTotals(t, s, "r"), 4, 210, 27, 1.625, "after a reset of the cost alone")
	before := mustGet(t, s, "r")
	commitCum(cum(0, 0, 0)) // to zero: no call
	if got := mustTotals(t, s, "r"); got.Calls != 4 {
		t.Errorf("a reset to zero added a call: %d calls", got.Calls)
	}
	if got := mustGet(t, s, "r"); got.Sequence != before.Sequence+1 {
		t.Errorf("a reset to zero: sequence %d -> %d, want one revision (the previous total moved)", before.Sequence, got.Sequence)
	}
	commitCum(cum(10, 1, 0.0625))
	wantTotals(t, mustTotals(t, s, "r"), 5, 220, 28, 1.6875, "after the reset to zero")
	// ReplaceUsage empties the ledger and forgets the previous total.
	mustCommit(t, s, "r", sessiondb.Commit{ReplaceUsage: true})
	commitCum(cum(10, 1, 0.0625))
	wantTotals(t, mustTotals(t, s, "r"), 1, 10, 1, 0.0625, "after ReplaceUsage")
}

// testCumulativeUsageInvalid: a cumulative row naming a call, or with a
// negative total, is ErrInvalid and changes nothing.
func testCumulativeUsageInvalid(t *testing.T, s sessiondb.Store) {
	before := mustSession(t, s, "i", 1)
	for _, bad := range []sessiondb.Usage{
		{CallID: "msg_1", InputTokens: 5},
		{InputTokens: -1},
		{Cost: -0.5},
	} {
		_, err := s.Commit(bg(t), "i", sessiondb.Commit{Append: msgs(2, 2), CumulativeUsage: []sessiondb.Usage{bad}})
		wantErr(t, err, sessiondb.ErrInvalid, fmt.Sprintf("cumulative %+v", bad))
	}
	wantUnchanged(t, s, before, "invalid cumulative usage")
	if got := mustTotals(t, s, "i"); got.Calls != 0 {
		t.Errorf("invalid cumulative usage left %d calls", got.Calls)
	}
}

// ---- 2. preview -------------------------------------------------------------

func previews(t *testing.T, s sessiondb.Store) map[string]string {
	t.Helper()
	infos, _, err := s.List(bg(t), sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	out := map[string]string{}
	for _, in := range infos {
		out[in.ID] = in.Preview
	}
	return out
}

func wantPreview(t *testing.T, s sessiondb.Store, id, want, what string) {
	t.Helper()
	if got := previews(t, s)[id]; got != want {
		t.Errorf("%s: preview of %s = %q, want %q", what, id, got, want)
	}
}

func userMsg(text string) sessiondb.Entry {
	b, _ := json.Marshal(map[string]string{"role": "user", "content": text})
	return sessiondb.Message(string(b))
}

func assistantMsg(text string) sessiondb.Entry {
	b, _ := json.Marshal(map[string]string{"role": "assistant", "content": text})
	return sessiondb.Message(string(b))
}

// testListPreview: List returns the first user message's text of each
// session, set by the append that brings it (the plain append, and a
// commit that also writes state and metadata), not moved by later
// messages, cut to PreviewRunes runes; "" without a user message;
// bookkeeping entries with a user role are not messages; a custom
// message is.
func testListPreview(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustCreate(t, s, "plain")
	wantPreview(t, s, "plain", "", "a new session")
	mustAppend(t, s, "plain", assistantMsg("welcome"), sessiondb.Entry{Kind: "label", Role: "user", Body: raw(`{"content":"a label"}`)})
	wantPreview(t, s, "plain", "", "no user message yet")
	mustAppend(t, s, "plain", userMsg("Where is the lighthouse?"), assistantMsg("North."))
	mustAppend(t, s, "plain", userMsg("And the harbour?"))
	wantPreview(t, s, "plain", "Where is the lighthouse?", "plain appends")

	// The general commit path: state, metadata and the append together.
	title := "t"
	_, err := s.Commit(ctx, "general", sessiondb.Commit{CreateIfMissing: &sessiondb.Session{},
		Meta: &sessiondb.MetaPatch{Title: &title}, State: raw(`{}`), Append: []sessiondb.Entry{userMsg("first words")}})
	if err != nil {
		t.Fatal(err)
	}
	wantPreview(t, s, "general", "first words", "a commit with state and metadata")

	// A custom message with the user role counts.
	mustCreate(t, s, "custom")
	mustAppend(t, s, "custom", sessiondb.Entry{Kind: sessiondb.KindCustom, Body: raw(`{"role":"user","content":"custom words"}`)})
	wantPreview(t, s, "custom", "custom words", "a custom user message")

	// Cut to PreviewRunes runes (multi-byte ones: runes, not bytes).
	long := strings.Repeat("é", sessiondb.PreviewRunes+50)
	mustCreate(t, s, "long")
	mustAppend(t, s, "long", userMsg(long))
	wantPreview(t, s, "long", strings.Repeat("é", sessiondb.PreviewRunes), "a long first message")

	// SaveFull and SetHistory replace the transcript: its first user
	// message is the new one.
	mustSaveFull(t, s, sessiondb.Session{ID: "saved"}, []sessiondb.Entry{assistantMsg("hi"), userMsg("saved words")}, `{}`)
	wantPreview(t, s, "saved", "saved words", "SaveFull")
	if _, err := s.SetHistory(ctx, "saved", []sessiondb.Entry{userMsg("new history")}); err != nil {
		t.Fatal(err)
	}
	wantPreview(t, s, "saved", "new history", "SetHistory")
	if _, err := s.SetHistory(ctx, "saved", []sessiondb.Entry{assistantMsg("only me")}); err != nil {
		t.Fatal(err)
	}
	wantPreview(t, s, "saved", "", "SetHistory without a user message")
}

// testListPreviewCuts: compaction, truncation, fork, restore and copy keep
// the preview the first user message of the transcript they leave;
// summary messages are not the user's.
func testListPreviewCuts(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustCreate(t, s, "c")
	mustAppend(t, s, "c", userMsg("u1"), assistantMsg("a1"), userMsg("u2"), assistantMsg("a2"), userMsg("u3"))
	// A compaction whose summary is a user-role message, keeping from u2.
	if _, err := s.Compact(ctx, "c", sessiondb.Compaction{KeepFromSeq: 3, Summary: []sessiondb.Entry{userMsg("summary")}}); err != nil {
		t.Fatal(err)
	}
	wantPreview(t, s, "c", "u2", "after a compaction keeping from u2")
	// Truncate to the last message.
	if _, err := s.Truncate(ctx, "c", 1); err != nil {
		t.Fatal(err)
	}
	wantPreview(t, s, "c", "u3", "after Truncate(1)")
	// Compaction back to the start (reversing): the first message again.
	if _, err := s.Compact(ctx, "c", sessiondb.Compaction{KeepFromSeq: 1}); err != nil {
		t.Fatal(err)
	}
	wantPreview(t, s, "c", "u1", "after a compaction keeping everything")
	// A commit that appends and cuts: KeepLast 1 keeps only the new entry.
	mustCommit(t, s, "c", sessiondb.Commit{Append: []sessiondb.Entry{userMsg("u4")}, KeepLast: sessiondb.Keep(1)})
	wantPreview(t, s, "c", "u4", "append and KeepLast in one commit")
	mustCommit(t, s, "c", sessiondb.Commit{Append: []sessiondb.Entry{assistantMsg("a4")}, KeepLast: sessiondb.Keep(1)})
	wantPreview(t, s, "c", "", "KeepLast keeping no user message")

	// Fork at a position before u2: the child's first user message.
	mustCreate(t, s, "p")
	mustAppend(t, s, "p", assistantMsg("a0"), userMsg("p1"), userMsg("p2"))
	if _, err := s.Fork(ctx, "p", 1, "p-early"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork(ctx, "p", 0, "p-now"); err != nil {
		t.Fatal(err)
	}
	got := previews(t, s)
	if got["p-early"] != "" || got["p-now"] != "p1" {
		t.Errorf("fork previews: early %q (want \"\"), now %q (want p1)", got["p-early"], got["p-now"])
	}
	// Restore in place rewinds the transcript to the checkpoint's.
	cp, err := s.SaveCheckpoint(ctx, sessiondb.Checkpoint{SessionID: "c", AtSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, cp.ID, sessiondb.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	wantPreview(t, s, "c", "u1", "after Restore to seq 1")
	// A copy (Copier) finds it over what it wrote.
	if c, ok := s.(sessiondb.Copier); ok {
		d, err := c.DumpSession(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		d.Session.ID = "p-copy"
		for i := range d.Entries {
			d.Entries[i].Seq = int64(i + 1)
		}
		if _, err := c.PutSession(ctx, d, nil); err != nil {
			t.Fatal(err)
		}
		wantPreview(t, s, "p-copy", "p1", "a copy")
	}
}

// ---- 3. ForkWith ------------------------------------------------------------

// testForkWithAtMessage: a branch after the k-th message, with its own
// title, attributes and alias, in one commit: the child's transcript is
// the parent's up to that message (bookkeeping between messages kept,
// what follows the message not), its MessageCount k, its ForkSeq the
// message's Seq, its Sequence 1.
func testForkWithAtMessage(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	parent := mustCommit(t, s, "zp", sessiondb.Commit{
		Create: &sessiondb.Session{Title: "parent", Attrs: raw(`{"model":"m1"}`), Project: "/src/p"},
		Append: []sessiondb.Entry{userMsg("u1"), assistantMsg("a1"),
			{Kind: "model_change", Body: raw(`{"model":"m2"}`)}, userMsg("u2"),
			{Kind: "model_change", Body: raw(`{"model":"m3"}`)}, assistantMsg("a2")},
		State: raw(`{"turn":2}`),
	})
	title := "branch"
	aliases := []string{"zot:branch:1"}
	child, err := s.ForkWith(ctx, "zp", sessiondb.ForkOptions{ID: "zb", AtMessage: 3, Meta: &sessiondb.MetaPatch{
		Title: &title, AttrsMerge: raw(`{"branch":true}`), Aliases: &aliases}})
	if err != nil {
		t.Fatalf("ForkWith: %v", err)
	}
	if child.ParentID != "zp" || child.ForkSeq != 4 || child.MessageCount != 3 || child.Sequence != 1 ||
		child.Title != "branch" || string(child.Attrs) != `{"branch":true,"model":"m1"}` ||
		!slices.Equal(child.Aliases, aliases) || child.Project != "/src/p" {
		t.Errorf("child = %+v; want parent zp, ForkSeq 4, 3 messages, sequence 1, title branch, merged attrs, its alias, the parent's project", child)
	}
	if got := mustGet(t, s, "zb"); metaDiff(child, got) != "" {
		t.Errorf("Get differs from what ForkWith returned: %s", metaDiff(child, got))
	}
	wantTranscript(t, s, "zb", []string{string(userMsg("u1").Body), string(assistantMsg("a1").Body), `{"model":"m2"}`, string(userMsg("u2").Body)})
	wantJSON(t, mustState(t, s, "zb"), `{"turn":2}`, "child state")
	if id, err := s.Resolve(ctx, "zot:branch:1"); err != nil || id != "zb" {
		t.Errorf("Resolve(alias) = %q, %v", id, err)
	}
	if got := mustGet(t, s, "zp"); got.Sequence != parent.Sequence || got.Title != "parent" {
		t.Errorf("the parent changed: %+v", got)
	}
	// AtMessage equal to the count: the whole transcript's messages, not
	// the bookkeeping after the last one... which here is none.
	whole, err := s.ForkWith(ctx, "zp", sessiondb.ForkOptions{ID: "zw", AtMessage: 4})
	if err != nil || whole.ForkSeq != 6 || whole.MessageCount != 4 || whole.Title != "parent" || whole.Aliases != nil {
		t.Errorf("ForkWith(AtMessage 4) = %+v, %v; want ForkSeq 6, 4 messages, the parent's title, no aliases", whole, err)
	}
	// Fork is ForkWith without options.
	f, err := s.Fork(ctx, "zp", 2, "zf")
	if err != nil || f.ForkSeq != 2 || f.MessageCount != 2 {
		t.Errorf("Fork(2) = %+v, %v", f, err)
	}
}

// testForkWithCompacted: on a compacted parent, messages are counted from
// the summary's; a cut at the summary's last message gives the summary
// alone.
func testForkWithCompacted(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustCreate(t, s, "cp")
	mustAppend(t, s, "cp", userMsg("u1"), assistantMsg("a1"), userMsg("u2"), assistantMsg("a2"))
	if _, err := s.Compact(ctx, "cp", sessiondb.Compaction{KeepFromSeq: 3, Summary: []sessiondb.Entry{assistantMsg("sum")}}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "cp", userMsg("u3"))
	// Transcript: sum, u2, a2, u3.
	got, err := s.ForkWith(ctx, "cp", sessiondb.ForkOptions{ID: "c2", AtMessage: 2})
	if err != nil || got.MessageCount != 2 || got.ForkSeq != 3 {
		t.Fatalf("ForkWith(AtMessage 2) = %+v, %v; want 2 messages, ForkSeq 3", got, err)
	}
	tr := wantTranscript(t, s, "c2", []string{string(assistantMsg("sum").Body), string(userMsg("u2").Body)})
	if len(tr) == 2 && !tr[0].Summary {
		t.Errorf("the child's first entry is not a summary message: %+v", tr[0])
	}
	wantPreview(t, s, "c2", "u2", "the child's preview")
	only, err := s.ForkWith(ctx, "cp", sessiondb.ForkOptions{ID: "c1", AtMessage: 1})
	if err != nil || only.MessageCount != 1 {
		t.Fatalf("ForkWith(AtMessage 1) = %+v, %v", only, err)
	}
	wantTranscript(t, s, "c1", []string{string(assistantMsg("sum").Body)})
}

// testForkWithErrors: bad options are ErrInvalid (a taken ID ErrExists)
// and create nothing.
func testForkWithErrors(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustSession(t, s, "ep", 3)
	if _, err := s.Compact(ctx, "ep", sessiondb.Compaction{KeepFromSeq: 2, Summary: []sessiondb.Entry{assistantMsg("s1"), assistantMsg("s2")}}); err != nil {
		t.Fatal(err)
	}
	fs := int64(1)
	bad := "not json"
	for _, c := range []struct {
		opts sessiondb.ForkOptions
		want error
	}{
		{sessiondb.ForkOptions{ID: "e1", AtMessage: 5}, sessiondb.ErrInvalid}, // 2 summary + 2 messages
		{sessiondb.ForkOptions{ID: "e1", AtMessage: 1}, sessiondb.ErrInvalid}, // inside the summary
		{sessiondb.ForkOptions{ID: "e1", AtMessage: -1}, sessiondb.ErrInvalid},
		{sessiondb.ForkOptions{ID: "e1", AtMessage: 2, AtSeq: 2}, sessiondb.ErrInvalid},
		{sessiondb.ForkOptions{ID: "e1", Meta: &sessiondb.MetaPatch{ForkSeq: &fs}}, sessiondb.ErrInvalid},
		{sessiondb.ForkOptions{ID: "e1", Meta: &sessiondb.MetaPatch{Attrs: raw(bad)}}, sessiondb.ErrInvalid},
		{sessiondb.ForkOptions{ID: "ep"}, sessiondb.ErrExists},
		{sessiondb.ForkOptions{ID: "bad id\x00"}, sessiondb.ErrInvalid},
	} {
		_, err := s.ForkWith(ctx, "ep", c.opts)
		wantErr(t, err, c.want, fmt.Sprintf("ForkWith(%+v)", c.opts))
	}
	if _, err := s.Get(ctx, "e1"); !errsIs(err, sessiondb.ErrNotFound) {
		t.Errorf("a refused fork left session e1: %v", err)
	}
	_, err := s.ForkWith(ctx, "missing", sessiondb.ForkOptions{AtMessage: 1})
	wantErr(t, err, sessiondb.ErrNotFound, "ForkWith of a missing parent")
	if got, err := s.ForkWith(ctx, "ep", sessiondb.ForkOptions{ID: "e2", AtMessage: 2}); err != nil || got.MessageCount != 2 {
		t.Errorf("ForkWith(AtMessage 2, the summary alone) = %+v, %v", got, err)
	}
}

// ---- 4. OrCreate.Meta and OrCreate.Commit ------------------------------------

// testPromoteWithMeta: PromoteHistory into an existing empty target, and
// into a missing one, applies OrCreate.Meta in the move's commit: the
// target gets the transcript, the moved summary and the meta with one
// revision.
func testPromoteWithMeta(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	mustCommit(t, s, "legacy", sessiondb.Commit{Create: &sessiondb.Session{Summary: "so far"}, Append: msgs(1, 2)})
	target := mustCreate(t, s, "agent:main:cli:direct:alice")
	aliases := []string{"legacy"}
	o := sessiondb.OrCreate{Meta: &sessiondb.MetaPatch{Scope: raw(`{"channel":"cli"}`), Aliases: &aliases}}
	moved, err := o.PromoteHistory(ctx, s, "legacy", target.ID)
	if err != nil || !moved {
		t.Fatalf("PromoteHistory = %v, %v", moved, err)
	}
	got := mustGet(t, s, target.ID)
	if got.Sequence != target.Sequence+1 || string(got.Scope) != `{"channel":"cli"}` ||
		!slices.Equal(got.Aliases, aliases) || got.Summary != "so far" || got.MessageCount != 2 {
		t.Errorf("target after the promotion = %+v; want one revision, the scope, the alias, the summary, 2 messages", got)
	}
	wantTranscript(t, s, target.ID, bodies(1, 2))
	// A missing target is created with both OrCreate.Session and Meta.
	o.Session = sessiondb.Session{Title: "alice"}
	if moved, err := o.PromoteHistory(ctx, s, "legacy", "agent:main:cli:direct:bob"); err != nil || !moved {
		t.Fatalf("PromoteHistory to a missing target = %v, %v", moved, err)
	}
	got = mustGet(t, s, "agent:main:cli:direct:bob")
	if got.Sequence != 1 || got.Title != "alice" || string(got.Scope) != `{"channel":"cli"}` || !slices.Equal(got.Aliases, aliases) {
		t.Errorf("created target = %+v; want sequence 1, the title, the scope and the alias", got)
	}
	// Nothing to move: nothing written.
	before := mustGet(t, s, target.ID)
	if moved, err := o.PromoteHistory(ctx, s, "legacy", target.ID); err != nil || moved {
		t.Errorf("second PromoteHistory = %v, %v; want nothing moved", moved, err)
	}
	wantUnchanged(t, s, before, "a promotion with nothing to move")
}

// testOrCreateCommit: OrCreate.Commit creates on the first write with
// OrCreate's fields and Meta, applies any commit, and an unchanged repeat
// is a no-op; a commit that creates, deletes or patches the metadata
// besides OrCreate.Meta is ErrInvalid.
func testOrCreateCommit(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	project := "/w"
	o := sessiondb.OrCreate{Session: sessiondb.Session{Title: "k"}, Meta: &sessiondb.MetaPatch{Project: &project}}
	got, err := o.Commit(ctx, s, "key", sessiondb.Commit{Append: msgs(1, 1), State: raw(`{"a":1}`)})
	if err != nil || got.Sequence != 1 || got.Title != "k" || got.Project != "/w" || got.LastSeq != 1 {
		t.Fatalf("OrCreate.Commit on a missing session = %+v, %v", got, err)
	}
	again, err := o.Commit(ctx, s, "key", sessiondb.Commit{State: raw(`{"a":1}`)})
	if err != nil || again.Sequence != got.Sequence {
		t.Errorf("repeat = %+v, %v; want a no-op at sequence %d", again, err, got.Sequence)
	}
	title := "x"
	for _, c := range []sessiondb.Commit{
		{Create: &sessiondb.Session{}},
		{CreateIfMissing: &sessiondb.Session{}},
		{Delete: true},
		{Meta: &sessiondb.MetaPatch{Title: &title}},
	} {
		_, err := o.Commit(ctx, s, "key2", c)
		wantErr(t, err, sessiondb.ErrInvalid, fmt.Sprintf("OrCreate.Commit(%+v)", c))
	}
	if _, err := s.Get(ctx, "key2"); !errsIs(err, sessiondb.ErrNotFound) {
		t.Errorf("a refused OrCreate.Commit created key2: %v", err)
	}
	// Without OrCreate.Meta, the commit's own Meta goes through.
	if got, err := (sessiondb.OrCreate{}).Commit(ctx, s, "key3", sessiondb.Commit{Meta: &sessiondb.MetaPatch{Title: &title}}); err != nil || got.Title != "x" {
		t.Errorf("OrCreate{}.Commit with Meta = %+v, %v", got, err)
	}
}

// ---- 5. Commit.Revise -------------------------------------------------------

// testCommitRevise: swink's save (the same transcript, its own
// updated_at, the sequence it expects) records a revision every time with
// Revise; without it an unchanged save is a no-op; a stale sequence is
// still a conflict.
func testCommitRevise(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	sess := mustSaveFull(t, s, sessiondb.Session{ID: "sw"}, msgs(1, 2), `{}`)
	at := base.Add(time.Hour)
	for i := range 3 {
		next, err := s.Commit(ctx, "sw", sessiondb.Commit{ExpectSequence: sessiondb.Expect(sess.Sequence), Revise: true,
			History: msgs(1, 2), State: raw(`{}`), Meta: &sessiondb.MetaPatch{UpdatedAt: at}})
		if err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
		if next.Sequence != sess.Sequence+1 || !next.UpdatedAt.Equal(at) || next.LastSeq != sess.LastSeq {
			t.Errorf("save %d = sequence %d, updated %v, last seq %d; want %d, %v, %d (no entry written)",
				i, next.Sequence, next.UpdatedAt, next.LastSeq, sess.Sequence+1, at, sess.LastSeq)
		}
		sess = next
	}
	same, err := s.Commit(ctx, "sw", sessiondb.Commit{History: msgs(1, 2), Meta: &sessiondb.MetaPatch{UpdatedAt: at.Add(time.Hour)}})
	if err != nil || same.Sequence != sess.Sequence {
		t.Errorf("the same save without Revise = %+v, %v; want a no-op", same, err)
	}
	_, err = s.Commit(ctx, "sw", sessiondb.Commit{ExpectSequence: sessiondb.Expect(sess.Sequence - 1), Revise: true})
	wantErr(t, err, sessiondb.ErrConflict, "Revise with a stale sequence")
	wantUnchanged(t, s, sess, "a refused revision")
}

// ---- 6. List order ------------------------------------------------------------

// orderFixture creates sessions whose IDs, creation and update times are
// in three different orders (IDs in byte order: upper case first), and
// returns the IDs.
func orderFixture(t *testing.T, s sessiondb.Store) []string {
	ids := []string{"b", "a", "C", "d", "A"}
	for i, id := range ids {
		created := base.Add(time.Duration(i) * time.Minute)
		updated := base.Add(time.Duration((i*3)%len(ids)) * time.Hour)
		project := ""
		if strings.EqualFold(id, "a") {
			project = "/keep"
		}
		if _, err := s.Create(bg(t), sessiondb.Session{ID: id, CreatedAt: created, UpdatedAt: updated, Project: project}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

func listIDs(t *testing.T, s sessiondb.Store, opts sessiondb.ListOptions) []string {
	t.Helper()
	var out []string
	for range 100 {
		infos, next, err := s.List(bg(t), opts)
		if err != nil {
			t.Fatalf("List(%+v): %v", opts, err)
		}
		for _, in := range infos {
			out = append(out, in.ID)
		}
		if next == "" {
			return out
		}
		opts.Cursor = next
	}
	t.Fatalf("List(%+v) did not end", opts)
	return nil
}

// testListByOrder: each order and direction, walked in pages of 2, gives
// every session once in the order asked; the default is unchanged.
func testListByOrder(t *testing.T, s sessiondb.Store) {
	orderFixture(t, s)
	// updated: b 0h, a 3h, C 1h, d 4h, A 2h.
	for _, c := range []struct {
		order sessiondb.ListOrder
		asc   bool
		want  []string
	}{
		{"", false, []string{"d", "a", "A", "C", "b"}},
		{sessiondb.ByUpdated, false, []string{"d", "a", "A", "C", "b"}},
		{sessiondb.ByUpdated, true, []string{"b", "C", "A", "a", "d"}},
		{sessiondb.ByCreated, true, []string{"b", "a", "C", "d", "A"}},
		{sessiondb.ByCreated, false, []string{"A", "d", "C", "a", "b"}},
		{sessiondb.ByID, true, []string{"A", "C", "a", "b", "d"}},
		{sessiondb.ByID, false, []string{"d", "b", "a", "C", "A"}},
	} {
		got := listIDs(t, s, sessiondb.ListOptions{Order: c.order, Ascending: c.asc, Limit: 2})
		if !slices.Equal(got, c.want) {
			t.Errorf("List order %q ascending %v = %v, want %v", c.order, c.asc, got, c.want)
		}
	}
	// Filters go with any order.
	if got := listIDs(t, s, sessiondb.ListOptions{Order: sessiondb.ByID, Ascending: true, Project: "keep"}); !slices.Equal(got, []string{"A", "a"}) {
		t.Errorf("List by ID of a project = %v, want [A a]", got)
	}
}

// testListByOrderPages: ties on the key are broken by ID, so pages never
// repeat or skip a session; a session created between two pages appears
// once (or not, if it sorts before the cursor); a cursor is refused in
// another order or direction, and an unknown order is ErrInvalid.
func testListByOrderPages(t *testing.T, s sessiondb.Store) {
	ctx := bg(t)
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("s%d", i)
		want = append(want, id)
		// All created at the same instant: the ID breaks the tie.
		if _, err := s.Create(ctx, sessiondb.Session{ID: id, CreatedAt: base, UpdatedAt: base}); err != nil {
			t.Fatal(err)
		}
	}
	if got := listIDs(t, s, sessiondb.ListOptions{Order: sessiondb.ByCreated, Ascending: true, Limit: 3}); !slices.Equal(got, want) {
		t.Errorf("pages by created with ties = %v, want %v", got, want)
	}
	page, next, err := s.List(ctx, sessiondb.ListOptions{Order: sessiondb.ByID, Ascending: true, Limit: 3})
	if err != nil || len(page) != 3 || next == "" {
		t.Fatalf("first page = %d sessions, %q, %v", len(page), next, err)
	}
	mustCreate(t, s, "s25") // after the cursor (s2) in ID order
	mustCreate(t, s, "r")   // before it
	rest := listIDs(t, s, sessiondb.ListOptions{Order: sessiondb.ByID, Ascending: true, Limit: 3, Cursor: next})
	if !slices.Equal(rest, []string{"s25", "s3", "s4", "s5", "s6"}) {
		t.Errorf("pages after the first = %v, want [s25 s3 s4 s5 s6]", rest)
	}
	for _, opts := range []sessiondb.ListOptions{
		{Order: sessiondb.ByID, Ascending: false, Cursor: next},
		{Order: sessiondb.ByCreated, Ascending: true, Cursor: next},
		{Cursor: next},
		{Order: "size"},
	} {
		_, _, err := s.List(ctx, opts)
		wantErr(t, err, sessiondb.ErrInvalid, fmt.Sprintf("List(%+v)", opts))
	}
	// The default order's cursor still reads in the default order.
	_, dnext, err := s.List(ctx, sessiondb.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.List(ctx, sessiondb.ListOptions{Order: sessiondb.ByUpdated, Cursor: dnext}); err != nil {
		t.Errorf("the default cursor with Order ByUpdated: %v", err)
	}
}

// CheckPreviews compares the preview List returns for every session of s
// with one found again from Load: the first entry of the transcript that
// is not a summary message, of kind KindMessage or KindCustom and role
// "user", its text (sessiondb.DefaultExtractor) cut to PreviewRunes runes.
// It returns the previews by session ID. A backend's migration test calls
// it before and after the migration that fills the previews.
func CheckPreviews(t *testing.T, s sessiondb.Store) map[string]string {
	t.Helper()
	got := previews(t, s)
	for id, p := range got {
		tr, err := s.Load(bg(t), id, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatalf("Load(%q): %v", id, err)
		}
		want := ""
		for _, e := range tr {
			if !e.Summary && e.Role == "user" && (e.Kind == sessiondb.KindMessage || e.Kind == sessiondb.KindCustom) {
				_, text := sessiondb.DefaultExtractor(e.Kind, e.Body)
				if r := []rune(text); len(r) > sessiondb.PreviewRunes {
					text = string(r[:sessiondb.PreviewRunes])
				}
				want = text
				break
			}
		}
		if p != want {
			t.Errorf("%s: preview %q, its transcript says %q", id, p, want)
		}
	}
	return got
}
