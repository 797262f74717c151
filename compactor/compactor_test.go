package compactor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/freshstore"
	"github.com/sessiondb/sessiondb/sqlstore"
)

func openStore(tb testing.TB) *sqlstore.Store {
	tb.Helper()
	return freshstore.Open(tb, nil)
}

// newSession creates a session holding bodies as its log (Seq 1, 2, …).
func newSession(tb testing.TB, st sessiondb.Store, bodies ...string) string {
	tb.Helper()
	ctx := context.Background()
	s, err := st.Create(ctx, sessiondb.Session{})
	if err != nil {
		tb.Fatal(err)
	}
	if len(bodies) > 0 {
		if _, err := st.Append(ctx, s.ID, msgs(bodies...)...); err != nil {
			tb.Fatal(err)
		}
	}
	return s.ID
}

// recorder is a Summarizer that records its requests and delegates to
// Offline, running hook (if any) before answering.
type recorder struct {
	requests []Request
	hook     func(ctx context.Context, n int) error
}

func (r *recorder) Summarize(ctx context.Context, req Request) (Summary, error) {
	r.requests = append(r.requests, req)
	if r.hook != nil {
		if err := r.hook(ctx, len(r.requests)); err != nil {
			return Summary{}, err
		}
	}
	return Offline{}.Summarize(ctx, req)
}

func bodies(es []sessiondb.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.Body)
	}
	return out
}

func seqs(es []sessiondb.Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.Seq
	}
	return out
}

func mustLoad(tb testing.TB, st sessiondb.Store, id string) []sessiondb.Entry {
	tb.Helper()
	tr, err := st.Load(context.Background(), id, sessiondb.LoadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// threeTurns is a log of three turns, the first with a tool call.
var threeTurns = []string{
	userMsg("Set up the project"),        // 1
	oaiCall("bash", "c1"),                // 2
	oaiResult("c1", "ok"),                // 3
	assistantMsg("Project set up."),      // 4
	userMsg("Add a README"),              // 5
	antCall("write", "tu_1"),             // 6
	antResult("written", "tu_1"),         // 7
	assistantMsg("README added."),        // 8
	userMsg("Run the tests\nwith -race"), // 9
	zotCall("bash", "z1", "z2"),          // 10
	zotResult("PASS", "z1", "z2"),        // 11
	assistantMsg("All tests pass."),      // 12
}

func TestCompact(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id := newSession(t, st, threeTurns...)
	before, err := st.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	c := &Compactor{Store: st, Summarizer: rec, Policy: Policy{KeepTurns: 1, Anchor: 1}}
	res, err := c.Compact(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Compacted || res.Reason != "" || res.Attempts != 1 || res.Summarized != 1 || res.Dropped != 7 {
		t.Fatalf("result = %+v", res)
	}
	if res.Session.Sequence != before.Sequence+1 {
		t.Errorf("sequence %d, want %d", res.Session.Sequence, before.Sequence+1)
	}

	// The summarizer saw exactly entries 2…8.
	if len(rec.requests) != 1 || rec.requests[0].Previous != "" {
		t.Fatalf("requests = %+v", rec.requests)
	}
	if diff := cmp.Diff([]int64{2, 3, 4, 5, 6, 7, 8}, seqs(rec.requests[0].Entries)); diff != "" {
		t.Errorf("summarized seqs (-want +got):\n%s", diff)
	}
	wantText := "[Offline summary of 7 earlier messages]\n" +
		"User requests:\n- Add a README\n" +
		"Tools called: bash (1), write (1)\n" +
		"Last assistant answer: README added."

	// Transcript: anchor copy, summary message, last turn verbatim.
	tr := mustLoad(t, st, id)
	want := append([]string{threeTurns[0], string(DefaultSummaryMessage(wantText))}, threeTurns[8:]...)
	if diff := cmp.Diff(want, bodies(tr)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{0, 0, 9, 10, 11, 12}, seqs(tr)); diff != "" {
		t.Errorf("transcript seqs (-want +got):\n%s", diff)
	}
	if !tr[0].Summary || !tr[1].Summary || tr[2].Summary {
		t.Errorf("summary flags: %v %v %v", tr[0].Summary, tr[1].Summary, tr[2].Summary)
	}

	// The checkpoint.
	comps, err := st.Compactions(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 1 {
		t.Fatalf("%d compactions", len(comps))
	}
	cp := comps[0]
	if cp.ID == 0 || cp.ID != res.Compaction.ID || cp.AtSeq != 12 || cp.KeepFromSeq != 9 {
		t.Errorf("compaction %+v, result's %+v", cp, res.Compaction)
	}
	if cp.TokensBefore != res.TokensBefore || cp.TokensAfter != res.TokensAfter || cp.TokensAfter >= cp.TokensBefore || cp.TokensAfter <= 0 {
		t.Errorf("tokens %d -> %d (result %d -> %d)", cp.TokensBefore, cp.TokensAfter, res.TokensBefore, res.TokensAfter)
	}
	var sum int64
	for _, b := range threeTurns {
		sum += int64(EstimateTokens(sessiondb.Entry{Body: json.RawMessage(b)}))
	}
	if cp.TokensBefore != sum {
		t.Errorf("tokens before %d, want %d", cp.TokensBefore, sum)
	}
	d, ok := ParseDetails(cp)
	if !ok {
		t.Fatalf("details not recognised: %s", cp.Details)
	}
	wantD := Details{Compactor: DetailsCompactor, Summarizer: "offline", Anchor: 1, AnchorSeqs: []int64{1},
		Dropped: 7, DroppedFromSeq: 2, DroppedToSeq: 8, Attempts: 1}
	wantD.Policy.KeepTurns, wantD.Policy.Anchor = 1, 1
	if diff := cmp.Diff(wantD, d); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}

	// Nothing was deleted: the whole log is still there.
	all, err := st.Entries(ctx, id, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(threeTurns, bodies(all)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}

	// Compacting again right away finds only the previous summary to drop.
	again, err := c.Compact(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if again.Compacted || again.Reason != ReasonOnlySummary || len(rec.requests) != 1 {
		t.Errorf("second compaction: %+v, %d summarizer calls", again, len(rec.requests))
	}
}

func TestCompactNothingToDrop(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	tests := []struct {
		name   string
		bodies []string
		policy Policy
		reason string
		calls  int
	}{
		{"empty", nil, Policy{}, ReasonEmpty, 0},
		{"two turns kept", threeTurns[4:], Policy{KeepTurns: 2}, ReasonNothingToDrop, 0},
		{"anchor larger than transcript", threeTurns, Policy{KeepTurns: 1, Anchor: 50}, ReasonNothingToDrop, 0},
		// The anchor grows over the results of entry 10's calls and meets
		// the tail (the last entry).
		{"anchor meets the kept tool group", threeTurns, Policy{KeepTokens: 1, Anchor: 10}, ReasonNothingToDrop, 0},
		// Entries 10 and 11 would be dropped, but their summary costs more
		// than they do.
		{"summary larger than what it replaces", threeTurns, Policy{KeepTokens: 1, Anchor: 9}, ReasonNoGain, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := newSession(t, st, tt.bodies...)
			before, _ := st.Get(ctx, id)
			rec := &recorder{}
			res, err := (&Compactor{Store: st, Summarizer: rec, Policy: tt.policy}).Compact(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if res.Compacted || res.Reason != tt.reason || len(rec.requests) != tt.calls {
				t.Errorf("result %+v, %d summarizer calls", res, len(rec.requests))
			}
			after, _ := st.Get(ctx, id)
			comps, _ := st.Compactions(ctx, id)
			if after.Sequence != before.Sequence || len(comps) != 0 {
				t.Errorf("sequence %d -> %d, %d compactions: something was written", before.Sequence, after.Sequence, len(comps))
			}
		})
	}
}

func TestMaybeCompact(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id := newSession(t, st, threeTurns...)
	c := &Compactor{Store: st, Summarizer: Offline{}, Policy: Policy{KeepTurns: 1}}
	var total int64
	for _, b := range threeTurns {
		total += int64(EstimateTokens(sessiondb.Entry{Body: json.RawMessage(b)}))
	}
	res, err := c.MaybeCompact(ctx, id, total)
	if err != nil {
		t.Fatal(err)
	}
	if res.Compacted || res.Reason != ReasonBelowThreshold || res.TokensBefore != total {
		t.Fatalf("at threshold: %+v", res)
	}
	res, err = c.MaybeCompact(ctx, id, total-1)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Compacted || res.TokensAfter >= total {
		t.Fatalf("above threshold: %+v", res)
	}
	if tr := mustLoad(t, st, id); len(tr) != 5 {
		t.Errorf("transcript has %d entries, want summary + 4", len(tr))
	}
}

func TestSummarizerFailureLeavesSessionUnchanged(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id := newSession(t, st, threeTurns...)
	// A first compaction, so that "unchanged" covers the current one too.
	if _, err := (&Compactor{Store: st, Summarizer: Offline{}, Policy: Policy{KeepTurns: 2}}).Compact(ctx, id); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "model overloaded", http.StatusInternalServerError)
	}))
	defer srv.Close()
	failing, sleeps := newTestOpenAI(t, srv, OpenAIOptions{MaxRetries: 2})

	for _, tt := range []struct {
		name string
		s    Summarizer
		want string
	}{
		{"summarizer error", SummarizerFunc(func(context.Context, Request) (Summary, error) {
			return Summary{}, errors.New("no capacity")
		}), "no capacity"},
		{"empty summary", SummarizerFunc(func(context.Context, Request) (Summary, error) {
			return Summary{Text: " \n"}, nil
		}), "empty summary"},
		{"http 500", failing, "500 Internal Server Error: model overloaded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, err := st.LoadFull(ctx, id, sessiondb.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compsBefore, _ := st.Compactions(ctx, id)
			_, err = (&Compactor{Store: st, Summarizer: tt.s, Policy: Policy{KeepTurns: 1}}).Compact(ctx, id)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			after, err := st.LoadFull(ctx, id, sessiondb.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compsAfter, _ := st.Compactions(ctx, id)
			if after.Session.Sequence != before.Session.Sequence {
				t.Errorf("sequence %d -> %d", before.Session.Sequence, after.Session.Sequence)
			}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("session changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(compsBefore, compsAfter); diff != "" {
				t.Errorf("compactions changed (-before +after):\n%s", diff)
			}
		})
	}
	if len(*sleeps) != 2 {
		t.Errorf("http summarizer waited %d times, want 2 retries", len(*sleeps))
	}
}

func TestConcurrentAppendIsKept(t *testing.T) {
	ctx := context.Background()
	late := assistantMsg("(a late streaming chunk)")
	lateTurn := userMsg("a new request arrived")
	tests := []struct {
		name           string
		appended       string
		wantSummarized int
	}{
		// The append lands in the kept turn: the dropped range is the same
		// and the summary is reused.
		{"same dropped range", late, 1},
		// The append starts a turn: the policy now drops one more turn and
		// the summary is recomputed.
		{"dropped range moved", lateTurn, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openStore(t)
			id := newSession(t, st, threeTurns...)
			rec := &recorder{hook: func(ctx context.Context, n int) error {
				if n == 1 { // an agent appends while the model summarizes
					_, err := st.Append(ctx, id, msgs(tt.appended)...)
					return err
				}
				return nil
			}}
			res, err := (&Compactor{Store: st, Summarizer: rec, Policy: Policy{KeepTurns: 1}}).Compact(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Compacted || res.Attempts != 2 || res.Summarized != tt.wantSummarized || len(rec.requests) != tt.wantSummarized {
				t.Fatalf("result %+v, %d summarizer calls", res, len(rec.requests))
			}
			tr := mustLoad(t, st, id)
			if last := tr[len(tr)-1]; string(last.Body) != tt.appended || last.Seq != 13 {
				t.Errorf("last transcript entry %d %s, want the concurrent append (13)", last.Seq, last.Body)
			}
			comps, _ := st.Compactions(ctx, id)
			if len(comps) != 1 || comps[0].AtSeq != 13 {
				t.Fatalf("compactions %+v", comps)
			}
			d, _ := ParseDetails(comps[0])
			if d.Attempts != 2 {
				t.Errorf("details attempts %d", d.Attempts)
			}
			// Nothing dropped is lost either: the summarized request covers
			// exactly the log before the kept tail.
			lastReq := rec.requests[len(rec.requests)-1]
			if got, want := seqs(lastReq.Entries), seqRange(1, comps[0].KeepFromSeq-1); !cmp.Equal(got, want) {
				t.Errorf("summarized %v, want %v", got, want)
			}
		})
	}
}

func seqRange(from, to int64) []int64 {
	var out []int64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

func TestConflictGivesUpAfterMaxAttempts(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id := newSession(t, st, threeTurns...)
	rec := &recorder{hook: func(ctx context.Context, n int) error {
		_, err := st.Append(ctx, id, msgs(userMsg(fmt.Sprintf("interruption %d", n)))...)
		return err
	}}
	_, err := (&Compactor{Store: st, Summarizer: rec, Policy: Policy{KeepTurns: 1}, MaxAttempts: 3}).Compact(ctx, id)
	var ce *sessiondb.ConflictError
	if !errors.Is(err, sessiondb.ErrConflict) || !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a sequence conflict", err)
	}
	if len(rec.requests) != 3 {
		t.Errorf("%d summarizer calls, want 3", len(rec.requests))
	}
	comps, _ := st.Compactions(ctx, id)
	if len(comps) != 0 {
		t.Errorf("%d compactions recorded", len(comps))
	}
	tr := mustLoad(t, st, id)
	if len(tr) != len(threeTurns)+3 {
		t.Errorf("transcript has %d entries, want every append kept (%d)", len(tr), len(threeTurns)+3)
	}
}

func TestIncrementalCompaction(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id := newSession(t, st, threeTurns...)
	rec := &recorder{}
	c := &Compactor{Store: st, Summarizer: rec, Policy: Policy{KeepTurns: 1, Anchor: 1}}
	first, err := c.Compact(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	more := []string{
		userMsg("Deploy it"),            // 13
		oaiCall("deploy", "d1"),         // 14
		oaiResult("d1", "live"),         // 15
		assistantMsg("Deployed."),       // 16
		userMsg("Thanks"),               // 17
		assistantMsg("You're welcome."), // 18
	}
	if _, err := st.Append(ctx, id, msgs(more...)...); err != nil {
		t.Fatal(err)
	}
	second, err := c.Compact(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Compacted || len(rec.requests) != 2 {
		t.Fatalf("second: %+v", second)
	}
	req := rec.requests[1]
	firstText := summaryText(first.Compaction.Summary[1].Body)
	if req.Previous != firstText || !strings.HasPrefix(firstText, "[Offline summary of 7 ") {
		t.Errorf("previous = %q, want the first summary %q", req.Previous, firstText)
	}
	// Only the newly dropped turns: 9…16, not the whole history again.
	if diff := cmp.Diff(seqRange(9, 16), seqs(req.Entries)); diff != "" {
		t.Errorf("newly dropped seqs (-want +got):\n%s", diff)
	}
	for _, e := range req.Entries {
		if e.Summary {
			t.Errorf("a summary message was passed as an entry: %s", e.Body)
		}
	}

	wantText := "[Offline summary of 15 earlier messages]\n" +
		"User requests:\n- Add a README\n- Run the tests\n- Deploy it\n" +
		"Tools called: bash (3), write (1), deploy (1)\n" +
		"Last assistant answer: Deployed."
	tr := mustLoad(t, st, id)
	want := append([]string{threeTurns[0], string(DefaultSummaryMessage(wantText))}, more[4:]...)
	if diff := cmp.Diff(want, bodies(tr)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	d, ok := ParseDetails(second.Compaction)
	if !ok || !d.Incremental || d.PreviousCompaction != first.Compaction.ID || !cmp.Equal(d.AnchorSeqs, []int64{1}) ||
		d.DroppedFromSeq != 9 || d.DroppedToSeq != 16 || d.Dropped != 9 {
		t.Errorf("details %+v", d)
	}
}

func TestDropped(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id := newSession(t, st, threeTurns...)
	c := &Compactor{Store: st, Summarizer: Offline{}, Policy: Policy{KeepTurns: 1, Anchor: 1}}
	first, err := c.Compact(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, id, msgs(userMsg("next"), assistantMsg("done"))...); err != nil {
		t.Fatal(err)
	}
	second, err := c.Compact(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// A truncation (not this package's) is answered too.
	if _, err := st.Truncate(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	comps, _ := st.Compactions(ctx, id)
	if len(comps) != 3 {
		t.Fatalf("%d compactions", len(comps))
	}

	for _, tt := range []struct {
		name string
		id   int64
		want []int64
	}{
		{"first, anchor excluded", first.Compaction.ID, seqRange(2, 8)},
		{"second", second.Compaction.ID, seqRange(9, 12)},
		{"truncation", comps[2].ID, []int64{13}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Dropped(ctx, st, id, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, seqs(got)); diff != "" {
				t.Errorf("dropped seqs (-want +got):\n%s", diff)
			}
			all, _ := st.Entries(ctx, id, 1, 0)
			for _, e := range got {
				if !cmp.Equal(e, all[e.Seq-1], cmpopts.EquateEmpty()) {
					t.Errorf("dropped entry %d differs from the log row", e.Seq)
				}
			}
		})
	}
	if _, err := Dropped(ctx, st, id, 9999); !errors.Is(err, sessiondb.ErrNotFound) {
		t.Errorf("unknown compaction: err = %v", err)
	}
}

func TestCompactOverForeignCompaction(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id := newSession(t, st, threeTurns...)
	// Another tool recorded a compaction with two summary messages.
	foreign := sessiondb.Compaction{KeepFromSeq: 5, Summary: msgs(userMsg("their summary"), assistantMsg("noted"))}
	if _, err := st.Compact(ctx, id, foreign); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	res, err := (&Compactor{Store: st, Summarizer: rec, Policy: Policy{KeepTurns: 1}}).Compact(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Compacted || len(rec.requests) != 1 {
		t.Fatalf("result %+v", res)
	}
	// Their summary messages are summarized with entries 5…8; nothing is
	// mistaken for a previous summary of ours.
	req := rec.requests[0]
	if req.Previous != "" {
		t.Errorf("previous = %q", req.Previous)
	}
	wantBodies := append([]string{userMsg("their summary"), assistantMsg("noted")}, threeTurns[4:8]...)
	if diff := cmp.Diff(wantBodies, bodies(req.Entries)); diff != "" {
		t.Errorf("summarized (-want +got):\n%s", diff)
	}
	tr := mustLoad(t, st, id)
	if diff := cmp.Diff(seqRange(9, 12), seqs(tr[1:])); diff != "" || !tr[0].Summary {
		t.Errorf("transcript seqs after the summary (-want +got):\n%s", diff)
	}
}

func TestCompactRecordsModelUsage(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id := newSession(t, st, threeTurns...)
	api := &fakeAPI{script: []func(http.ResponseWriter){okResponse("## Goal\nA project with tests.")}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	o, _ := newTestOpenAI(t, srv, OpenAIOptions{})
	res, err := (&Compactor{Store: st, Summarizer: o, Policy: Policy{KeepTurns: 1}}).Compact(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := ParseDetails(res.Compaction)
	if d.Summarizer != "openai" || d.Model != "served-model" {
		t.Errorf("details %+v", d)
	}
	tot, err := st.UsageTotals(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if tot.Calls != 1 || tot.InputTokens != 120 || tot.OutputTokens != 30 {
		t.Errorf("usage totals %+v", tot)
	}
	if tr := mustLoad(t, st, id); string(tr[0].Body) != string(DefaultSummaryMessage("## Goal\nA project with tests.")) {
		t.Errorf("summary message %s", tr[0].Body)
	}
}

// TestStoreNeverSplitsToolGroups runs random transcripts through the store
// and checks the effective transcript after each compaction: every tool
// result in it follows its call, the kept tail is the log's suffix
// verbatim, and the whole log is still there.
func TestStoreNeverSplitsToolGroups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	r := rand.New(rand.NewPCG(3, 4))
	compacted := 0
	for iter := 0; iter < 20; iter++ {
		raw, _ := genTranscript(r)
		es := entries(raw...)
		for i := range es {
			es[i].Seq = 0
		}
		s, err := st.Create(ctx, sessiondb.Session{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Append(ctx, s.ID, es...); err != nil {
			t.Fatal(err)
		}
		c := &Compactor{Store: st, Summarizer: Offline{}, Policy: Policy{KeepTurns: r.IntN(3), KeepTokens: r.IntN(800), Anchor: r.IntN(3)}}
		// Compact twice, with an append between, to cover incremental runs.
		for round := 0; round < 2; round++ {
			res, err := c.Compact(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if res.Compacted {
				compacted++
			}
			tr := mustLoad(t, st, s.ID)
			checkPaired(t, tr, fmt.Sprintf("iter %d round %d policy %+v", iter, round, c.Policy))
			log, _ := st.Entries(ctx, s.ID, 1, 0)
			var tail []sessiondb.Entry
			for _, e := range tr {
				if e.Seq > 0 {
					tail = append(tail, e)
				}
			}
			if len(tail) == 0 || !cmp.Equal(bodies(tail), bodies(log[len(log)-len(tail):])) {
				t.Fatalf("iter %d: kept tail is not the log's suffix", iter)
			}
			raw2, _ := genTranscript(r)
			if _, err := st.Append(ctx, s.ID, msgs(raw2...)...); err != nil {
				t.Fatal(err)
			}
		}
	}
	if compacted < 20 {
		t.Fatalf("only %d of 40 compactions did anything", compacted)
	}
}

// checkPaired fails when a tool result in tr has no earlier call with its
// ID, or a call in tr has no later result (every call genTranscript makes
// is answered, so a missing result was cut off).
func checkPaired(t *testing.T, tr []sessiondb.Entry, what string) {
	t.Helper()
	open := map[string]int{} // call ID -> unanswered calls
	for i, e := range tr {
		calls, results := ToolIDs(e.Body)
		for _, id := range results {
			if _, ok := open[id]; !ok {
				t.Fatalf("%s: entry %d (seq %d) answers %q whose call is not before it", what, i, e.Seq, id)
			}
			open[id] = 0
		}
		for _, id := range calls {
			open[id]++
		}
	}
	for id, n := range open {
		if n > 0 {
			t.Fatalf("%s: call %q has no result after it", what, id)
		}
	}
}
