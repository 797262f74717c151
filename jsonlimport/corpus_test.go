package jsonlimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/internal/freshdb"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// The tests of this file run on the corpus of real Claude Code and Codex
// files (testdata/corpus; see its MANIFEST.md) and compare with what
// ccusage 20.0.24 answers on it (testdata/corpus/ccusage, made by
// testdata/gen/ccusage).

// importCorpus returns a new store holding the corpus's Claude Code tree,
// the tree's path and the import's report. The tree is imported once per
// test process (seconds on the CI machine) and each caller gets a copy of
// that store (internal/freshdb).
func importCorpus(t *testing.T) (*sqlstore.Store, string, Report) {
	t.Helper()
	root := filepath.Join(corpusRoot(t), "claude-code")
	corpusTree = root // the same in every call: corpusRoot reads the environment
	path := corpusStore.Path(t, "s.db")
	s, err := sqlstore.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, root, corpusReport
}

var (
	corpusStore = freshdb.New(func(path string) error {
		s, err := sqlstore.Open(path, nil)
		if err != nil {
			return err
		}
		corpusReport, err = Import(context.Background(), s, []string{corpusTree}, Options{})
		return errors.Join(err, s.Close())
	})
	// corpusTree is the tree corpusStore imports, corpusReport its report.
	corpusTree   string
	corpusReport Report
)

// ccTokens are the four token counts of ccusage's rows.
type ccTokens struct {
	Input, Output, CacheRead, CacheWrite int64
}

// ccusageRows reads a ccusage JSON report (daily or session) into tokens
// per key and model, key being the row's date or session id.
func ccusageRows(t *testing.T, name, list, key string) map[string]ccTokens {
	t.Helper()
	return ccusageRowsIn(t, filepath.Join(corpusRoot(t), "ccusage"), name, list, key)
}

// ccusageRowsIn is ccusageRows on the report name in folder dir.
func ccusageRowsIn(t *testing.T, dir, name, list, key string) map[string]ccTokens {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]json.RawMessage
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	var rowsOf []map[string]json.RawMessage
	if err := json.Unmarshal(rep[list], &rowsOf); err != nil {
		t.Fatal(err)
	}
	out := map[string]ccTokens{}
	for _, row := range rowsOf {
		var k string
		_ = json.Unmarshal(row[key], &k)
		var models []struct {
			Model      string `json:"modelName"`
			Input      int64  `json:"inputTokens"`
			Output     int64  `json:"outputTokens"`
			CacheRead  int64  `json:"cacheReadTokens"`
			CacheWrite int64  `json:"cacheCreationTokens"`
		}
		_ = json.Unmarshal(row["modelBreakdowns"], &models)
		for _, m := range models {
			out[k+" "+m.Model] = ccTokens{m.Input, m.Output, m.CacheRead, m.CacheWrite}
		}
	}
	return out
}

// ccusageSession is the session ccusage files the usage of a transcript
// under: the file name; for a sub-agent in <id>/subagents/, <id>; for a
// workflow agent, its wf_* folder (ccusage looks one level up only).
func ccusageSession(root, path string) string {
	rel, _ := filepath.Rel(root, path)
	parts := strings.Split(filepath.ToSlash(rel), "/")
	stem := strings.TrimSuffix(parts[len(parts)-1], ".jsonl")
	if len(parts) >= 3 && parts[len(parts)-2] == "subagents" {
		return parts[len(parts)-3]
	}
	if len(parts) >= 2 && strings.HasPrefix(parts[len(parts)-2], "wf_") {
		return parts[len(parts)-2]
	}
	return stem
}

// checkCCDiffs fails on every difference not explained in ccusageWrong.
func checkCCDiffs(t *testing.T, what string, diffs []string) {
	t.Helper()
	for _, d := range diffs {
		key := what + " " + d[:strings.Index(d, ":")]
		if reason, ok := ccusageWrong[key]; ok {
			t.Logf("%s (ccusage wrong: %s)", key, reason)
			continue
		}
		t.Errorf("%s %s", what, d)
	}
}

// compareTokens compares got with want, both by key and model, and
// returns rows equal, rows in all and the differences.
func compareTokens(want, got map[string]ccTokens) (equal, total int, diffs []string) {
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k, v := range got {
		if v != (ccTokens{}) {
			keys[k] = true
		}
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		total++
		if want[k] == got[k] {
			equal++
			continue
		}
		diffs = append(diffs, fmt.Sprintf("%s: ccusage %+v, sessiondb %+v", k, want[k], got[k]))
	}
	return equal, total, diffs
}

// ccusageWrong lists the rows where ccusage 20.0.24 is demonstrably
// wrong on the corpus, with the reason (see also the package notes).
var ccusageWrong = map[string]string{
	// Lines with a message.id but no requestId (third-party endpoints):
	// ccusage 20.0.24 counts every distinct timestamp. In the corpus, 241
	// such responses span several lines, each line one content block of
	// the streamed response (thinking, text, tool_use), 183 of them with
	// the very same usage on every line: one API call, counted once here
	// (e.g. 0b779124….jsonl: message 9f6adfef… on 5 lines, 26680 input
	// tokens each, in 7 seconds).
	"day 2026-04-24 deepseek-v4-flash": "no requestId",
	"day 2026-04-27 deepseek-v4-flash": "no requestId",
	"day 2026-04-30 deepseek-v4-pro":   "no requestId",
	"day 2026-05-04 deepseek-v4-pro":   "no requestId",
	"day 2026-05-18 deepseek-v4-pro":   "no requestId",
	// A continued session's file repeats the responses of the session it
	// continues, re-dated to the copy (a257e3ab….jsonl: every copy at
	// 2025-08-21T13:33:21.798Z; 0c8e4d02….jsonl at 07:00:28.617Z), and
	// ccusage keeps the copy of the file first in path order, dating the
	// call on the day it was copied. Here the report dated earliest (the
	// call itself, in 65fdb7e8….jsonl on 2025-08-20) counts.
	"day 2025-08-20 claude-sonnet-4-20250514":                               "re-dated copy",
	"day 2025-08-21 claude-sonnet-4-20250514":                               "re-dated copy",
	"session 0c8e4d02-2995-42d5-aabe-f95410022eb9 claude-sonnet-4-20250514": "re-dated copy",
	"session 65fdb7e8-8de9-4155-be09-8731e0e21985 claude-sonnet-4-20250514": "re-dated copy",
	// ccusage 20.0.24 also reads the sub-agent messages embedded in the
	// parent's agent_progress lines; such a copy is a snapshot taken while
	// the response streamed (output_tokens partial), and, not being a
	// side-chain line, it beats the sub-agent file's own final report
	// (856dc1c3…/subagents/agent-a24d441f….jsonl). Here the final report
	// counts.
	"day 2026-03-28 claude-haiku-4-5-20251001": "progress snapshot",
}

// TestClaudeCodeCorpusUsage compares usage_daily after importing the
// corpus's Claude Code files with ccusage's answers: tokens per UTC day
// and model, and per session and model, exactly (issue 21, items 2 and
// 3).
//
// TODO(pricing-usage): costs within 1 % of ccusage's where both price the
// model belong to the price table's branch (issue 21 items 2 and 6); this
// test compares tokens only.
func TestClaudeCodeCorpusUsage(t *testing.T) {
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	s, root, _ := importCorpus(t)
	ctx := context.Background()

	got := map[string]ccTokens{}
	rows, err := s.Query(ctx, `SELECT day, model, sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens)
		FROM usage_daily GROUP BY day, model`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var day, model string
		var v ccTokens
		if err := rows.Scan(&day, &model, &v.Input, &v.Output, &v.CacheRead, &v.CacheWrite); err != nil {
			t.Fatal(err)
		}
		got[day+" "+model] = v
	}
	rows.Close()
	equal, total, diffs := compareTokens(ccusageRows(t, "claude-daily.json", "daily", "date"), got)
	t.Logf("usage per day and model: %d/%d rows equal to ccusage", equal, total)
	checkCCDiffs(t, "day", diffs)

	got = map[string]ccTokens{}
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range list {
		sess, err := s.Get(ctx, info.Session.ID)
		if err != nil {
			t.Fatal(err)
		}
		key := ccusageSession(root, sess.SourcePath)
		rs, err := s.UsageReport(ctx, sessiondb.UsageQuery{SessionID: info.Session.ID, ByModel: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			v := got[key+" "+r.Model]
			v.Input += r.InputTokens
			v.Output += r.OutputTokens
			v.CacheRead += r.CacheReadTokens
			v.CacheWrite += r.CacheWriteTokens
			got[key+" "+r.Model] = v
		}
	}
	equal, total, diffs = compareTokens(ccusageRows(t, "claude-session.json", "sessions", "sessionId"), got)
	t.Logf("usage per session and model: %d/%d rows equal to ccusage", equal, total)
	checkCCDiffs(t, "session", diffs)
}

// TestClaudeCodeCorpusTranscripts checks the transcripts of the corpus
// (issue 21, item 4): every tool_use in a transcript has its tool_result
// there, except calls no line of the file answers (cut off, reported in
// a note); and the lines of one API response form one message (one entry
// of Kind message, the others message-part).
func TestClaudeCodeCorpusTranscripts(t *testing.T) {
	if raceEnabled {
		t.Skip("replays files many times, no concurrency: run without -race (.ci/run does)")
	}
	s, _, rep := importCorpus(t)
	ctx := context.Background()
	noted := map[string]bool{}
	for _, n := range rep.Notes {
		if strings.Contains(n.Reason, "have no result in the file") {
			noted[n.Path] = true
		}
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	var calls, answered, cutOff, responses, heads, sessions, late int
	for _, info := range list {
		if info.Session.SourceFormat != FormatClaudeCode {
			continue
		}
		sessions++
		full, err := s.LoadFull(ctx, info.Session.ID, sessiondb.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(info.Session.SourcePath)
		if err != nil {
			t.Fatal(err)
		}
		uses := map[string]bool{}
		results := map[string]bool{}
		ids := map[string]bool{}
		for _, e := range full.Transcript {
			if e.Kind != sessiondb.KindMessage && e.Kind != sessiondb.KindMessagePart {
				continue
			}
			var l struct {
				Type    string `json:"type"`
				Message struct {
					ID      string          `json:"id"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(e.Body, &l) != nil {
				continue
			}
			var blocks []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			}
			_ = json.Unmarshal(l.Message.Content, &blocks)
			for _, b := range blocks {
				switch {
				case l.Type == "assistant" && b.Type == "tool_use":
					uses[b.ID] = true
				case l.Type == "user" && b.Type == "tool_result":
					results[b.ToolUseID] = true
				}
			}
			if l.Type == "assistant" && l.Message.ID != "" {
				ids[l.Message.ID] = true
				if e.Kind == sessiondb.KindMessage {
					heads++
				}
			}
		}
		responses += len(ids)
		late += lateParents(raw, ids)
		for id := range uses {
			calls++
			switch {
			case results[id]:
				answered++
			case !strings.Contains(string(raw), `"tool_use_id":"`+id+`"`):
				cutOff++
				if !noted[info.Session.SourcePath] {
					t.Errorf("%s: tool call %s cut off but not reported", info.Session.SourcePath, id)
				}
			default:
				t.Errorf("%s: tool call %s has a result in the file but not in the transcript", info.Session.SourcePath, id)
			}
		}
	}
	t.Logf("%d Claude Code transcripts: %d/%d tool calls with their result, %d cut off (reported); %d assistant messages for %d distinct API responses (%d of them with a line written before its parent)",
		sessions, answered, calls, cutOff, heads, responses, late)
	// A line's Kind is decided from the lines before it (so that it never
	// changes as the file grows): a response line written before the
	// line it hangs off starts a message of its own.
	if heads < responses || heads > responses+late {
		t.Errorf("%d assistant messages for %d API responses: the lines of a response must form one message", heads, responses)
	}
	if answered+cutOff != calls || calls == 0 {
		t.Errorf("%d calls, %d answered, %d cut off", calls, answered, cutOff)
	}
}

// lateParents counts the responses among ids that have a line whose
// parentUuid names a line written later in the file.
func lateParents(raw []byte, ids map[string]bool) int {
	pos := map[string]int{}
	type line struct {
		UUID, ParentUUID string
		Type             string
		Message          struct{ ID string }
	}
	var lines []line
	for i, b := range strings.Split(string(raw), "\n") {
		var l line
		var m struct {
			UUID       string `json:"uuid"`
			ParentUUID string `json:"parentUuid"`
			Type       string `json:"type"`
			Message    struct {
				ID string `json:"id"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(b), &m) != nil {
			lines = append(lines, l)
			continue
		}
		l = line{UUID: m.UUID, ParentUUID: m.ParentUUID, Type: m.Type}
		l.Message.ID = m.Message.ID
		pos[m.UUID] = i
		lines = append(lines, l)
	}
	late := map[string]bool{}
	for i, l := range lines {
		if l.Type == "assistant" && ids[l.Message.ID] && pos[l.ParentUUID] > i {
			late[l.Message.ID] = true
		}
	}
	return len(late)
}
