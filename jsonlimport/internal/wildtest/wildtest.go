// Package wildtest holds what the tests of the wild formats (Claude Code,
// Codex) share: a snapshot of every session an import of a fixture folder
// makes, compared with golden files (rewritten with -wild.update), and the
// usage_daily view summed. It imports jsonlimport, so only external test
// packages (claudecode_test, codex_test) use it.
package wildtest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

var wildUpdate = flag.Bool("wild.update", false, "rewrite testdata/claudecode/expected and testdata/codex/expected")

// Golden is what an imported session of a wild format must look like.
// Transcript lists, for each entry of the effective transcript filtered to
// Kind "message", its id in the source (uuid, pi entry id, or for Codex the
// payload type and role with the line number).
type Golden struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	ParentID    string          `json:"parent_id,omitempty"`
	Attrs       json.RawMessage `json:"attrs,omitempty"`
	Transcript  []string        `json:"transcript"`
	Compactions []string        `json:"compactions,omitempty"`
	LogEntries  int             `json:"log_entries"`
	Usage       []string        `json:"usage"`
	Problems    []string        `json:"problems"`
	Notes       []string        `json:"notes,omitempty"`
}

// Snapshot imports dir with format and describes every session.
func Snapshot(t *testing.T, format, dir string, label func(e sessiondb.Entry) string) map[string]Golden {
	t.Helper()
	ctx := context.Background()
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(ctx, s, []string{dir}, jsonlimport.Options{Format: format})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]string{}
	abs, _ := filepath.Abs(dir)
	for _, p := range rep.Problems {
		rel, _ := filepath.Rel(abs, p.Path)
		byPath[rel] = append(byPath[rel], fmt.Sprintf("%d: %s", p.Line, p.Reason))
	}
	notes := map[string][]string{}
	for _, p := range rep.Notes {
		if strings.Contains(p.Reason, "has no price") {
			continue // the price table is another branch's
		}
		rel, _ := filepath.Rel(abs, p.Path)
		notes[rel] = append(notes[rel], fmt.Sprintf("%d: %s", p.Line, p.Reason))
	}
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: sessiondb.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Golden{}
	for _, info := range list {
		sess := info.Session
		rel, _ := filepath.Rel(abs, sess.SourcePath)
		g := Golden{ID: sess.ID, Title: sess.Title, ParentID: sess.ParentID, Attrs: sess.Attrs, Problems: byPath[rel], Notes: notes[rel]}
		if g.Problems == nil {
			g.Problems = []string{}
		}
		tr, err := s.Load(ctx, sess.ID, sessiondb.LoadOptions{Kinds: []string{sessiondb.KindMessage}})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tr {
			g.Transcript = append(g.Transcript, label(e))
		}
		log, err := s.Entries(ctx, sess.ID, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		g.LogEntries = len(log)
		cs, err := s.Compactions(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			g.Compactions = append(g.Compactions, fmt.Sprintf("keep_from=%d summary=%d tokens_before=%d", c.KeepFromSeq, len(c.Summary), c.TokensBefore))
		}
		rows, err := s.Query(ctx, `SELECT substr(created_at, 1, 10), provider, model, input_tokens, output_tokens,
			cache_read_tokens, cache_write_tokens, reasoning_tokens, cost, coalesce(seq, 0) FROM usage WHERE session_id = ? ORDER BY id`, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		g.Usage = []string{}
		for rows.Next() {
			var day, provider, model string
			var in, out, cr, cw, rs, seq int64
			var cost float64
			if err := rows.Scan(&day, &provider, &model, &in, &out, &cr, &cw, &rs, &cost, &seq); err != nil {
				t.Fatal(err)
			}
			g.Usage = append(g.Usage, fmt.Sprintf("%s %s/%s in=%d out=%d cache_read=%d cache_write=%d reasoning=%d cost=%g seq=%d",
				day, provider, model, in, out, cr, cw, rs, cost, seq))
		}
		rows.Close()
		out[rel] = g
	}
	return out
}

// CheckGoldens compares snapshots with the golden files in goldDir
// (one per source file), or rewrites them with -wild.update.
func CheckGoldens(t *testing.T, goldDir string, got map[string]Golden, want int) {
	t.Helper()
	if len(got) != want {
		names := make([]string, 0, len(got))
		for k := range got {
			names = append(names, k)
		}
		t.Fatalf("imported %d sessions, want %d: %v", len(got), want, names)
	}
	for rel, g := range got {
		name := strings.NewReplacer("/", "__").Replace(strings.TrimSuffix(rel, ".jsonl")) + ".json"
		path := filepath.Join(goldDir, name)
		b, _ := json.MarshalIndent(g, "", "  ")
		b = append(b, '\n')
		if *wildUpdate {
			if err := os.MkdirAll(goldDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run with -wild.update)", rel, err)
		}
		var exp Golden
		if err := json.Unmarshal(raw, &exp); err != nil {
			t.Fatal(err)
		}
		var cur Golden
		_ = json.Unmarshal(b, &cur)
		if d := cmp.Diff(exp, cur); d != "" {
			t.Errorf("%s (-golden +got):\n%s", rel, d)
		}
	}
}

// UsageDaily sums the usage_daily view over sessions, by day and model.
func UsageDaily(t *testing.T, s *sqlstore.Store) map[string][4]int64 {
	t.Helper()
	rows, err := s.Query(context.Background(), `SELECT day, model, sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens) FROM usage_daily GROUP BY day, model`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][4]int64{}
	for rows.Next() {
		var day, model string
		var v [4]int64
		if err := rows.Scan(&day, &model, &v[0], &v[1], &v[2], &v[3]); err != nil {
			t.Fatal(err)
		}
		out[day+" "+model] = v
	}
	return out
}
