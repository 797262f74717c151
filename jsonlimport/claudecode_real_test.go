package jsonlimport

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// The tests of this file run on transcripts written by the real Claude
// Code CLI (2.1.328) against a fake Messages API, and on what the CLI sent
// to that API (testdata/claudecode-real, made by
// testdata/gen/claudecode-real/gen.sh, which says what each session
// holds). Two oracles: ccusage 20.0.24's reports on the same files, and
// the messages array the CLI itself built from the transcript.

// ccRealRoot is the fixture folder: projects.tar.gz (a ~/.claude/projects
// tree, 1 MB unpacked), requests/ and ccusage/.
var ccRealRoot = filepath.Join("..", "testdata", "claudecode-real")

// ccRealProjects unpacks the fixture's projects tree into a temporary
// folder and returns the path of its projects folder.
func ccRealProjects(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join(ccRealRoot, "projects.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || !filepath.IsLocal(h.Name) {
			t.Fatalf("unexpected member %q in projects.tar.gz", h.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "projects")
}

// importCCReal imports the fixture's projects tree into a new store and
// returns the store and the unpacked projects folder.
func importCCReal(t *testing.T) (*sqlstore.Store, string, Report) {
	t.Helper()
	root := ccRealProjects(t)
	s := openStore(t)
	rep, err := Import(context.Background(), s, []string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, root, rep
}

// TestClaudeCodeRealUsage compares the usage sessiondb imports from the
// real CLI's files with ccusage's answers on them, token for token: per
// UTC day and model, and per session and model (ccusage files a
// sub-agent's usage under its parent session). 2.1.328 writes a streamed
// response one content block per line, every line with the response's
// final usage; each response is one call.
func TestClaudeCodeRealUsage(t *testing.T) {
	s, root, _ := importCCReal(t)
	ctx := context.Background()
	dir := filepath.Join(ccRealRoot, "ccusage")

	got := map[string]ccTokens{}
	cost := map[string]float64{}
	days, err := s.UsageReport(ctx, sessiondb.UsageQuery{ByDay: true, ByModel: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range days {
		k := r.Day + " " + r.Model
		v := got[k]
		v.Input += r.InputTokens
		v.Output += r.OutputTokens
		v.CacheRead += r.CacheReadTokens
		v.CacheWrite += r.CacheWriteTokens
		got[k] = v
		cost[k] += r.Cost
	}
	want := ccusageRowsIn(t, dir, "daily.json", "daily", "date")
	equal, total, diffs := compareTokens(want, got)
	t.Logf("usage per day and model: %d/%d rows equal to ccusage", equal, total)
	for _, d := range diffs {
		t.Errorf("day %s", d)
	}
	if total < 3 {
		t.Errorf("%d day-model rows; the fixtures have three models", total)
	}
	// Cost, where ccusage prices the model (claude-sonnet-4-5; the
	// fixtures' default models, claude-opus-5-5 and claude-haiku-5-5, are
	// priced by neither: cost 0 both).
	for k, c := range ccusageCosts(t, filepath.Join(dir, "daily.json")) {
		t.Logf("day %s: cost %.7f, ccusage %.7f", k, cost[k], c)
		if math.Abs(cost[k]-c) > 0.01*c {
			t.Errorf("day %s: cost %.7f, ccusage %.7f", k, cost[k], c)
		}
	}

	got = map[string]ccTokens{}
	var calls int64
	for _, sess := range allSessions(t, s) {
		key := ccusageSession(root, sess.SourcePath)
		rs, err := s.UsageReport(ctx, sessiondb.UsageQuery{SessionID: sess.ID, ByModel: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			calls += r.Calls
			v := got[key+" "+r.Model]
			v.Input += r.InputTokens
			v.Output += r.OutputTokens
			v.CacheRead += r.CacheReadTokens
			v.CacheWrite += r.CacheWriteTokens
			got[key+" "+r.Model] = v
		}
	}
	equal, total, diffs = compareTokens(ccusageRowsIn(t, dir, "session.json", "sessions", "sessionId"), got)
	t.Logf("usage per session and model: %d/%d rows equal to ccusage", equal, total)
	for _, d := range diffs {
		t.Errorf("session %s", d)
	}

	// One call per API response: the distinct message.id of the lines
	// with a real model (not the CLI's <synthetic> API-error stops).
	responses := map[string]bool{}
	for _, f := range ccRealFiles(t, root) {
		for _, l := range ccRealLines(t, f) {
			if l.Type == "assistant" && l.Message.Model != "<synthetic>" && l.Message.ID != "" {
				responses[l.Message.ID+"|"+l.RequestID] = true
			}
		}
	}
	if calls != int64(len(responses)) {
		t.Errorf("%d calls in the usage ledger, %d API responses in the files", calls, len(responses))
	}
}

// ccusageCosts reads the cost per day and model of a ccusage daily
// report.
func ccusageCosts(t *testing.T, path string) map[string]float64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Daily []struct {
			Date   string `json:"date"`
			Models []struct {
				Model string  `json:"modelName"`
				Cost  float64 `json:"cost"`
			} `json:"modelBreakdowns"`
		} `json:"daily"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, d := range rep.Daily {
		for _, m := range d.Models {
			out[d.Date+" "+m.Model] = m.Cost
		}
	}
	return out
}

// ccRealFiles lists the transcripts (.jsonl) under root, sorted.
func ccRealFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcript in the fixture")
	}
	return files
}

// ccLine is the part of a transcript line the tests look at.
type ccLine struct {
	Type              string `json:"type"`
	RequestID         string `json:"requestId"`
	IsAPIErrorMessage bool   `json:"isApiErrorMessage"`
	IsMeta            bool   `json:"isMeta"`
	Message           struct {
		ID      string          `json:"id"`
		Role    string          `json:"role"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func ccRealLines(t *testing.T, path string) []ccLine {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []ccLine
	for _, b := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var l ccLine
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	return out
}

// apiMessage is one message of a Messages API request.
type apiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// conversation flattens messages into the turns the model is shown, one
// item per content block: "user: <text>", "assistant: <text>",
// "thinking", "tool_use <id>", "tool_result <id>". System reminders (text
// the CLI adds from attachment lines, "<system-reminder>…") and messages
// of role system are not conversation; long texts are compared by their
// first 200 characters (what requests.mjs keeps).
func conversation(msgs []apiMessage) ([]string, error) {
	var out []string
	for _, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			continue
		}
		var blocks []struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		}
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			blocks = append(blocks, struct {
				Type      string `json:"type"`
				Text      string `json:"text"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			}{Type: "text", Text: text})
		} else if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return nil, fmt.Errorf("content of a %s message: %w", m.Role, err)
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				t := strings.TrimSpace(b.Text)
				if strings.HasPrefix(t, "<system-reminder>") {
					continue
				}
				if len(t) > 200 {
					t = t[:200]
				}
				out = append(out, m.Role+": "+t)
			case "thinking", "redacted_thinking":
				out = append(out, "thinking")
			case "tool_use":
				out = append(out, "tool_use "+b.ID)
			case "tool_result":
				out = append(out, "tool_result "+b.ToolUseID)
			}
		}
	}
	return out, nil
}

// loggedRequest is one request of a requests/<run>.json fixture.
type loggedRequest struct {
	Seq       int          `json:"seq"`
	Path      string       `json:"path"`
	SessionID string       `json:"sessionId"`
	Model     string       `json:"model"`
	Tools     []string     `json:"tools"`
	Messages  []apiMessage `json:"messages"`
}

// lastRequest is the conversation of the last Messages request of run
// made for the sub-agent whose prompt is sub or, sub "", for the session
// itself; and the session's ID, as the request's metadata names it.
func lastRequest(t *testing.T, run, sub string) (conv []string, sessionID string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ccRealRoot, "requests", run+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var reqs []loggedRequest
	if err := json.Unmarshal(raw, &reqs); err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if r.Path != "/v1/messages" || len(r.Tools) == 0 {
			continue
		}
		c, err := conversation(r.Messages)
		if err != nil {
			t.Fatalf("%s request %d: %v", run, r.Seq, err)
		}
		if len(c) == 0 {
			continue
		}
		isSub := strings.HasPrefix(c[0], "user: ") && strings.HasSuffix(c[0], " #sub")
		if (sub == "" && !isSub) || (sub != "" && c[0] == "user: "+sub) {
			conv, sessionID = c, r.SessionID
		}
	}
	if conv == nil {
		t.Fatalf("%s: no request (sub-agent %q)", run, sub)
	}
	return conv, sessionID
}

// transcriptConversation is the conversation of a session's effective
// transcript as sessiondb reads it (readForeign, what an export to
// another format writes): the lines of one API response folded into one
// assistant message, its results after it, flattened as conversation
// flattens a request (a task notification, which the CLI rewraps as a
// system reminder, left out likewise). The CLI's <synthetic> stops (its API-error
// messages, Model "" here) are left out: Claude Code keeps them on the
// resume path but never sends them (run a5/a6: the failed prompt and the
// next one go as one user message).
func transcriptConversation(t *testing.T, s sessiondb.Store, id string) []string {
	t.Helper()
	sess, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	msgs, _, err := readForeign(context.Background(), s, sess)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	var out []string
	for _, m := range msgs {
		if m.Role == xAssistant && m.Model == "" {
			continue
		}
		if m.Role == xToolResult {
			out = append(out, "tool_result "+m.CallID)
			continue
		}
		for _, b := range m.Blocks {
			switch b.Type {
			case xText:
				t := strings.TrimSpace(b.Text)
				// A background sub-agent's <task-notification> user line
				// is sent as a system reminder ("[SYSTEM NOTIFICATION -
				// NOT USER INPUT]…"), which conversation leaves out.
				if strings.HasPrefix(t, "<system-reminder>") || (m.Role == xUser && strings.HasPrefix(t, "<task-notification>")) {
					continue
				}
				if len(t) > 200 {
					t = t[:200]
				}
				out = append(out, m.Role+": "+t)
			case xThinking:
				out = append(out, "thinking")
			case xCall:
				out = append(out, "tool_use "+b.ID)
			}
		}
	}
	return out
}

// TestClaudeCodeRealResume compares each session's effective transcript
// with the conversations the real CLI sent: the CLI reads the transcript
// back from the file on --resume and --continue, so its requests are how
// Claude Code itself reads the file. The last request of every run must be
// the transcript's conversation up to that point; the last run's, the
// whole transcript but the final answer (written after it). The CLI does
// not send the thinking of turns before the latest prompt (within a turn,
// run a1, it does), so those runs are compared without thinking blocks.
func TestClaudeCodeRealResume(t *testing.T) {
	s, _, _ := importCCReal(t)
	cases := []struct {
		run      string
		sub      string // the sub-agent's prompt; "": the session's conversation
		thinking bool   // compare thinking blocks too
		final    string // the final answer; "": a prefix of the transcript
	}{
		// Session A: parallel calls (a1), resumed (a2), continued with
		// another model (a3), resumed through a 529 (a4), into a 400 that
		// left an API-error stop (a5), continued after it (a6).
		{"a1", "", true, ""},
		{"a2", "", false, ""},
		{"a3", "", false, ""},
		{"a4", "", false, ""},
		{"a5", "", false, ""},
		{"a6", "", false, "Hello from the fake API."},
		// Session B: its sub-agents (b1, and b2bg in the background);
		// after /compact (b4), the summary, the message the compaction
		// preserved and the new turn (b5).
		{"b1", "Run echo sub #sub", false, "Sub-agent done: sub."},
		{"b2bg", "Run echo bg #sub", false, "Sub-agent done: sub."},
		{"b5", "", false, "Both tools ran; done."},
	}
	for _, c := range cases {
		name := c.run
		if c.sub != "" {
			name += " sub-agent"
		}
		t.Run(name, func(t *testing.T) {
			want, sid := lastRequest(t, c.run, c.sub)
			id := sid
			if c.sub != "" {
				id = ""
				for _, sess := range allSessions(t, s) {
					if sess.ParentID == sid {
						if conv := transcriptConversation(t, s, sess.ID); len(conv) > 0 && conv[0] == want[0] {
							id = sess.ID
						}
					}
				}
				if id == "" {
					t.Fatalf("no sub-agent of %s starts with %q", sid, want[0])
				}
			}
			got := transcriptConversation(t, s, id)
			if !c.thinking {
				want, got = withoutThinking(want), withoutThinking(got)
			}
			if c.final != "" {
				want = append(want, "assistant: "+c.final)
			} else if len(got) > len(want) {
				got = got[:len(want)]
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: transcript differs from what Claude Code sent:\n got %q\nwant %q", id, got, want)
			}
			uses, results := 0, 0
			for _, it := range got {
				uses += boolInt(strings.HasPrefix(it, "tool_use "))
				results += boolInt(strings.HasPrefix(it, "tool_result "))
			}
			t.Logf("%s: %d items, %d tool calls, %d results", id, len(got), uses, results)
		})
	}
}

// TestClaudeCodeRealBeforeCompaction compares the runs of session B made
// before its /compact (a sub-agent, a Write, a sub-agent in the
// background whose task-notification comes as a user line, a large
// output) with the transcript of B's file cut before the
// compact_boundary line, as it stood then.
func TestClaudeCodeRealBeforeCompaction(t *testing.T) {
	root := ccRealProjects(t)
	_, sid := lastRequest(t, "b1", "")
	var src string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && filepath.Base(p) == sid+".jsonl" {
			src = p
		}
		return err
	})
	if err != nil || src == "" {
		t.Fatalf("no file of session %s: %v", sid, err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(data, []byte(`"subtype":"compact_boundary"`))
	if cut < 0 {
		t.Fatal("no compact_boundary in the file")
	}
	cut = bytes.LastIndexByte(data[:cut], '\n') + 1
	dir := filepath.Join(t.TempDir(), "projects", filepath.Base(filepath.Dir(src)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, err := Import(context.Background(), s, []string{filepath.Dir(dir)}, Options{}); err != nil {
		t.Fatal(err)
	}
	got := withoutThinking(transcriptConversation(t, s, sid))
	for _, run := range []string{"b1", "b2", "b2bg", "b3"} {
		want, _ := lastRequest(t, run, "")
		want = withoutThinking(want)
		g := got
		if len(g) > len(want) {
			g = g[:len(want)]
		}
		if strings.Join(g, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: transcript differs from what Claude Code sent:\n got %q\nwant %q", run, g, want)
		}
	}
	t.Logf("%d items before the compaction", len(got))
}

func withoutThinking(conv []string) []string {
	var out []string
	for _, it := range conv {
		if it != "thinking" {
			out = append(out, it)
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestClaudeCodeRealExport exports every imported session back to Claude
// Code's format and checks that each file written (the transcript, and
// the tool-results file of a large output) is the fixture's, byte for
// byte, at the same path below projects/, and that every transcript and
// side file of the fixture is written.
func TestClaudeCodeRealExport(t *testing.T) {
	s, root, rep := importCCReal(t)
	for _, n := range rep.Notes {
		t.Logf("note: %s: %s", n.Path, n.Reason)
	}
	ctx := context.Background()
	written := map[string]bool{}
	for _, sess := range allSessions(t, s) {
		dir := t.TempDir()
		files, err := Export(ctx, s, []string{sess.ID}, FormatClaudeCode, dir)
		if err != nil {
			t.Fatalf("%s: %v", sess.ID, err)
		}
		for _, f := range files {
			rel, err := filepath.Rel(filepath.Join(dir, "projects"), f)
			if err != nil || !filepath.IsLocal(rel) {
				t.Errorf("%s: exported %s outside projects/", sess.ID, f)
				continue
			}
			got, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Errorf("%s: exported %s, which the fixture does not have", sess.ID, rel)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: export of %s differs from the file (%d bytes, want %d)", sess.ID, rel, len(got), len(want))
				continue
			}
			written[rel] = true
		}
	}
	var missing []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".meta.json") {
			return err // the sub-agent's .meta.json is skipped on import
		}
		rel, err := filepath.Rel(root, p)
		if err == nil && !written[rel] {
			missing = append(missing, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files come back byte for byte", len(written))
	if len(missing) > 0 {
		t.Errorf("not exported: %q", missing)
	}
}

// TestClaudeCodeRealGrowth imports every file of the fixture at a third
// and two thirds of its bytes, then whole, with and without a Follow (as
// sessionctl watch does) and with a Follow restarted at every cut (its
// parse states saved and read back, NewFollowIn), and compares with a
// one-shot import: the compaction's preserved segment and the interleaved
// lines of parallel calls must come out the same however the file
// arrived.
func TestClaudeCodeRealGrowth(t *testing.T) {
	roots := []string{ccRealProjects(t)}
	cases := longtest.Sample(growthCases(t, roots, false), 6) // all in the long run
	for _, c := range slices.Clone(cases) {
		c.follow = true
		cases = append(cases, c)
	}
	for _, c := range longtest.Sample(slices.Clone(cases[:len(cases)/2]), 2) {
		c.follow, c.restart = true, true
		cases = append(cases, c)
	}
	counts, diffs := growthReport(t, cases)
	t.Logf("growth equality (files equal/total; +follow: with a Follow): %s", formatCounts(counts))
	for _, d := range diffs {
		t.Error(d)
	}
}

// TestClaudeCodeRealTranslationLoss checks what a translation of the
// real CLI's sessions to another format reports as lost. Claude Code
// 2.1.328 writes records of its own next to the conversation
// (api-request, api-request-blob, api-request-shape: what it sent;
// cost-state, atis-latch, tools-used: its counters), none of which goes
// into the messages it sends (requests/*.json): they are no loss.
// attachment lines are (they reach the model as system reminders).
func TestClaudeCodeRealTranslationLoss(t *testing.T) {
	s, _, _ := importCCReal(t)
	for _, sess := range allSessions(t, s) {
		_, loss, err := readForeign(context.Background(), s, sess)
		if err != nil {
			t.Fatal(err)
		}
		for what := range loss.n {
			if what != "attachment line" {
				t.Errorf("%s: a translation reports %q lost", sess.ID, what)
			}
		}
	}
}
