package zot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/zot"
)

// zotRandomGolden is one testdata/zot-random/sets/*/expected/*.json file:
// what zot's own readers (OpenSession, SessionUsage, DescribeSessions)
// returned for one session file of a randomly generated set.
type zotRandomGolden struct {
	File               string            `json:"file"`
	OpenSessionMeta    zot.Meta          `json:"open_session_meta"`
	OpenSessionCount   int               `json:"open_session_message_count"`
	OpenSessionMessage []json.RawMessage `json:"open_session_messages"`
	SessionUsage       zot.Usage         `json:"session_usage"`
	Describe           struct {
		Title        string `json:"Title"`
		MessageCount int    `json:"MessageCount"`
	} `json:"describe_sessions_entry"`
}

// zotRandomDiffs compares every session of the set directory whose file
// is dir or under it (zot_home, or one export file) with zot's answers in set/expected and
// returns one line per difference, prefixed with its class (transcript,
// title, parent, meta, usage, load).
func zotRandomDiffs(t *testing.T, store sessiondb.Store, set, dir string) []string {
	t.Helper()
	ctx := context.Background()
	files, err := filepath.Glob(filepath.Join(set, "expected", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var diffs []string
	for _, f := range files {
		var g zotRandomGolden
		zotReadJSON(t, f, &g)
		if g.File != dir && !strings.HasPrefix(g.File, dir+"/") {
			continue
		}
		add := func(class, format string, a ...any) {
			diffs = append(diffs, fmt.Sprintf("%s %s: %s", class, g.File, fmt.Sprintf(format, a...)))
		}
		id := g.OpenSessionMeta.ID
		got, err := store.Load(ctx, id, sessiondb.LoadOptions{})
		if err != nil {
			add("load", "%v", err)
			continue
		}
		if len(got) != g.OpenSessionCount {
			add("transcript", "%d messages, zot loads %d", len(got), g.OpenSessionCount)
		}
		if d := cmp.Diff(zotRawJSON(t, g.OpenSessionMessage), zotHydratedJSON(t, got)); d != "" {
			add("transcript", "(-zot +store):\n%s", d)
		}
		sess, err := store.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if sess.Title != g.Describe.Title {
			add("title", "%q, zot's listing %q", sess.Title, g.Describe.Title)
		}
		m := g.OpenSessionMeta
		if sess.ParentID != m.Parent || sess.ForkSeq != int64(m.ForkPoint) {
			add("parent", "%q/%d, zot %q/%d", sess.ParentID, sess.ForkSeq, m.Parent, m.ForkPoint)
		}
		var attrs map[string]string
		if err := json.Unmarshal(sess.Attrs, &attrs); err != nil {
			t.Fatalf("attrs %s: %v", sess.Attrs, err)
		}
		want := map[string]string{"cwd": m.CWD, "model": m.Model, "provider": m.Provider, "version": m.Version}
		if d := cmp.Diff(want, attrs); d != "" || !sess.CreatedAt.Equal(m.Started) {
			add("meta", "created %v, zot %v; attrs (-zot +store):\n%s", sess.CreatedAt, m.Started, d)
		}
		tot, err := store.UsageTotals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if u := zotUsageOf(tot); u != g.SessionUsage {
			add("usage", "%+v, zot's SessionUsage %+v", u, g.SessionUsage)
		}
	}
	return diffs
}

// TestZotRandom imports each randomly generated zot home of
// testdata/zot-random (written by zot's own internal/core from a seeded
// PRNG; see the README there) and checks every session against what zot's
// own loader returned for it.
func TestZotRandom(t *testing.T) {
	sets, err := filepath.Glob(filepath.Join(zotTestdata, "zot-random", "sets", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) < 30 {
		t.Fatalf("%d random sets, want at least 30", len(sets))
	}
	for _, set := range sets {
		t.Run(filepath.Base(set), func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(set, "expected")); err != nil {
				t.Fatal(err)
			}
			store := jsonltest.OpenStore(t)
			rep := zotImport(t, store, filepath.Join(set, "zot_home"))
			if rep.Files == 0 {
				t.Fatalf("nothing imported: %+v", rep)
			}
			for _, d := range zotRandomDiffs(t, store, set, "zot_home") {
				t.Error(d)
			}
			// Exports keep the source's session id (two exports of one
			// session share it), so each goes into a store of its own.
			exports, err := filepath.Glob(filepath.Join(set, "exports", "*"+zot.Ext))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range exports {
				es := jsonltest.OpenStore(t)
				zotImport(t, es, e)
				for _, d := range zotRandomDiffs(t, es, set, "exports/"+filepath.Base(e)) {
					t.Error(d)
				}
			}
		})
	}
}
