package cursor_test

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
)

const (
	bigComposer   = "21bcf92c-5808-47db-8faa-d847cfad6512"
	smallComposer = "04fa7261-6802-4618-be42-7c4661b9821d"
	helloComposer = "03ddeba4-e704-40e5-a8a3-19223801e5ae"
)

// stateAt builds from the corpus store the state it had when the big
// composer held its first k header bubbles and, when k is small, the
// small composer did not exist yet: the later headers and their bubbles
// removed. Cursor rewrites the file in place; so does the test.
func stateAt(t *testing.T, path string, k int) {
	t.Helper()
	if err := os.WriteFile(path, mustRead(t, urpg), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := headers(t, urpg)[bigComposer]
	for _, b := range hs[k:] {
		exec(t, path, `DELETE FROM cursorDiskKV WHERE key = ?`, "bubbleId:"+bigComposer+":"+b)
	}
	exec(t, path, `UPDATE cursorDiskKV SET value = json_set(value, '$.fullConversationHeadersOnly',
		json((SELECT json_group_array(json(h.value)) FROM json_each(cursorDiskKV.value, '$.fullConversationHeadersOnly') h WHERE h.key < ?)))
		WHERE key = ?`, k, "composerData:"+bigComposer)
	if k < 13 {
		exec(t, path, `DELETE FROM cursorDiskKV WHERE key LIKE ? OR key = ?`, "bubbleId:"+smallComposer+":%", "composerData:"+smallComposer)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// snapshotOf is each session's transcript bodies and usage totals.
func snapshotOf(t *testing.T, s sessiondb.Store) map[string][]string {
	t.Helper()
	ctx := context.Background()
	list, _, err := s.List(ctx, sessiondb.ListOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, info := range list {
		var l []string
		for _, b := range entryBodies(t, s, info.Session.ID) {
			l = append(l, string(b))
		}
		u, err := s.UsageTotals(ctx, info.Session.ID)
		if err != nil {
			t.Fatal(err)
		}
		l = append(l, info.Session.Title, string(info.Session.Attrs), info.Session.CreatedAt.String(), info.Session.UpdatedAt.String())
		l = append(l, cmp.Diff(sessiondb.UsageTotals{}, sessiondb.UsageTotals{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, Calls: u.Calls}))
		out[info.Session.ID] = l
	}
	return out
}

// TestCursorGrowth imports the store at successive states (a composer
// growing bubble by bubble, another appearing), each written over the
// same file as Cursor does, and compares with one import of the final
// state: the same sessions, bodies, usage and titles. Between imports an
// unchanged composer is not read again (Report.Unchanged), and importing
// the final state twice changes nothing.
func TestCursorGrowth(t *testing.T) {
	ctx := context.Background()
	path := copyStore(t, urpg)
	grown := openStore(t)
	for _, k := range []int{2, 14, 22} {
		stateAt(t, path, k)
		rep, err := jsonlimport.Import(ctx, grown, []string{path}, jsonlimport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Problems {
			t.Errorf("state %d: problem %v", k, p)
		}
		if k > 2 && rep.Unchanged < 1 {
			t.Errorf("state %d: %d sessions imported, none unchanged (the hello composer did not change)", k, rep.Sessions)
		}
	}
	once := openStore(t)
	if _, err := jsonlimport.Import(ctx, once, []string{urpg}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	want, got := snapshotOf(t, once), snapshotOf(t, grown)
	if len(want) != 3 {
		t.Fatalf("one import: %d sessions", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("grown store differs from one import of the final state (-once +grown):\n%s", d)
	}
	rep, err := jsonlimport.Import(ctx, grown, []string{path}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unchanged != 3 || rep.Entries != 0 {
		t.Errorf("importing the final state again: %d unchanged, %d entries", rep.Unchanged, rep.Entries)
	}
}
