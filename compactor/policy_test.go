package compactor

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
)

func TestToolIDs(t *testing.T) {
	tests := []struct {
		name           string
		body           string
		calls, results []string
	}{
		{"plain user", userMsg("hi"), nil, nil},
		{"openai parallel calls", oaiCall("read", "call_a", "call_b"), []string{"call_a", "call_b"}, nil},
		{"openai bare call", `{"role":"assistant","content":"","tool_calls":[{"id":"call_bare"}]}`, []string{"call_bare"}, nil},
		{"openai result", oaiResult("call_a", "ok"), nil, []string{"call_a"}},
		{"anthropic tool_use", antCall("grep", "toolu_1", "toolu_2"), []string{"toolu_1", "toolu_2"}, nil},
		{"anthropic tool_result", antResult("ok", "toolu_1", "toolu_2"), nil, []string{"toolu_1", "toolu_2"}},
		{"zot call", zotCall("bash", "t1"), []string{"t1"}, nil},
		{"zot call with input", `{"role":"assistant","content":[{"id":"t9","name":"x","input":{}}]}`, []string{"t9"}, nil},
		{"zot result", zotResult("out", "t1", "t2"), nil, []string{"t1", "t2"}},
		{"swink typed call", `{"role":"assistant","content":[{"type":"tool_call","id":"s1","name":"read","arguments":{},"partial_json":null}]}`, []string{"s1"}, nil},
		{"swink result message", `{"role":"tool_result","tool_call_id":"s1","content":[{"type":"text","text":"x"}],"is_error":false,"details":null}`, nil, []string{"s1"}},
		{"swink rich message entry", `{"entry_type":"message","data":{"role":"tool_result","tool_call_id":"s2","content":[]}}`, nil, []string{"s2"}},
		{"responses function_call", `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{}"}`, []string{"call_1"}, nil},
		{"responses output", `{"type":"function_call_output","call_id":"call_1","output":"x"}`, nil, []string{"call_1"}},
		{"anthropic message object", `{"id":"msg_1","type":"message","role":"assistant","name":"x","content":[{"type":"text","text":"hi"}],"input":1}`, nil, nil},
		{"id and name without arguments", `{"role":"assistant","content":[{"id":"x","name":"y"}]}`, nil, nil},
		{"duplicate ids", `{"role":"tool","content":[{"call_id":"a"},{"call_id":"a"}]}`, nil, []string{"a"}},
		{"custom entry", customMsg("notice"), nil, nil},
		{"not an object", `["a"]`, nil, nil},
		{"not json", `{`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, results := ToolIDs(json.RawMessage(tt.body))
			if diff := cmp.Diff(tt.calls, calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.results, results); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name string
		body string
		kind string
		want int
	}{
		// 40 bytes of text: 10 tokens + overhead. Role counts as text too.
		{"text", `{"content":"` + strings.Repeat("a", 40) + `"}`, "", MessageOverheadTokens + 10},
		{"rounds up", `{"content":"abcde"}`, "", MessageOverheadTokens + 2},
		{"role counts", `{"role":"user","content":"abcd"}`, "", MessageOverheadTokens + 2},
		// {"path":"/tmp/x"} as compact JSON is 17 bytes; "ab" name 2.
		{"object arguments", `{"content":[{"id":"","name":"ab","arguments":{"path":"/tmp/x"}}]}`, "", MessageOverheadTokens + 5},
		{"string arguments", `{"tool_calls":[{"id":"","function":{"name":"","arguments":"12345678"}}]}`, "", MessageOverheadTokens + 2},
		{"tool result", `{"tool_call_id":"","content":"` + strings.Repeat("r", 400) + `"}`, "", MessageOverheadTokens + 100},
		{"image typed", `{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + strings.Repeat("A", 4000) + `"}}]}`, "", MessageOverheadTokens + ImageTokens},
		{"image zot", `{"content":[{"mime_type":"image/jpeg","data":"` + strings.Repeat("A", 4000) + `"},{"text":"abcd"}]}`, "", MessageOverheadTokens + 1 + ImageTokens},
		{"image url", `{"content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}`, "", MessageOverheadTokens + ImageTokens},
		{"opaque skipped", `{"content":"abcd","signature":"` + strings.Repeat("s", 100) + `","created_at":"2026-01-01T00:00:00Z"}`, "", MessageOverheadTokens + 1},
		{"custom entry", customMsg(strings.Repeat("c", 36)), sessiondb.KindCustom, MessageOverheadTokens + ceilDiv(36+len("info")+len("ui_notice"), 4)},
		{"rich entry", `{"from":{"model_id":"aaaa"},"to":{"model_id":"bbbb"}}`, "model_change", MessageOverheadTokens + 2},
		{"not json", `{"content":`, "", MessageOverheadTokens + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EstimateTokens(sessiondb.Entry{Kind: tt.kind, Body: json.RawMessage(tt.body)})
			if got != tt.want {
				t.Errorf("EstimateTokens = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestPlanTranscript(t *testing.T) {
	big := strings.Repeat("x", 4000) // about 1000 tokens
	tests := []struct {
		name   string
		bodies []string
		policy Policy
		want   Plan
	}{
		{
			name:   "empty",
			policy: Policy{KeepTurns: 1},
			want:   Plan{Reason: ReasonEmpty},
		},
		{
			name:   "fewer turns than kept",
			bodies: []string{userMsg("a"), assistantMsg("b"), userMsg("c"), assistantMsg("d")},
			policy: Policy{KeepTurns: 2},
			want:   Plan{Anchor: 0, KeepFrom: 0, Reason: ReasonNothingToDrop},
		},
		{
			name:   "default keeps two turns",
			bodies: []string{userMsg("a"), assistantMsg("b"), userMsg("c"), assistantMsg("d"), userMsg("e"), assistantMsg("f")},
			want:   Plan{KeepFrom: 2, Drop: true},
		},
		{
			name:   "last turn",
			bodies: []string{userMsg("a"), assistantMsg("b"), userMsg("c"), assistantMsg("d"), userMsg("e")},
			policy: Policy{KeepTurns: 1},
			want:   Plan{KeepFrom: 4, Drop: true},
		},
		{
			name: "anthropic tool results do not start a turn",
			bodies: []string{
				userMsg("first"), assistantMsg("ok"),
				userMsg("second"), antCall("grep", "tu_1"), antResult("found", "tu_1"), assistantMsg("done"),
			},
			policy: Policy{KeepTurns: 1},
			want:   Plan{KeepFrom: 2, Drop: true},
		},
		{
			name: "tool group at the tail boundary moves the cut to the call",
			bodies: []string{
				userMsg("a"), assistantMsg("b"),
				userMsg("c"), oaiCall("read", "c1"), oaiResult("c1", "r1"),
			},
			// Budget fits only the last entry (a tool result): the
			// smallest tail that keeps the call with it, inside turn 2.
			policy: Policy{KeepTokens: 1, Counter: countAll(1)},
			want:   Plan{KeepFrom: 3, Drop: true, Split: true, TurnStart: 2},
		},
		{
			name: "parallel calls stay with all their results",
			bodies: []string{
				userMsg("a"), assistantMsg("b"),
				userMsg("c"), oaiCall("read", "p1", "p2", "p3"), oaiResult("p1", "r1"), oaiResult("p2", "r2"), oaiResult("p3", "r3"), assistantMsg("done"),
			},
			// Budget fits the final answer and the last two results:
			// the tail moves later, past the group, to fit.
			policy: Policy{KeepTokens: 3, Counter: countAll(1)},
			want:   Plan{KeepFrom: 7, Drop: true, Split: true, TurnStart: 2},
		},
		{
			name: "parallel calls answered out of order, zot shape",
			bodies: []string{
				userMsg("a"), zotCall("bash", "z1", "z2"), zotResult("two", "z2"), zotResult("one", "z1"), assistantMsg("done"),
			},
			policy: Policy{KeepTokens: 2, Counter: countAll(1)},
			want:   Plan{KeepFrom: 4, Drop: true, Split: true, TurnStart: 0},
		},
		{
			name: "custom entry between a call and its result",
			bodies: []string{
				userMsg("a"), assistantMsg("b"),
				userMsg("c"), antCall("grep", "tu_9"), "custom:" + customMsg("running grep"), antResult("found", "tu_9"), assistantMsg("done"),
			},
			// The budget would start the tail at the custom entry, between
			// the call and its result: it starts after the result.
			policy: Policy{KeepTokens: 3, Counter: countAll(1)},
			want:   Plan{KeepFrom: 6, Drop: true, Split: true, TurnStart: 2},
		},
		{
			name: "custom and rich entries are cut points and cost tokens",
			bodies: []string{
				userMsg("a"), assistantMsg("b"), "rich:" + `{"from":"m1","to":"m2"}`, "custom:" + customMsg(big), userMsg("c"), assistantMsg("d"),
			},
			// The big custom entry does not fit: the tail starts after it.
			policy: Policy{KeepTokens: 100},
			want:   Plan{KeepFrom: 4, Drop: true},
		},
		{
			name: "rich entry at the boundary is kept when it fits",
			bodies: []string{
				userMsg("a"), assistantMsg("b"), "rich:" + `{"from":"m1","to":"m2"}`, userMsg("c"), assistantMsg("d"),
			},
			policy: Policy{KeepTokens: 3, Counter: countAll(1)},
			want:   Plan{KeepFrom: 2, Drop: true},
		},
		{
			name: "tool group at the anchor boundary extends the anchor",
			bodies: []string{
				userMsg("task"), oaiCall("read", "a1", "a2"), oaiResult("a1", "x"), oaiResult("a2", "y"),
				assistantMsg("b"), userMsg("c"), assistantMsg("d"), userMsg("e"), assistantMsg("f"),
			},
			policy: Policy{Anchor: 2, KeepTurns: 1},
			want:   Plan{Anchor: 4, KeepFrom: 7, Drop: true},
		},
		{
			name: "anchor ending inside a group and tail starting in it leaves nothing",
			bodies: []string{
				userMsg("task"), oaiCall("read", "a1"), oaiResult("a1", "x"), assistantMsg("done"),
			},
			policy: Policy{Anchor: 2, KeepTokens: 2, Counter: countAll(1)},
			want:   Plan{Anchor: 3, KeepFrom: 3, Reason: ReasonNothingToDrop},
		},
		{
			name:   "anchor larger than the transcript",
			bodies: []string{userMsg("a"), assistantMsg("b"), userMsg("c"), assistantMsg("d"), userMsg("e")},
			policy: Policy{Anchor: 10, KeepTurns: 1},
			want:   Plan{Anchor: 5, KeepFrom: 5, Reason: ReasonNothingToDrop},
		},
		{
			name:   "budget smaller than the last entry keeps the last entry",
			bodies: []string{userMsg("a"), assistantMsg("b"), userMsg("c"), assistantMsg(big)},
			policy: Policy{KeepTokens: 10},
			want:   Plan{KeepFrom: 3, Drop: true, Split: true, TurnStart: 2},
		},
		{
			name: "budget smaller than the last turn keeps the last tool group",
			bodies: []string{
				userMsg("a"), assistantMsg("b"),
				userMsg("c"), oaiCall("read", "b1"), oaiResult("b1", big),
			},
			policy: Policy{KeepTokens: 10},
			want:   Plan{KeepFrom: 3, Drop: true, Split: true, TurnStart: 2},
		},
		{
			name: "both limits: the shorter tail wins",
			bodies: []string{
				userMsg("a"), assistantMsg("b"), userMsg("c"), assistantMsg("d"), userMsg("e"), assistantMsg("f"),
			},
			policy: Policy{KeepTurns: 3, KeepTokens: 3, Counter: countAll(1)},
			want:   Plan{KeepFrom: 3, Drop: true, Split: true, TurnStart: 2},
		},
		{
			name: "reused call ids pair with the nearest call",
			bodies: []string{
				userMsg("a"), oaiCall("read", "call_0"), oaiResult("call_0", "x"), assistantMsg("b"),
				userMsg("c"), oaiCall("read", "call_0"), oaiResult("call_0", "y"), assistantMsg("d"),
			},
			policy: Policy{KeepTurns: 1},
			want:   Plan{KeepFrom: 4, Drop: true},
		},
		{
			name: "a tool message without an id stays with what precedes it",
			bodies: []string{
				userMsg("a"), assistantMsg("b"), userMsg("c"),
				`{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"x","arguments":"{}"}}]}`,
				`{"role":"tool","content":"no id"}`,
			},
			policy: Policy{KeepTokens: 1, Counter: countAll(1)},
			want:   Plan{KeepFrom: 3, Drop: true, Split: true, TurnStart: 2},
		},
		{
			name: "orphan result at the start does not block compaction",
			bodies: []string{
				oaiResult("gone", "x"), assistantMsg("b"), userMsg("c"), assistantMsg("d"),
			},
			policy: Policy{KeepTurns: 1},
			want:   Plan{KeepFrom: 2, Drop: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PlanTranscript(entries(tt.bodies...), tt.policy)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// summaryEntry is a Seq-0 summary message as Load returns it.
func summaryEntry(body string) sessiondb.Entry {
	return sessiondb.Entry{Kind: sessiondb.KindMessage, Body: json.RawMessage(body), Summary: true}
}

func TestPlanAfterCompaction(t *testing.T) {
	// Transcript after an earlier compaction: anchor copy, summary, then log
	// entries from Seq 10 on.
	tail := entries(userMsg("c"), assistantMsg("d"), userMsg("e"), assistantMsg("f"))
	for i := range tail {
		tail[i].Seq += 9
	}
	tr := append([]sessiondb.Entry{summaryEntry(userMsg("task")), summaryEntry(userMsg("summary"))}, tail...)
	infos := make([]bodyInfo, len(tr))
	for i, e := range tr {
		infos[i] = inspectBody(e.Body)
	}

	t.Run("only the previous summary between anchor and tail", func(t *testing.T) {
		got := plan(tr, infos, Policy{Anchor: 1, KeepTurns: 2}, 1)
		want := Plan{Anchor: 1, KeepFrom: 2, Reason: ReasonOnlySummary}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("plan (-want +got):\n%s", diff)
		}
	})
	t.Run("new turns dropped with the previous summary", func(t *testing.T) {
		got := plan(tr, infos, Policy{Anchor: 1, KeepTurns: 1}, 1)
		want := Plan{Anchor: 1, KeepFrom: 4, Drop: true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("plan (-want +got):\n%s", diff)
		}
	})
	t.Run("anchor never grows past the previous summary", func(t *testing.T) {
		got := plan(tr, infos, Policy{Anchor: 3, KeepTurns: 1}, 1)
		want := Plan{Anchor: 1, KeepFrom: 4, Drop: true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("plan (-want +got):\n%s", diff)
		}
	})
	t.Run("tail never starts inside the summary messages", func(t *testing.T) {
		// A foreign compaction's summary messages, then log entries: a
		// budget that reaches into them folds them into the new summary.
		tr := append([]sessiondb.Entry{summaryEntry(userMsg("s1")), summaryEntry(assistantMsg("s2"))}, tail...)
		got := PlanTranscript(tr, Policy{KeepTokens: 5, Counter: countAll(1)})
		want := Plan{Anchor: 0, KeepFrom: 2, Drop: true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("plan (-want +got):\n%s", diff)
		}
	})
}

// genTranscript builds a random transcript of tool-using turns in mixed
// provider shapes and returns it with the ground-truth pairs (call index,
// result index) it created.
func genTranscript(r *rand.Rand) ([]string, [][2]int) {
	var bodies []string
	var pairs [][2]int
	add := func(b string) int { bodies = append(bodies, b); return len(bodies) - 1 }
	noise := func() {
		switch r.IntN(8) {
		case 0:
			add("custom:" + customMsg(strings.Repeat("n", r.IntN(200))))
		case 1:
			add("rich:" + `{"from":"a","to":"b"}`)
		}
	}
	id := 0
	// Reused IDs are allowed: a provider may number calls per turn.
	newID := func() string {
		id++
		if r.IntN(4) == 0 {
			return fmt.Sprintf("call_%d", r.IntN(2))
		}
		return fmt.Sprintf("id_%d", id)
	}
	text := func() string { return strings.Repeat("w", r.IntN(600)) }
	turns := 1 + r.IntN(7)
	for turn := 0; turn < turns; turn++ {
		add(userMsg(fmt.Sprintf("request %d %s", turn, text())))
		noise()
		for round := r.IntN(4); round > 0; round-- {
			n := 1 + r.IntN(3)
			ids := make([]string, 0, n)
			seen := map[string]bool{}
			for len(ids) < n {
				x := newID()
				if !seen[x] {
					seen[x] = true
					ids = append(ids, x)
				}
			}
			var call int
			switch shape := r.IntN(3); shape {
			case 0: // OpenAI: one tool message per result, any order.
				call = add(oaiCall("read", ids...))
				noise()
				for _, j := range r.Perm(n) {
					pairs = append(pairs, [2]int{call, add(oaiResult(ids[j], text()))})
					noise()
				}
			case 1: // Anthropic: one user message with every result.
				call = add(antCall("grep", ids...))
				noise()
				res := add(antResult(text(), ids...))
				for range ids {
					pairs = append(pairs, [2]int{call, res})
				}
			case 2: // zot: results in one or two tool messages.
				call = add(zotCall("bash", ids...))
				noise()
				split := r.IntN(n + 1)
				if split > 0 {
					res := add(zotResult(text(), ids[:split]...))
					for range ids[:split] {
						pairs = append(pairs, [2]int{call, res})
					}
				}
				if split < n {
					noise()
					res := add(zotResult(text(), ids[split:]...))
					for range ids[split:] {
						pairs = append(pairs, [2]int{call, res})
					}
				}
			}
		}
		if r.IntN(4) > 0 {
			add(assistantMsg(text()))
		}
		noise()
	}
	return bodies, pairs
}

// TestPlanNeverSplitsToolGroups is the property test: over many random
// transcripts and policies, neither cut separates a tool call from any of
// its results, the tail never starts at a tool result, and the kept tail is
// never empty.
func TestPlanNeverSplitsToolGroups(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	drops := 0
	for iter := 0; iter < 1200; iter++ {
		bodies, pairs := genTranscript(r)
		tr := entries(bodies...)
		p := Policy{KeepTurns: r.IntN(4), Anchor: r.IntN(4)}
		if r.IntN(2) == 0 {
			p.KeepTokens = r.IntN(1500)
		}
		got := PlanTranscript(tr, p)
		n := len(tr)
		if got.Anchor < min(p.Anchor, n) || got.Anchor > n || got.KeepFrom > n {
			t.Fatalf("iter %d: plan %+v out of range for %d entries, policy %+v", iter, got, n, p)
		}
		if !got.Drop {
			if got.Reason == "" {
				t.Fatalf("iter %d: no drop and no reason", iter)
			}
			continue
		}
		drops++
		if got.KeepFrom <= got.Anchor || got.KeepFrom >= n {
			t.Fatalf("iter %d: plan %+v drops nothing or keeps no tail of %d", iter, got, n)
		}
		for _, cut := range []int{got.Anchor, got.KeepFrom} {
			for _, pr := range pairs {
				if pr[0] < cut && pr[1] >= cut {
					t.Fatalf("iter %d: cut %d separates call %d from result %d\npolicy %+v plan %+v\n%s",
						iter, cut, pr[0], pr[1], p, got, strings.Join(bodies, "\n"))
				}
			}
		}
		if info := inspectBody(tr[got.KeepFrom].Body); info.toolResult() {
			t.Fatalf("iter %d: tail starts at a tool result %s", iter, bodies[got.KeepFrom])
		}
	}
	// The property must have been exercised, not vacuously true.
	if drops < 400 {
		t.Fatalf("only %d of 1200 random plans dropped anything", drops)
	}
}
