package compactor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

// Claude Code lines as Claude Code 2.x writes them: one content block per
// line, parallel calls one tool_use line each, each result its own line.

func ccPrompt(text string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q},"uuid":"u"}`, text)
}

func ccCall(msgID, id, name string) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":{"q":"x"}}]}}`, msgID, id, name)
}

func ccText(msgID, text string) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"role":"assistant","content":[{"type":"text","text":%q}]}}`, msgID, text)
}

func ccResult(id, text string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%q}]}}`, id, text)
}

// ccEntries makes log entries; a body prefixed "part:" is Kind
// message-part, "bk:" a bookkeeping line of kind progress.
func ccEntries(bodies ...string) []sessiondb.Entry {
	out := make([]sessiondb.Entry, len(bodies))
	for i, b := range bodies {
		kind := sessiondb.KindMessage
		if rest, ok := strings.CutPrefix(b, "part:"); ok {
			kind, b = sessiondb.KindMessagePart, rest
		} else if rest, ok := strings.CutPrefix(b, "bk:"); ok {
			kind, b = "progress", rest
		}
		out[i] = sessiondb.Entry{Seq: int64(i + 1), Kind: kind, Body: json.RawMessage(b)}
	}
	return out
}

func ccSession() []sessiondb.Entry {
	return ccEntries(
		ccPrompt("first"),                  // 0
		ccCall("m1", "a", "Read"),          // 1
		"part:"+ccCall("m1", "b", "Grep"),  // 2 parallel call, same response
		ccResult("a", "file a"),            // 3
		"part:"+ccResult("b", "matches"),   // 4
		ccText("m2", "Both read."),         // 5
		`bk:{"type":"progress","data":{}}`, // 6
		ccPrompt("second"),                 // 7
		ccResult("c", "early result"),      // 8 written before its call
		"part:"+ccCall("m3", "c", "Bash"),  // 9
		ccText("m4", "Done."),              // 10
		`{"type":"user","message":{"role":"user","content":"<system-reminder>x</system-reminder>"}}`, // 11 context
		ccPrompt("third"),     // 12
		ccText("m5", "Fine."), // 13
	)
}

func TestPlanClaudeCodeTurns(t *testing.T) {
	tr := ccSession()
	for _, tc := range []struct {
		name       string
		p          Policy
		anchor, at int
		turnStart  int // -1: not a split turn
	}{
		{"keep 1 turn", Policy{KeepTurns: 1}, 0, 12, -1},
		{"keep 2 turns", Policy{KeepTurns: 2}, 0, 7, -1},
		// The anchor may not split the parallel calls from their
		// results: it grows to the first allowed cut.
		{"anchor inside the parallel calls", Policy{KeepTurns: 1, Anchor: 2}, 5, 12, -1},
		// A budget whose tail would start at a result (of the parallel
		// calls) moves later, past the group, to the next message: inside
		// the first turn (issue 38: the kept part fits the budget).
		{"budget from a result", Policy{KeepTokens: budgetFrom(tr, 4)}, 0, 5, 0},
		{"budget from a parallel call", Policy{KeepTokens: budgetFrom(tr, 2)}, 0, 5, 0},
		// A result written before its call and the call's line are one
		// group: the tail starts after both.
		{"budget from the call after its result", Policy{KeepTokens: budgetFrom(tr, 9)}, 0, 10, 7},
		// Not before a bookkeeping line: at the next message.
		{"budget from a progress line", Policy{KeepTokens: budgetFrom(tr, 6)}, 0, 7, -1},
		// One smaller than the last message keeps the last message.
		{"budget below the last message", Policy{KeepTokens: 1}, 0, 13, 12},
		// Both: the shorter tail wins.
		{"two turns or the budget", Policy{KeepTurns: 2, KeepTokens: budgetFrom(tr, 10)}, 0, 10, 7},
	} {
		pl := PlanFormat(jsonlimport.FormatClaudeCode, tr, tc.p)
		if !pl.Drop || pl.Anchor != tc.anchor || pl.KeepFrom != tc.at || pl.Split != (tc.turnStart >= 0) || (pl.Split && pl.TurnStart != tc.turnStart) {
			t.Errorf("%s: %+v, want anchor %d, keep from %d, turn start %d", tc.name, pl, tc.anchor, tc.at, tc.turnStart)
		}
	}
	// One giant turn: KeepTurns finds no place to start, a budget does.
	pl0 := PlanFormat(jsonlimport.FormatClaudeCode, tr[:7], Policy{KeepTokens: budgetFrom(tr[:7], 5)})
	if !pl0.Drop || pl0.KeepFrom != 5 || !pl0.Split || pl0.TurnStart != 0 {
		t.Errorf("one turn, a budget: %+v", pl0)
	}
	// The same lines read as message objects have no turns.
	if pl := PlanTranscript(tr, Policy{KeepTurns: 1}); pl.Drop {
		t.Errorf("PlanTranscript found turns in Claude Code lines: %+v", pl)
	}
	// Too few turns: the reason says how many.
	pl := PlanFormat(jsonlimport.FormatClaudeCode, tr, Policy{KeepTurns: 3})
	if pl.Drop || pl.Reason != "nothing to drop: the transcript (14 entries) has 3 turns and the policy keeps the last 3 (a turn starts at a user prompt)" {
		t.Errorf("keep 3: %+v", pl)
	}
	// One giant turn.
	pl = PlanFormat(jsonlimport.FormatClaudeCode, tr[1:7], Policy{KeepTurns: 1})
	if pl.Drop || !strings.Contains(pl.Reason, "no entry of the transcript (6 entries) is a user prompt") {
		t.Errorf("no prompt: %+v", pl)
	}
}

// budgetFrom is a token budget that covers exactly tr[i:].
func budgetFrom(tr []sessiondb.Entry, i int) int {
	n := 0
	for _, e := range tr[i:] {
		n += EstimateTokens(e)
	}
	return n
}

func TestFormatSummaryMessageRead(t *testing.T) {
	for _, format := range []string{jsonlimport.FormatClaudeCode, jsonlimport.FormatCodex, jsonlimport.FormatPi,
		jsonlimport.FormatGemini, jsonlimport.FormatQwen, jsonlimport.FormatOpencode, jsonlimport.FormatCrush, jsonlimport.FormatOpencodeGo, jsonlimport.FormatCopilot, jsonlimport.FormatZot, ""} {
		body := FormatSummaryMessage(format, "the gist")
		m := jsonlimport.Understand(format, sessiondb.Entry{Kind: sessiondb.KindMessage, Body: body})
		if m.Role != "user" || m.Text != SummaryPrefix+"the gist" || m.Bookkeeping {
			t.Errorf("%q: %s reads as %+v", format, body, m)
		}
		if info := inspectEntry(format, sessiondb.Entry{Kind: sessiondb.KindMessage, Body: body}); ownShape(format) && info.userRequest() {
			t.Errorf("%q: the summary message starts a turn", format)
		}
	}
	if got, want := string(FormatSummaryMessage(jsonlimport.FormatZot, "x")), string(DefaultSummaryMessage("x")); got != want {
		t.Errorf("zot: %s, want the default %s", got, want)
	}
}

func TestCompactClaudeCodeLines(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	tr := ccSession()
	var es []sessiondb.Entry
	for _, e := range tr {
		es = append(es, sessiondb.Entry{Kind: e.Kind, Body: e.Body})
	}
	if _, err := st.Commit(ctx, "cc", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: jsonlimport.FormatClaudeCode}, Append: es}); err != nil {
		t.Fatal(err)
	}
	var got Request
	sum := SummarizerFunc(func(ctx context.Context, req Request) (Summary, error) {
		got = req
		return Offline{}.Summarize(ctx, req)
	})
	res, err := (&Compactor{Store: st, Summarizer: sum, Policy: Policy{KeepTurns: 1}}).Compact(ctx, "cc")
	if err != nil || !res.Compacted || res.Dropped != 12 {
		t.Fatalf("%+v, %v", res, err)
	}
	if got.Format != jsonlimport.FormatClaudeCode || len(got.Entries) != 12 {
		t.Errorf("request: format %q, %d entries", got.Format, len(got.Entries))
	}
	text := jsonlimport.Understand(jsonlimport.FormatClaudeCode, res.Compaction.Summary[0]).Text
	want := SummaryPrefix + "[Offline summary of 12 earlier messages]\nUser requests:\n- first\n- second\nTools called: Read (1), Grep (1), Bash (1)\nLast assistant answer: Done."
	if text != want {
		t.Errorf("summary:\n%s\nwant:\n%s", text, want)
	}
	rendered := RenderFormat(jsonlimport.FormatClaudeCode, got.Entries, 0)
	for _, s := range []string{"--- user ---\nfirst\n", "→ Grep({\"q\":\"x\"})", "← [b] matches", "--- context ---\n<system-reminder>"} {
		if !strings.Contains(rendered, s) {
			t.Errorf("rendered transcript lacks %q:\n%s", s, rendered)
		}
	}
	if strings.Contains(rendered, "progress") {
		t.Errorf("rendered transcript shows a bookkeeping line:\n%s", rendered)
	}
}

// TestCompactRefusesUnfitSummary: a summary message that a Claude Code
// session's readers would not read as a message (the OpenAI-shaped
// default) is refused with ErrUnfitSummary, and nothing is written.
func TestCompactRefusesUnfitSummary(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	var es []sessiondb.Entry
	for _, e := range ccSession() {
		es = append(es, sessiondb.Entry{Kind: e.Kind, Body: e.Body})
	}
	sess, err := st.Commit(ctx, "cc", sessiondb.Commit{Create: &sessiondb.Session{SourceFormat: jsonlimport.FormatClaudeCode}, Append: es})
	if err != nil {
		t.Fatal(err)
	}
	c := &Compactor{Store: st, Summarizer: Offline{}, Policy: Policy{KeepTurns: 1}, SummaryMessage: DefaultSummaryMessage}
	_, err = c.Compact(ctx, "cc")
	if !errors.Is(err, ErrUnfitSummary) || !errors.Is(err, sessiondb.ErrInvalid) {
		t.Fatalf("err = %v, want ErrUnfitSummary", err)
	}
	after, err := st.Get(ctx, "cc")
	if err != nil {
		t.Fatal(err)
	}
	if after.Sequence != sess.Sequence {
		t.Errorf("sequence %d -> %d: something was written", sess.Sequence, after.Sequence)
	}
	// The format's own shape passes.
	c.SummaryMessage = func(text string) json.RawMessage { return FormatSummaryMessage(jsonlimport.FormatClaudeCode, text) }
	if res, err := c.Compact(ctx, "cc"); err != nil || !res.Compacted {
		t.Fatalf("%+v, %v", res, err)
	}
}

// FuzzPlanFormat plans transcripts of arbitrary lines as Claude Code,
// Codex, pi and message-object sessions: no panic, and a plan that drops
// cuts where cuts are allowed, with the kept tail of the three agent
// formats starting at a user prompt when turns are kept (a budget may cut
// inside a turn: a split turn, whose start lies in the dropped part).
func FuzzPlanFormat(f *testing.F) {
	for _, e := range ccSession() {
		f.Add(uint8(0), uint8(1), uint8(0), string(e.Body)+"\n"+ccPrompt("next")+"\n"+ccText("m9", "ok"))
	}
	f.Add(uint8(1), uint8(1), uint8(0), `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}
{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}
{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"again"}]}}`)
	f.Add(uint8(2), uint8(1), uint8(1), `{"type":"message","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}
{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}]}}
{"type":"message","message":{"role":"toolResult","toolCallId":"t1","content":[{"type":"text","text":"x"}]}}
{"type":"message","message":{"role":"user","content":"again"}}`)
	f.Add(uint8(3), uint8(1), uint8(0), `{"info":{"role":"user"},"parts":[{"type":"text","text":"hi"}]}
{"info":{"role":"assistant"},"parts":[{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{},"output":"x"}}]}
{"info":{"role":"assistant"},"parts":[{"type":"text","text":"done"}]}
{"info":{"role":"user"},"parts":[{"type":"text","text":"again"}]}`)
	formats := []string{jsonlimport.FormatClaudeCode, jsonlimport.FormatCodex, jsonlimport.FormatPi, jsonlimport.FormatOpencode, ""}
	f.Fuzz(func(t *testing.T, fi, keep, anchor uint8, lines string) {
		format := formats[int(fi)%len(formats)]
		var tr []sessiondb.Entry
		for i, l := range strings.Split(lines, "\n") {
			kind := sessiondb.KindMessage
			if i%5 == 3 {
				kind = sessiondb.KindMessagePart
			}
			tr = append(tr, sessiondb.Entry{Seq: int64(i + 1), Kind: kind, Body: json.RawMessage(l)})
		}
		p := Policy{KeepTurns: int(keep % 4), Anchor: int(anchor % 3)}
		if keep >= 128 {
			p.KeepTokens = int(keep)
		}
		pl := PlanFormat(format, tr, p)
		if !pl.Drop {
			if pl.Reason == "" {
				t.Fatalf("no drop and no reason: %+v", pl)
			}
			return
		}
		infos := inspectAll(format, tr)
		ok := cuts(infos)
		if pl.Anchor < 0 || pl.Anchor >= pl.KeepFrom || pl.KeepFrom >= len(tr) || !ok[pl.Anchor] || !ok[pl.KeepFrom] {
			t.Fatalf("plan %+v on %d entries (cuts allowed: anchor %v, tail %v)", pl, len(tr), ok[max(0, min(pl.Anchor, len(tr)))], ok[max(0, min(pl.KeepFrom, len(tr)))])
		}
		// Turns start at prompts; a token budget may cut inside a turn,
		// and says so.
		if ownShape(format) && p.KeepTokens == 0 && !prompt(format, tr[pl.KeepFrom]) {
			t.Fatalf("%s: kept tail starts at %s, not a user prompt", format, tr[pl.KeepFrom].Body)
		}
		if pl.Split && (pl.TurnStart < pl.Anchor || pl.TurnStart >= pl.KeepFrom) {
			t.Fatalf("split turn starting at %d outside the dropped part: %+v", pl.TurnStart, pl)
		}
	})
}
